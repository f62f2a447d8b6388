"""The arena's leaderboard (ladders/leaderboard.py): folded incrementally it equals the
recomputation from every result, whatever the chunks; its ratings are openskill's, as
ladders' Ratings computes them; the history follows each (bot, version)."""

import math
import random

import pytest

from ladders.leaderboard import Board
from ladders.ratings import Ratings
from ladders.standings import match_ranking


def results(n: int, seed: int = 1, variant: str = "hhl"):
    rng = random.Random(seed)
    keys = [(f"bot{i}", f"v{rng.randint(1, 2)}") for i in range(12)]
    seats = 4 if variant == "hhl" else 5
    out = []
    for s in range(1, n + 1):
        lineup = rng.sample(keys, seats)
        out.append({"match_id": f"m{s}", "arena": variant, "sequence": s,
                    "lineup": [list(k) for k in lineup],
                    "scores": [rng.randint(-30, 40) * 100 for _ in lineup],
                    "titles": [rng.randint(0, 1) for _ in lineup] if variant == "domeng"
                    else [0] * seats, "deals": rng.randint(1, 5),
                    "faults": [{"timeouts": rng.randint(0, 1)} for _ in lineup],
                    "ended": 1000.0 + s})
    return out


def snapshot(board: Board):
    return {k: (e.mu, e.sigma, e.matches, e.merit_sum, e.merit_squares, dict(e.faults),
                list(e.h_sequence), list(e.h_mu)) for k, e in board.entries.items()}


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_incremental_folding_equals_the_recomputation_from_every_result(variant):
    every = results(400, variant=variant)
    whole = Board.of(variant, every)
    rng = random.Random(7)
    folded, i = Board(variant), 0
    while i < len(every):        # in chunks, as an engine reads them over restarts
        step = rng.randint(1, 40)
        fresh = Board(variant) if rng.random() < 0.2 else folded   # a restart: from zero
        if fresh is not folded:
            for r in every[:i]:
                fresh.add(r)
            folded = fresh
        for r in every[i:i + step]:
            assert folded.add(r)
        i += step
    assert snapshot(folded) == snapshot(whole)
    assert folded.last_sequence == whole.last_sequence == 400
    assert not folded.add(every[10])     # a result counted already changes nothing


def test_the_written_out_update_is_openskills_bit_for_bit():
    from openskill.models import PlackettLuce

    from ladders.leaderboard import plackett_luce

    model = PlackettLuce()
    rng = random.Random(3)
    for _ in range(3000):
        n = rng.choice([4, 5])
        mus = [rng.uniform(0, 50) for _ in range(n)]
        sigmas = [rng.uniform(0.5, 9) for _ in range(n)]
        ranks = sorted(rng.randint(1, n) for _ in range(n))
        ranks = [sorted(set(ranks)).index(r) + 1 for r in ranks]   # 1, 2, 2, 3: ties too
        teams = [[model.create_rating([m, s])] for m, s in zip(mus, sigmas, strict=True)]
        expected = [(t[0].mu, t[0].sigma) for t in model.rate(teams, ranks=ranks)]
        assert plackett_luce(model, mus, sigmas, ranks) == expected


def test_ratings_are_openskills_plackett_luce_in_sequence_order():
    every = results(150)
    board = Board.of("hhl", list(reversed(every)))    # any order given: folded by sequence
    reference = Ratings()
    for r in every:
        shaped = {**r, "lineup": ["/".join(k) for k in r["lineup"]]}
        reference.update(match_ranking("hhl", shaped))
    for (bot, version), e in board.entries.items():
        ref = reference.rating(f"{bot}/{version}")
        assert (e.mu, e.sigma) == (ref.mu, ref.sigma)


def test_the_history_has_a_point_per_counted_match_and_the_rows_order_by_score():
    every = results(60)
    board = Board.of("hhl", every)
    for key, e in board.entries.items():
        points = board.history(key)
        assert len(points) == e.matches
        assert [p[0] for p in points] == sorted(p[0] for p in points)
        assert points[-1][2:] == (e.mu, e.sigma)
        assert board.history(key, 3) == points[-3:]
    scores = [e.score for _, e in board.ordered()]
    assert scores == sorted(scores, reverse=True)
    latest = board.latest_versions()
    for bot, version in latest.items():
        mine = [e.last_sequence for (b, _), e in board.entries.items() if b == bot]
        assert board.entries[(bot, version)].last_sequence == max(mine)


def test_mean_and_interval_are_ladders_statistics():
    from ladders.standings import merit_per_deal
    from ladders.stats import mean_ci

    every = results(80)
    board = Board.of("hhl", every)
    key = next(iter(board.entries))
    merits = [merit_per_deal("hhl", {**r, "lineup": [tuple(k) for k in r["lineup"]]})[key]
              for r in every if key in [tuple(k) for k in r["lineup"]]]
    mean, half = board.entries[key].mean_ci()
    ref_mean, ref_half = mean_ci(merits)
    assert math.isclose(mean, ref_mean, rel_tol=1e-9)
    assert math.isclose(half, ref_half, rel_tol=1e-6)
