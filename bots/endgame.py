"""Exact look-ahead for one world: the expert bot's endgame solver, and its playouts.

A world (every hidden tile placed, bots/inference.py) with a policy family for every other
seat (bots/policies.py) is a game of one player against chance: the seat's own choices
are searched (the best of its moves), each other seat's are averaged over its policy's
chances (one move for greedy), and in HHL the order of the stock not yet drawn is chance
too: the stock is a uniform shuffle (HHL-1), so the next tile drawn is any of the tiles
left alike. ``solve`` computes the seat's expected value of each of its legal moves this
way, exactly, to the end of the deal; ``TooBig`` when that takes more than ``limit``
positions, so a caller can fall back to playouts.

How chance is kept honest: the stock's order must not be known before it is drawn (a
search that knew it would choose differently). The search carries a *group* of positions
that differ only in the order of the stock left (every order, n! of them for n tiles)
and moves all of them together; when a move makes a seat draw, the group splits by what
was drawn, each part weighing its share. Before any draw the seat's choice is one for
the whole group, as it is at the table. (The other seats' hands are known in the world:
that is the determinization the search is built on.)

Values are the seat's, as the search bot counts them (bots/strategies/search.py): HHL its
points for the hand (HHL-9); Domeng minus the stones it takes in the round, plus a bonus
for winning it and one for becoming CAMAT (DOM-3, DOM-10).

``playout`` plays one deal to its end instead: every seat by its family, the seat itself
by greedy, one draw of each chance.
"""

from __future__ import annotations

from itertools import permutations

from engine_service.rules.hhl import HHLPlayout

from .policies import GREEDY, greedy_lay, pick, sample


class TooBig(Exception):
    """The exact search would visit more positions than it was allowed."""


def value_of(p, seat: int, held_before: int, bonus: tuple[float, float]) -> float:
    """The seat's value of a finished deal (a playout that is over); ``bonus`` is Domeng's
    (for winning the round, for becoming CAMAT), in stones."""
    if isinstance(p, HHLPlayout):
        pips = p.pips()
        return 25 * sum(pips) - 100 * pips[seat]     # HHL-9
    r = p.result()
    v = -(r["held"][seat] - held_before)
    if r["winner"] == seat:
        v += bonus[0]
    if r["camat"] == seat:
        v += bonus[1]
    return v


def held_before(p, seat: int) -> int:
    """The stones the seat holds before the rest of the round (0 for HHL)."""
    return 0 if isinstance(p, HHLPlayout) else p.stones.held[seat]


def stock_orders(p, most: int) -> list:
    """The position once for every order of the stock not yet drawn (HHL), or itself: with
    more than ``most`` tiles left, once, in the order it has (the world's own draw)."""
    left = len(p.stock) - p.stock_pos if isinstance(p, HHLPlayout) else 0
    if left < 2 or left > most:
        return [p]
    drawn, left = p.stock[:p.stock_pos], p.stock[p.stock_pos:]
    out = []
    for order in permutations(left):
        q = p.copy()
        q.stock = drawn + list(order)
        out.append(q)
    return out


class Solver:
    """The exact search of one world: ``solve(p)`` -> the seat's value of each legal move.

    The other seats' moves are played as their families choose them, a deterministic
    greedy at once, a random or softmax family by a draw that is a function of the
    position (``_chance``): in this world the seat plays against one fixed way of
    answering each position, the same whichever way the search reached it, so that its
    own choices are compared against the same answers (not against fresh luck each
    time, which would favour whichever move happened to draw well)."""

    def __init__(self, seat: int, families: dict[int, str], bonus: tuple[float, float], limit: int,
                 salt: int = 0, chance_max: int = 3):
        self.seat, self.families, self.bonus, self.limit = seat, families, bonus, limit
        self.salt, self.chance_max = salt, chance_max
        self.nodes = 0
        self.before = 0

    def solve(self, p) -> list[float]:
        self.before = held_before(p, self.seat)
        group = stock_orders(p, self.chance_max)
        return [self._after(group, k) for k in range(len(p.legal()))]

    def _value(self, group) -> float:
        """The value of a group of positions where it is the seat's turn, or over."""
        p = group[0]
        if p.over:
            return value_of(p, self.seat, self.before, self.bonus)
        n = len(p.legal())
        if n == 1:
            return self._after(group, 0)
        return max(self._after(group, k) for k in range(n))

    def _after(self, group, k: int) -> float:
        """The value after the seat's k-th legal move, the other seats played until its
        next turn, chance averaged over."""
        kids = []
        for q in group:
            c = q.copy()
            c.apply(k)
            self._others(c)
            kids.append(c)
        if self.nodes > self.limit:
            raise TooBig()
        if len(kids) == 1 or all(c.stock_pos == group[0].stock_pos for c in kids):
            return self._value(kids)       # nothing drawn: the group stays one
        parts: dict = {}
        for c in kids:
            parts.setdefault((tuple(c.hands), c.stock_pos, c.turn, c.drawn, tuple(c.ends)), []).append(c)
        return sum(len(part) * self._value(part) for part in parts.values()) / len(kids)

    def _others(self, p) -> None:
        """Play the other seats in place until the seat's turn, or the end."""
        seat, families = self.seat, self.families
        hands = p.hands
        hhl = isinstance(p, HHLPlayout)
        nodes = 1
        while not p.over and p.turn != seat:
            turn = p.turn
            family = families.get(turn, GREEDY)
            if family == GREEDY:
                cand = 1 << p.drawn if hhl and p.drawn is not None else hands[turn]
                t, i = greedy_lay(p.ends, cand)
                p.lay(turn, t, i)
            else:
                legal = p.legal()
                p.apply(pick(family, legal, self._chance(p)) if len(legal) > 1 else 0)
            nodes += 1
        self.nodes += nodes

    def _chance(self, p) -> float:
        """A number in [0, 1) that depends only on the position (and the world's salt)."""
        h = hash((self.salt, p.turn, *p.hands, *p.ends))
        return ((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFF) / 0x1000000000000


def playout(p, seat: int, families: dict[int, str], rng, bonus: tuple[float, float]) -> float:
    """Play the deal to its end from ``p`` (used up: pass a copy): every other seat by its
    family, the seat itself greedy; the seat's value."""
    before = held_before(p, seat)
    hhl = isinstance(p, HHLPlayout)
    hands = p.hands
    while not p.over:
        turn = p.turn
        family = families.get(turn, GREEDY)
        if family == GREEDY:
            if hhl and p.drawn is not None:
                t, i = greedy_lay(p.ends, 1 << p.drawn)
            else:
                t, i = greedy_lay(p.ends, hands[turn])
            p.lay(turn, t, i)
        else:
            legal = p.legal()
            p.apply(sample(family, legal, rng))
    return value_of(p, seat, before, bonus)
