"""A match resumed at the start of one of its deals, without replaying the deals before it.

A forked match (fork.py) starts after N plays of a record. Replaying those N plays on
every restart, and keeping every finished deal with its events in memory, made a fork
of a long record cost what the whole record costs, again and again. What a deal's start
inherits from the deals before it is small: the scores (HHL totals; Domeng stones,
CAMAT, the cycles so far), how many deals were dealt, the latest result, and where the
seeded generator stands. `carry_of` takes that at a deal's start; `resume` builds the
match there from it, and the deals from that one on.

The Match classes keep no such snapshot of their own, so this module reads and sets
their fields (match.py Match, hhl.HHLMatch, domeng.DomengMatch): it is the one place
outside those classes that knows them. tests/rules/test_resume.py plays resumed and
replayed matches side by side (views, events, legal moves, results, for both games), so
a change of those fields fails there first; and fork.py compares the two at every fork
point before a fork is stored. What the rules core would offer instead: a
`Match.carry()` and a `new_match(..., resume=carry)` of its own.
"""

from __future__ import annotations

import base64
import random
import struct

from .domeng import DomengMatch, Stones
from .errors import MalformedInput
from .hhl import HHLMatch
from .match import Deal, Match
from .tiles import TEXT, TILES, parse_tiles

_CLASSES = {cls.variant: cls for cls in (HHLMatch, DomengMatch)}

# ----- deals as text --------------------------------------------------------------------------
# A deal is an order of the 28 tiles (the hands in seat order, then the rest): its rank
# among the 28! orders, written with DIGITS (the 92 printable ASCII characters that JSON
# needs not escape), takes DEAL_CHARS characters; a long record's deals cost that each.
DIGITS = "".join(chr(c) for c in range(33, 127) if chr(c) not in '"\\')
DEAL_CHARS = 16
_VALUE = {c: i for i, c in enumerate(DIGITS)}
_N = len(TILES)


def _pack_order(order: list[int]) -> str:
    left, rank = list(range(_N)), 0
    for t in order:              # a mixed-radix number, radix 28, 27, ..., 1
        i = left.index(t)
        rank = rank * len(left) + i
        del left[i]
    digits = []
    for _ in range(DEAL_CHARS):
        rank, d = divmod(rank, len(DIGITS))
        digits.append(DIGITS[d])
    return "".join(reversed(digits))


def _unpack_order(text: str) -> list:
    rank = 0
    for c in text:
        rank = rank * len(DIGITS) + _VALUE[c]
    picks = []
    for radix in range(1, _N + 1):
        rank, i = divmod(rank, radix)
        picks.append(i)
    left = list(TILES)
    return [left.pop(i) for i in reversed(picks)]


def pack_deals(deals: list[tuple[list, list]]) -> str:
    """Parsed deals ((hands, rest) of tile ints) as text, DEAL_CHARS a deal."""
    return "".join(_pack_order([t for h in (*hands, rest) for t in h]) for hands, rest in deals)


def unpack_deal(text: str, index: int, seats: int, hand_size: int) -> tuple[list, list]:
    """Deal `index` of `text` (pack_deals) as the rules parse a deal: (hands, rest)."""
    chunk = text[index * DEAL_CHARS:(index + 1) * DEAL_CHARS]
    if len(chunk) != DEAL_CHARS:
        raise MalformedInput(f"no deal {index} in the packed deals")
    tiles = _unpack_order(chunk)
    n = seats * hand_size
    return [tiles[s * hand_size:(s + 1) * hand_size] for s in range(seats)], tiles[n:]


def pack_deal_dicts(deals: list[dict], rest_key: str) -> str:
    """Deal objects of a record ("hands" and the rest, as tile texts) as text."""
    return pack_deals([([parse_tiles(h, "hand") for h in d["hands"]],
                        parse_tiles(d.get(rest_key, []), rest_key)) for d in deals])


def deal_dicts(text: str, variant: str) -> list[dict]:
    """Packed deals as a record's deal objects ("hands" and the rest, as tile texts)."""
    cls = _CLASSES[variant]
    out = []
    for i in range(len(text) // DEAL_CHARS):
        hands, rest = unpack_deal(text, i, cls.num_seats, cls.hand_size)
        out.append({"hands": [[TEXT[t] for t in h] for h in hands],
                    cls.rest_key: [TEXT[t] for t in rest]})
    return out


class PackedDeals:
    """The scripted deals of a resumed match, unpacked one at a time as each is dealt:
    a long record's deals cost DEAL_CHARS characters each, not lists of tiles."""

    __slots__ = ("_text", "_seats", "_hand_size", "_count")

    def __init__(self, text: str, seats: int, hand_size: int):
        self._text, self._seats, self._hand_size = text, seats, hand_size
        self._count = len(text) // DEAL_CHARS

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int):
        return unpack_deal(self._text, index, self._seats, self._hand_size)


class FinishedDeals:
    """Match.deals of a resumed match: the deals before the resume point stand for
    themselves by their count (a match ends after so many hands) and the latest result
    (a view shows it); the deals from the resume point on are the rules' own."""

    __slots__ = ("_skipped", "_last", "_kept")
    _GONE = Deal((), (), None)

    def __init__(self, skipped: int, last_result: dict | None):
        self._skipped = skipped
        self._last = Deal((), (), None)
        self._last.result = last_result
        self._kept: list[Deal] = []

    def __len__(self) -> int:
        return self._skipped + len(self._kept)

    def append(self, deal: Deal) -> None:
        self._kept.append(deal)

    def _at(self, i: int) -> Deal:
        if i >= self._skipped:
            return self._kept[i - self._skipped]
        return self._last if i == self._skipped - 1 else self._GONE

    def __getitem__(self, index):
        n = len(self)
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("deal index out of range")
        return self._at(index)

    def __iter__(self):
        return (self._at(i) for i in range(len(self)))

    def __reversed__(self):
        return (self._at(i) for i in range(len(self) - 1, -1, -1))


# ----- the generator's place ----------------------------------------------------------------
def rng_text(rng: random.Random) -> str:
    """A random.Random's state as text (about 3.4 kB)."""
    version, state, gauss = rng.getstate()
    if version != 3 or gauss is not None or len(state) != 625:
        raise ValueError("an unexpected random.Random state")
    return base64.b64encode(struct.pack("<625I", *state)).decode()


def rng_of(text: str) -> random.Random:
    rng = random.Random()
    rng.setstate((3, struct.unpack("<625I", base64.b64decode(text)), None))
    return rng


# ----- what a deal's start inherits -------------------------------------------------------
def carry_of(m: Match) -> dict | None:
    """What the deal in play inherits from the deals before it (None for the first deal):
    call it at the deal's start, before its first play. JSON values; "rng" (the
    generator's state, 3.4 kB) may be left out of what resume is given."""
    deals = len(m.deals) - 1
    if deals == 0:
        return None
    carry = {"deal": deals, "last_result": m.deals[-2].result,
             "rng": rng_text(m._rng)}
    if isinstance(m, HHLMatch):
        carry["totals"] = list(m.totals)
    elif isinstance(m, DomengMatch):
        carry.update(table=m.stones.table, held=list(m.stones.held), camat=m.camat,
                     prev_winner=m.prev_winner, cycle_rounds=m.cycle_rounds,
                     cycles=[dict(c) for c in m.cycles])
    else:
        raise TypeError(f"no carry for {type(m).__name__}")
    return carry


def resume(variant: str, options: dict, seed: int, deals: str, carry: dict | None) -> Match:
    """The match of (variant, options, seed) at the start of deal carry["deal"], with the
    packed `deals` (pack_deals) from that one on scripted, as if every deal before it had
    been played to what `carry` says. carry None: the match's first deal."""
    cls = _CLASSES[variant]
    if carry is None:
        # The first deal: dealt as new_match(deals=...) deals it; the later ones are
        # unpacked as they come.
        hands, rest = unpack_deal(deals, 0, cls.num_seats, cls.hand_size)
        m = cls(options, seed, [{"hands": [list(h) for h in hands], cls.rest_key: rest}])
        m._scripted = PackedDeals(deals, cls.num_seats, cls.hand_size)
        return m
    k = carry["deal"]
    m = cls(options, seed)
    m._scripted = _Offset(PackedDeals(deals, cls.num_seats, cls.hand_size), k)
    m.deals = FinishedDeals(k, carry["last_result"])
    m.events = []
    if isinstance(m, HHLMatch):
        m.totals = list(carry["totals"])
    else:
        m.stones = Stones(carry["table"], carry["held"])
        m.camat, m.prev_winner = carry["camat"], carry["prev_winner"]
        m.cycle_rounds, m.cycles = carry["cycle_rounds"], [dict(c) for c in carry["cycles"]]
    m._begin_hand()
    # The shuffle _begin_hand just made is not the one deal k had (a scripted deal does
    # not use it): the generator goes back to where it stood once deal k was dealt, as
    # carried, or found again by dealing k + 1 deals from the seed (a millisecond or so
    # a hundred deals: for a caller that does not keep the carried state).
    m._rng = rng_of(carry["rng"]) if "rng" in carry else _after_deals(cls, options, seed, k)
    return m


def _after_deals(cls, options: dict, seed: int, k: int) -> random.Random:
    scratch = cls(options, seed)          # deal 0
    for _ in range(k):
        scratch._deal_tiles()             # deals 1..k, as the rules draw them
    return scratch._rng


class _Offset:
    """Deals numbered from the match's first deal, of which only those from `first` on
    are held (the rules ask for deal len(match.deals))."""

    __slots__ = ("_deals", "_first")

    def __init__(self, deals: PackedDeals, first: int):
        self._deals, self._first = deals, first

    def __len__(self) -> int:
        return self._first + len(self._deals)

    def __getitem__(self, index: int):
        return self._deals[index - self._first]
