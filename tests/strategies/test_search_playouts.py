"""The search bot plays its playouts on the lean playouts (engine_service/rules/playout.py)
and chooses exactly as it did on full positions: the same totals for every move, so the
same choice for a fixed seed and iteration count. (The oracle searches with bots/pisearch.py
now; tests/strategies/test_pisearch.py holds it to a brute force.)"""

import random

import pytest

import bots.strategies.search as search_mod
from bots.strategies.search import WIN_BONUS, Search, run_greedy_domeng, run_greedy_hhl
from engine_service.rules import new_match
from engine_service.rules.domeng import DomengPosition, settle_round
from engine_service.rules.hhl import HHLPosition, hand_points


def evaluate_on_positions(base, seat, moves, totals, camat_bonus):
    """search.evaluate as it was before playouts: a fork of the full position per move,
    the checked play, greedy through the position's own lay, settle_round."""
    if isinstance(base, HHLPosition):
        for i, m in enumerate(moves):
            state = base.fork()
            state.play(seat, m)
            pips = state.pips() if state.over else run_greedy_hhl(state)
            totals[i] += hand_points(pips)[seat]
        return
    for i, m in enumerate(moves):
        state = base.fork()
        before = state.stones.held[seat]
        state.play(seat, m)
        if not state.over:
            run_greedy_domeng(state)
        result = settle_round(state)
        value = -(result["held"][seat] - before)
        if result["winner"] == seat:
            value += WIN_BONUS
        if result["camat"] == seat:
            value += camat_bonus
        totals[i] += value


def positions(variant, count, seed=0):
    """(match, seat) at random points of random deals, with more than one legal move."""
    out = []
    while len(out) < count:
        m = new_match(variant, {"hands": 1} if variant == "hhl" else {"cycles": 2, "round_cap": 6}, seed)
        rng = random.Random(seed)
        stop = rng.randrange(1, 14)
        k = 0
        while not m.over:
            seat = m.to_move
            legal = m.legal_moves(seat)
            if k >= stop and len(legal) > 1:
                out.append((m, seat))
                break
            m.play(seat, rng.choice(legal))
            k += 1
        seed += 1
    return out


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_playout_totals_equal_the_full_positions(variant):
    for m, seat in positions(variant, 150):
        legal = m.legal_moves(seat)
        old, new = [0.0] * len(legal), [0.0] * len(legal)
        evaluate_on_positions(m.position, seat, legal, old, 5.0)
        search_mod.evaluate(m.position, seat, legal, new, 5.0)
        assert new == old


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_search_chooses_as_before(variant, monkeypatch):
    cases = positions(variant, 25, seed=1000)
    views = [(m.view(seat), m.legal_moves(seat)) for m, seat in cases]

    def choices():
        picks = []
        for k, (view, legal) in enumerate(views):
            bot = Search(k, iterations=12)
            picks.append((str(bot.choose(view, legal)), bot.samples))
        return picks

    now = choices()
    # the position-based way: from_view and full positions
    monkeypatch.setattr(search_mod, "evaluate", evaluate_on_positions)
    build = HHLPosition.from_view if variant == "hhl" else DomengPosition.from_view
    monkeypatch.setattr(search_mod, "from_view", build)

    assert choices() == now
