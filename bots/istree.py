"""The information-set look-ahead: the value of each legal move of the seat to move, over
a set of weighted worlds, with the seat's own later choices made as they would be made at
the table: from what the seat will have seen by then, never from the world it is in.

Why. Searching each world on its own (perfect-information search, then averaging over the
worlds) lets the seat's later choices see the hidden tiles of that world: a move that
needs that knowledge to be followed up well looks better than it is (strategy fusion).
Playing the seat's later moves by a fixed policy (greedy, as search does) avoids that, but
values every move as if the seat would play badly afterwards. This tree does neither:

- every world is played forward together, one branch per legal move of the seat; the
  other seats answer by their policy families (bots/policies.py: greedy's one move, a
  random or softmax family's by a draw that is a function of the position, so that the
  seat's alternatives meet the same answers);
- where the seat is to move again, the worlds are grouped by what the seat then sees (the
  open ends, its own hand and drawn tile, the tiles laid since, every seat's count, the
  stock drawn, the stones paid): one group is one position of the seat's as it would be
  at the table, and the seat makes ONE choice for the whole group, the move whose
  weighted mean over the group's worlds is best;
- ``depth`` of the seat's later choices are made so; past them every seat plays out to the
  end of the deal, the seat greedy, the others by their families.

Cross-fitting. With sampled worlds, a group's best move is chosen on the same worlds it is
then valued on, which favours moves that drew well (the winner's curse). So the worlds are
split in two folds; each fold's worlds are valued under the choice the OTHER fold's worlds
of the group make (greedy's move where the other fold has none there): an honest estimate
of a policy that chooses from what it sees. ``exact=True`` is for a complete set of
worlds with their exact weights (every world the view allows, bots/inference.py
``every_world``): nothing sampled, so every group chooses on all its worlds, and with
``depth`` beyond the deal's end the values are exact: the best the seat can do against
those policies from what it knows, to the end of the deal.

Values are the seat's, as search counts them (``value_of``): HHL its points for the hand
(HHL-9); Domeng minus the stones it takes in the round plus a bonus for winning it and one
for becoming CAMAT (DOM-3, DOM-10). ``work`` counts the moves applied; past ``limit`` the look-ahead raises
TooBig (the caller falls back), and past ``deadline`` (time.perf_counter) the choices not
made yet are played out instead (the values stay honest, only less deep).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine_service.rules.hhl import HHLPlayout

from .policies import GREEDY, greedy_index, greedy_lay, pick

__all__ = ["Look", "World", "TooBig", "move_values", "value_of"]


class TooBig(Exception):
    """The look-ahead would apply more moves than it was allowed."""


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


@dataclass
class World:
    """One world to look ahead in: a playout at the seat's turn (every hidden tile placed),
    its weight (any scale), and the policy family of each other seat in it (greedy if not
    named)."""
    p: object
    weight: float
    families: dict


@dataclass
class Look:
    """What ``move_values`` found: the value of each legal move of the playout's listing
    (the weighted mean over the worlds), the moves applied, and whether the deadline cut
    the look-ahead short."""
    values: list
    work: int
    cut: bool


def move_values(worlds: list[World], seat: int, bonus: tuple[float, float], depth: int,
                exact: bool = False, limit: float = float("inf"), deadline: float | None = None,
                salt: int = 0) -> Look:
    """The value of each of the seat's legal moves (every world at the same view: the same
    legal moves, in the playout's order). See the module's docstring."""
    tree = _Tree(seat, bonus, exact, limit, deadline, salt)
    items = [tree.item(i, w) for i, w in enumerate(worlds)]
    total = sum(w.weight for w in worlds)
    values = []
    for k in range(len(worlds[0].p.legal())):
        got = tree.after(items, k, depth)
        values.append(sum(it[3] * got[it[0]] for it in items) / total if total else 0.0)
    return Look(values, tree.work, tree.cut)


class _Tree:
    def __init__(self, seat, bonus, exact, limit, deadline, salt):
        self.seat, self.bonus, self.exact = seat, bonus, exact
        self.limit, self.deadline, self.salt = limit, deadline, salt
        self.work = 0
        self.cut = False
        self.ticks = 0

    def item(self, i: int, w: World) -> tuple:
        """(index, fold, position, weight, families, held before, pool at the root): the
        pool is every tile not on the table (hands, stock), to tell what was laid since."""
        p = w.p
        hhl = isinstance(p, HHLPlayout)
        h = p.hands
        pool = h[0] | h[1] | h[2] | h[3] | (p.stock_mask if hhl else h[4])
        return (i, i & 1, p, w.weight, w.families, held_before(p, self.seat), pool)

    def _seen(self, q, pool0: int) -> tuple:
        """What the seat sees at its turn in q: its group's key."""
        h = q.hands
        if isinstance(q, HHLPlayout):
            pool = h[0] | h[1] | h[2] | h[3] | q.stock_mask
            return (tuple(q.ends), h[self.seat], q.drawn, pool0 ^ pool,
                    tuple(x.bit_count() for x in h), q.stock_pos)
        pool = h[0] | h[1] | h[2] | h[3] | h[4]
        return (tuple(q.ends), h[self.seat], pool0 ^ pool, tuple(x.bit_count() for x in h),
                tuple(q.stones.held), q.stones.table)

    def after(self, items: list[tuple], k: int, depth: int) -> dict[int, float]:
        """Each world's value after the seat's k-th legal move (the worlds of ``items`` are
        all at one position of the seat's), the seat choosing by groups ``depth`` more
        times, then playing out."""
        out: dict[int, float] = {}
        groups: dict[tuple, list] = {}
        if self.deadline is not None and not self.cut:
            self.ticks += 1     # the clock read at the first call, then every 64th
            if self.ticks & 63 == 1 and time.perf_counter() > self.deadline:
                self.cut = True
        if self.cut:
            depth = 0
        for it in items:
            i, fold, p, weight, families, before, pool0 = it
            q = p.copy()
            q.apply(k)
            if depth <= 0:
                self._play(q, families, -1)
                out[i] = value_of(q, self.seat, before, self.bonus)
                continue
            self._play(q, families, self.seat)
            if q.over:
                out[i] = value_of(q, self.seat, before, self.bonus)
            else:
                groups.setdefault(self._seen(q, pool0), []).append(
                    (i, fold, q, weight, families, before, pool0))
        if self.work > self.limit:
            raise TooBig()
        for group in groups.values():
            out.update(self._choose(group, depth - 1))
        return out

    def _choose(self, items: list[tuple], depth: int) -> dict[int, float]:
        """The seat's one choice at a group (its worlds see the same): each world's value
        under it, cross-fitted unless exact (the module's docstring)."""
        legal = items[0][2].legal()
        if len(legal) == 1:
            return self.after(items, 0, depth)
        per = [self.after(items, k, depth) for k in range(len(legal))]
        if self.exact:
            best = max(range(len(legal)), key=lambda k: sum(it[3] * per[k][it[0]] for it in items))
            return per[best]
        totals = [[0.0, 0.0] for _ in legal]
        seen = [False, False]
        for it in items:
            i, fold, weight = it[0], it[1], it[3]
            seen[fold] = True
            for k in range(len(legal)):
                totals[k][fold] += weight * per[k][i]
        default = greedy_index(legal)
        choice = [max(range(len(legal)), key=lambda k, f=f: totals[k][f]) if seen[f] else default
                  for f in (0, 1)]
        return {it[0]: per[choice[1 - it[1]]][it[0]] for it in items}

    def _play(self, p, families: dict, until: int) -> None:
        """Play the other seats in place by their families until ``until``'s turn or the
        end; with until -1, to the end, the seat itself greedy."""
        hhl = isinstance(p, HHLPlayout)
        hands = p.hands
        n = 0
        while not p.over and p.turn != until:
            turn = p.turn
            family = GREEDY if turn == self.seat else families.get(turn, GREEDY)
            if family == GREEDY:
                t, i = greedy_lay(p.ends, 1 << p.drawn if hhl and p.drawn is not None else hands[turn])
                p.lay(turn, t, i)
            else:
                legal = p.legal()
                p.apply(pick(family, legal, self._chance(p)) if len(legal) > 1 else 0)
            n += 1
        self.work += n + 1

    def _chance(self, p) -> float:
        """A number in [0, 1) that depends only on the position (and the salt): a random or
        softmax seat answers a position the same way whichever of the seat's moves led
        there."""
        h = hash((self.salt, p.turn, *p.hands, *p.ends))
        return ((h * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFF) / 0x1000000000000
