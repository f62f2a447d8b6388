"""Homo Homini Lupus: 4 seats, 6 tiles each, 4 in the stock, a spinner with four arms,
barricade doubles, automatic draws, scored P = 25*C - 100*R (rulings HHL-1..HHL-10).

The hand state is mutable and small (hands are bit masks, arm ends are ints) so that
playouts are fast; the Match API in match.py is the only way it is driven from outside,
and it refuses a move before touching anything.

Speed (this runs every move of every match, simulation and search playout): the legal
moves come from tables, one lookup per open arm, and are kept until the state changes;
``play`` of a move from that very list skips the checks (it is legal by construction);
events are built straight from the tuple constructor (events.new_event).

Rules options (rules/options.py): ``dead_stock`` is HHL-8's reading, ``stop`` (the
ruling, the default) or ``draw`` (the text's letter, profile=literal); a position and a
playout carry it as ``draw_dead``, and every copy of them keeps it.
"""

from . import events as ev
from .errors import (
    ARM_CLOSED,
    END_MISMATCH,
    MODE_NOT_ALLOWED,
    MODE_REQUIRED,
    MUST_OPEN_WITH,
    MUST_PLAY_DRAWN_TILE,
    OPENING_HAS_NO_PLACE,
    PLACE_REQUIRED,
    MalformedInput,
    shown,
)
from .events import DRAW, PASS, PLAY, Event, new_event, plain_event
from .match import Match, ranking_of
from .moves import ARMS, BARRICADE, DOUBLE_PLACE, NORMAL, OPEN, PLACE, Move, moves_at
from .options import PROFILE, Option, of_view
from .position import Position
from .tiles import DOUBLE_OF, FITS, HI, IS_DOUBLE, OTHER, TEXT, TILES, Tile, mask_of, pips_of

SEATS = 4
HAND_SIZE = 6  # HHL-1
CLOSED = -1  # an arm end closed by a barricade (HHL-5)
# HHL-8's reading (docs/rules.md, "Where a ruling departs from the literal text"): stop, the
# ruling (nobody draws a dead stock), or draw, the text's letter (a seat that cannot play
# draws, whatever the stock holds, and the hand ends at four passes in a row).
DEAD_STOCK = Option.words(
    "dead_stock", ("stop", "draw"),
    "HHL-8 once no tile in any hand or the stock fits an open arm: stop, the hand ends at "
    "once (the ruling); draw, the next seat draws the dead stock as HHL-6 says and the hand "
    "ends at four passes in a row (the rule text's letter). All four arms barricaded ends "
    "it at once either way", literal="draw")
_ARM_INDEX = {a: i for i, a in enumerate(ARMS)}
# FITS for an arm end, open or not: a CLOSED end (-1) reads the last entry, 0 (nothing
# fits), so the hot paths need no "is it closed" test.
FITS_OR_0 = (*FITS, 0)
# _ON_LEFT[mask] (and right, up, down): the moves of the tiles of ``mask`` on that arm
# (moves.moves_at).
_ON_LEFT, _ON_RIGHT, _ON_UP, _ON_DOWN = (moves_at(i, double_modes=True) for i in range(len(ARMS)))


def _laid(t: int, v: int, barricade: bool) -> tuple:
    """(the arm's end after, the layout entry (tile, inner, outer, mode))."""
    mode = (BARRICADE if barricade else NORMAL) if IS_DOUBLE[t] else None
    return (CLOSED if barricade else OTHER[t][v]), (TILES[t], v, OTHER[t][v], mode)


# _LAID[t][v][barricade]: tile t laid on an end showing v (HHL-4; HHL-5: a double keeps the
# number, a barricade closes the arm), as _laid gives it, built once: a move allocates
# nothing that lasts but its event, which spares the garbage collector.
_LAID = tuple(tuple((_laid(t, v, False), _laid(t, v, True)) for v in range(7)) for t in TILES)
# _MOVE[t][i][barricade]: the move that lays tile t on arm i (a double normal or barricade).
_MOVE = tuple(tuple(DOUBLE_PLACE[t][i] if IS_DOUBLE[t] else (PLACE[t][i], PLACE[t][i])
                    for i in range(len(ARMS))) for t in TILES)
# _PLAYED[seat][t][i][barricade]: the event of that play; _PASSED[seat]: a pass (HHL-6).
# Built once and shared by every match (events.plain_event says why).
_PLAYED = tuple(tuple(tuple(tuple(plain_event(PLAY, seat, m) for m in _MOVE[t][i])
                            for i in range(len(ARMS))) for t in TILES) for seat in range(SEATS))
_PASSED = tuple(plain_event(PASS, seat) for seat in range(SEATS))
# _OPENED[seat][t]: the opening play of double t (HHL-2); _DREW[seat][t]: a draw of the one
# tile t (HHL-6: the most common draw). Shared the same way.
_OPENED = tuple({d: plain_event(PLAY, seat, OPEN[d]) for d in DOUBLE_OF} for seat in range(SEATS))
_DREW = tuple(tuple(new_event(Event, (DRAW, seat, None, (t,), (), None)) for t in TILES)
              for seat in range(SEATS))


class HHLPosition(Position):
    """One hand in play. ``ends[i]`` is arm i's open number, or CLOSED; None before the
    opening. ``drawn`` is the tile a seat drew and must now play (HHL-6). ``draw_dead``:
    HHL-8 read literally (dead_stock=draw), a dead stock is drawn before the hand ends."""

    __slots__ = ("hands", "stock", "stock_pos", "stock_mask", "ends", "layout", "turn",
                 "opening", "drawn", "over", "end", "winner_seat", "events", "_legal",
                 "draw_dead")

    def __init__(self, hands, stock, draw_dead: bool = False):
        self.draw_dead = draw_dead
        self.hands = masks = [mask_of(h) for h in hands]
        self.stock = list(stock)  # in draw order (HHL-1)
        self.stock_pos = 0
        self.stock_mask = mask_of(stock)
        self.layout = [[], [], [], []]  # per arm, from the spinner out: (tile, inner, outer, mode)
        self.ends = self.drawn = self.end = self.winner_seat = None
        self.over = False
        self.events: list[ev.Event] = []
        self._legal = None  # the legal moves of this state, once listed (legal_moves)
        # HHL-2: the lowest double dealt leads; at least three doubles are always dealt.
        dealt = masks[0] | masks[1] | masks[2] | masks[3]
        for d in DOUBLE_OF:
            if dealt >> d & 1:
                self.opening = d
                self.turn = next(s for s in range(SEATS) if masks[s] >> d & 1)
                return
        raise MalformedInput("the deal has no double in any hand")  # impossible for a full set

    # ----- choices -----------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        legal = self._legal
        if legal is None:
            ends = self.ends
            if self.over:
                legal = ()
            elif ends is None:
                legal = (OPEN[self.opening],)  # HHL-2
            else:
                cand = self.hands[self.turn] if self.drawn is None else 1 << self.drawn  # HHL-6
                # Arm by arm, the tiles that match its end (HHL-4), ascending; a double
                # normal, then barricade (HHL-5). A closed arm reads the empty set: no move.
                a, b, c, d = ends
                legal = (_ON_LEFT[cand & FITS_OR_0[a]] + _ON_RIGHT[cand & FITS_OR_0[b]]
                         + _ON_UP[cand & FITS_OR_0[c]] + _ON_DOWN[cand & FITS_OR_0[d]])
            self._legal = legal
        return [*legal]  # the caller's own list: the kept tuple stays as listed

    def play(self, seat: int, move: Move) -> None:
        legal = self._legal
        if legal is not None and seat == self.turn and move in legal:
            # Fast path: a move legal_moves() listed for this very state (every change
            # drops the list), so it passes every check below; lay it at once.
            t, at, mode = move
            if at is None:
                self._open(seat, t, move)
            else:
                self.lay(seat, t, _ARM_INDEX[at], mode == BARRICADE)
            return
        t, at, mode = move
        if at is not None and at not in _ARM_INDEX:
            raise MalformedInput(f"unknown arm {shown(at)}; HHL arms are {', '.join(ARMS)}")
        self._check_turn_and_tile(seat, t)
        ends = self.ends
        if ends is None:
            if t != self.opening:
                self._refuse(MUST_OPEN_WITH, f"the hand opens with the lowest double, {TEXT[self.opening]}")
            if at is not None or mode is not None:
                self._refuse(OPENING_HAS_NO_PLACE, "the opening double is the spinner: give only the tile")
            self._open(seat, t, move)
            return
        if self.drawn is not None and t != self.drawn:
            self._refuse(MUST_PLAY_DRAWN_TILE, f"seat {seat} drew {TEXT[self.drawn]} and must play it")
        if at is None:
            self._refuse(PLACE_REQUIRED, f"say which arm {TEXT[t]} goes on: {', '.join(ARMS)}")
        i = _ARM_INDEX[at]
        v = ends[i]
        if v == CLOSED:
            self._refuse(ARM_CLOSED, f"the {at} arm is closed by a barricade")
        outer = OTHER[t][v]
        if outer < 0:
            self._refuse(END_MISMATCH, f"{TEXT[t]} does not match the {at} arm's end {v}")
        if IS_DOUBLE[t] and mode is None:
            self._refuse(MODE_REQUIRED, f"say how the double {TEXT[t]} is laid: normal or barricade")
        if not IS_DOUBLE[t] and mode is not None:
            self._refuse(MODE_NOT_ALLOWED, f"{TEXT[t]} is not a double: it has no mode")
        self.lay(seat, t, i, mode == BARRICADE)

    def _open(self, seat: int, t: int, move: Move) -> None:
        """Lay the opening double ``t`` (HHL-2), checked by ``play``."""
        self._legal = None
        v = HI[t]
        self.ends = [v, v, v, v]  # HHL-3: four arms, each open at the spinner's number
        opened = _OPENED[seat][t]
        if move is not opened.move:  # not the interned move: its own event, as given
            opened = new_event(Event, (PLAY, seat, move, (), (), None))
        self.events.append(opened)
        self.hands[seat] ^= 1 << t
        self._next_turn(seat)

    def lay(self, seat: int, t: int, i: int, barricade: bool = False) -> None:
        """Lay tile ``t`` of the seat to move on arm ``i`` (a double as a barricade if
        asked), then let the automatic draws and passes run. Checks NOTHING: ``play`` is
        the checked way in; look-ahead calls this directly with moves it took from
        ``legal_moves`` or the same masks."""
        self._legal = None
        ends = self.ends
        ends[i], entry = _LAID[t][ends[i]][barricade]
        self.layout[i].append(entry)
        hands = self.hands
        hand = hands[seat] = hands[seat] ^ 1 << t
        self.drawn = None
        self.events.append(_PLAYED[seat][t][i][barricade])
        if not hand:
            self._end("domino", seat)  # HHL-7
            return
        # _next_turn, inlined for the usual case: the next seat can play.
        a, b, c, d = ends
        fit = FITS_OR_0[a] | FITS_OR_0[b] | FITS_OR_0[c] | FITS_OR_0[d]
        s = (seat + 1) % SEATS
        if hands[s] & fit:
            self.turn = s
        else:
            self._draw_or_pass(s, fit)

    # ----- what happens by itself --------------------------------------------------
    def _next_turn(self, seat: int) -> None:
        """Find the next seat that must choose, drawing and passing automatically."""
        a, b, c, d = self.ends
        fit = FITS_OR_0[a] | FITS_OR_0[b] | FITS_OR_0[c] | FITS_OR_0[d]  # tiles that fit
        s = (seat + 1) % SEATS
        if self.hands[s] & fit:
            self.turn = s  # the usual case: the next seat can play, so nothing is blocked
        else:
            self._draw_or_pass(s, fit)

    def _draw_or_pass(self, s: int, fit: int) -> None:
        """Seat s, next in turn, has no tile that fits (``fit``): the hand is blocked, or
        seats draw and pass in turn until one has a tile to play."""
        hands = self.hands
        if not (fit & (self.stock_mask | hands[0] | hands[1] | hands[2] | hands[3])):
            # HHL-8: no tile anywhere can be laid, and no play can change that. The ruling
            # ends the hand here; read literally, the draws and passes come first. With all
            # four arms barricaded (nothing fits at all) the hand ends at once either way.
            if self.draw_dead and fit:
                self._draw_dead_stock(s)
            self._end("blocked", None)
            return
        events = self.events
        while True:  # seat s cannot play
            drawn = []  # HHL-6: draw until a playable tile, which must then be played
            stock = self.stock
            while self.stock_pos < len(stock):
                t = stock[self.stock_pos]
                self.stock_pos += 1
                self.stock_mask ^= 1 << t
                hands[s] |= 1 << t
                drawn.append(t)
                if fit >> t & 1:
                    break
            if drawn:
                events.append(_DREW[s][drawn[0]] if len(drawn) == 1 else
                              new_event(Event, (DRAW, s, None, tuple(drawn), (), None)))
                if fit >> drawn[-1] & 1:
                    self.turn, self.drawn = s, drawn[-1]
                    return
            events.append(_PASSED[s])  # the stock ran out: HHL-6
            s = (s + 1) % SEATS
            if hands[s] & fit:
                self.turn = s
                return

    def _draw_dead_stock(self, s: int) -> None:
        """HHL-8 read literally (dead_stock=draw): nothing anywhere fits, yet seat s, which
        cannot play, draws as HHL-6 says: the whole stock, none of it playable; it passes,
        and so do the three seats after it (the stock empty, nothing fits): the four passes
        in a row that end the hand on points. With an empty stock only the passes."""
        events, stock, pos = self.events, self.stock, self.stock_pos
        if pos < len(stock):
            drawn = tuple(stock[pos:])
            self.stock_pos, self.stock_mask = len(stock), 0
            self.hands[s] |= mask_of(drawn)
            events.append(_DREW[s][drawn[0]] if len(drawn) == 1 else
                          new_event(Event, (DRAW, s, None, drawn, (), None)))
        for k in range(SEATS):
            events.append(_PASSED[(s + k) % SEATS])

    def _end(self, how: str, seat) -> None:
        self.over, self.end, self.winner_seat, self.turn = True, how, seat, None

    # ----- views and results -------------------------------------------------------
    def pips(self) -> list[int]:
        return [pips_of(h) for h in self.hands]

    def public_view(self) -> dict:
        arms = {}
        for i, name in enumerate(ARMS):
            e = None if self.ends is None else self.ends[i]
            arms[name] = {
                "tiles": [
                    {"tile": TEXT[t], "inner": inner, "outer": outer, **({"mode": m} if m else {})}
                    for t, inner, outer, m in self.layout[i]
                ],
                "end": None if e is None or e == CLOSED else e,
                "closed": e == CLOSED,
            }
        return {
            "spinner": TEXT[self.opening] if self.ends is not None else None,
            "arms": arms,
            "stock": len(self.stock) - self.stock_pos,
        }

    def private_view(self, seat: int) -> dict:
        """What only ``seat`` may see beyond its hand: the tile it drew and must play."""
        if seat == self.turn and self.drawn is not None:
            return {"drawn": TEXT[self.drawn]}
        return {}

    # ----- look-ahead --------------------------------------------------------------
    def fork(self) -> "HHLPosition":
        """The same position with an empty history, for search playouts."""
        c = HHLPosition.__new__(HHLPosition)
        c.hands, c.stock, c.stock_pos = self.hands[:], self.stock, self.stock_pos
        c.stock_mask = self.stock_mask
        c.ends = None if self.ends is None else self.ends[:]
        c.layout = [arm[:] for arm in self.layout]
        c.turn, c.opening, c.drawn = self.turn, self.opening, self.drawn
        c.over, c.end, c.winner_seat = self.over, self.end, self.winner_seat
        c.events = []
        c._legal = self._legal  # the same state: the same (immutable) legal moves
        c.draw_dead = self.draw_dead
        return c

    @classmethod
    def from_view(cls, view: dict, hands, stock) -> "HHLPosition":
        """The position a seat's view shows, with the hidden tiles as the caller guesses
        them: ``hands`` (every seat's tiles, matching the view's counts) and ``stock`` (in
        draw order). Checks only what it needs: that the tiles fill the counts. It plays
        the view's rules options (HHL-8's reading: ``dead_stock``)."""
        if [len(h) for h in hands] != view["counts"] or len(stock) != view["stock"]:
            raise MalformedInput("hands and stock must match the view's tile counts")
        if view["spinner"] is None:
            h = cls(hands, stock, draws_dead(view))  # HHL-2: the lowest double leads
        else:
            h = _laid_from_view(cls.__new__(cls), view, hands, stock)
            arms = view["arms"]
            h.layout = [[(Tile.parse(x["tile"]), x["inner"], x["outer"], x.get("mode"))
                         for x in arms[a]["tiles"]] for a in ARMS]
            h.events = []
        return _turn_from_view(h, view)

    def playout(self) -> "HHLPlayout":
        """This hand as a lean playout (HHLPlayout): what decides the rest of the hand.
        A position has every field a playout copies, so the playout's own copy makes it."""
        return HHLPlayout.copy(self)


def _laid_from_view(h, view: dict, hands, stock):
    """Fill a new HHLPosition or HHLPlayout (``h``) with what a view of a hand in play
    shows, and the guessed hidden tiles: the fields both read."""
    h.draw_dead = draws_dead(view)
    h.hands, h.stock, h.stock_pos = [mask_of(x) for x in hands], list(stock), 0
    h.stock_mask = mask_of(stock)
    h.opening = Tile.parse(view["spinner"])
    arms = view["arms"]
    h.ends = [CLOSED if arms[a]["closed"] else arms[a]["end"] for a in ARMS]
    h.over, h.end, h.winner_seat = False, None, None
    return h


def _turn_from_view(h, view: dict):
    """Whose turn it is and the tile just drawn, as the view shows them."""
    h.turn = view["turn"]
    h.drawn = Tile.parse(view["drawn"]) if view.get("drawn") else None
    h._legal = None
    return h


class HHLPlayout:
    """An HHL hand for search playouts: the same rules as HHLPosition, with no events, no
    layout, no views and no checks (rules/playout.py describes the interface).

    ``copy()``; ``legal()``, the legal moves as a tuple (HHLPosition.legal_moves' moves, in
    its order); ``apply(k)``, play the k-th of them; ``lay(seat, t, i, barricade)``, lay a
    tile directly like HHLPosition.lay; ``over``, ``turn`` (None once over), ``end``
    ("domino" or "blocked"), ``winner_seat``; ``result()``, every seat's points for the
    hand (HHL-9). ``hands``, ``ends``, ``drawn`` read like HHLPosition's, and so does
    ``draw_dead``, HHL-8's reading, which every copy keeps."""

    __slots__ = ("hands", "stock", "stock_pos", "stock_mask", "ends", "turn", "opening",
                 "drawn", "over", "end", "winner_seat", "_legal", "draw_dead")

    @classmethod
    def from_view(cls, view: dict, hands, stock) -> "HHLPlayout":
        """HHLPosition.from_view(view, hands, stock).playout(), without building what a
        playout does not read (the layout)."""
        if [len(h) for h in hands] != view["counts"] or len(stock) != view["stock"]:
            raise MalformedInput("hands and stock must match the view's tile counts")
        if view["spinner"] is None:
            p = HHLPosition(hands, stock, draws_dead(view)).playout()  # HHL-2: the lowest double leads
        else:
            p = _laid_from_view(cls.__new__(cls), view, hands, stock)
        return _turn_from_view(p, view)

    def copy(self) -> "HHLPlayout":
        p = HHLPlayout.__new__(HHLPlayout)
        p.hands, p.stock, p.stock_pos = self.hands[:], self.stock, self.stock_pos
        p.stock_mask = self.stock_mask
        p.ends = None if self.ends is None else self.ends[:]
        p.turn, p.opening, p.drawn = self.turn, self.opening, self.drawn
        p.over, p.end, p.winner_seat, p._legal = self.over, self.end, self.winner_seat, self._legal
        p.draw_dead = self.draw_dead
        return p

    def legal(self) -> tuple:
        legal = self._legal
        if legal is None:
            ends = self.ends
            if self.over:
                legal = ()
            elif ends is None:
                legal = (OPEN[self.opening],)  # HHL-2
            else:  # as HHLPosition.legal_moves
                cand = self.hands[self.turn] if self.drawn is None else 1 << self.drawn  # HHL-6
                a, b, c, d = ends
                legal = (_ON_LEFT[cand & FITS_OR_0[a]] + _ON_RIGHT[cand & FITS_OR_0[b]]
                         + _ON_UP[cand & FITS_OR_0[c]] + _ON_DOWN[cand & FITS_OR_0[d]])
            self._legal = legal
        return legal

    def apply(self, k: int) -> None:
        """Play the k-th legal move (IndexError past the end)."""
        t, at, mode = self.legal()[k]
        if at is None:  # the opening double, the spinner (HHL-3)
            self._legal = None
            v = HI[t]
            self.ends = [v, v, v, v]
            self.hands[self.turn] ^= 1 << t
            a = FITS_OR_0[v]
            s = (self.turn + 1) % SEATS
            if self.hands[s] & a:
                self.turn = s
            else:
                self._draw_or_pass(s, a)
        else:
            self.lay(self.turn, t, _ARM_INDEX[at], mode == BARRICADE)

    def lay(self, seat: int, t: int, i: int, barricade: bool = False) -> None:
        """HHLPosition.lay without its layout and events: checks NOTHING."""
        self._legal = None
        ends = self.ends
        ends[i] = CLOSED if barricade else OTHER[t][ends[i]]  # HHL-4, HHL-5
        hands = self.hands
        hand = hands[seat] = hands[seat] ^ 1 << t
        self.drawn = None
        if not hand:
            self.over, self.end, self.winner_seat, self.turn = True, "domino", seat, None  # HHL-7
            return
        a, b, c, d = ends
        fit = FITS_OR_0[a] | FITS_OR_0[b] | FITS_OR_0[c] | FITS_OR_0[d]
        s = (seat + 1) % SEATS
        if hands[s] & fit:
            self.turn = s
        else:
            self._draw_or_pass(s, fit)

    def _draw_or_pass(self, s: int, fit: int) -> None:
        """HHLPosition._draw_or_pass without its events."""
        hands = self.hands
        if not (fit & (self.stock_mask | hands[0] | hands[1] | hands[2] | hands[3])):
            if self.draw_dead and fit:  # HHL-8 read literally: seat s draws the dead stock
                stock = self.stock[self.stock_pos:]
                self.stock_pos, self.stock_mask = len(self.stock), 0
                hands[s] |= mask_of(stock)  # ... and the four passes end the hand
            self.over, self.end, self.winner_seat, self.turn = True, "blocked", None, None  # HHL-8
            return
        stock = self.stock
        while True:  # seat s cannot play: it draws until a playable tile (HHL-6), or passes
            while self.stock_pos < len(stock):
                t = stock[self.stock_pos]
                self.stock_pos += 1
                self.stock_mask ^= 1 << t
                hands[s] |= 1 << t
                if fit >> t & 1:
                    self.turn, self.drawn = s, t
                    return
            s = (s + 1) % SEATS
            if hands[s] & fit:
                self.turn = s
                return

    def pips(self) -> list[int]:
        return [pips_of(h) for h in self.hands]

    def result(self) -> list[int]:
        """Every seat's points for the hand, HHL-9 (once over; the pips left, before)."""
        return hand_points([pips_of(h) for h in self.hands])


def draws_dead(view: dict) -> bool:
    """HHL-8's reading in a view's options: True when a dead stock is drawn (dead_stock=draw)."""
    return of_view(view, DEAD_STOCK) == DEAD_STOCK.literal


def hand_points(pips: list[int]) -> list[int]:
    """HHL-9: P = (C/4 - R) x 100 = 25*C - 100*R, exactly, for every seat."""
    c = sum(pips)
    return [25 * c - 100 * r for r in pips]


class HHLMatch(Match):
    variant = "hhl"
    title = "Homo Homini Lupus"
    num_seats = SEATS
    hand_size = HAND_SIZE
    rest_key = "stock"
    # HHL-10: a time limit (default 60 minutes) or, option, a number of hands.
    OPTIONS = (
        Option("minutes", 60, 1, 24 * 60, "time limit in minutes of play, counted from the "
               "match's creation; the hand in progress is finished (HHL-10). 60 unless hands "
               "is set"),
        Option("hands", None, 1, 1000, "play this many hands, then end (HHL-10); what "
               "ladders and tests use"),
        PROFILE,
        DEAD_STOCK,
    )

    def _check_options(self, options, given):
        if given.get("minutes") is None:
            # 60 minutes by default; a number of hands alone means no time limit
            options["minutes"] = 60 if options["hands"] is None else None
        return options

    def __init__(self, options=None, seed=0, deals=None):
        self.totals = [0] * SEATS
        super().__init__(options, seed, deals)

    def _new_state(self, hands, rest):
        return HHLPosition(hands, rest, self.options["dead_stock"] == DEAD_STOCK.literal)

    def _settle(self, state):
        pips = state.pips()
        if state.end == "domino":
            winners = [state.winner_seat]
        else:
            low = min(pips)
            winners = [s for s in range(SEATS) if pips[s] == low]  # HHL-8: co-winners
        points = hand_points(pips)
        for s in range(SEATS):
            self.totals[s] += points[s]
        return {"end": state.end, "winners": winners, "pips": pips, "points": points}, []

    def _match_is_over(self):
        limit = self.options["hands"]
        return self._time_up or (limit is not None and len(self.deals) >= limit)

    def _match_result(self):
        return {"totals": list(self.totals), "ranking": ranking_of(self.totals, best_high=True)}

    def _score_view(self):
        return {"totals": list(self.totals)}
