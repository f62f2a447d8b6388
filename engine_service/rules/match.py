"""One game API for both variants: a match is a sequence of hands (HHL) or rounds
(Domeng), each dealt from the match's seeded generator or scripted by an explicit deal.

The per-variant classes (hhl.HHLMatch, domeng.DomengMatch) supply the deal shape, the
hand/round state, scoring between hands and the end of the match; everything shared —
turn order, refusing moves before any change, events, views and records — is here once.
"""

import random

from . import events as ev
from .errors import MATCH_OVER, IllegalMove, MalformedInput, shown
from .events import DEAL_OVER, DEAL_START, Event, new_event
from .events import MATCH_OVER as MATCH_OVER_EVENT
from .moves import Move
from .options import Option, normalize
from .tiles import FULL_SET, TEXT, TILES, mask_of, parse_tiles, tiles_of

RECORD_FORMAT = "domino-record/1"
MAX_SEED = 2**63 - 1   # a seed is a signed 64-bit integer everywhere it is stored or sent


def coerce_move(move) -> Move:
    """Accept a Move, its text ("3-1 left") or its dict form ({"play": "3-1", "at": ...})."""
    if isinstance(move, Move):
        return move
    if isinstance(move, dict):
        return Move.from_dict(move)
    return Move.parse(move)


# The shuffle's steps, from the top: (i, n = i + 1, n.bit_length()).
_SHUFFLE_STEPS = tuple((i, i + 1, (i + 1).bit_length()) for i in range(len(TILES) - 1, 0, -1))


def shuffled_tiles(rng: random.Random) -> list:
    """``rng.shuffle(list(TILES))``, drawing the very same numbers: the same Fisher-Yates
    from the top, each index by ``Random._randbelow``'s rejection loop on ``getrandbits``,
    without shuffle's two Python frames per tile (every deal is shuffled, so every seeded
    match and record depends on this being exact; tests/rules/test_fast_paths.py checks it)."""
    tiles = list(TILES)
    bits = rng.getrandbits
    for i, n, k in _SHUFFLE_STEPS:
        j = bits(k)
        while j >= n:
            j = bits(k)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def ranking_of(values: list[int], best_high: bool) -> list[list[int]]:
    """Seats grouped by place, best first; equal values share a place."""
    order = sorted(set(values), reverse=best_high)
    return [[s for s, v in enumerate(values) if v == x] for x in order]


class Deal:
    """A hand's deal and what became of it: the tiles, the live state, the result."""

    __slots__ = ("hands", "rest", "state", "result")

    def __init__(self, hands, rest, state):
        self.hands, self.rest, self.state, self.result = hands, rest, state, None


class Match:
    variant: str
    title: str    # the game's name, e.g. "Homo Homini Lupus"
    num_seats: int
    hand_size: int
    rest_key: str  # "stock" (HHL) or "sleeping" (Domeng)
    OPTIONS: tuple[Option, ...]   # the variant's rules options, with their ranges

    def __init__(self, options=None, seed=0, deals=None):
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            raise MalformedInput(f"seed must be an integer 0..2^63-1, got {shown(seed)}", "seed")
        self.options = self._normalize_options(options or {})
        self.seed = seed
        self._rng = random.Random(seed)
        if deals is not None and not isinstance(deals, list):
            raise MalformedInput("deals must be a list of deals", "deals")
        self._scripted = [self._parse_deal(d, i) for i, d in enumerate(deals or [])]
        self.deals: list[Deal] = []
        self.events: list[ev.Event] = []
        self.result: dict | None = None
        # ``over`` (result is set) and ``to_move`` (the live deal's turn, None once over)
        # are plain attributes that only play() and the start of a hand change: every
        # driving loop reads both on every move, and a property there costs a Python call.
        self.over = False
        self.to_move: int | None = None
        self._hand_first_event = 0
        self._time_up = False
        self._begin_hand()

    # ----- options and deals -------------------------------------------------------
    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {o.name: o for o in cls.OPTIONS}

    def _normalize_options(self, options: dict) -> dict:
        out = normalize(self.OPTIONS, self.variant, options)  # rules/options.py: the profile
        return self._check_options(out, options)

    def _check_options(self, options: dict, given: dict) -> dict:
        """Per-variant adjustments, knowing which options the caller gave."""
        return options

    def _parse_deal(self, deal, index: int):
        try:
            return self._parse_deal_of(deal, index)
        except MalformedInput as e:
            raise MalformedInput(e.message, f"deals[{index}]") from None

    def _parse_deal_of(self, deal, index: int):
        what = f"deal {index}"
        if not isinstance(deal, dict) or "hands" not in deal:
            raise MalformedInput(f"{what} must be an object with 'hands' and '{self.rest_key}'")
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != self.num_seats:
            raise MalformedInput(f"{what}: 'hands' must list {self.num_seats} hands")
        hands = [parse_tiles(h, f"{what} hand {s}") for s, h in enumerate(hands)]
        for s, h in enumerate(hands):
            if len(h) != self.hand_size:
                raise MalformedInput(f"{what} hand {s}: {len(h)} tiles, a hand is {self.hand_size}")
        rest = parse_tiles(deal.get(self.rest_key, []), f"{what} {self.rest_key}")
        every = [t for h in hands for t in h] + rest
        if len(every) != len(TILES) or mask_of(every) != FULL_SET:
            dup = sorted({TEXT[t] for t in every if every.count(t) > 1})
            missing = [TEXT[t] for t in tiles_of(FULL_SET & ~mask_of(every))]
            raise MalformedInput(
                f"{what} is not the full double-six set: duplicated {dup}, missing {missing}"
            )
        return hands, rest

    def _deal_tiles(self):
        # Shuffle even when the deal is scripted, so that deal i of a seed is the same
        # whether or not the deals before it were given (a replayed record continues
        # exactly like the original match).
        tiles = shuffled_tiles(self._rng)
        if len(self.deals) < len(self._scripted):
            return self._scripted[len(self.deals)]
        k = self.hand_size
        cut = range(0, self.num_seats * k, k)
        return [tiles[i:i + k] for i in cut], tiles[cut.stop:]

    # ----- the flow of a match -----------------------------------------------------
    def _begin_hand(self) -> ev.Event:
        hands, rest = self._deal_tiles()
        state = self._new_state(hands, rest)
        self.deals.append(Deal(hands, rest, state))
        self._state = state
        self.to_move = state.turn
        info = {"deal": len(self.deals) - 1, "leader": state.turn, **self._start_info()}
        start = new_event(Event, (DEAL_START, None, None, tuple(map(tuple, hands)), (), info))
        self._hand_first_event = len(self.events)
        self.events.append(start)
        return start

    @property
    def position(self):
        """The live state of the current deal (an HHL hand, a Domeng round)."""
        return self._state


    def legal_moves(self, seat: int) -> list[Move]:
        state = self._state
        if seat != state.turn:  # every seat, once over: a finished deal has no turn
            return []
        return state.legal_moves()

    def play(self, seat: int, move) -> list[ev.Event]:
        """Apply one chosen move and all that follows automatically; return the events.

        Refuses (IllegalMove / MalformedInput) before changing anything.
        """
        state = self._state
        if type(seat) is not int or seat != state.turn:
            # Not the seat to move (the seat to move is a valid seat of a live match: no
            # more to check for it), or no seat is, the match being over.
            if type(seat) is not int or not 0 <= seat < self.num_seats:
                raise MalformedInput(f"seat must be 0..{self.num_seats - 1}, got {shown(seat)}")
            if self.result is not None:
                raise IllegalMove(MATCH_OVER, "the match is over")
        events = state.events
        first = len(events)
        state.play(seat, move if type(move) is Move else coerce_move(move))
        new = events[first:]
        self.events += new
        if state.over:
            new += self._finish_hand()
            state = self._state  # the next hand's, unless the match is over
        self.to_move = state.turn
        return new

    def time_up(self):
        """The match's time is up: it ends when the hand in progress is finished."""
        self._time_up = True

    def _finish_hand(self) -> list[ev.Event]:
        """Settle the finished hand, then end the match or deal the next hand."""
        deal = self.deals[-1]
        deal.result, extra = self._settle(deal.state)
        out = [new_event(Event, (DEAL_OVER, None, None, (), (), deal.result)), *extra]
        self.events += out
        if self._match_is_over():
            self.result = self._match_result()
            self.over = True
            out.append(new_event(Event, (MATCH_OVER_EVENT, None, None, (), (), self.result)))
            self.events.append(out[-1])
        else:
            out.append(self._begin_hand())
        return out

    # ----- views and records -------------------------------------------------------
    @property
    def deal_events(self) -> list:
        """The events of the deal in play (or the last one), first to last: a view's
        history, before it is cut for a seat."""
        return self.events[self._hand_first_event:]

    def view(self, seat: int | None = None, history: bool = True) -> dict:
        """What one seat (or a spectator, seat None) may see; never a hidden tile.
        history=False leaves out "history" and "legal_moves", for a caller that has both
        already (the engine: deal_events, and the legal moves it keeps per version)."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self.num_seats):
            raise MalformedInput(f"seat must be 0..{self.num_seats - 1}, got {shown(seat)}")
        state = self._state
        v = {
            "variant": self.variant,
            "seat": seat,
            "deal_number": len(self.deals) - 1,
            "turn": self.to_move,
            "over": self.over,
            # The rules options in force (the profile among them): a look-ahead built from
            # this view plays the match's own rules (rules/playout.py from_view).
            "options": dict(self.options),
            "counts": [h.bit_count() for h in state.hands],
            **state.public_view(),
            **self._score_view(),
            # Only the latest finished hand: the totals carry the rest, and a view must not
            # grow with the length of the match.
            "last_result": next((d.result for d in reversed(self.deals[-2:]) if d.result), None),
        }
        if history:
            v["history"] = [e.to_dict(seat) for e in self.deal_events]
        if seat is not None:
            v["hand"] = [TEXT[t] for t in tiles_of(state.hands[seat])]
            if history:
                v["legal_moves"] = [str(m) for m in self.legal_moves(seat)]
            v.update(state.private_view(seat))
        if self.result is not None:
            v["result"] = self.result
        return v

    def record(self, seats=None) -> dict:
        """The full domino-record/1 document, hidden tiles included (docs/records.md)."""
        deals = []
        for d in self.deals:
            entry = {
                "hands": [[TEXT[t] for t in h] for h in d.hands],
                self.rest_key: [TEXT[t] for t in d.rest],
                "moves": [e.to_record() for e in d.state.events],
            }
            if d.result is not None:
                entry["result"] = d.result
            deals.append(entry)
        rec = {
            "format": RECORD_FORMAT,
            "variant": self.variant,
            "options": dict(self.options),
            "seed": self.seed,
            "seats": list(seats) if seats else [f"seat{s}" for s in range(self.num_seats)],
            "deals": deals,
        }
        if self.result is not None:
            rec["result"] = self.result
        return rec

    # ----- per-variant hooks -------------------------------------------------------
    def _new_state(self, hands, rest):
        raise NotImplementedError

    def _start_info(self) -> dict:
        return {}

    def _settle(self, state) -> tuple[dict, list[ev.Event]]:
        raise NotImplementedError

    def _match_is_over(self) -> bool:
        raise NotImplementedError

    def _match_result(self) -> dict:
        raise NotImplementedError

    def _score_view(self) -> dict:
        raise NotImplementedError
