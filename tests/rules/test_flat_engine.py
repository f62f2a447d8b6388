"""The flat-list yardstick engine (benchmarks/flat_engine.py) plays the very games the rules
core plays under ``domino simulate`` with random bots: same deals, same choices, same
ends and scores. Its speed figure means something only if this holds."""

import random

import pytest

from benchmarks import flat_engine
from bots.arena import play_match
from bots.simulate import simulate
from bots.strategies import make_strategy


def test_the_flat_engine_draws_the_numbers_random_draws():
    for seed in range(200):
        a, b = random.Random(seed), random.Random(seed)
        tiles = list(range(28))
        a.shuffle(tiles)
        assert flat_engine.shuffled(b.getrandbits) == tiles
        for n in (1, 2, 3, 7, 8, 13):
            assert flat_engine.below(b.getrandbits, n) == a.choice(range(n))


@pytest.mark.parametrize("variant,options", [
    ("hhl", None), ("hhl", {"hands": 3}), ("hhl", {"hands": 1}),
    ("domeng", None), ("domeng", {"cycles": 3, "round_cap": 7}), ("domeng", {"cycles": 2, "round_cap": 1}),
])
def test_the_flat_engine_plays_simulates_games(variant, options):
    seats = 4 if variant == "hhl" else 5
    for seed in (0, 5, 123):
        ours = simulate(variant, 30, seed, ["random"] * seats, options=options)
        flat = flat_engine.simulate(variant, 30, seed, options)
        assert (ours["deals"], ours["moves"], ours["outcomes"]) == \
            (flat["deals"], flat["moves"], flat["outcomes"])


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_flat_engine_scores_every_match_like_the_rules(variant):
    """Match by match: plays, outcomes, HHL totals (HHL-9), Domeng CAMAT titles and stones
    over the cycles (DOM-11)."""
    seats = 4 if variant == "hhl" else 5
    options = {"hands": 5} if variant == "hhl" else {"cycles": 2, "round_cap": 12}
    for k in range(60):
        bot_seeds = [k * 10 + s for s in range(seats)]
        m = play_match(variant, options, k, [make_strategy("random", x) for x in bot_seeds])
        bits = [random.Random(x).getrandbits for x in bot_seeds]
        plays = sum(e.kind == "play" for e in m.events)
        if variant == "hhl":
            n, outcomes, totals = flat_engine.hhl_match(k, bits, options["hands"])
            assert totals == m.result["totals"]
            assert outcomes == {e: sum(d.result["end"] == e for d in m.deals) for e in outcomes}
        else:
            n, outcomes, titles, stones = flat_engine.domeng_match(k, bits, options["cycles"],
                                                                   options["round_cap"])
            assert (titles, stones) == (m.result["camat_titles"], m.result["stones"])
            assert sum(outcomes.values()) == len(m.deals)
        assert n == plays
