"""The pure ladder parts: formats, ratings, statistics, standings."""

import itertools
import math
from collections import Counter

import pytest
from openskill.models import PlackettLuce

from bots.inprocess_ladder import run
from ladders.formats import (
    DUPLICATE,
    ROTATION,
    field_entrant,
    field_schedule,
    rotations,
    schedule,
    set_slots,
)
from ladders.ratings import Ratings
from ladders.seeds import SEED_BITS, deal_seed, derive_seed, new_secret
from ladders.standings import compute, match_ranking
from ladders.stats import mean_ci, separated


def test_rating_updates_equal_openskill_computed_directly():
    rankings = [[["a"], ["b", "c"], ["d"]], [["d"], ["c"], ["b"], ["a"]], [["b"], ["a", "c", "d"]]]
    ours = Ratings()
    model = PlackettLuce()
    direct = {n: model.rating(name=n) for n in "abcd"}
    for ranking in rankings:
        ours.update(ranking)
        names = [n for g in ranking for n in g]
        ranks = [i + 1 for i, g in enumerate(ranking) for _ in g]
        new = model.rate([[direct[n]] for n in names], ranks=ranks)
        direct.update({n: t[0] for n, t in zip(names, new, strict=True)})
    for n in "abcd":
        assert ours.rating(n).mu == pytest.approx(direct[n].mu)
        assert ours.rating(n).sigma == pytest.approx(direct[n].sigma)
        assert ours.conservative(n) == pytest.approx(direct[n].mu - 3 * direct[n].sigma)
    assert ours.rating("b").mu > ours.rating("a").mu  # b won twice, a won once


def test_rotation_meets_every_pair_and_balances_seats():
    entrants = ["a", "b", "c", "d", "e"]
    n = 5 * 6 * 4 * 2  # two full cycles of 5 groups x 6 orders around the table x 4 rotations
    lineups = [schedule(ROTATION, entrants, 4, 7, i)[0] for i in range(n)]
    met = {frozenset(p) for lu in lineups for p in itertools.combinations(lu, 2)}
    assert met == {frozenset(p) for p in itertools.combinations(entrants, 2)}
    positions = Counter((name, seat) for lu in lineups for seat, name in enumerate(lu))
    assert len(set(positions.values())) == 1, positions  # every entrant in every seat equally
    secret = new_secret()
    seeds = [deal_seed(secret, ROTATION, i, schedule(ROTATION, entrants, 4, 7, i)[1])
             for i in range(n)]
    assert len(set(seeds)) == n  # a new deal each match
    again = [deal_seed(secret, ROTATION, i, i, attempt=1) for i in range(n)]
    assert not set(again) & set(seeds)   # a slot played again after a void: a new deal


@pytest.mark.parametrize("fmt", [ROTATION, DUPLICATE])
@pytest.mark.parametrize("entrants,seats,cycle", [(list("abcd"), 4, 6 * 4),
                                                  (list("abcde"), 4, 5 * 6 * 4),
                                                  (list("abcde"), 5, 24 * 5)])
def test_every_entrant_sits_after_every_other_equally_often_over_a_cycle(
        fmt, entrants, seats, cycle):
    """Rotations alone would seat each entrant after the same one in every match: its
    neighbour's strength would count as its own."""
    after = Counter()
    for i in range(cycle):
        lineup, _ = schedule(fmt, entrants, seats, 11, i)
        after.update((lineup[s - 1], lineup[s]) for s in range(seats))
    assert set(after) == set(itertools.permutations(entrants, 2))
    assert len(set(after.values())) == 1, after


@pytest.mark.parametrize("entrants,seats", [(["a", "b", "c", "d"], 4), (["x", "y"], 4), (list("abcdef"), 5)])
def test_duplicate_plays_each_deal_in_every_rotation(entrants, seats):
    sets = {}
    secret = new_secret()
    for i in range(60):
        lineup, set_no = schedule(DUPLICATE, entrants, seats, 3, i)
        assert i in set_slots(DUPLICATE, entrants, seats, set_no)
        seed = deal_seed(secret, DUPLICATE, i, set_no, attempt=i % 3)   # replays: one deal
        sets.setdefault(set_no, []).append((tuple(lineup), seed))
    for matches in list(sets.values())[:-1]:  # the last set may be partial
        assert len({seed for _, seed in matches}) == 1  # one deal per set
        base = list(matches[0][0])
        assert sorted(lu for lu, _ in matches) == sorted(tuple(r) for r in rotations(base))
        for name in set(base):  # each entrant holds every seat position of that deal
            held = {s for lu, _ in matches for s, n in enumerate(lu) if n == name}
            assert held == set(range(seats)) or len(set(base)) < seats


def test_seeds_are_keyed_and_unrelated():
    """A seed is HMAC-SHA256(secret, parts) cut to 63 bits: the same for the same parts
    (a ladder resumes its schedule), unrelated across parts and secrets, and never the
    affine old rule (seed * 100003 + n) that one public seed solved."""
    import hashlib
    import hmac
    secret = new_secret()
    assert len(secret) == 64 and secret != new_secret()
    seeds = [derive_seed(secret, "duplicate-set", n) for n in range(1000)]
    assert seeds[3] == deal_seed(secret, DUPLICATE, 99, 3)
    assert seeds[3] == int.from_bytes(hmac.new(secret.encode(), b"duplicate-set\x1f3",
                                               hashlib.sha256).digest()[:8], "big") >> 1
    assert all(0 <= x < 2**SEED_BITS for x in seeds) and len(set(seeds)) == 1000
    assert max(seeds) > 2**62   # the top bit is used too
    differences = {(b - a) % 2**63 for a, b in itertools.pairwise(seeds)}
    assert len(differences) == 999          # no constant step from one seed to the next
    assert derive_seed(new_secret(), "duplicate-set", 3) != seeds[3]
    # the parts are joined so that no two splits of the same text meet
    assert derive_seed(secret, "a", "bc") != derive_seed(secret, "ab", "c")
    with pytest.raises(ValueError):
        derive_seed("", "duplicate-set", 0)


def test_rotations_are_distinct():
    assert rotations(["a", "b", "a", "b"]) == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
    assert len(rotations(list("abcd"))) == 4


def test_a_field_ladder_plays_each_deal_once_per_entrant_in_one_seat_among_the_field():
    entrants, seats = ["a", "b", "c"], 5
    sets = {}
    secret = new_secret()
    for i in range(3 * 12):
        lineup, set_no = field_schedule(entrants, "greedy", seats, i)
        sets.setdefault(set_no, []).append((lineup, deal_seed(secret, DUPLICATE, i, set_no)))
    assert len(sets) == 12
    for k, matches in sets.items():
        assert len({seed for _, seed in matches}) == 1  # one deal per set
        assert [lu[k % seats] for lu, _ in matches] == entrants  # the same seat for each
        for lu, _ in matches:
            assert lu.count(field_entrant("greedy")) == seats - 1
    assert len({m[0][1] for m in sets.values()}) == 12  # a new deal each set
    with pytest.raises(ValueError, match="named once"):
        field_schedule(["a", "a"], "greedy", 4, 0)


def test_an_inprocess_field_ladder_ranks_the_entrants_against_the_field():
    s = run("hhl", ["greedy", "random"], options={"hands": 1}, seed=4, matches=2 * 20, field="greedy")
    by = {e["entrant"]: e for e in s["entries"]}
    assert set(by) == {"greedy", "random", field_entrant("greedy")}
    assert by["greedy"]["matches"] == by["random"]["matches"] == 20
    assert by[field_entrant("greedy")]["matches"] == 40
    assert by["greedy"]["mean"] > by["random"]["mean"]


@pytest.mark.parametrize("fmt,field", [(DUPLICATE, None), (ROTATION, "greedy")])
def test_an_inprocess_ladder_in_worker_processes_or_resumed_plays_the_same_matches(fmt, field):
    entrants = ["greedy", "random", "heuristic"]
    kw = dict(options={"hands": 1}, seed=9, matches=24, field=field)
    serial, counts = [], []
    one = run("hhl", entrants, fmt, progress=lambda n, rs: serial.append(rs[-1]), **kw)
    two = run("hhl", entrants, fmt, processes=2, progress=lambda n, rs: counts.append(n), **kw)
    assert counts == list(range(1, 25))
    assert two == one
    # Resumed from the first half: only the rest is played, and the standings are the same.
    first = [r for r in serial if r["index"] < 12]
    again = []
    resumed = run("hhl", entrants, fmt, done=first, progress=lambda n, rs: again.append(rs[-1]), **kw)
    assert sorted(r["index"] for r in again) == list(range(12, 24))
    assert resumed == one
    assert one["matches"] == 24 and len({r["seed"] for r in serial}) > 1


def test_schedule_refuses_bad_ladders():
    with pytest.raises(ValueError, match="unknown format"):
        schedule("swiss", ["a", "b"], 4, 1, 0)
    with pytest.raises(ValueError, match="two entrants"):
        schedule(ROTATION, ["a"], 4, 1, 0)
    with pytest.raises(ValueError, match="named once"):
        schedule(ROTATION, ["a", "a"], 4, 1, 0)


def test_mean_ci_and_separation():
    m, h = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m == 2.5 and h == pytest.approx(3.182 * math.sqrt((5 / 3) / 4), rel=1e-3)
    assert mean_ci([5.0])[1] == math.inf
    assert separated([3.0, 4.0, 5.0, 4.0, 3.5, 4.5])
    assert not separated([-3.0, -4.0, -5.0, -4.0, -3.5, -4.5])  # clear, but the other way round
    assert not separated([3.0, -4.0, 5.0, -4.0, 3.5, -4.5])
    assert not separated([1.0, 1.0, 1.0])  # too few samples, however clear


def test_match_ranking_hhl_by_points_domeng_by_titles_then_stones():
    hhl = {"lineup": ["a", "b", "c", "d"], "scores": [100, -300, 100, 100], "titles": [0] * 4, "deals": 2}
    assert match_ranking("hhl", hhl) == [["a", "c", "d"], ["b"]]
    dom = {"lineup": ["a", "b", "a", "b", "c"], "scores": [0, 3, 10, 3, 1], "titles": [1, 0, 0, 0, 0],
           "deals": 9}
    # a: mean titles 0.5 -> first; c: 1 stone beats b's 3
    assert match_ranking("domeng", dom) == [["a"], ["c"], ["b"]]


def test_voided_rows_count_for_nothing_and_faults_are_listed():
    rows = [{"index": 0, "set": 0, "seed": 1, "lineup": ["a", "b", "a", "b"], "deals": 2,
             "scores": [200, -200, 100, -100], "titles": [0] * 4,
             "faults": {"b": {"timeouts": 2, "crashes": 1}}, "voided": False},
            {"index": 1, "set": 1, "seed": 2, "lineup": ["b", "a", "b", "a"], "deals": 2,
             "scores": [900, -900, 900, -900], "titles": [0] * 4, "faults": {}, "voided": True}]
    s = compute("hhl", ["a", "b"], rows)
    assert s["matches"] == 1 and s["voided"] == 1
    by = {e["entrant"]: e for e in s["entries"]}
    assert by["a"]["mean"] == 75.0 and by["b"]["mean"] == -75.0
    assert by["b"]["faults"] == {"timeouts": 2, "illegal": 0, "disconnects": 0, "crashes": 1,
                                 "spam": 0}
    assert s["entries"][0]["entrant"] == "a"


def test_until_separated_separates_greedy_from_random_in_hhl_and_stops():
    s = run("hhl", ["random", "greedy"], "rotation", {"hands": 2}, seed=1, until_separated=True,
            max_matches=300)
    assert s["separated"] and s["matches"] < 300
    assert [e["entrant"] for e in s["entries"]] == ["greedy", "random"]
    assert s["entries"][0]["separated_from_next"]
