"""The house bots ranked in long in-process ladders: the figures behind "how strong is the
expert" and "is the oracle an upper bound" (docs/ladders.md, docs/bots.md).

Two kinds of ladder (bots/inprocess_ladder.py), chosen by DOMINO_HOUSE_LADDER:
- ``duplicate`` (default): the entrants at one table, four (HHL) or five (Domeng) at a
  time, every line-up of them in every order around the table, each deal played once per
  rotation of the seats, so every pair of entrants is compared on the same cards and
  beside the same neighbours (standings' paired test);
- ``field:NAME``: each entrant plays every deal in the same seat against NAME in every
  other seat (NAME greedy, heuristic, search or expert).

Entrants (DOMINO_HOUSE_ENTRANTS, default greedy,heuristic,search,expert,oracle,ceiling) are
the house strategies on fixed budgets of work, not of time, so a run is reproducible and
the machine's load cannot change a result: search at SEARCH_SAMPLES samples a move (where
it saturates), the expert and ceiling on their default units with no clock. Three more
entrants are the expert without one of its ideas, for what each adds on its own:
expert-no-inference (every other seat taken for greedy, as search does), expert-no-exact
(no exact endgame) and expert-no-look-ahead (its later moves greedy, as search plays
them).

DOMINO_HOUSE_VARIANT (hhl or domeng), DOMINO_HOUSE_MATCHES (default: enough matches for
HHL_HANDS hands or DOMINO_ROUNDS rounds in every comparison of two entrants),
DOMINO_HOUSE_PROCESSES (default: every core), DOMINO_HOUSE_SEED. DOMINO_HOUSE_OUT names a
file each result is appended to as its match ends, and read back first: a stopped run
resumes where it was, and the figures can be printed again without playing anything.
Progress goes to stderr.

Figures: the standings (mean per deal with its 95% interval: HHL points per hand, Domeng
minus the stones taken per round, so higher is better for both; gap closed from greedy, 0,
to the oracle, 1), then every pair of entrants' paired difference over the sets they
shared, each entrant's gap closed as a share of ceiling's, and the strength targets
(`claims`): at least 95% of ceiling's gap closed, and in Domeng at most half of greedy's
stones, each as a margin paired set by set with its 95% interval.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections import defaultdict

from benchmarks import sized
from bots.inprocess_ladder import run as run_ladder
from bots.strategies import YARDSTICKS, make_strategy
from bots.strategies.expert import Ceiling, Expert
from bots.strategies.search import Search
from ladders.formats import DUPLICATE, field_entrant, set_size
from ladders.standings import GREEDY, set_merits
from ladders.stats import mean_ci

SEARCH_SAMPLES = 300
OPTIONS = sized({"hhl": {"hands": 4}, "domeng": {"cycles": 1}},
                {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}})
HHL_HANDS, DOMENG_ROUNDS = 4000, 2000     # deals in every comparison of two entrants
DEFAULT_ENTRANTS = "greedy,heuristic,search,expert,oracle,ceiling"
# Smoke mode: the expert and ceiling on a sliver of their budgets (the code runs, no figure)
SMALL = sized({}, {"units": 2_000, "worlds": 8, "exact_nodes": 400})
SMOKE_MATCHES = sized(None, 4)
SEATS = {"hhl": 4, "domeng": 5}


def makers(samples: int = SEARCH_SAMPLES) -> dict:
    """name -> maker(seed): the house bots on fixed budgets of work."""
    return {
        "search": lambda s: Search(s, iterations=sized(samples, 4)),
        "expert": lambda s: Expert(s, ms=None, **SMALL),
        "ceiling": lambda s: Ceiling(s, **SMALL),
        "expert-no-inference": lambda s: Expert(s, ms=None, inference=False, **SMALL),
        "expert-no-exact": lambda s: Expert(s, ms=None, exact=False, **SMALL),
        "expert-no-look-ahead": lambda s: Expert(s, ms=None, depth=0, **SMALL),
        "greedy": lambda s: make_strategy("greedy", s),
        "heuristic": lambda s: make_strategy("heuristic", s),
        "random": lambda s: make_strategy("random", s),
        "oracle": lambda s: make_strategy("oracle", s),
    }


def matches_needed(variant: str, entrants: list[str], field: str | None, deals: int) -> int:
    """Matches so that each pair of entrants shares at least ``deals`` deals each: a field
    ladder plays every deal once per entrant; a duplicate ladder compares a pair only in
    the sets whose line-up holds both (a share of the line-ups), every rotation of a set
    giving each of them one match."""
    per_match = max(1, OPTIONS[variant].get("hands", 0) or _rounds_per_cycle(variant))
    seats = SEATS[variant]
    if field is not None:
        return len(entrants) * math.ceil(deals / per_match)
    n = len(entrants)
    size = set_size(DUPLICATE, entrants, seats)
    if n <= seats:
        share = 1.0
    else:
        share = (seats * (seats - 1)) / (n * (n - 1))   # line-ups holding a given pair
    sets = math.ceil(deals / (per_match * size * share))
    return sets * size


def _rounds_per_cycle(variant: str) -> int:
    return 5 if variant == "domeng" else 1   # at least a round per seat in a Domeng cycle


def pairs(variant: str, entrants: list[str], results: list[dict]) -> list[tuple]:
    """(a, b, mean of a - b per deal, 95% half-width, sets, deals each) over the complete
    sets both played, a's merit against b's (standings.merit_per_deal: higher is better)."""
    played = [r for r in results if not r.get("voided")]
    sets = set_merits(variant, played)
    deals: dict = defaultdict(lambda: defaultdict(int))    # set -> entrant -> deals played
    for r in played:
        for name in set(r["lineup"]):
            deals[r["set"]][name] += r["deals"]
    out = []
    for i, a in enumerate(entrants):
        for b in entrants[i + 1:]:
            shared = [k for k, m in sets.items() if a in m and b in m]
            if shared:
                m, h = mean_ci([sum(sets[k][a]) / len(sets[k][a]) - sum(sets[k][b]) / len(sets[k][b])
                                for k in shared])
                out.append((a, b, m, h, len(shared), sum(deals[k][a] for k in shared)))
    return out


def report(variant: str, standings: dict, results: list[dict]) -> list[str]:
    unit = "points a hand" if variant == "hhl" else "minus stones a round"
    lines = [f"{variant}: {standings['matches']} matches ({unit}; higher is better)",
             f"  {'place':>5s} {'entrant':18s} {'matches':>7s} {'mean':>9s} {'95%':>8s} "
             f"{'mu-3s':>7s} {'gap':>6s} {'sep.':>4s}"]
    gaps = {}
    for e in standings["entries"]:
        gap = e["gap_closed"]
        gaps[e["entrant"]] = gap
        sep = {True: "yes", False: "no"}.get(e.get("separated_from_next"), "")
        lines.append(f"  {e['place']:5d} {e['entrant']:18s} {e['matches']:7d} {e['mean']:9.3f} "
                     f"{e['ci95']:8.3f} {e['score']:7.2f} "
                     f"{'' if gap is None else f'{gap:6.2f}':>6s} {sep:>4s}")
    lines.append("  paired differences per deal over shared sets (a - b; * separated at 95%):")
    names = [e["entrant"] for e in standings["entries"]]
    for a, b, m, h, sets, shared in pairs(variant, names, results):
        lines.append(f"    {a:>14s} - {b:14s} {m:+9.3f} ± {h:7.3f}  {sets:5d} sets, "
                     f"{shared:6d} deals each{'  *' if m > h or -m > h else ''}")
    top = gaps.get("ceiling")
    if top:
        share = ", ".join(f"{n} {g / top:.2f}" for n, g in gaps.items()
                          if g is not None and n not in ("ceiling", "greedy"))
        lines.append(f"  gap closed as a share of ceiling's ({top:.2f}): {share}")
    lines += claims(variant, names, results)
    return lines


def gap_margin(sets: dict, a: str, base: str, ref, k: float) -> tuple | None:
    """Whether a closes at least k of the gap from base to ref, over the sets holding both
    (and ref when it is an entrant; a number is a fixed merit): (the share closed, a ratio
    of the means; the margin (a - base) - k (ref - base) per deal, its mean and 95%
    half-width; sets). Paired set by set, so the luck of a set's deals cancels out of the
    margin, as it does from standings' differences. None when no set holds them all."""
    rows = []
    for m in sets.values():
        if a in m and base in m and (not isinstance(ref, str) or ref in m):
            low = sum(m[base]) / len(m[base])
            high = sum(m[ref]) / len(m[ref]) if isinstance(ref, str) else ref
            rows.append((sum(m[a]) / len(m[a]) - low, high - low))
    if not rows:
        return None
    closed, gap = sum(r[0] for r in rows), sum(r[1] for r in rows)
    mean, half = mean_ci([c - k * g for c, g in rows])
    return (closed / gap if gap else math.nan), mean, half, len(rows)


def claims(variant: str, names: list[str], results: list[dict]) -> list[str]:
    """The strength targets the house bots are held to, each as a paired margin with its
    95% interval ("shown" when the whole interval is on the right side): against greedy's
    result in the same seats, an entrant closes at least 95% of ceiling's gap (both games),
    and in Domeng it takes at most half of greedy's stones (the gap from greedy's stones to
    none, half closed)."""
    sets = set_merits(variant, [r for r in results if not r.get("voided")])
    tests = [("ceiling", 0.95, "of ceiling's gap closed")]
    if variant == "domeng":
        tests.append((0.0, 0.5, "of greedy's stones"))    # 0.0: no stones taken
    # Judged: the house bots, not the yardsticks nor the field's seats.
    judged = [n for n in names if n not in (GREEDY, *YARDSTICKS)
              and not n.startswith(field_entrant(""))]
    lines = []
    for ref, k, what in tests:
        stones = not isinstance(ref, str)
        if GREEDY not in names or not (stones or ref in names):
            continue
        for a in judged:
            found = gap_margin(sets, a, GREEDY, ref, k)
            if found is None:
                continue
            share, mean, half, n = found
            if stones:      # stones taken, as a share of greedy's: 1 - the gap closed
                share, bound = 1 - share, f"at most {1 - k:.2f}"
            else:
                bound = f"at least {k:.2f}"
            verdict = "shown" if mean - half > 0 else "not shown"
            lines.append(f"  {a}: {share:.3f} {what} ({bound}: margin {mean:+.3f} ± "
                         f"{half:.3f} a deal over {n} sets, {verdict} at 95%)")
    return lines


def _read(path: str | None) -> list[dict]:
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def run():
    variant = os.environ.get("DOMINO_HOUSE_VARIANT", "hhl")
    kind = os.environ.get("DOMINO_HOUSE_LADDER", DUPLICATE)
    field = kind.split(":", 1)[1] if kind.startswith("field:") else None
    if field is None and kind != DUPLICATE:
        raise SystemExit(f"DOMINO_HOUSE_LADDER is duplicate or field:NAME, got {kind!r}")
    entrants = os.environ.get("DOMINO_HOUSE_ENTRANTS", DEFAULT_ENTRANTS).split(",")
    deals = HHL_HANDS if variant == "hhl" else DOMENG_ROUNDS
    matches = int(os.environ.get("DOMINO_HOUSE_MATCHES") or SMOKE_MATCHES
                  or matches_needed(variant, entrants, field, deals))
    processes = int(os.environ.get("DOMINO_HOUSE_PROCESSES") or sized(os.cpu_count() or 1, 1))
    seed = int(os.environ.get("DOMINO_HOUSE_SEED", "24"))
    out = os.environ.get("DOMINO_HOUSE_OUT")
    done = _read(out)
    all_makers = makers()
    chosen = {n: all_makers[n] for n in entrants if n in all_makers}
    if field is not None:
        chosen[field_entrant(field)] = all_makers[field]
    yield (f"{variant} {kind} ladder: {', '.join(entrants)}; {matches} matches "
           f"({len(done)} played before), {processes} processes, options {OPTIONS[variant]}, "
           f"search at {SEARCH_SAMPLES} samples a move")
    start = time.monotonic()
    before = len(done)

    def progress(n: int, results: list[dict]) -> None:
        if out and len(results) > before:
            with open(out, "a") as f:
                f.write(json.dumps(results[-1]) + "\n")
        new = n - before
        if new and (new % 20 == 0 or n == matches):
            rate = new / (time.monotonic() - start)
            print(f"  {n}/{matches} matches, {rate * 60:.1f} a minute, about "
                  f"{(matches - n) / rate / 60:.0f} min left", file=sys.stderr, flush=True)

    results: list[dict] = []

    def keep(n: int, rs: list[dict]) -> None:
        results[:] = rs
        progress(n, rs)

    standings = run_ladder(variant, entrants, DUPLICATE if field is None else "rotation",
                           OPTIONS[variant], seed=seed, matches=matches, field=field,
                           makers=chosen, processes=processes, done=done, progress=keep)
    yield from report(variant, standings, results or done)
