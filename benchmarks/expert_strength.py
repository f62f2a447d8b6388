"""The expert's strength against greedy seats, paired on the same deals: each entrant
plays one seat (the seat turns with the deal) of the same matches, the other seats
greedy, so every entrant meets the same cards and the same opponents and the luck of
the deal cancels out of the differences.

Figures per entrant: its mean per deal (HHL points per hand; Domeng stones taken per
round, fewer is better) with a 95% interval, its paired difference from ``search`` and
from ``expert``, and the share of the greedy-to-``ceiling`` and greedy-to-oracle gaps it
closes. The entrants include the expert with its inference off (every other seat taken
for greedy, as search does) and with its exact endgame off, for what each idea adds on
its own.

DOMINO_STRENGTH_VARIANTS (default "hhl,domeng") picks the games,
DOMINO_STRENGTH_ENTRANTS (default all) the entrants. Results are appended
one match a line to DOMINO_STRENGTH_OUT (if set) and read back from it, so that a long
run can be resumed and its figures reused. The intervals are
ladders/stats.py's, the same as the ladders' standings.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

from benchmarks import sized
from bots.arena import play_match
from bots.simulate import stones_taken
from bots.strategies import make_strategy
from bots.strategies.expert import Ceiling, Expert
from bots.strategies.search import Search
from ladders.stats import mean_ci

MATCHES = {"hhl": sized(100, 1), "domeng": sized(60, 1)}
CEILING_EVERY = sized(4, 1)     # ceiling plays every 4th match only: ten times the cost
OPTIONS = sized({"hhl": {"hands": 4}, "domeng": {"cycles": 1, "round_cap": 4}},
                {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}})
# Smoke mode: the expert and ceiling on a sliver of their budgets (the code runs, no figure)
SMALL = sized({}, {"units": 2_000, "worlds": 8, "exact_nodes": 400})
SEATS = {"hhl": 4, "domeng": 5}
SEARCH_SAMPLES = 300            # where search saturates against greedy seats


def entrants() -> dict:
    """name -> maker(seed) of the entrant's strategy."""
    return {
        "greedy": lambda s: make_strategy("greedy", s),
        "search": lambda s: Search(s, iterations=SEARCH_SAMPLES),
        "expert": lambda s: Expert(s, ms=None, **SMALL),
        "expert-no-inference": lambda s: Expert(s, ms=None, inference=False, **SMALL),
        "expert-no-exact": lambda s: Expert(s, ms=None, exact=False, **SMALL),
        "oracle": lambda s: make_strategy("oracle", s),
        "ceiling": lambda s: Ceiling(s, **SMALL),
    }


def play(variant: str, name: str, make, k: int) -> dict:
    """Match k: the entrant in seat k mod seats, greedy elsewhere; its result per deal."""
    n = SEATS[variant]
    seat = k % n
    seed = 7000 + k
    bots = [make(seed * 10 + s) if s == seat else make_strategy("greedy", seed * 10 + s) for s in range(n)]
    m = play_match(variant, OPTIONS[variant], seed, bots)
    deals = len(m.deals)
    if variant == "hhl":
        value = m.result["totals"][seat] / deals
    else:
        value = sum(stones_taken(d)[seat] for d in m.deals) / deals
    return {"variant": variant, "entrant": name, "match": k, "value": value, "deals": deals}


def _load(path: str | None) -> list[dict]:
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def measure(variant: str, out: str | None) -> dict[str, dict[int, float]]:
    done = defaultdict(dict)
    for r in _load(out):
        if r["variant"] == variant:
            done[r["entrant"]][r["match"]] = r["value"]
    makers = entrants()
    only = os.environ.get("DOMINO_STRENGTH_ENTRANTS")
    if only:
        makers = {n: makers[n] for n in only.split(",")}
    for k in range(MATCHES[variant]):
        for name, make in makers.items():
            if k in done[name] or (name == "ceiling" and k % CEILING_EVERY):
                continue
            r = play(variant, name, make, k)
            done[name][k] = r["value"]
            if out:
                with open(out, "a") as f:
                    f.write(json.dumps(r) + "\n")
    return done


def _paired(a: dict[int, float], b: dict[int, float]) -> tuple[float, float, int]:
    keys = sorted(set(a) & set(b))
    m, h = mean_ci([a[k] - b[k] for k in keys])
    return m, h, len(keys)


def report(variant: str, done: dict[str, dict[int, float]]):
    unit = "points/hand" if variant == "hhl" else "stones/round"
    sign = 1 if variant == "hhl" else -1
    yield f"{variant}: one seat among greedy seats, the same matches for every entrant ({unit})"
    yield (f"  {'entrant':22s} {'matches':>7s} {'mean':>16s} {'vs search':>16s} {'vs expert':>16s} "
           f"{'gap ceiling':>11s} {'gap oracle':>10s}")
    g = done.get("greedy", {})
    for name, vals in done.items():
        m, h = mean_ci(list(vals.values()))
        cells = []
        for ref in ("search", "expert"):
            if ref in done and ref != name:
                d, dh, _ = _paired(vals, done[ref])
                cells.append(f"{d:+8.2f} ±{dh:6.2f}")
            else:
                cells.append("")
        gaps = []
        for top in ("ceiling", "oracle"):
            if top in done and name != "greedy":
                keys = set(done[top]) & set(g) & set(vals)
                hi = sum(sign * (done[top][k] - g[k]) for k in keys)
                lo = sum(sign * (vals[k] - g[k]) for k in keys)
                gaps.append(f"{lo / hi:.2f}" if hi else "-")
            else:
                gaps.append("")
        yield (f"  {name:22s} {len(vals):7d} {m:8.2f} ±{h:6.2f} {cells[0]:>16s} {cells[1]:>16s} "
               f"{gaps[0]:>11s} {gaps[1]:>10s}")


def run():
    out = os.environ.get("DOMINO_STRENGTH_OUT")
    for variant in os.environ.get("DOMINO_STRENGTH_VARIANTS", "hhl,domeng").split(","):
        yield from report(variant, measure(variant, out))
