"""What one seat knows about the hidden tiles, read from its view dict alone.

Never from the match: a bot over the wire has only its view, and so does this module. It
is pure (standard library, no I/O), so both the bots (bots/strategies) and the engine's
world sampler (worlds.py, the SampleWorlds call) use it.

Hidden tiles sit in the other seats' hands and in the rest (the HHL stock, the three
Domeng sleeping tiles). What narrows them down:

* counts: every seat's tile count and the stock count are public;
* voids: a seat that draws (HHL-6) or passes (HHL-6, DOM-5) holds no tile showing an
  open end number at that moment. In HHL a seat can later draw tiles that do show those
  numbers, so a void binds only the tiles the seat held then. We therefore keep each
  seat's tiles in *batches* by when they arrived (the deal, then each draw) and give
  each batch the numbers it is known to lack. A tile played later came out of one of
  the batches, but we do not know which: ``compositions`` lists every split of the
  current hand over the batches that leaves room for the tiles already played (a small
  matching), so a sample can pick one and stay sound; ``arrangements`` counts the ways a
  guessed hand and the played tiles can have arrived in the batches, a world's weight in
  the posterior the world sampler draws from (worlds.py);
* openings: HHL-2 opens with the lowest double dealt, so every lower double was in the
  stock at the deal (never in a dealt batch); DOM-2 leads the first round with the
  highest of 6-6..3-3 dealt, so every higher one of those sleeps. Read literally
  (first_lead=any, in the view's options) the first leader lays any tile: its lead tells
  nothing, and only the leader itself knows which doubles sleep (those above its own
  highest); the joint fact the others could use (no other seat was dealt a double above
  the leader's) is no per-seat exclusion, and the world sampler weighs it (worlds.py).

Numbers are kept as 7-bit masks (bit v = number v), tiles as 28-bit masks as in
tiles.py.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product

from .domeng import FIRST_LEAD
from .events import KINDS
from .options import of_view
from .tiles import DOUBLE_OF, FITS, HI, LO, OTHER, TILES, Tile, mask_of, tiles_of

ALL_TILES = (1 << len(TILES)) - 1
HHL_ARMS = ("left", "right", "up", "down")
DOMENG_ENDS = ("left", "right")
FIRST_LEADS = (DOUBLE_OF[6], DOUBLE_OF[5], DOUBLE_OF[4], DOUBLE_OF[3])  # DOM-2


def numbers_mask_fits(numbers: int) -> int:
    """The tiles showing any number in the 7-bit ``numbers`` mask."""
    m = 0
    for v in range(7):
        if numbers >> v & 1:
            m |= FITS[v]
    return m


# HEAVIER[t]: the tiles with more pips than t.
HEAVIER = tuple(sum(1 << x for x in TILES if HI[x] + LO[x] > HI[t] + LO[t]) for t in TILES)


SAME_PIPS = tuple(sum(1 << x for x in TILES if HI[x] + LO[x] == HI[t] + LO[t]) for t in TILES)


def _listed_before(t: int, at, ends, places: tuple[str, ...]) -> int:
    """The tiles a heaviest-first player would have chosen over ``t`` had it held them:
    heavier ones that fit, and equally heavy ones listed before it (legal moves are
    listed end by end, tiles ascending, and ties go to the first)."""
    lower = (1 << t) - 1
    if at is None:  # a free lead (DOM-3): any tile of the hand
        return HEAVIER[t] | (SAME_PIPS[t] & lower)
    i = places.index(at)
    fits_open = numbers_mask_fits(_ends_bits(ends))
    earlier = numbers_mask_fits(_ends_bits(ends[:i])) | (FITS[ends[i]] & lower)
    return (HEAVIER[t] & fits_open) | (SAME_PIPS[t] & earlier)


@dataclass
class Batch:
    """Tiles a seat received together (its deal, or one draw): how many, and what no
    tile of the batch can be (``voids``: numbers; ``excluded``: single tiles)."""

    size: int
    voids: int = 0
    excluded: int = 0

    @property
    def forbidden(self) -> int:
        return numbers_mask_fits(self.voids) | self.excluded


@dataclass
class SeatKnowledge:
    count: int
    batches: list[Batch] = field(default_factory=list)
    # tiles the seat played out of a batch: (tile, indices of the batches it may have come from)
    played: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    compositions: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def voids(self) -> int:
        """Numbers the seat surely holds none of now: shared by every batch that may
        still hold a tile."""
        live = [i for i in range(len(self.batches)) if any(c[i] for c in self.compositions)]
        out = 0x7F
        for i in live:
            out &= self.batches[i].voids
        return out if live else 0x7F

    @property
    def forbidden(self) -> int:
        """Tiles the seat surely does not hold (outside what it can be seen to hold)."""
        live = [i for i in range(len(self.batches)) if any(c[i] for c in self.compositions)]
        out = ALL_TILES
        for i in live:
            out &= self.batches[i].forbidden
        return out if live else ALL_TILES


@dataclass
class Knowledge:
    variant: str
    seat: int
    num_seats: int
    hand: int  # own tiles (mask)
    laid: int  # tiles on the table, barricades included (mask)
    unseen: int  # every tile the seat cannot see (mask)
    counts: list[int]
    rest_count: int  # HHL stock / Domeng sleeping
    ends: list[int | None]  # open end numbers; None for a closed arm (or before the lead)
    seats: list[SeatKnowledge | None]  # None for the seat itself
    drawn: int | None = None  # the tile this seat drew and must play (HHL-6)

    def voids(self, seat: int) -> int:
        k = self.seats[seat]
        return 0 if k is None else k.voids

    def open_numbers(self) -> int:
        m = 0
        for e in self.ends:
            if e is not None:
                m |= 1 << e
        return m

    def hidden_slots(self) -> int:
        return sum(c for s, c in enumerate(self.counts) if s != self.seat) + self.rest_count


class KnowledgeError(ValueError):
    """The view contradicts itself (or this module has a bug): no sound knowledge."""


def _ends_bits(ends) -> int:
    m = 0
    for e in ends:
        if e is not None:
            m |= 1 << e
    return m


@dataclass(frozen=True)
class _Layout:
    """What a variant's view looks like to this module: where tiles are played (the HHL
    arms, the Domeng ends), how many tiles a hand is dealt, which tiles lie on the table,
    how many tiles the rest holds, and the open ends once the lead is down."""

    places: tuple[str, ...]
    hand_size: int
    laid: Callable[[dict], int]
    rest_count: Callable[[dict], int]
    opening_ends: Callable[[int], list[int | None]]


def _hhl_laid(view) -> int:
    laid = mask_of(Tile.parse(x["tile"]) for a in HHL_ARMS for x in view["arms"][a]["tiles"])
    if view.get("spinner"):
        laid |= 1 << Tile.parse(view["spinner"])
    return laid


def _domeng_laid(view) -> int:
    return mask_of(Tile.parse(x["tile"]) for x in view["line"])


LAYOUTS = {
    # HHL-1: 6 tiles a hand, 4 in the stock; HHL-3: the spinner opens four arms at its number
    "hhl": _Layout(HHL_ARMS, 6, _hhl_laid, lambda view: view["stock"],
                   lambda t: [HI[t]] * len(HHL_ARMS)),
    # DOM-1: 5 tiles a hand, 3 sleeping; DOM-4: a line with two ends (the lead lies
    # high-low, docs/rules.md)
    "domeng": _Layout(DOMENG_ENDS, 5, _domeng_laid, lambda view: 3, lambda t: [HI[t], LO[t]]),
}


def from_view(view, assume_heaviest_first: bool = False) -> Knowledge:
    """The seat's knowledge. With ``assume_heaviest_first`` it also assumes that every
    other seat, when it chose a tile, held no playable tile with more pips (the way
    greedy players play); that is a guess about the players, not a fact, and callers
    must be ready to fall back when it contradicts the view (KnowledgeError, or
    determinize.NoConsistentWorld)."""
    layout = LAYOUTS[view["variant"]]
    me, counts = view["seat"], list(view["counts"])
    hand = mask_of(Tile.parse(x) for x in view["hand"])
    laid = layout.laid(view)
    unseen = ALL_TILES & ~hand & ~laid
    seats: list[SeatKnowledge | None] = [
        None if s == me else SeatKnowledge(counts[s], [Batch(layout.hand_size)]) for s in range(len(counts))
    ]
    history = view["history"]
    _exclude_undealt_leads(view, history, seats)
    walk = _Walk(view, layout, seats, _heaviest_first_seats(history, len(counts), assume_heaviest_first))
    for idx, e in enumerate(history):
        walk.event(idx, e)
    _split_hands(seats)
    drawn = Tile.parse(view["drawn"]) if view.get("drawn") else None
    know = Knowledge(view["variant"], me, len(counts), hand, laid, unseen, counts, layout.rest_count(view),
                     walk.ends, seats, drawn)
    if unseen.bit_count() != know.hidden_slots():
        raise KnowledgeError(
            f"{unseen.bit_count()} unseen tiles but {know.hidden_slots()} hidden places in the view"
        )
    return know


def _split_hands(seats) -> None:
    """Every seat's possible splits of its hand over its batches (``compositions``)."""
    for s, k in enumerate(seats):
        if k is None:
            continue
        k.compositions = _compositions(k)
        if not k.compositions:
            raise KnowledgeError(f"seat {s}: no split of its {k.count} tiles over its batches fits its plays")


def free_first_lead(view) -> bool:
    """DOM-2 read literally (first_lead=any): a match's first Domeng round is led with any
    tile, so its lead is no sign of which doubles were dealt."""
    return (view["variant"] == "domeng" and view["deal_number"] == 0
            and of_view(view, FIRST_LEAD) == FIRST_LEAD.literal)


def _exclude_undealt_leads(view, history, seats) -> None:
    """The opening lead tells what was not dealt: every double below the HHL spinner was in
    the stock (HHL-2); in a match's first Domeng round every one of 6-6..3-3 above the lead
    sleeps (DOM-2). Only the dealt batch is bound: a later draw may bring such a double.
    DOM-2 read literally, only the leader knows: the ones above its own highest sleep."""
    if free_first_lead(view):
        _exclude_above_own_lead(view, history, seats)
        return
    first_play = next((e for e in history if e["kind"] == "play"), None)
    if first_play is None:
        return
    lead = Tile.parse(first_play["play"])
    if view["variant"] == "hhl":
        undealt = mask_of(DOUBLE_OF[v] for v in range(HI[lead]))
    elif view["deal_number"] == 0 and lead in FIRST_LEADS:
        undealt = mask_of(FIRST_LEADS[:FIRST_LEADS.index(lead)])
    else:
        return
    for k in seats:
        if k is not None:
            k.batches[0].excluded |= undealt


def _exclude_above_own_lead(view, history, seats) -> None:
    """DOM-2 read literally, seen by the first round's leader: it was dealt the highest of
    6-6..3-3 dealt (whatever it led), so the ones above its own highest sleep, in no hand.
    Its dealt tiles are its hand and what it laid (Domeng has no draw)."""
    start = next((e for e in history if e["kind"] == "deal_start"), None)
    me = view["seat"]
    if start is None or start.get("leader") != me:
        return
    dealt = {Tile.parse(t) for t in view["hand"]}
    dealt |= {Tile.parse(e["play"]) for e in history if e["kind"] == "play" and e["seat"] == me}
    own = next((d for d in FIRST_LEADS if d in dealt), None)
    if own is None:
        raise KnowledgeError("the first round's leader holds none of 6-6, 5-5, 4-4, 3-3")
    undealt = mask_of(FIRST_LEADS[:FIRST_LEADS.index(own)])
    for k in seats:
        if k is not None:
            k.batches[0].excluded |= undealt


def _heaviest_first_seats(history, n: int, assume: bool) -> list[bool]:
    """Which seats the heaviest-first guess is made about: none unless assumed, and never a
    seat that ever barricaded (it does not play heaviest-first)."""
    barricaded = {e.get("seat") for e in history if e.get("kind") == "play" and e.get("mode") == "barricade"}
    return [assume and s not in barricaded for s in range(n)]


class _Walk:
    """The history replayed event by event: the open ends at each moment, and what each
    other seat's plays, draws and passes show of its batches."""

    def __init__(self, view, layout: _Layout, seats, model: list[bool]):
        self.view, self.layout, self.seats, self.model = view, layout, seats, model
        self.history = view["history"]
        self.ends: list[int | None] = [None] * len(layout.places)
        self.opened = False
        self.drawn_plays: set[int] = set()   # indices of plays of a tile drawn just before
        # a lead of any tile (DOM-3; DOM-2 read literally): a choice the guess may read
        self.free_lead = view["variant"] != "hhl" and (view["deal_number"] > 0 or free_first_lead(view))

    def event(self, idx: int, e) -> None:
        seat = e.get("seat")
        k = self.seats[seat] if seat is not None and 0 <= seat < len(self.seats) else None
        kind = e.get("kind")
        if kind == "play":
            self.play(idx, e, k)
        elif kind == "draw" and k is not None:
            self.draw(idx, e, k)
        elif kind == "pass" and k is not None and self.opened:
            self.void(k)
        # deal_start, deal_over, ...: nothing hidden to learn

    def play(self, idx: int, e, k: SeatKnowledge | None) -> None:
        t = Tile.parse(e["play"])
        at = e.get("at")
        if k is not None and idx not in self.drawn_plays:   # the tile just drawn: in no batch
            fits = tuple(i for i, b in enumerate(k.batches) if not (b.forbidden >> t & 1))
            k.played.append((t, fits))
            if self.model[e["seat"]] and (at is not None or self.free_lead):
                heavier = _listed_before(t, at, self.ends, self.layout.places)
                for b in k.batches:
                    b.excluded |= heavier
        if at is None:
            self.opened = True
            self.ends = self.layout.opening_ends(t)
        else:
            i = self.layout.places.index(at)
            if e.get("mode") == "barricade":
                self.ends[i] = None  # HHL-5: closed for good
            else:
                self.ends[i] = OTHER[t][self.ends[i]]

    def void(self, k: SeatKnowledge) -> int:
        """The seat could not play on the open ends: none of the tiles it holds shows one
        (HHL-6, DOM-5). Returns the ends' numbers."""
        e_bits = _ends_bits(self.ends)
        for b in k.batches:
            b.voids |= e_bits
        return e_bits

    def draw(self, idx: int, e, k: SeatKnowledge) -> None:
        e_bits = self.void(k)
        count, seat = e["count"], e["seat"]
        after = next_rules_event(self.history, idx)
        nxt = None if after is None else self.history[after]
        if nxt is not None and nxt.get("kind") == "play" and nxt.get("seat") == seat:
            # The last tile drawn fit and was played at once; the others did not fit.
            self.drawn_plays.add(after)
            if count > 1:
                k.batches.append(Batch(count - 1, e_bits))
        elif nxt is None and self.view.get("turn") == seat:
            # Seen mid-turn: the last tile drawn fits and is still in its hand.
            if count > 1:
                k.batches.append(Batch(count - 1, e_bits))
            k.batches.append(Batch(1))
        else:
            k.batches.append(Batch(count, e_bits))  # the stock ran out: none fit


def next_rules_event(history, idx: int) -> int | None:
    """The index of the first event after ``history[idx]`` that the rules made, or None.

    A view's history carries the engine's events too (timeout, absent, returned, time_up:
    docs/views.md), and one may come between a seat's draw and the play of the tile it
    drew: a timed-out seat's ``timeout`` is told just before the move the clock makes for
    it, and another seat may return at any moment. Reading the event just after a draw
    would take such a draw for one that ran the stock out, and the play after it for a
    tile that could not be in the seat's hand."""
    for j in range(idx + 1, len(history)):
        if history[j].get("kind") in KINDS:
            return j
    return None


def _compositions(k: SeatKnowledge) -> list[tuple[int, ...]]:
    """Every split (c_0, c_1, ...) of the seat's current tiles over its batches such
    that the tiles it played fit into what is left of each batch."""
    sizes = [b.size for b in k.batches]
    total = sum(sizes)
    if total != k.count + len(k.played):
        raise KnowledgeError(f"batches hold {total} tiles, the seat has {k.count} and played {len(k.played)}")
    if len(sizes) == 1:
        return [(k.count,)]
    out = []
    for c in product(*(range(s + 1) for s in sizes)):
        if sum(c) != k.count:
            continue
        room = [s - x for s, x in zip(sizes, c, strict=True)]
        if _fits(k.played, room):
            out.append(c)
    return out


def _fits(played, room) -> bool:
    """Can each played tile be put back into a batch it may have come from, within the room?"""
    return _fit_from(sorted(played, key=lambda p: len(p[1])), room, 0)


# The searches below recurse through module functions, not through a closure of their own:
# a nested function that calls itself holds itself in its closure, a reference cycle that
# only the cyclic collector frees, with everything it captured (placings' memo). A house
# bot's sampling made tens of thousands of such objects a second, and the engine's full
# collections then stopped every thread for hundreds of milliseconds (docs/arena.md).
def _fit_from(order, room, i: int) -> bool:
    if i == len(order):
        return True
    for b in order[i][1]:
        if room[b]:
            room[b] -= 1
            if _fit_from(order, room, i + 1):
                room[b] += 1
                return True
            room[b] += 1
    return False


def fits_batches(k: SeatKnowledge, tiles) -> bool:
    """Can these tiles (a guess of the seat's hand) be split over its batches under one
    of its compositions, each tile allowed by its batch?"""
    for comp in k.compositions:
        room = list(comp)
        slots = [(t, tuple(i for i, b in enumerate(k.batches) if not (b.forbidden >> t & 1))) for t in tiles]
        if _fits(slots, room):
            return True
    return False


def placings(slots, room) -> int:
    """The number of ways to put every item into one of its batches (``slots``: for each
    item, the indices of the batches that may hold it) so that batch i gets exactly
    ``room[i]`` items. The items are distinct; orders within a batch are not counted."""
    slots, room = list(slots), tuple(room)
    if len(slots) != sum(room) or min(room, default=0) < 0:
        return 0
    return placings_from(slots, {}, 0, room)


def placings_from(slots, memo: dict[tuple, int], i: int, left: tuple) -> int:
    """placings of the items from i on into the room `left` (exactly: 0 unless it all
    fills); `memo` shared by the calls on the same `slots` (a sampler draws a split item
    by item from these counts: bots/inference.py)."""
    if i == len(slots):
        return 0 if any(left) else 1
    got = memo.get((i, left))
    if got is None:
        got = sum(placings_from(slots, memo, i + 1, left[:b] + (left[b] - 1,) + left[b + 1:])
                  for b in slots[i] if left[b])
        memo[(i, left)] = got
    return got


def arrangements(k: SeatKnowledge, tiles) -> int:
    """In how many ways the seat's tiles can have arrived: the number of splits of these
    tiles (a guess of its hand) and of the tiles it played out of its batches over its
    batches, each batch getting exactly its size and each tile only a batch that may hold
    it. A world's weight in the posterior (worlds.py); 0 when the guess fits no split."""
    slots = [tuple(i for i, b in enumerate(k.batches) if not (b.forbidden >> t & 1)) for t in tiles]
    return placings(slots + [fits for _, fits in k.played], [b.size for b in k.batches])


def describe(know: Knowledge) -> str:
    """A short human summary, for debugging and docs."""
    parts = [f"seat {know.seat}: hand {' '.join(str(t) for t in tiles_of(know.hand))}"]
    for s, k in enumerate(know.seats):
        if k is None:
            continue
        voids = [v for v in range(7) if k.voids >> v & 1]
        parts.append(f"seat {s}: {k.count} tiles, lacks {voids or '-'}")
    return "; ".join(parts)
