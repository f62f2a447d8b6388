"""Perfect-information search: the value of every legal move of the seat to move, in a
position where every hand is known (HHL or Domeng).

    from bots import pisearch
    r = pisearch.move_values(position)          # a playout or a live position
    r.moves, r.values                           # the legal moves (Match.legal_moves'
                                                #   order) and each one's value to the
                                                #   seat to move
    r.depth, r.exact, r.nodes                   # plies searched, whether the values are
                                                #   the model's exact values, work used

The search is an expectimax tree over the plays that are left:

* **Chance.** The HHL stock's ORDER is future chance (a shuffled boneyard), not hidden
  information: with ``stock="chance"`` (the default) every draw is a chance node over the
  tiles left in the stock, each order equally likely, so the values are the exact mean
  over every order of the stock tiles left (at most 4! = 24: the stock never holds more
  than 4) — never a value that foresees the next draw. ``stock="given"`` plays the
  position's stock in its order instead (for a caller that drew the order itself). Domeng
  has no chance: its three sleeping tiles are known and never played.
* **The seat to move** (the root seat) maximises its value at its later turns too.
* **The other seats** follow ``model`` (below); the values are what the root seat gets if
  they do.
* **Depth.** Iterative deepening, one ply more each time, until the tree is exact or the
  budget is spent; the deepest completed iteration gives the values. Only real choices
  count as plies (a seat with one distinct move, up to the arm or end it goes on, costs
  none). Beyond the depth, every seat plays greedy to the end of the deal (the most pips,
  never a barricade: strategies.greedy), through the playout's own ``lay``; the HHL draws
  in those playouts are still averaged over every order. When the whole tree fits in the
  budget, no playout is left and the values are exact (``exact``): in HHL from about 10
  tiles in hand in all, in Domeng from about 12 (docs/bots.md, "oracle", has the figures).
* **Positions met twice** (transpositions, or two moves that lead to the same position)
  are searched once per call. The arms (and the Domeng ends) are kept in order, not
  folded together as the rules' symmetry would allow: greedy breaks its ties by the
  order of the legal moves, arm by arm, so the same tile on another arm can change what
  a greedy seat plays next.

Models of the other seats, each a mixture of three policy families (weights that sum to
1; a name or a dict of weights):

* ``greedy``: the most pips, never a barricade, ties to the first listed move;
* ``maxn``: the move with the best value for that seat itself (its value defined as the
  root seat's: HHL points; Domeng stones and bonuses), everyone seeing every hand; ties
  go to the move worse for the root seat;
* ``paranoid``: the move worst for the root seat.

``MODELS`` names the tried ones; ``DEFAULT_MODEL`` is the oracle's (docs/bots.md gives what
each one scored against each field).

Values, from the root seat:
  HHL:    its points for the hand (HHL-9);
  Domeng: minus the stones it takes in the round (passes and settlement, net), plus
          ``WIN_BONUS`` for winning the round (it leads the next one, DOM-3) and
          ``camat_bonus`` if it becomes CAMAT (DOM-10) — the search bot's values.

Budget: ``nodes`` counts the moves applied (in the tree, at chance nodes and in the
playouts), which is what the time goes into; ``ms`` optionally caps the wall clock too;
``depth`` caps the plies. The first iteration (every legal move, then playouts) always
completes, whatever the budget. With ``nodes`` alone the result is reproducible.

Nothing here reads a view or a match: a caller that knows every tile (the oracle, match
analysis of a finished match, a seat-honest bot on one guessed world) passes the position.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from engine_service.rules.domeng import DomengPlayout, DomengPosition
from engine_service.rules.hhl import FITS_OR_0, HHLPlayout, HHLPosition
from engine_service.rules.moves import BARRICADE
from engine_service.rules.tiles import FITS, OTHER, PIPS

from .policies import greedy_lay
from .strategies.search import CAMAT_BONUS, WIN_BONUS

__all__ = ["DEFAULT_MODEL", "DEFAULT_NODES", "MODELS", "Values", "move_values"]

MODELS = {
    "greedy": {"greedy": 1.0},
    "maxn": {"maxn": 1.0},
    "paranoid": {"paranoid": 1.0},
    "mix": {"greedy": 0.5, "maxn": 0.5},
}
DEFAULT_MODEL = "mix"
DEFAULT_NODES = 20_000
CHANCE, GIVEN = "chance", "given"
_FAMILIES = ("greedy", "maxn", "paranoid", "uniform")
_TIME_CHECK = 255  # look at the clock once every 256 choice nodes


@dataclass(frozen=True)
class Values:
    """The answer of ``move_values``: ``values[i]`` is ``moves[i]``'s value to ``seat``."""

    seat: int
    moves: tuple
    values: tuple
    depth: int     # plies of the deepest completed iteration (real choices only)
    exact: bool    # True: no playout was needed, the values are the model's exact ones
    nodes: int     # moves applied, over every iteration


class _OutOfBudget(Exception):
    pass


def _weights(model) -> tuple[float, ...]:
    w = MODELS.get(model) if isinstance(model, str) else model
    if not isinstance(w, dict) or set(w) - set(_FAMILIES):
        raise ValueError(f"a model is one of {', '.join(MODELS)} or weights over {', '.join(_FAMILIES)}")
    out = tuple(float(w.get(f, 0.0)) for f in _FAMILIES)
    if min(out) < 0 or not math.isclose(sum(out), 1.0):
        raise ValueError(f"model weights must be >= 0 and sum to 1, got {w}")
    return out


def move_values(position, *, model=DEFAULT_MODEL, nodes: int | None = DEFAULT_NODES,
                ms: float | None = None, depth: int | None = None,
                camat_bonus: float = CAMAT_BONUS, stock: str = CHANCE,
                leaf_orders: int | None = None, seed: int = 0) -> Values:
    """Every legal move's value to the seat to move in ``position`` (an HHL or Domeng
    playout, or a live HHLPosition/DomengPosition; not changed). ValueError for a
    position that is over, a bad model or stock mode. See the module's docstring."""
    if isinstance(position, (HHLPosition, DomengPosition)):
        position = position.playout()
    if stock not in (CHANCE, GIVEN):
        raise ValueError(f"stock is {CHANCE!r} or {GIVEN!r}, got {stock!r}")
    if position.over:
        raise ValueError("the position is over: no move to value")
    if leaf_orders is not None and (type(leaf_orders) is not int or leaf_orders < 1):
        raise ValueError(f"leaf_orders is None (every order) or a count >= 1, got {leaf_orders!r}")
    if isinstance(position, HHLPlayout):
        search = _HHL(position, _weights(model), camat_bonus, stock == CHANCE)
        if stock == CHANCE and leaf_orders is not None:
            search.sample_orders(leaf_orders, seed)
    elif isinstance(position, DomengPlayout):
        search = _Domeng(position, _weights(model), camat_bonus, False)
    else:
        raise ValueError(f"not a position or playout: {type(position).__name__}")
    return search.run(nodes, ms, depth)


class _Search:
    """The tree, for either game; the subclasses say what differs (keys, moves, values,
    playouts, chance)."""

    seats = 0

    def __init__(self, root, weights, camat_bonus, chance):
        self.root = root.copy()
        self.seat = root.turn
        self.wg, self.wm, self.wp, self.wu = weights
        self.greedy_only = self.wg == 1.0
        self.camat_bonus = camat_bonus
        self.chance = chance
        self.tt: dict = {}
        self.work = 0
        self.limit = math.inf
        self.deadline = None
        self.ticks = 0

    # ----- the driver ------------------------------------------------------------------
    def run(self, nodes, ms, max_depth) -> Values:
        root = self.root
        legal = root.legal()
        best, d = None, 1
        start = time.perf_counter()
        while True:
            if d > 1:
                self.limit = math.inf if nodes is None else nodes
                self.deadline = None if ms is None else start + ms / 1000
            try:
                kids = [self.after(root, k, d - 1) for k in range(len(legal))]
            except _OutOfBudget:
                break
            exact = all(e for _, e in kids)
            best = ([v[self.seat] for v, _ in kids], d, exact)
            if exact or (max_depth is not None and d >= max_depth):
                break
            d += 1
        values, depth, exact = best
        return Values(self.seat, tuple(legal), tuple(values), depth, exact, self.work)

    # ----- the tree --------------------------------------------------------------------
    def value(self, p, depth):
        """(value vector, exact) of position ``p`` searched ``depth`` plies deep."""
        if p.over:
            return self.terminal(p), True
        key = self.key(p)
        e = self.tt.get(key)
        if e is not None and (e[2] or e[1] >= depth):
            return e[0], e[2]
        n = len(p.legal())
        if n == 1:  # no choice: no ply spent
            vec, exact = self.after(p, 0, depth)
        elif self.greedy_only and p.turn != self.seat:  # a greedy seat: no choice searched
            vec, exact = self.after(p, self.greedy_index(p), depth)
        elif depth <= 0:
            vec, exact = self.playout(p), False
        else:
            self.ticks += 1
            if self.work > self.limit:
                raise _OutOfBudget
            if (self.deadline is not None and not self.ticks & _TIME_CHECK
                    and time.perf_counter() > self.deadline):
                raise _OutOfBudget
            vec, exact = self.choose(p, n, depth - 1)
        self.tt[key] = (vec, depth, exact)
        return vec, exact

    def choose(self, p, n, depth):
        s, root = p.turn, self.seat
        kids = [self.after(p, k, depth) for k in range(n)]
        exact = all(e for _, e in kids)
        if s == root:
            return max(kids, key=lambda kv: kv[0][root])[0], exact
        vecs = [v for v, _ in kids]
        out = None
        if self.wm:
            m = max(range(len(vecs)), key=lambda i: (vecs[i][s], -vecs[i][root]))
            out = _scaled(vecs[m], self.wm, out)
        if self.wp:
            m = min(range(len(vecs)), key=lambda i: vecs[i][root])
            out = _scaled(vecs[m], self.wp, out)
        if self.wg:
            out = _scaled(vecs[self.greedy_index(p)], self.wg, out)
        if self.wu:
            w = self.wu / n
            for v in vecs:
                out = _scaled(v, w, out)
        return tuple(out), exact

    def after(self, p, k, depth):
        """(value vector, exact) after the k-th legal move of ``p``: the mean over the
        chance outcomes of the draws it brings, if any."""
        kids = self.children(p, k)
        if len(kids) == 1:
            return self.value(kids[0][1], depth)
        acc, exact = None, True
        for w, q in kids:
            v, e = self.value(q, depth)
            acc = _scaled(v, w, acc)
            exact = exact and e
        return tuple(acc), exact

    def children(self, p, k):
        q = p.copy()
        q.apply(k)
        self.work += 1
        return ((1.0, q),)

    # ----- what the games fill in ------------------------------------------------------
    @staticmethod
    def greedy_index(p) -> int:
        """The index of greedy's move among p's legal moves: the most pips, never a
        barricade, ties to the first listed (strategies.greedy)."""
        best, best_pips = 0, -1
        for k, (t, _, mode) in enumerate(p.legal()):
            if mode != BARRICADE and PIPS[t] > best_pips:
                best, best_pips = k, PIPS[t]
        return best


def _scaled(v, w, acc):
    if acc is None:
        return [w * x for x in v]
    for i, x in enumerate(v):
        acc[i] += w * x
    return acc


class _HHL(_Search):
    seats = 4

    def key(self, p):
        h, e = p.hands, p.ends
        return (h[0], h[1], h[2], h[3], tuple(e) if e is not None else None, p.turn, p.drawn,
                p.stock_mask)

    def terminal(self, p):
        return p.result()

    def children(self, p, k):
        q = p.copy()
        q.apply(k)
        self.work += 1
        if not self.chance or q.stock_pos == p.stock_pos:
            return ((1.0, q),)
        return self._chance(p, lambda r: r.apply(k))

    def _chance(self, p, move):
        """The outcomes of ``move`` (which draws) from ``p`` over the orders of the stock
        tiles left, each order equally likely: (probability, position) per distinct run of
        drawn tiles. Whether a seat draws does not depend on the order, only what it
        draws does; so the next tile is fixed one at a time, each of the k left with
        chance 1/k, and only while the move draws past the tiles fixed so far."""
        out = []
        # sorted: nothing depends on the order given
        self._branch(p, move, out, p.stock[:p.stock_pos], [], sorted(p.stock[p.stock_pos:]),
                     1.0)
        return out

    def _branch(self, p, move, out: list, drawn: list, prefix: list, rest: list,
                w: float) -> None:
        """_chance's outcomes once `prefix` is fixed after the tiles `drawn` already (a
        method, not a closure that calls itself: engine_service/rules/knowledge.py says
        why)."""
        pos = p.stock_pos
        w /= len(rest)
        for j, t in enumerate(rest):
            others = rest[:j] + rest[j + 1:]
            r = p.copy()
            r.stock = drawn + prefix + [t] + others
            move(r)
            self.work += 1
            if r.stock_pos - pos <= len(prefix) + 1:
                out.append((w, r))
            else:
                self._branch(p, move, out, drawn, prefix + [t], others, w)

    samples = None  # the stock orders leaf playouts follow, when sampled (sample_orders)

    def sample_orders(self, k: int, seed: int) -> None:
        """Leaf playouts follow k orders of the stock tiles left at the root, drawn once
        (the same for every leaf: moves are compared on equal draws), instead of every
        order; a deeper position keeps each order's tiles it still has, in that order."""
        import random

        rng = random.Random(seed)
        left = sorted(self.root.stock[self.root.stock_pos:])  # not the order given: unknown
        self.samples = [rng.sample(left, len(left)) for _ in range(k)] if len(left) > 1 else None

    def playout(self, p):
        """Every seat greedy to the end of the hand; the draws averaged over every order
        (or over the sampled ones)."""
        if self.samples is not None and p.stock_pos < len(p.stock):
            left, pos = p.stock_mask, p.stock_pos
            drawn, acc, w = p.stock[:pos], None, 1.0 / len(self.samples)
            for order in self.samples:
                q = p.copy()
                q.stock = drawn + [t for t in order if left >> t & 1]
                acc = _scaled(self._greedy_to_end(q), w, acc)
            return acc
        q = p.copy()
        if q.ends is None:
            q.apply(0)  # the opening double (HHL-2)
            self.work += 1
        hands, chance = q.hands, self.chance
        while not q.over:
            turn = q.turn
            cand = hands[turn] if q.drawn is None else 1 << q.drawn
            t, i = greedy_lay(q.ends, cand)
            self.work += 1
            if chance and q.stock_pos < len(q.stock) and _next_draws(q, turn, t, i):
                acc = None
                for w, r in self._chance(q, lambda r, s=turn, t=t, i=i: r.lay(s, t, i)):
                    acc = _scaled(self.playout(r) if not r.over else r.result(), w, acc)
                return acc
            q.lay(turn, t, i)
        return q.result()

    def _greedy_to_end(self, q):
        """Every seat greedy to the end of the hand, the stock in q's order (q used up)."""
        if q.ends is None:
            q.apply(0)
            self.work += 1
        hands = q.hands
        while not q.over:
            turn = q.turn
            t, i = greedy_lay(q.ends, hands[turn] if q.drawn is None else 1 << q.drawn)
            q.lay(turn, t, i)
            self.work += 1
        return q.result()


class _Domeng(_Search):
    seats = 5

    def __init__(self, root, weights, camat_bonus, chance):
        super().__init__(root, weights, camat_bonus, chance)
        self.held0 = list(root.stones.held)

    def key(self, p):
        h, e, st = p.hands, p.ends, p.stones
        return (h[0], h[1], h[2], h[3], h[4], (e[0], e[1]) if e is not None else p.lead_tile,
                p.turn, tuple(p.laid), p.last_mappano, st.table, tuple(st.held))

    def terminal(self, p):
        r = p.result()
        held, held0, win, camat = r["held"], self.held0, r["winner"], r["camat"]
        return [held0[s] - held[s] + (WIN_BONUS if s == win else 0.0)
                + (self.camat_bonus if s == camat else 0.0) for s in range(5)]

    def playout(self, p):
        q = p.copy()
        hands = q.hands
        if q.ends is None:
            legal = q.legal()
            q.apply(max(range(len(legal)), key=lambda k: (PIPS[legal[k][0]], -k)))
            self.work += 1
        while not q.over:
            turn = q.turn
            t, i = greedy_lay(q.ends, hands[turn])
            q.lay(turn, t, i)
            self.work += 1
        return self.terminal(q)




def _next_draws(q, turn: int, t: int, i: int) -> bool:
    """Whether laying tile t on arm i (not as a barricade) leaves the next seat without a
    play, so that the rules' lay goes on to draw (HHL-6) or to end a blocked hand: lay's
    own test, read ahead so that the playout copies the position only then. (A blocked
    end draws nothing and is one outcome of probability 1.)"""
    if q.hands[turn] == 1 << t:
        return False  # domino (HHL-7)
    ends = q.ends
    fit = FITS[OTHER[t][ends[i]]]
    for j in range(4):
        if j != i:
            fit |= FITS_OR_0[ends[j]]
    return not q.hands[(turn + 1) % 4] & fit
