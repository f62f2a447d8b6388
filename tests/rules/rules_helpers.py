"""Shared helpers for the rules-core tests (tests/rules/).

Two kinds of helper live here:

* small conveniences to build scripted matches, play move lists and check that a refusal
  changes nothing;
* an independent *reference model* of both games (RefHHL, RefDomeng), written from the
  rulings in docs/rules.md with plain sets and lists and none of the engine's
  bit masks or tables. The property tests drive the engine and the reference side by side
  and compare legal moves, automatic events (draws, passes, stone payments) and results.
"""

import json
import re

import pytest

from engine_service.rules import IllegalMove, new_match

ARMS = ("left", "right", "up", "down")
ENDS = ("left", "right")
TILE_RE = re.compile(r"(?<![0-9])([0-6])-([0-6])(?![0-9])")
ALL_TILES = tuple(f"{hi}-{lo}" for hi in range(7) for lo in range(hi + 1))

# Upper 0.1% points of the chi-square distribution for 1..30 degrees of freedom, from the
# standard table (NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.6.7.4 "Critical
# Values of the Chi-Square Distribution", column 0.999); each checked against the
# regularized incomplete gamma function when the table was written.
CHI2_999 = (10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877, 29.588,
            31.264, 32.909, 34.528, 36.123, 37.697, 39.252, 40.790, 42.312, 43.820, 45.315,
            46.797, 48.268, 49.728, 51.179, 52.620, 54.052, 55.476, 56.892, 58.301, 59.703)


# ----- notation ---------------------------------------------------------------------
def canon(text: str) -> str:
    """Canonical high-low text of a tile, computed without the engine."""
    a, b = (int(x) for x in text.split("-"))
    return f"{max(a, b)}-{min(a, b)}"


def halves(t: str) -> tuple[int, int]:
    a, b = (int(x) for x in t.split("-"))
    return a, b


def pips(t: str) -> int:
    a, b = halves(t)
    return a + b


def is_double(t: str) -> bool:
    a, b = halves(t)
    return a == b


def tiles_mentioned(obj) -> set[str]:
    """Every tile written anywhere in a JSON-able value (canonicalised)."""
    text = json.dumps(obj)
    return {canon(f"{a}-{b}") for a, b in TILE_RE.findall(text)}


# ----- scripted matches --------------------------------------------------------------
def check_full_set(hands, rest):
    every = [canon(t) for h in hands for t in h] + [canon(t) for t in rest]
    assert sorted(every) == sorted(ALL_TILES), "test deal is not a full double-six set"


def hhl(hands, stock, options=None, more=()):
    """An HHL match whose first hand is the given deal (checked to be a full set)."""
    check_full_set(hands, stock)
    deals = [{"hands": hands, "stock": stock}, *more]
    return new_match("hhl", {"hands": 1} if options is None else options, deals=deals)


def domeng(hands, sleeping, options=None, more=()):
    check_full_set(hands, sleeping)
    deals = [{"hands": hands, "sleeping": sleeping}, *more]
    return new_match("domeng", {"cycles": 1} if options is None else options, deals=deals)


def play_script(m, script):
    """Play [(seat, move), ...]; return every event the engine reported."""
    out = []
    for seat, move in script:
        out.extend(m.play(seat, move))
    return out


def turn_records(events):
    """The turn events (play/draw/pass) in their record form."""
    return [e.to_record() for e in events if e.kind in ("play", "draw", "pass")]


def of_kind(events, kind):
    return [e for e in events if e.kind == kind]


def snapshot(m):
    seats = range(m.num_seats)
    return (
        json.dumps(m.record(), sort_keys=True),
        json.dumps(m.view(None), sort_keys=True),
        [json.dumps(m.view(s), sort_keys=True) for s in seats],
        [[str(x) for x in m.legal_moves(s)] for s in seats],
        m.to_move,
        m.over,
    )


def assert_refused(m, seat, move, reason):
    """The move is refused with ``reason``, carries the legal moves of the seat to move,
    and nothing observable changed."""
    before = snapshot(m)
    with pytest.raises(IllegalMove) as info:
        m.play(seat, move)
    assert info.value.reason == reason, str(info.value)
    to_move = m.to_move
    expected = m.legal_moves(to_move) if to_move is not None else []
    assert [str(x) for x in info.value.legal_moves] == [str(x) for x in expected]
    assert snapshot(m) == before
    return info.value


def legal_strs(m, seat=None):
    seat = m.to_move if seat is None else seat
    return sorted(str(x) for x in m.legal_moves(seat))


# ----- reference model: HHL ------------------------------------------------------------
class RefHHL:
    """One HHL hand, straight from HHL-1..HHL-9; ``literal``: HHL-8 read by the letter
    (dead_stock=draw: a seat that cannot play draws, whatever the stock holds; the hand
    ends at four passes in a row with an empty stock, or once all four arms are closed)."""

    def __init__(self, hands, stock, literal=False):
        self.literal = literal
        self.hands = [{canon(t) for t in h} for h in hands]
        self.stock = [canon(t) for t in stock]
        self.ends = None  # arm -> open number, or None when barricaded
        self.drawn = None
        self.over = False
        self.end = None
        self.domino_seat = None
        self.laid = []
        doubles = [f"{v}-{v}" for v in range(7)]
        self.opening = next(d for d in doubles if any(d in h for h in self.hands))  # HHL-2
        self.turn = next(s for s in range(4) if self.opening in self.hands[s])

    def open_ends(self):
        return [e for e in self.ends.values() if e is not None]

    def fits(self, t):
        a, b = halves(t)
        return any(e in (a, b) for e in self.open_ends())

    def legal(self) -> set[str]:
        if self.over:
            return set()
        if self.ends is None:
            return {self.opening}
        cand = [self.drawn] if self.drawn else self.hands[self.turn]
        out = set()
        for arm in ARMS:
            e = self.ends[arm]
            if e is None:
                continue
            for t in cand:
                if e in halves(t):
                    if is_double(t):
                        out |= {f"{t} {arm} normal", f"{t} {arm} barricade"}
                    else:
                        out.add(f"{t} {arm}")
        return out

    def play(self, seat, move: str) -> list[dict]:
        """Apply a legal move; return the automatic turn records that must follow."""
        assert move in self.legal() and seat == self.turn
        parts = move.split()
        t = parts[0]
        self.hands[seat].remove(t)
        self.laid.append(t)
        self.drawn = None
        if len(parts) == 1:
            v = halves(t)[0]
            self.ends = {a: v for a in ARMS}
        else:
            arm = parts[1]
            a, b = halves(t)
            e = self.ends[arm]
            if len(parts) == 3 and parts[2] == "barricade":
                self.ends[arm] = None
            else:
                self.ends[arm] = b if a == e else a
        if not self.hands[seat]:
            self.over, self.end, self.domino_seat, self.turn = True, "domino", seat, None
            return []
        out = []
        if not self.open_ends():
            self.over, self.end, self.turn = True, "blocked", None  # all four arms barricaded
            return out
        if not self.literal and not any(
                self.fits(t) for t in [*self.stock, *(x for h in self.hands for x in h)]):
            self.over, self.end, self.turn = True, "blocked", None  # HHL-8, the ruling
            return out
        s = seat
        passes = 0
        while True:
            s = (s + 1) % 4
            if any(self.fits(t) for t in self.hands[s]):
                self.turn = s
                return out
            drawn = []
            while self.stock:
                t = self.stock.pop(0)
                self.hands[s].add(t)
                drawn.append(t)
                if self.fits(t):
                    break
            if drawn:
                passes = 0
                out.append({"seat": s, "draw": drawn})
                if self.fits(drawn[-1]):
                    self.turn, self.drawn = s, drawn[-1]
                    return out
            out.append({"seat": s, "pass": True})
            passes += 1
            if passes == 4:  # by the letter: all players pass, the stock empty (HHL-8)
                self.over, self.end, self.turn = True, "blocked", None
                return out

    def result(self) -> dict:
        p = [sum(pips(t) for t in h) for h in self.hands]
        c = sum(p)
        if self.end == "domino":
            winners = [self.domino_seat]
        else:
            winners = [s for s in range(4) if p[s] == min(p)]
        return {"end": self.end, "winners": winners, "pips": p,
                "points": [25 * c - 100 * r for r in p]}


# ----- reference model: Domeng ---------------------------------------------------------
class RefStones:
    def __init__(self):
        self.table, self.held = 25, [0] * 5

    def pay(self, to, count, payer):
        """DOM-5/7/8/9: table first, then the named payer, the rest waived."""
        a = min(count, self.table)
        b = min(count - a, self.held[payer])
        self.table -= a
        self.held[payer] -= b
        self.held[to] += a + b
        return [x for x in (("table", a), (payer, b)) if x[1]]


class RefDomengPosition:
    """One Domeng round, straight from DOM-4..DOM-10; ``paid_close``: DOM-8 read by the
    letter (closing_pass=paid), the MANGUNO's closing pass is a PASS paid 1 stone."""

    def __init__(self, hands, sleeping, leader, lead_tile, stones, paid_close=False):
        self.paid_close = paid_close
        self.hands = [{canon(t) for t in h} for h in hands]
        self.sleeping = [canon(t) for t in sleeping]
        self.turn, self.lead_tile, self.stones = leader, lead_tile, stones
        self.ends = None  # [left, right]
        self.laid = [False] * 5
        self.last_mappano = None
        self.over = False
        self.end = self.kind = self.x = None
        self.line = []

    def legal(self):
        if self.over:
            return set()
        hand = self.hands[self.turn]
        if self.ends is None:
            return {self.lead_tile} if self.lead_tile else set(hand)
        return {f"{t} {ENDS[i]}" for i in (0, 1) for t in hand if self.ends[i] in halves(t)}

    def fits(self, t):
        return any(e in halves(t) for e in self.ends)

    def play(self, seat, move):
        assert move in self.legal() and seat == self.turn
        parts = move.split()
        t = parts[0]
        a, b = halves(t)  # a >= b (canonical)
        mappakuling = False
        if len(parts) == 1:
            self.ends = [a, b]  # the lead: high number on the left
        else:
            i = ENDS.index(parts[1])
            e = self.ends[i]
            self.ends[i] = b if a == e else a
            mappakuling = self.ends[0] == self.ends[1]  # DOM-6
        self.line.append(t)
        self.hands[seat].remove(t)
        self.laid[seat] = True
        self.last_mappano = seat
        out = [{"mappakuling": mappakuling}]
        if not self.hands[seat]:
            self.over, self.end, self.x, self.turn = True, "cappu", seat, None
            self.kind = ("pollo" if a == b else "ceki") if mappakuling else "plain"
            return out
        s = seat
        while True:
            s = (s + 1) % 5
            if any(self.fits(x) for x in self.hands[s]):
                self.turn = s
                return out
            if s == seat:
                paid = []
                if self.paid_close and self.stones.table:  # 1 from the table; the rest would
                    self.stones.table -= 1                  # be the MANGUNO's own: nothing
                    self.stones.held[s] += 1
                    paid = [{"from": "table", "count": 1}]
                out.append({"seat": s, "pass": True, "stones": paid,
                            "cost": 1 if self.paid_close else 0, "passebunge": False})
                self.over, self.end, self.x, self.turn = True, "blocked", s, None
                return out
            pb = not self.laid[s]
            cost = 2 if pb else 1
            moved = self.stones.pay(s, cost, seat)
            out.append({"seat": s, "pass": True, "cost": cost, "passebunge": pb,
                        "stones": [{"from": src, "count": n} for src, n in moved]})

    def settle(self):
        p = [sum(pips(t) for t in h) for h in self.hands]
        x = self.x
        cucuq, manguno, matt = None, None, []
        if self.end == "cappu":
            winner, cucuq = x, (x - 1) % 5
            to, moved = cucuq, self.stones.pay(cucuq, {"plain": 1, "ceki": 3, "pollo": 5}[self.kind], x)
        else:
            manguno = x
            matt = [s for s in range(5) if s != x and p[s] <= p[x]]
            if not matt:
                winner, cucuq = x, (x - 1) % 5
                to, moved = cucuq, self.stones.pay(cucuq, 1, x)
            else:
                order = [(x + k) % 5 for k in range(1, 5)]
                best = min(p[s] for s in matt)
                winner = next(s for s in order if s in matt and p[s] == best)
                n = 1 if len(matt) > 1 or p[winner] == p[x] else 5
                to, moved = x, self.stones.pay(x, n, winner)
        camat = None
        if self.end == "cappu" and self.stones.table == 0 and self.stones.held[winner] == 0:
            camat = winner
        return {"end": self.end, "kind": self.kind, "winner": winner, "cucuq": cucuq,
                "manguno": manguno, "mattikkeng": matt, "pips": p,
                "transfers": [{"to": to, "count": n, "from": src} for src, n in moved],
                "table": self.stones.table, "held": list(self.stones.held), "camat": camat}


def places(values, best_high):
    order = sorted(set(values), reverse=best_high)
    return [[s for s, v in enumerate(values) if v == x] for x in order]


# ----- driving engine and reference together ----------------------------------------
def deal_of(m, i=-1):
    d = m.record()["deals"][i]
    return d["hands"], d.get("stock", d.get("sleeping"))
