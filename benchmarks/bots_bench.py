"""Strength of the strategies against three (HHL) or four (Domeng) greedy seats.

In-process, fixed seeds, the special seat rotated over every seat position:
* HHL: mean points per hand of the special seat (HHL-9), 95% confidence interval;
* Domeng: stones taken per round (net, passes and settlement) and CAMAT titles per 100
  rounds of the special seat, 95% confidence intervals;
* the time per move of the search bot at its default budget (median, p99).

The search bot's strength is measured with a fixed number of samples per move (its
``iterations``; reproducible, and affordable: 2,000 hands at the full 200 ms would take
hours on one core); the default is BENCH_ITERATIONS, set by BOTS_BENCH_ITERATIONS.
BOTS_BENCH_HANDS sets the number of HHL hands and Domeng rounds per pairing (default
2,000), BOTS_BENCH_SEARCH_HANDS the same for the search bot alone (default: the same).
Greedy against greedy seats is the baseline (about 0 in HHL, by symmetry).
"""

import math
import os
import statistics
import time

from benchmarks import sized
from bots.arena import play_match
from bots.simulate import stones_taken
from bots.strategies import make_strategy
from bots.strategies.search import Search

BENCH_HANDS = sized(2000, 8)
BENCH_ITERATIONS = sized(300, 10)
TIMING_MOVES = sized(100, 2)
# The matches the search bot's time per move is taken in (it plays at its full budget).
TIMING_OPTIONS = sized({"hhl": {"hands": 4}, "domeng": {"cycles": 1, "round_cap": 5}},
                       {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}})
HHL_HANDS_PER_MATCH = 10


def _bot(name, seed, iterations):
    if name == "search":
        return Search(seed, iterations=iterations)
    return make_strategy(name, seed)


def mean_ci(values) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    n = len(values)
    mu = statistics.fmean(values)
    if n < 2:
        return mu, math.inf
    return mu, 1.96 * statistics.stdev(values) / math.sqrt(n)


def hhl_points(name, hands, iterations, seed=1):
    """Points per hand of one ``name`` seat among three greedy seats."""
    points, k = [], 0
    while len(points) < hands:
        seat = k % 4
        bots = [_bot(name if s == seat else "greedy", seed * 7919 + k * 4 + s, iterations) for s in range(4)]
        n = min(HHL_HANDS_PER_MATCH, hands - len(points))
        m = play_match("hhl", {"hands": n}, seed * 100_003 + k, bots)
        points.extend(d.result["points"][seat] for d in m.deals)
        k += 1
    return points


def domeng_rounds(name, rounds, iterations, seed=2):
    """Stones taken per round and CAMAT titles (0/1 per round) of one ``name`` seat
    among four greedy seats; whole game cycles, the special seat rotated per cycle."""
    stones, camats, k = [], [], 0
    while len(stones) < rounds:
        seat = k % 5
        bots = [_bot(name if s == seat else "greedy", seed * 7919 + k * 5 + s, iterations) for s in range(5)]
        m = play_match("domeng", {"cycles": 1}, seed * 100_003 + k, bots)
        for d in m.deals:
            stones.append(stones_taken(d)[seat])
            camats.append(100 if d.result["camat"] == seat else 0)
        k += 1
    return stones[:rounds], camats[:rounds]


def search_move_times(variant, moves, seed=3):
    """Seconds per choice of the search bot at its default budget (positions where it
    has more than one legal move), over whole matches against greedy seats."""
    times = []

    class Timed(Search):
        def choose(self, view, legal_moves):
            start = time.perf_counter()
            move = super().choose(view, legal_moves)
            if len(legal_moves) > 1:
                times.append(time.perf_counter() - start)
            return move

    seats = 4 if variant == "hhl" else 5
    options = TIMING_OPTIONS[variant]
    k = 0
    while len(times) < moves:
        bots = [Timed(seed + k) if s == k % seats else make_strategy("greedy", s) for s in range(seats)]
        play_match(variant, options, seed * 1000 + k, bots)
        k += 1
    return times[:moves]


def _fmt(mu, ci, digits=1):
    return f"{mu:+.{digits}f} ± {ci:.{digits}f}"


def run(hands=None, iterations=None, timing_moves=None, search_hands=None):
    """Yield the report line by line (the section takes minutes: lines show as they come)."""
    hands = hands or int(os.environ.get("BOTS_BENCH_HANDS", BENCH_HANDS))
    search_hands = search_hands or int(os.environ.get("BOTS_BENCH_SEARCH_HANDS", hands))
    iterations = iterations or int(os.environ.get("BOTS_BENCH_ITERATIONS", BENCH_ITERATIONS))
    timing_moves = timing_moves or int(os.environ.get("BOTS_BENCH_TIMING_MOVES", TIMING_MOVES))
    names = ("greedy", "heuristic", "search", "oracle")
    yield (f"one seat vs greedy seats, {hands} HHL hands / {hands} Domeng rounds per pairing "
           f"({search_hands} for search), search at iterations={iterations} "
           f"(samples per move; its default budget is 200 ms)")
    size = {name: search_hands if name == "search" else hands for name in names}

    yield f"{'HHL: points per hand (95% CI)':34s} {'':>18s} {'seconds':>8s}"
    hhl = {}
    for name in names:
        start = time.perf_counter()
        hhl[name] = mean_ci(hhl_points(name, size[name], iterations))
        yield f"  {name:32s} {_fmt(*hhl[name]):>18s} {time.perf_counter() - start:8.1f}"
    g, s, o = hhl["greedy"][0], hhl["search"][0], hhl["oracle"][0]
    closed = (s - g) / (o - g) if o != g else float("nan")
    yield (f"  target: search > 0 with the CI excluding 0 -> "
           f"{'met' if s - hhl['search'][1] > 0 else 'NOT met'}")
    yield (f"  target: search closes >= 1/2 of the greedy->oracle gap -> closes {closed:.2f} "
           f"({'met' if closed >= 0.5 else 'NOT met'})")

    head = f"{'Domeng: per round (95% CI)':34s} {'stones taken':>18s} {'CAMAT/100 rounds':>18s}"
    yield f"{head} {'seconds':>8s}"
    dom = {}
    for name in names:
        start = time.perf_counter()
        st, cm = domeng_rounds(name, size[name], iterations)
        dom[name] = (mean_ci(st), mean_ci(cm))
        yield (f"  {name:32s} {_fmt(*dom[name][0], 3):>18s} {_fmt(*dom[name][1], 2):>18s} "
               f"{time.perf_counter() - start:8.1f}")
    (gs, gci), (ss, sci) = dom["greedy"][0], dom["search"][0]
    diff, diff_ci = ss - gs, math.hypot(gci, sci)
    yield (f"  target: search takes fewer stones than greedy, CI excluding equality -> "
           f"difference {_fmt(diff, diff_ci, 3)} ({'met' if diff + diff_ci < 0 else 'NOT met'})")

    for variant in ("hhl", "domeng"):
        times = sorted(search_move_times(variant, timing_moves))
        p99 = times[min(len(times) - 1, math.ceil(0.99 * len(times)) - 1)]
        yield (f"search time per move, {variant}, default budget ({len(times)} moves): "
               f"median {1000 * statistics.median(times):.0f} ms, p99 {1000 * p99:.0f} ms "
               f"(target: at most 200 ms)")


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
