"""Match analysis (analysis/): what it costs, and what it says of the yardstick players.

* One HHL hand analysed for one seat at the default worlds, on one core (CPU seconds);
  target <= 2 s. How it scales with --worlds.
* An 8-hand HHL match for all four seats, over 2 processes (wall clock); target <= 60 s.
  A Domeng cycle for all five seats, over 2 processes, against the same proportion
  (60 s / 32 seat-hands = 1.875 s per seat-round on 2 cores).
* Why greedy is the reference policy: a continuation played by greedy (the lean playout)
  against one played by heuristic (it needs a view per step, so a Match).
* Per decision, the mean seat-honest loss of random, greedy, heuristic, search and the
  oracle yardstick, and their perfect-information loss, with 95 % intervals (t-free:
  mean +- 1.96 standard errors over decisions).
"""

from __future__ import annotations

import time
from statistics import mean, stdev

from benchmarks import sized

WORLDS = sized(None, 5)               # None: the default
SCALE = sized((100, 250, 500, 1000, 2000), (2, 4))
HANDS = sized(8, 1)
YARD_MATCHES = sized(6, 1)
YARD_WORLDS = sized(200, 3)
CONTINUATIONS = sized(200, 5)
YARDSTICKS = ("random", "greedy", "heuristic", "search", "oracle")


def _record(variant, options, seed, names):
    from bots.arena import play_match
    from bots.strategies import make_strategy
    from bots.strategies.search import Search

    bots = [Search(seed * 10 + s, iterations=sized(100, 5)) if n == "search"
            else make_strategy(n, seed * 10 + s) for s, n in enumerate(names)]
    return play_match(variant, options, seed, bots).record(seats=list(names))


def _timed_cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _timed_wall(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _cpu_all() -> float:
    """CPU seconds of this process and its finished children (the analysis's workers)."""
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _interval(xs) -> str:
    if len(xs) < 2:
        return f"{mean(xs) if xs else 0:.1f}"
    half = 1.96 * stdev(xs) / len(xs) ** 0.5
    return f"{mean(xs):.1f} +- {half:.1f}"


def _continuations():
    """CPU seconds per continuation of a whole HHL hand: greedy on a lean playout, heuristic
    through a Match (its view at every step)."""
    from analysis.policy import finish
    from bots.arena import play_match
    from bots.strategies import make_strategy
    from engine_service.rules import new_match

    starts = [new_match("hhl", {"hands": 1}, k).position.playout() for k in range(CONTINUATIONS)]

    def greedy():
        for p in starts:
            finish(p.copy(), 0, [])

    def heuristic():
        for k in range(max(1, CONTINUATIONS // 20)):
            play_match("hhl", {"hands": 1}, k, [make_strategy("heuristic", s) for s in range(4)])
    g, _ = _timed_cpu(greedy)
    h, _ = _timed_cpu(heuristic)
    return g / CONTINUATIONS, h / max(1, CONTINUATIONS // 20)


def run():
    from analysis import DEFAULT_WORLDS, analyse
    from bots.arena import play_match
    from bots.strategies import make_strategy
    from bots.strategies.oracle import Oracle
    from bots.strategies.search import Search

    worlds = WORLDS or DEFAULT_WORLDS
    names = ("heuristic", "greedy", "random", "search")
    hhl = _record("hhl", {"hands": HANDS}, 5, names)
    cpu, _ = _timed_cpu(lambda: analyse(hhl, seats=[0], worlds=worlds, processes=1))
    yield (f"HHL, one hand, one seat, {worlds} worlds, one core: {cpu / HANDS:.2f} CPU s per "
           f"hand (target <= 2 s; mean over the {HANDS} hands of a match)")
    for w in SCALE:
        c, _ = _timed_cpu(lambda w=w: analyse(hhl, seats=[0], worlds=w, processes=1))
        yield f"  --worlds {w}: {c / HANDS:.3f} CPU s per hand"
    cpu0 = _cpu_all()
    wall, _ = _timed_wall(lambda: analyse(hhl, worlds=worlds, processes=2))
    yield (f"HHL, {HANDS}-hand match, all 4 seats, {worlds} worlds, 2 processes: {wall:.1f} s "
           f"wall, {_cpu_all() - cpu0:.1f} CPU s in all (target <= {60 * HANDS / 8:.0f} s wall "
           "on 2 free cores: a loaded machine's wall clock is longer)")
    dom = _record("domeng", {"round_cap": sized(200, 2)},
                  7, ("heuristic", "greedy", "random", "search", "greedy"))
    rounds = len(dom["deals"])
    wall, _ = _timed_wall(lambda: analyse(dom, worlds=worlds, processes=2))
    yield (f"Domeng, one cycle ({rounds} rounds), all 5 seats, {worlds} worlds, 2 processes: "
           f"{wall:.1f} s wall (same proportion: <= {1.875 * 5 * rounds:.0f} s)")
    g, h = _continuations()
    yield (f"continuation of a whole HHL hand: greedy playout {g * 1e6:.0f} us, heuristic "
           f"(a Match, a view per step) {h * 1e3:.1f} ms: {h / g:.0f} times dearer")
    # The yardsticks, seat by seat on the same deals.
    games = (("hhl", {"hands": sized(4, 1)}, 4), ("domeng", {"round_cap": sized(6, 1)}, 5))
    for variant, options, n in games:
        losses: dict[str, list] = {}
        pi: dict[str, list] = {}
        for k in range(YARD_MATCHES):
            # every yardstick at every seat in turn, on the same deals
            lineup = [YARDSTICKS[(k + j) % len(YARDSTICKS)] for j in range(n)]
            bots = [Oracle(k) if x == "oracle" else Search(k * 10 + s, iterations=sized(100, 5))
                    if x == "search" else make_strategy(x, k * 10 + s) for s, x in enumerate(lineup)]
            rec = play_match(variant, options, 500 + k, bots).record(seats=lineup)
            doc = analyse(rec, worlds=YARD_WORLDS, seed=k, processes=2)
            for s in doc["seats"]:
                ds = [d for h in s["hands"] for d in h["decisions"]]
                losses.setdefault(s["name"], []).extend(d["loss"] for d in ds)
                pi.setdefault(s["name"], []).extend(d["pi_loss"] for d in ds)
        unit = "points" if variant == "hhl" else "stones"
        yield f"{variant}: mean loss per decision, {unit} ({YARD_WORLDS} worlds, {YARD_MATCHES} matches):"
        for name in YARDSTICKS:
            if name in losses:
                yield (f"  {name:9s} seat-honest {_interval(losses[name])}, perfect information "
                       f"{_interval(pi[name])} ({len(losses[name])} decisions)")
