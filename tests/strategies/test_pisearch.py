"""The perfect-information search (bots/pisearch.py): exact against a brute force on small
endgames, the HHL stock order as chance (exactly the mean over every order), budgets, and
the old oracle as its one-ply greedy special case."""

import random
from fractions import Fraction
from itertools import permutations

import pytest

from bots import pisearch
from bots.strategies.greedy import Greedy
from bots.strategies.oracle import Oracle
from bots.strategies.search import WIN_BONUS, evaluate
from engine_service.rules import new_match
from engine_service.rules.hhl import HHLPlayout
from engine_service.rules.moves import BARRICADE
from engine_service.rules.tiles import PIPS

ONE_DEAL = {"hhl": {"hands": 1}, "domeng": {"round_cap": 1}}


def positions(variant, count, seed, tiles_at_most=28, stock_at_most=4):
    """Live matches stopped where the seat to move has a choice, after random play, with
    at most ``tiles_at_most`` tiles in all hands (and, HHL, ``stock_at_most`` in the stock)."""
    rng, out, k = random.Random(seed), [], 0
    while len(out) < count:
        m = new_match(variant, ONE_DEAL[variant], seed * 1000 + k)
        k += 1
        while not m.over:
            p = m.position
            left = sum(h.bit_count() for h in p.hands)
            stock = len(p.stock) - p.stock_pos if variant == "hhl" else 0
            legal = m.legal_moves(m.to_move)
            if len(legal) > 1 and left <= tiles_at_most and stock <= stock_at_most and rng.random() < 0.5:
                out.append(m)
                break
            m.play(m.to_move, rng.choice(legal))
    return out


# ----- a brute force: no table, no depth, no budget; every stock order at every move -----

def _terminal(p, held0, camat_bonus=5.0):
    if isinstance(p, HHLPlayout):
        return [Fraction(x) for x in p.result()]
    r = p.result()
    return [Fraction(held0[s] - r["held"][s]) + (Fraction(WIN_BONUS) if s == r["winner"] else 0)
            + (Fraction(camat_bonus) if s == r["camat"] else 0) for s in range(5)]


def _greedy(p):
    best, pips = 0, -1
    for k, (t, _, mode) in enumerate(p.legal()):
        if mode != BARRICADE and PIPS[t] > pips:
            best, pips = k, PIPS[t]
    return best


def brute(p, root, weights, held0=None, chance=True):
    """The value vector of ``p`` under the model ``weights`` (greedy, maxn, paranoid,
    uniform), in exact fractions. A move from an HHL position with a stock is averaged
    over every order of the tiles left in it, whether or not it draws (``chance``; else
    the stock is drawn in its order)."""
    if p.over:
        return _terminal(p, held0)
    legal = p.legal()

    def after(k):
        if chance and isinstance(p, HHLPlayout) and p.stock_pos < len(p.stock):
            drawn, left = p.stock[:p.stock_pos], p.stock[p.stock_pos:]
            total = None
            orders = list(permutations(left))
            for order in orders:
                q = p.copy()
                q.stock = drawn + list(order)
                q.apply(k)
                v = brute(q, root, weights, held0, chance)
                total = v if total is None else [a + b for a, b in zip(total, v, strict=True)]
            return [x / len(orders) for x in total]
        q = p.copy()
        q.apply(k)
        return brute(q, root, weights, held0, chance)

    s = p.turn
    if len(legal) == 1:
        return after(0)
    wg, wm, wp, wu = weights
    if s != root and wg == 1:
        return after(_greedy(p))
    kids = [after(k) for k in range(len(legal))]
    if s == root:
        return max(kids, key=lambda v: v[root])
    out = [Fraction(0)] * len(kids[0])
    picks = []
    if wm:
        picks.append((wm, max(kids, key=lambda v: (v[s], -v[root]))))
    if wp:
        picks.append((wp, min(kids, key=lambda v: v[root])))
    if wg:
        picks.append((wg, kids[_greedy(p)]))
    picks += [(Fraction(wu) / len(kids), v) for v in kids] if wu else []
    for w, v in picks:
        out = [a + Fraction(w) * b for a, b in zip(out, v, strict=True)]
    return out


MODEL_WEIGHTS = {"greedy": (1, 0, 0, 0), "maxn": (0, 1, 0, 0), "paranoid": (0, 0, 1, 0),
                 "uniform": (0, 0, 0, 1), "mixed": (Fraction(1, 2), Fraction(1, 4), 0, Fraction(1, 4))}


@pytest.mark.parametrize("model", list(MODEL_WEIGHTS))
@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_exact_search_agrees_with_a_brute_force_on_small_endgames(variant, model):
    weights = MODEL_WEIGHTS[model]
    as_dict = dict(zip(("greedy", "maxn", "paranoid", "uniform"), map(float, weights), strict=True))
    # HHL: at most 2 stock tiles, so every chance weight is 1/2 or 1 and the floats are exact
    cases = positions(variant, 6, seed=11, tiles_at_most=8 if variant == "hhl" else 9, stock_at_most=2)
    for m in cases:
        p = m.position.playout()
        held0 = None if variant == "hhl" else list(p.stones.held)
        r = pisearch.move_values(p, model=as_dict, nodes=None)
        assert r.exact and r.seat == p.turn
        assert list(r.moves) == m.legal_moves(m.to_move)
        want = []
        for k in range(len(r.moves)):
            q = p.copy()
            if variant == "hhl" and q.stock_pos < len(q.stock):
                vals = []
                for order in permutations(q.stock[q.stock_pos:]):
                    x = q.copy()
                    x.stock = q.stock[:q.stock_pos] + list(order)
                    x.apply(k)
                    vals.append(brute(x, p.turn, weights, held0)[p.turn])
                want.append(sum(vals) / len(vals))
            else:
                q.apply(k)
                want.append(brute(q, p.turn, weights, held0)[p.turn])
        assert r.values == pytest.approx([float(w) for w in want], abs=1e-9)


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_one_ply_with_greedy_seats_is_the_old_oracle_the_mean_over_every_stock_order(variant):
    """The old oracle: each move played out greedily once per order of the stock tiles
    left (up to 4! = 24), the mean of those; the search's chance nodes give the same."""
    for m in positions(variant, 30, seed=3):
        seat, legal = m.to_move, m.legal_moves(m.to_move)
        base = m.position.playout()
        totals, n = [0.0] * len(legal), 0
        orders = set(permutations(base.stock[base.stock_pos:])) if variant == "hhl" else [None]
        for order in orders:
            p = base.copy()
            if order is not None:
                p.stock = base.stock[:base.stock_pos] + list(order)
            evaluate(p, seat, legal, totals, 5.0)
            n += 1
        r = pisearch.move_values(m.position, model="greedy", depth=1)
        assert r.values == pytest.approx([t / n for t in totals], abs=1e-9)


def test_the_stock_order_is_chance_the_values_never_foresee_a_draw():
    """The same hand with its stock tiles in another order has the same values, at every
    depth and model: the order is future chance, and nothing the search does (the order it
    visits chance outcomes in, the orders its leaf playouts sample) follows it."""
    checked = 0
    for m in positions("hhl", 12, seed=5, tiles_at_most=16):
        p = m.position.playout()
        left = p.stock[p.stock_pos:]
        if len(left) < 2:
            continue
        twin = p.copy()
        twin.stock = p.stock[:p.stock_pos] + left[::-1]
        for model in ("greedy", "maxn", "mix"):
            a = pisearch.move_values(p, model=model, nodes=3000)
            b = pisearch.move_values(twin, model=model, nodes=3000)
            assert a.depth == b.depth and a.values == pytest.approx(b.values, abs=1e-6)
        checked += 1
    assert checked >= 5


def test_the_given_stock_order_is_played_in_order():
    """stock="given" plays the stock as it lies: a caller that drew the order itself."""
    (m,) = positions("hhl", 1, seed=8, tiles_at_most=12, stock_at_most=4)
    p = m.position.playout()
    r = pisearch.move_values(p, model="maxn", nodes=None, stock="given")
    assert r.exact
    want = []
    for k in range(len(r.moves)):
        q = p.copy()
        q.apply(k)
        want.append(brute(q, p.turn, MODEL_WEIGHTS["maxn"], chance=False)[p.turn])
    assert [Fraction(v) for v in r.values] == want
    chance = pisearch.move_values(p, model="maxn", nodes=None)
    assert chance.values != r.values  # here knowing the order changes what a move is worth


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_budget_bounds_the_work_and_deeper_budgets_search_deeper(variant):
    for m in positions(variant, 8, seed=21):
        small = pisearch.move_values(m.position, nodes=500)
        big = pisearch.move_values(m.position, nodes=20_000)
        assert big.depth >= small.depth >= 1
        assert list(small.moves) == list(big.moves) == m.legal_moves(m.to_move)
        # the first iteration always completes; later ones stop at the budget, give or
        # take the playouts of one leaf
        one = pisearch.move_values(m.position, depth=1)
        assert small.nodes <= max(500, one.nodes) + 2000


def test_bad_arguments_are_refused():
    m = positions("hhl", 1, seed=2)[0]
    for kwargs in ({"model": "clever"}, {"model": {"greedy": 0.5}}, {"model": {"greedy": 2, "maxn": -1}},
                   {"stock": "known"}, {"leaf_orders": 0}):
        with pytest.raises(ValueError):
            pisearch.move_values(m.position, **kwargs)
    over = new_match("hhl", {"hands": 1}, 1)
    g = Greedy()
    while not over.over:
        over.play(over.to_move, g.choose(None, over.legal_moves(over.to_move)))
    with pytest.raises(ValueError, match="over"):
        pisearch.move_values(over.deals[-1].state)


def _line(p, model):
    """The end of the deal from ``p`` when every seat (the one to move included) plays
    its best move under ``model``, searched exactly each time."""
    p = p.copy()
    while not p.over:
        r = pisearch.move_values(p, model=model, nodes=None)
        p.apply(max(range(len(r.values)), key=lambda i: r.values[i]))
    return p


def test_the_oracle_finds_the_move_whose_refutation_greedy_playouts_miss():
    """Endgames where the old oracle's move (one greedy playout per move and stock order)
    looks best but lets the next seat go out once that seat replies well rather than
    greedily: the oracle that searches the others' replies (each seat best for itself)
    plays the move that is best against those replies, and the old one does not."""
    found = 0
    for m in positions("hhl", 80, seed=3, tiles_at_most=10):
        p = m.position.playout()
        old = pisearch.move_values(p, model="greedy", depth=1)  # the old oracle, exactly
        a = max(range(len(old.values)), key=lambda i: old.values[i])
        exact = pisearch.move_values(p, model="maxn", nodes=None)
        assert exact.exact
        best = max(exact.values)
        after = p.copy()
        after.apply(a)
        end = _line(after, "maxn")
        if best - exact.values[a] < 100 or end.end != "domino" or end.winner_seat != (p.turn + 1) % 4:
            continue
        found += 1
        o = Oracle(0, model="maxn", nodes=None)
        o.attach(m)
        pick = m.legal_moves(m.to_move).index(o.choose(None, m.legal_moves(m.to_move)))
        assert pick != a and exact.values[pick] == best
    assert found >= 3
