"""Domeng: 5 seats, 5 tiles each, 3 tiles sleep; a two-ended line, no drawing; passes
and round ends move penalty STONES from the table (or from a named payer) to seats; a
FIRST CAPPU holding no stones when the table is empty becomes CAMAT (DOM-1..DOM-11).

Stones are conserved at every step (DOM-9): every movement goes through ``pay``.

Speed, as in hhl.py: the legal moves come from tables, one lookup per end, and are kept
until the state changes; ``play`` of a move from that very list skips the checks; events
are built straight from the tuple constructor (events.new_event).

Rules options (rules/options.py): two readings, each the ruling by default or the rule
text's letter (profile=literal): ``closing_pass`` (DOM-8: the MANGUNO's closing pass
``free``, or ``paid`` 1 stone like any PASS), carried by a position and a playout as
``paid_close``; and ``first_lead`` (DOM-2: the first leader lays its ``double``, or
``any`` tile), which decides the forced ``lead_tile`` (None: any tile).
"""

from . import events as ev
from .errors import (
    END_MISMATCH,
    MODE_NOT_ALLOWED,
    MUST_OPEN_WITH,
    OPENING_HAS_NO_PLACE,
    PLACE_REQUIRED,
    MalformedInput,
    shown,
)
from .events import PASS, PLAY, Event, new_event, plain_event
from .match import Match, ranking_of
from .moves import ENDS, OPEN, PLACE, Move, moves_at
from .options import PROFILE, Option, of_view
from .position import Position
from .tiles import DOUBLE_OF, FITS, HI, IS_DOUBLE, LO, OTHER, TEXT, TILES, Tile, mask_of, pips_of

SEATS = 5
HAND_SIZE = 5  # DOM-1
SLEEPING = 28 - SEATS * HAND_SIZE  # 3 tiles sleep (DOM-1)
STONES = 25  # DOM-9
TABLE = "table"
_END_INDEX = {e: i for i, e in enumerate(ENDS)}
# DOM-2: the first round is led with [6|6], else [5|5], [4|4], [3|3].
FIRST_LEADS = (DOUBLE_OF[6], DOUBLE_OF[5], DOUBLE_OF[4], DOUBLE_OF[3])
PASS_COST, PASSEBUNGE_COST = 1, 2  # DOM-5
CUCUQ_STONES = {"plain": 1, "ceki": 3, "pollo": 5}  # DOM-7
# The readings of DOM-8 and DOM-2 (docs/rules.md, "Where a ruling departs from the literal
# text"): the ruling first (the default), then the text's letter (profile=literal).
CLOSING_PASS = Option.words(
    "closing_pass", ("free", "paid"),
    "DOM-8, the MANGUNO's own closing pass: free (the ruling); paid, 1 stone like any PASS "
    "of DOM-5, before the round is settled (the rule text's letter: the MANGUNO makes "
    "every player PASS, himself included)", literal="paid")
FIRST_LEAD = Option.words(
    "first_lead", ("double", "any"),
    "DOM-2, the first round's lead: double, the leader lays the 6-6 (5-5, 4-4, 3-3) that "
    "made it the leader (the ruling); any, the holder of that double leads any tile (the "
    "rule text's letter)", literal="any")
# _ON_LEFT[mask], _ON_RIGHT[mask]: the moves of the tiles of ``mask`` on that end
# (moves.moves_at).
_ON_LEFT, _ON_RIGHT = (moves_at(i, double_modes=False) for i in range(len(ENDS)))
# _LEADS[g][m]: the leads (OPEN moves) of the tiles 7g..7g+6 whose bits m (7 bits) shows,
# ascending: any tile of a hand is four lookups (DOM-3).
_LEADS = tuple(tuple(tuple(OPEN[7 * g + j] for j in range(7) if m >> j & 1) for m in range(128))
               for g in range(4))


def leads(hand: int) -> tuple:
    """Every tile of ``hand`` as a lead, ascending (DOM-3)."""
    return (_LEADS[0][hand & 127] + _LEADS[1][hand >> 7 & 127] + _LEADS[2][hand >> 14 & 127]
            + _LEADS[3][hand >> 21])


# The line's entries (tile, left number, right number), built once so that a move
# allocates nothing that lasts but its event (which spares the garbage collector):
# _LEAD_ENTRY[t], the lead laid high-low; _ENTRY[t][v][i], t laid on end i showing v:
# (the end's number after, the entry).
_LEAD_ENTRY = tuple((t, HI[t], LO[t]) for t in TILES)
# _PLAYED[seat][t][i]: the event of that play (i 2: the lead); _MAPPAKULING[seat][t][i]: the
# same play when it is a MAPPAKULING (DOM-6). Built once and shared by every match
# (events.plain_event says why).
_PLAYED = tuple(tuple((plain_event(PLAY, seat, PLACE[t][0]), plain_event(PLAY, seat, PLACE[t][1]),
                       plain_event(PLAY, seat, OPEN[t])) for t in TILES) for seat in range(SEATS))
_MAPPAKULING = tuple(tuple(tuple(new_event(Event, (PLAY, seat, PLACE[t][i], (), (), {"mappakuling": True}))
                                 for i in range(len(ENDS))) for t in TILES) for seat in range(SEATS))
_ENTRY = tuple(tuple(((OTHER[t][v], (t, OTHER[t][v], v)), (OTHER[t][v], (t, v, OTHER[t][v])))
                     for v in range(7)) for t in TILES)


# The movement "count stones from the table", built once (every pass pays one).
_FROM_TABLE = {n: ((TABLE, n),) for n in range(1, STONES + 1)}


# _PASSES[seat, stones moved, passebunge]: the event of that pass (DOM-5), made the first
# time it happens and shared from then on, like the plain plays (events.plain_event).
# There are at most a few hundred: who passes, PASSEBUNGE or not, who paid what.
_PASSES: dict = {}


class Stones:
    """The table and every seat's holdings; table + sum(held) == 25 always (DOM-9)."""

    __slots__ = ("table", "held")

    def __init__(self, table: int = STONES, held=None):
        self.table, self.held = table, list(held) if held is not None else [0] * SEATS

    def copy(self) -> "Stones":
        return Stones(self.table, self.held)

    def pay(self, to: int, count: int, payer: int) -> tuple:
        """Give ``to`` up to ``count`` stones: from the table first, the shortfall from
        ``payer``'s holdings; what the payer cannot cover is waived (DOM-9).
        Returns the movements as ((source, n), ...)."""
        if 0 < count <= self.table:  # the usual case, every pass while the table lasts
            self.table -= count
            self.held[to] += count
            return _FROM_TABLE[count]
        from_table = min(count, self.table)
        # A seat never pays itself: nothing would move. Only the MANGUNO's closing pass
        # read literally (DOM-8, closing_pass=paid) has the payee for its LAST MAPPANO.
        from_payer = 0 if payer == to else min(count - from_table, self.held[payer])
        self.table -= from_table
        self.held[payer] -= from_payer
        self.held[to] += from_table + from_payer
        moved = []
        if from_table:
            moved.append((TABLE, from_table))
        if from_payer:
            moved.append((payer, from_payer))
        return tuple(moved)


class DomengPosition(Position):
    """One round in play. ``ends`` is [left, right] or None before the lead.
    ``paid_close``: DOM-8 read literally (closing_pass=paid), the MANGUNO's closing pass
    pays 1 stone."""

    __slots__ = ("hands", "sleeping", "ends", "line", "turn", "lead_tile", "laid",
                 "last_mappano", "over", "end", "kind", "winner_seat", "stones", "events",
                 "_legal", "paid_close")

    def __init__(self, hands, sleeping, leader, lead_tile, stones: Stones,
                 paid_close: bool = False):
        self.paid_close = paid_close
        self.hands = [mask_of(h) for h in hands]
        self.sleeping = list(sleeping)  # DOM-1: unused and unseen for the whole round
        self.line = []  # left to right: (tile, left number, right number)
        self.turn = leader
        self.lead_tile = lead_tile  # a forced lead (DOM-2) or None: any tile (DOM-3)
        self.laid = [False] * SEATS  # has the seat laid a tile this round (PASSEBUNGE)
        self.ends = self.last_mappano = self.end = self.kind = self.winner_seat = None
        self.over = False
        self.stones = stones
        self.events: list[ev.Event] = []
        self._legal = None  # the legal moves of this state, once listed (legal_moves)

    def legal_moves(self) -> list[Move]:
        legal = self._legal
        if legal is None:
            ends = self.ends
            if self.over:
                legal = ()
            elif ends is not None:
                # The left end's tiles ascending, then the right end's (DOM-4).
                hand = self.hands[self.turn]
                legal = _ON_LEFT[hand & FITS[ends[0]]] + _ON_RIGHT[hand & FITS[ends[1]]]
            elif self.lead_tile is not None:
                legal = (OPEN[self.lead_tile],)  # DOM-2
            else:
                legal = leads(self.hands[self.turn])  # DOM-3: any tile
            self._legal = legal
        return [*legal]  # the caller's own list: the kept tuple stays as listed

    def play(self, seat: int, move: Move) -> None:
        legal = self._legal
        if legal is not None and seat == self.turn and move in legal:
            # Fast path: a move legal_moves() listed for this very state (every change
            # drops the list), so it passes every check below; lay it at once.
            t, at, _ = move
            self.lay(seat, t, None if at is None else _END_INDEX[at])
            return
        t, at, mode = move
        if at is not None and at not in _END_INDEX:
            raise MalformedInput(f"unknown end {shown(at)}; the Domeng line has ends left and right")
        self._check_turn_and_tile(seat, t)
        if mode is not None:
            self._refuse(MODE_NOT_ALLOWED, "Domeng doubles have no mode: they lie crosswise (DOM-4)")
        if self.ends is None:
            if self.lead_tile is not None and t != self.lead_tile:
                self._refuse(MUST_OPEN_WITH, f"the first round is led with {TEXT[self.lead_tile]}")
            if at is not None:
                self._refuse(OPENING_HAS_NO_PLACE, "the lead starts the line: give only the tile")
            self.lay(seat, t, None)
            return
        if at is None:
            self._refuse(PLACE_REQUIRED, f"say which end {TEXT[t]} goes on: left or right")
        i = _END_INDEX[at]
        if OTHER[t][self.ends[i]] < 0:
            self._refuse(END_MISMATCH, f"{TEXT[t]} does not match the {at} end {self.ends[i]}")
        self.lay(seat, t, i)

    def lay(self, seat: int, t: int, i: int | None) -> None:
        """Lay tile ``t`` of the seat to move on end ``i`` (None: the lead), then let the
        automatic passes and payments run. Checks NOTHING: ``play`` is the checked way in;
        look-ahead calls this directly with moves it took from ``legal_moves`` or the
        same masks."""
        self._legal = None
        mappakuling = False
        if i is None:
            # The lead lies high-low: the left end shows the high number (docs/rules.md).
            self.ends = ends = [HI[t], LO[t]]
            self.line.append(_LEAD_ENTRY[t])
            self.events.append(_PLAYED[seat][t][2])
        else:
            ends = self.ends
            ends[i], entry = _ENTRY[t][ends[i]][i]
            if i:
                self.line.append(entry)
            else:
                self.line.insert(0, entry)
            if ends[0] == ends[1]:  # DOM-6: a MAPPAKULING, told in the event's info
                mappakuling = True
                self.events.append(_MAPPAKULING[seat][t][i])
            else:
                self.events.append(_PLAYED[seat][t][i])
        hands = self.hands
        hand = hands[seat] = hands[seat] ^ 1 << t
        self.laid[seat] = True
        self.last_mappano = seat
        if not hand:
            # DOM-7: FIRST CAPPU; CEKI / POLLO when the last tile was a MAPPAKULING.
            kind = ("pollo" if IS_DOUBLE[t] else "ceki") if mappakuling else "plain"
            self._end("cappu", seat, kind)
            return
        # The next seat to move: most often the next in turn can play.
        fit = FITS[ends[0]] | FITS[ends[1]]  # the tiles that fit
        s = (seat + 1) % SEATS
        if hands[s] & fit:
            self.turn = s
        else:
            self._pass_on(s, fit)

    def _pass_on(self, s: int, fit: int) -> None:
        """Seat s, next in turn, has no tile that fits (``fit``): seats pass and pay in turn
        until one can play, or the round is blocked."""
        hands = self.hands
        events, last, laid, stones = self.events, self.last_mappano, self.laid, self.stones
        while True:  # seat s cannot play
            if s == last:
                # DOM-8: everyone else passed and the last MAPPANO cannot play: it is the
                # MANGUNO and the round is blocked. Its own closing pass costs nothing (the
                # ruling), or, read literally (closing_pass=paid), it is a PASS paid as
                # DOM-5 says: 1 stone, never 2, since the MANGUNO has laid a tile (no
                # PASSEBUNGE); the table gives it, and what the table lacks would come from
                # the LAST MAPPANO, the MANGUNO itself: nothing moves (Stones.pay).
                cost = PASS_COST if self.paid_close else 0
                moved = stones.pay(s, cost, s) if cost else ()
                info = {"cost": cost, "passebunge": False}
                events.append(new_event(Event, (PASS, s, None, (), moved, info)))
                self._end("blocked", s, None)
                return
            passebunge = not laid[s]
            cost = PASSEBUNGE_COST if passebunge else PASS_COST  # DOM-5
            moved = stones.pay(s, cost, last)
            event = _PASSES.get((s, moved, passebunge))
            if event is None:
                info = {"cost": cost, "passebunge": passebunge}
                event = _PASSES[s, moved, passebunge] = new_event(Event, (PASS, s, None, (), moved, info))
            events.append(event)
            s = (s + 1) % SEATS
            if hands[s] & fit:
                self.turn = s
                return

    def _end(self, how, seat, kind):
        self.over, self.end, self.winner_seat, self.kind, self.turn = True, how, seat, kind, None

    def pips(self) -> list[int]:
        return [pips_of(h) for h in self.hands]

    def public_view(self) -> dict:
        return {
            "line": [{"tile": TEXT[t], "left": a, "right": b} for t, a, b in self.line],
            "ends": None if self.ends is None else {"left": self.ends[0], "right": self.ends[1]},
            "table": self.stones.table,
            "held": list(self.stones.held),
            "last_mappano": self.last_mappano,
            "laid": list(self.laid),
        }

    def private_view(self, seat: int) -> dict:
        return {}

    # ----- look-ahead --------------------------------------------------------------
    def fork(self) -> "DomengPosition":
        """The same position, with its own stones and an empty history, for playouts."""
        c = DomengPosition.__new__(DomengPosition)
        c.hands, c.sleeping = self.hands[:], self.sleeping
        c.ends = None if self.ends is None else self.ends[:]
        c.line = self.line[:]
        c.turn, c.lead_tile, c.last_mappano = self.turn, self.lead_tile, self.last_mappano
        c.laid = self.laid[:]
        c.over, c.end, c.kind, c.winner_seat = self.over, self.end, self.kind, self.winner_seat
        c.stones = self.stones.copy()
        c.events = []
        c._legal = self._legal  # the same state: the same (immutable) legal moves
        c.paid_close = self.paid_close
        return c

    @classmethod
    def from_view(cls, view: dict, hands, sleeping) -> "DomengPosition":
        """The position a seat's view shows, with the hidden tiles as the caller guesses
        them (``hands`` matching the view's counts, and the three sleeping tiles). It
        plays the view's rules options (DOM-8's and DOM-2's readings)."""
        if [len(h) for h in hands] != view["counts"] or len(sleeping) != SLEEPING:
            raise MalformedInput("hands and sleeping tiles must match the view's tile counts")
        r = cls(hands, sleeping, view["turn"], _lead_of(view, hands),
                Stones(view["table"], view["held"]), pays_close(view))
        if view["ends"] is not None:
            r.ends = [view["ends"]["left"], view["ends"]["right"]]
            r.line = [(Tile.parse(x["tile"]), x["left"], x["right"]) for x in view["line"]]
        r.laid = list(view["laid"])
        r.last_mappano = view["last_mappano"]
        return r

    def playout(self) -> "DomengPlayout":
        """This round as a lean playout (DomengPlayout), with its own stones."""
        return _lean_copy(self, None)


def _lean_copy(src, result) -> "DomengPlayout":
    """A DomengPlayout of the round ``src`` holds (a DomengPosition or a DomengPlayout:
    both carry every field a playout reads), with its own stones and ``result`` cached."""
    p = DomengPlayout.__new__(DomengPlayout)
    p.hands = src.hands[:]
    p.ends = None if src.ends is None else src.ends[:]
    p.turn, p.lead_tile, p.last_mappano = src.turn, src.lead_tile, src.last_mappano
    p.laid = src.laid[:]
    p.over, p.end, p.kind, p.winner_seat = src.over, src.end, src.kind, src.winner_seat
    p.stones = src.stones.copy()
    p._legal, p._result = src._legal, result
    p.paid_close = src.paid_close
    return p


class DomengPlayout:
    """A Domeng round for search playouts: the same rules as DomengPosition, with no
    events, no line, no views and no checks (rules/playout.py describes the interface).

    ``copy()``; ``legal()``, the legal moves as a tuple (DomengPosition.legal_moves' moves,
    in its order); ``apply(k)``, play the k-th of them; ``lay(seat, t, i)``, lay a tile
    directly like DomengPosition.lay; ``over``, ``turn`` (None once over), ``end``,
    ``kind``, ``winner_seat``, ``stones`` (its own: passes pay as they happen, DOM-5);
    ``result()``, the round's settlement exactly as settle_round gives it (DOM-7,
    DOM-8, DOM-10), paid into ``stones`` once. ``hands``, ``ends`` read like
    DomengPosition's, and so do ``lead_tile`` (DOM-2's reading decides it) and
    ``paid_close`` (DOM-8's), which every copy keeps."""

    __slots__ = ("hands", "ends", "turn", "lead_tile", "laid", "last_mappano", "over", "end",
                 "kind", "winner_seat", "stones", "_legal", "_result", "paid_close")

    @classmethod
    def from_view(cls, view: dict, hands, sleeping) -> "DomengPlayout":
        """DomengPosition.from_view(view, hands, sleeping).playout(), without building what
        a playout does not read (the line)."""
        if [len(h) for h in hands] != view["counts"] or len(sleeping) != SLEEPING:
            raise MalformedInput("hands and sleeping tiles must match the view's tile counts")
        p = cls.__new__(cls)
        p.lead_tile = _lead_of(view, hands)
        p.paid_close = pays_close(view)
        p.hands = [mask_of(h) for h in hands]
        ends = view["ends"]
        p.ends = None if ends is None else [ends["left"], ends["right"]]
        p.turn = view["turn"]
        p.laid = list(view["laid"])
        p.last_mappano = view["last_mappano"]
        p.over, p.end, p.kind, p.winner_seat = False, None, None, None
        p.stones = Stones(view["table"], view["held"])
        p._legal = p._result = None
        return p

    def copy(self) -> "DomengPlayout":
        return _lean_copy(self, self._result)

    def legal(self) -> tuple:
        legal = self._legal
        if legal is None:  # as DomengPosition.legal_moves
            ends = self.ends
            if self.over:
                legal = ()
            elif ends is not None:
                hand = self.hands[self.turn]
                legal = _ON_LEFT[hand & FITS[ends[0]]] + _ON_RIGHT[hand & FITS[ends[1]]]
            elif self.lead_tile is not None:
                legal = (OPEN[self.lead_tile],)  # DOM-2
            else:
                legal = leads(self.hands[self.turn])  # DOM-3
            self._legal = legal
        return legal

    def apply(self, k: int) -> None:
        """Play the k-th legal move (IndexError past the end)."""
        t, at, _ = self.legal()[k]
        self.lay(self.turn, t, None if at is None else _END_INDEX[at])

    def lay(self, seat: int, t: int, i: int | None) -> None:
        """DomengPosition.lay without its line and events: checks NOTHING."""
        self._legal = None
        mappakuling = False
        if i is None:
            self.ends = ends = [HI[t], LO[t]]  # the lead, high-low
        else:
            ends = self.ends
            ends[i] = OTHER[t][ends[i]]
            mappakuling = ends[0] == ends[1]  # DOM-6
        hands = self.hands
        hand = hands[seat] = hands[seat] ^ 1 << t
        self.laid[seat] = True
        self.last_mappano = seat
        if not hand:  # DOM-7: FIRST CAPPU
            kind = ("pollo" if IS_DOUBLE[t] else "ceki") if mappakuling else "plain"
            self.over, self.end, self.winner_seat, self.kind, self.turn = True, "cappu", seat, kind, None
            return
        fit = FITS[ends[0]] | FITS[ends[1]]
        s = (seat + 1) % SEATS
        if hands[s] & fit:
            self.turn = s
            return
        laid, stones = self.laid, self.stones
        while True:  # seat s cannot play: DomengPosition._pass_on without its events
            if s == seat:  # DOM-8: blocked, the last MAPPANO is the MANGUNO
                if self.paid_close:  # read literally: its closing pass pays 1 (DOM-5)
                    stones.pay(s, PASS_COST, s)
                self.over, self.end, self.winner_seat, self.kind, self.turn = True, "blocked", s, None, None
                return
            stones.pay(s, PASS_COST if laid[s] else PASSEBUNGE_COST, seat)  # DOM-5
            s = (s + 1) % SEATS
            if hands[s] & fit:
                self.turn = s
                return

    def pips(self) -> list[int]:
        return [pips_of(h) for h in self.hands]

    def result(self) -> dict:
        """The round's settlement (settle_round), once over; paid into ``stones`` once."""
        if self._result is None:
            self._result = settle_round(self)
        return self._result


def pays_close(view: dict) -> bool:
    """DOM-8's reading in a view's options: True when the closing pass pays (paid)."""
    return of_view(view, CLOSING_PASS) == CLOSING_PASS.literal


def _lead_of(view: dict, hands) -> int | None:
    """The lead a view's position must make (DOM-2), or None for any tile: before the lead
    of a match's first round, the highest of 6-6..3-3 in a hand, unless DOM-2 is read
    literally (first_lead=any), when its holder leads any tile (DOM-3's case always)."""
    if view["ends"] is not None or view["deal_number"] != 0:
        return None
    if of_view(view, FIRST_LEAD) == FIRST_LEAD.literal:
        return None
    return next(d for d in FIRST_LEADS for h in hands if d in h)


def settle_round(state: DomengPosition) -> dict:
    """DOM-7 / DOM-8 / DOM-10: the end-of-round stone payments, winner and CAMAT."""
    stones = state.stones
    pips = state.pips()
    x = state.winner_seat
    cucuq, manguno, mattikkeng = None, None, []
    if state.end == "cappu":
        winner = x
        cucuq = (x - 1) % SEATS
        moved = stones.pay(cucuq, CUCUQ_STONES[state.kind], payer=x)
        to = cucuq
    else:
        manguno = x
        mattikkeng = [s for s in range(SEATS) if s != x and pips[s] <= pips[x]]
        if not mattikkeng:
            winner = x
            cucuq = (x - 1) % SEATS
            moved = stones.pay(cucuq, 1, payer=x)
            to = cucuq
        else:
            # Fewest pips wins; ties go to the first reached clockwise from the MANGUNO.
            winner = min(mattikkeng, key=lambda s: (pips[s], (s - x) % SEATS))
            small = len(mattikkeng) > 1 or pips[winner] == pips[x]
            moved = stones.pay(x, 1 if small else 5, payer=winner)
            to = x
    camat = None
    if state.end == "cappu" and stones.table == 0 and stones.held[winner] == 0:
        camat = winner  # DOM-10; a blocked round never names a CAMAT
    return {
        "end": state.end,
        "kind": state.kind,
        "winner": winner,
        "cucuq": cucuq,
        "manguno": manguno,
        "mattikkeng": mattikkeng,
        "pips": pips,
        "transfers": [{"to": to, "count": n, "from": src} for src, n in moved],
        "table": stones.table,
        "held": list(stones.held),
        "camat": camat,
    }


class DomengMatch(Match):
    variant = "domeng"
    title = "Domeng"
    num_seats = SEATS
    hand_size = HAND_SIZE
    rest_key = "sleeping"
    OPTIONS = (  # DOM-11
        Option("cycles", 1, 1, 100, "game cycles in the match; a cycle ends when a CAMAT is "
               "named (DOM-10, DOM-11)"),
        Option("round_cap", 200, 1, 1000, "rounds per cycle at most; a cycle cut by the cap "
               "names no CAMAT (DOM-11)"),
        PROFILE,
        CLOSING_PASS,
        FIRST_LEAD,
    )

    def __init__(self, options=None, seed=0, deals=None):
        self.stones = Stones()
        self.camat = None  # the sitting CAMAT, who leads every round (DOM-3, DOM-10)
        self.prev_winner = None
        self.cycle_rounds = 0
        self.cycles = []  # finished cycles: {"camat", "held", "ranking"}
        super().__init__(options, seed, deals)

    def _new_state(self, hands, rest):
        paid = self.options["closing_pass"] == CLOSING_PASS.literal  # DOM-8's reading
        if not self.deals:
            # DOM-2: the first round of the match is led by the holder of the highest of
            # 6-6..3-3 dealt, with that double (the ruling), or with any tile of its hand
            # (first_lead=any: the text names who starts, not with what).
            forced = self.options["first_lead"] != FIRST_LEAD.literal
            for d in FIRST_LEADS:
                for s in range(SEATS):
                    if d in hands[s]:
                        return DomengPosition(hands, rest, s, d if forced else None,
                                              self.stones, paid)
            raise MalformedInput("none of 6-6, 5-5, 4-4, 3-3 is in a hand")  # impossible: 3 sleep
        leader = self.camat if self.camat is not None else self.prev_winner  # DOM-3
        return DomengPosition(hands, rest, leader, None, self.stones, paid)

    def _start_info(self):
        return {"cycle": len(self.cycles), "camat": self.camat}

    def _settle(self, state):
        result = settle_round(state)
        self.prev_winner = result["winner"]
        self.cycle_rounds += 1
        if result["camat"] is not None:
            self.camat = result["camat"]
            return result, [self._end_cycle(self.camat)]
        if self.cycle_rounds >= self.options["round_cap"]:
            return result, [self._end_cycle(None)]  # DOM-11: cut by the cap
        return result, []

    def _end_cycle(self, camat) -> ev.Event:
        """DOM-10/11: rank the cycle, then all 25 stones go back to the table for the next
        one. After the match's last cycle they stay where they are, so that the final view
        shows the match as it ended."""
        held = list(self.stones.held)
        others = ranking_of(held, best_high=False)
        if camat is not None:
            others = [[s for s in g if s != camat] for g in others]
            ranking = [[camat]] + [g for g in others if g]
        else:
            ranking = others
        cycle = {"cycle": len(self.cycles), "camat": camat, "held": held,
                 "rounds": self.cycle_rounds, "ranking": ranking}
        self.cycles.append(cycle)
        if not self._match_is_over():
            self.stones.table, self.stones.held = STONES, [0] * SEATS
            self.cycle_rounds = 0
        return ev.Event(ev.CYCLE_OVER, info=cycle)

    def _match_is_over(self):
        return len(self.cycles) >= self.options["cycles"]

    def _match_result(self):
        titles = [sum(c["camat"] == s for c in self.cycles) for s in range(SEATS)]
        stones = [sum(c["held"][s] for c in self.cycles) for s in range(SEATS)]
        # DOM-11: more CAMAT titles first, then fewer stones over the cycles.
        keys = [(-titles[s], stones[s]) for s in range(SEATS)]
        ranking = [[s for s in range(SEATS) if keys[s] == k] for k in sorted(set(keys))]
        return {"camat_titles": titles, "stones": stones, "ranking": ranking, "cycles": self.cycles}

    def _score_view(self):
        # Once over, the cycle shown is the last one played, not the next that never starts.
        cycle = len(self.cycles) - 1 if self.over else len(self.cycles)
        return {"camat": self.camat, "cycle": cycle, "round_in_cycle": self.cycle_rounds}
