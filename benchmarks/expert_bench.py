"""The expert bot's costs: playouts per second, time per move, and what match analysis
would pay for it as a continuation policy.

1. Playouts per second on one core, to the end of the deal from a seat's view with the
   hidden tiles guessed (worlds.Sampler), every legal move played out, on the same views
   and worlds: as search plays them (greedy for every seat, the lean playouts of
   rules/playout.py: ``from_view``, ``copy``, ``apply``, ``lay``) and as the expert does
   (bots/istree.py with no later choice of its own: each other seat by its policy
   family; against greedy seats, and against soft ones, whose moves are drawn).
2. The expert's time per move (positions with more than one legal move, in matches
   against greedy seats), median and p99, and the ceiling's; the target is 200 ms at p99.
3. A continuation for match analysis: the cost of finishing a deal from a position with
   greedy for every seat, and of a move of the heuristic and of the expert.

Times are this thread's CPU time (time.thread_time): the machine may be shared, and the
budget is one core's. The expert's budget is a count of work (bots/strategies/expert.py
``units``), so its moves are the same whatever the load; only their time varies.
"""

from __future__ import annotations

import math
import random
import statistics
import time

from benchmarks import sized
from bots.arena import play_match
from bots.istree import World, move_values
from bots.policies import GREEDY, SOFT
from bots.strategies import make_strategy
from bots.strategies.expert import Ceiling, Expert
from bots.strategies.search import evaluate
from engine_service.rules import worlds
from engine_service.rules.playout import from_view

VIEW_MATCHES = sized(12, 1)        # greedy matches the views of section 1 come from
WORLDS_PER_VIEW = sized(40, 3)
TIMED_MOVES = sized(200, 4)        # expert moves timed per game
CEILING_MOVES = sized(40, 2)
CONTINUATIONS = sized(300, 5)
SEATS = {"hhl": 4, "domeng": 5}
# Smoke mode: the expert and ceiling on a sliver of their budgets (the code runs, no figure)
SMALL = sized({}, {"units": 2_000, "worlds": 8, "exact_nodes": 400})
OPTIONS = {"hhl": {"hands": 2}, "domeng": {"cycles": 1, "round_cap": 4}}


class _Recorder:
    """A greedy seat that keeps its views where it had a choice."""

    def __init__(self, seat_views: list):
        self.greedy = make_strategy("greedy")
        self.views = seat_views

    def choose(self, view, legal_moves):
        if len(legal_moves) > 1:
            self.views.append((dict(view.items()), list(legal_moves)))
        return self.greedy.choose(view, legal_moves)

    def on_event(self, event):
        pass


def _views(variant: str) -> list:
    out: list = []
    for k in range(VIEW_MATCHES):
        bots = [_Recorder(out) if s == k % SEATS[variant] else make_strategy("greedy")
                for s in range(SEATS[variant])]
        play_match(variant, OPTIONS[variant], 500 + k, bots)
    return out


def _search_path(view, world, legal) -> None:
    """Every legal move played out once as search does: greedy for every seat, through
    the lean playout (copy, apply, lay)."""
    totals = [0.0] * len(legal)
    evaluate(from_view(view, world.hands, world.rest), view["seat"], legal, totals, 5.0)


def _expert_path(view, world, legal, families) -> None:
    """The same as the expert plays it out past its look-ahead's choices: every other seat
    by a policy family, the seat itself greedy (bots/istree.py, depth 0)."""
    base = from_view(view, world.hands, world.rest)
    move_values([World(base, 1.0, families)], view["seat"], (0.5, 5.0), 0)


def playout_rates(variant: str) -> tuple[float, float, float]:
    """(playouts per second as search plays them, as the expert does against greedy
    seats, against soft seats), one core."""
    rng = random.Random(7)
    cases = []
    for view, legal in _views(variant):
        sampler = worlds.Sampler(view)
        cases += [(view, sampler.draw(rng), legal) for _ in range(WORLDS_PER_VIEW)]
    playouts = sum(len(legal) for _, _, legal in cases)
    rates = []
    for family in (None, GREEDY, SOFT):
        start = time.thread_time()
        for view, world, legal in cases:
            if family is None:
                _search_path(view, world, legal)
            else:
                others = {s: family for s in range(len(view["counts"])) if s != view["seat"]}
                _expert_path(view, world, legal, others)
        rates.append(playouts / max(time.thread_time() - start, 1e-9))
    return rates[0], rates[1], rates[2]


def move_times(variant: str, moves: int, make) -> tuple[list[float], list[dict]]:
    """CPU seconds per choice with more than one legal move, one bot among greedy seats."""
    times, stats = [], []

    class Timed:
        def __init__(self, bot):
            self.bot = bot

        def choose(self, view, legal_moves):
            start = time.thread_time()
            move = self.bot.choose(view, legal_moves)
            if len(legal_moves) > 1:
                times.append(time.thread_time() - start)
                stats.append(dict(self.bot.stats))
            return move

        def on_event(self, event):
            pass

    k = 0
    while len(times) < moves:
        seat = k % SEATS[variant]
        bots = [Timed(make(k)) if s == seat else make_strategy("greedy") for s in range(SEATS[variant])]
        play_match(variant, OPTIONS[variant], 900 + k, bots)
        k += 1
    return times[:moves], stats[:moves]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def continuation_costs(variant: str) -> dict[str, float]:
    """CPU seconds per continuation step for match analysis: a greedy playout of every
    legal move to the end of the deal (what search does per world), and one move of the
    heuristic and of the expert (a continuation of a deal from its middle is a dozen
    moves, every seat's)."""
    rng = random.Random(3)
    cases = [(view, worlds.Sampler(view).draw(rng), legal) for view, legal in _views(variant)]
    cases = (cases * (1 + CONTINUATIONS // max(len(cases), 1)))[:CONTINUATIONS]
    start = time.thread_time()
    for view, world, legal in cases:
        _search_path(view, world, legal)
    out = {"greedy playout": (time.thread_time() - start) / sum(len(legal) for _, _, legal in cases)}
    heuristic = make_strategy("heuristic")
    start = time.thread_time()
    for view, _, legal in cases:
        heuristic.choose(view, legal)
    out["heuristic move"] = (time.thread_time() - start) / len(cases)
    timed, _ = move_times(variant, max(2, CONTINUATIONS // 30), lambda k: Expert(k, ms=None, **SMALL))
    out["expert move"] = statistics.mean(timed)
    return out


def run():
    yield "playouts per second, one core (CPU time), to the end of the deal from sampled worlds:"
    yield f"  {'':8s} {'search (greedy)':>16s} {'expert vs greedy':>17s} {'expert vs soft':>15s}"
    for variant in ("hhl", "domeng"):
        search, greedy, soft = playout_rates(variant)
        yield f"  {variant:8s} {search:16,.0f} {greedy:17,.0f} {soft:15,.0f}"
    for name, make, n in (("expert", lambda k: Expert(k, ms=None, **SMALL), TIMED_MOVES),
                          ("ceiling", lambda k: Ceiling(k, **SMALL), CEILING_MOVES)):
        for variant in ("hhl", "domeng"):
            times, stats = move_times(variant, n, make)
            exact = sum(1 for s in stats if s.get("exact")) / max(len(stats), 1)
            yield (f"{name} time per move, {variant} ({len(times)} moves vs greedy seats, CPU): "
                   f"median {1000 * statistics.median(times):.0f} ms, p99 {1000 * _pct(times, 0.99):.0f} ms, "
                   f"max {1000 * max(times):.0f} ms; worlds median "
                   f"{statistics.median(s['worlds'] for s in stats):.0f}, exact in {100 * exact:.0f}%"
                   + (" (target: p99 at most 200 ms)" if name == "expert" else ""))
    costs = continuation_costs("hhl")
    yield ("continuation policy for analysis, HHL (one hand for one seat within 2 s, hundreds of "
           "continuations of about a dozen moves): " + ", ".join(
               f"{k} {1e3 * v:.3f} ms" for k, v in costs.items()))
    per = {k: 300 * (v if k == "greedy playout" else 12 * v) for k, v in costs.items()}
    yield ("  300 continuations: " + ", ".join(f"{k.split()[0]} {v:.1f} s" for k, v in per.items()))
