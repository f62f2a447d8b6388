"""A ladder played in-process with built-in strategies (no engine, no processes): for
benchmarks and quick comparisons. ``domino ladder run`` plays the same schedule through
the engine with real bot processes."""

from engine_service.rules import NUM_SEATS
from ladders.formats import schedule, set_size
from ladders.results import ladder_result
from ladders.standings import compute

from .arena import play_match
from .strategies import YARDSTICKS, make_strategy

SEATS = NUM_SEATS


def run(variant, entrants, fmt="rotation", options=None, seed=1, matches=None,
        until_separated=False, max_matches=2000, check_every=None, progress=None):
    """Play until ``matches`` are done, or (until_separated) every neighbour pair on the
    leaderboard is separated at 95%, checked after each complete set; returns standings."""
    results = []
    yardsticks = [e for e in entrants if e in YARDSTICKS]
    limit = max_matches if until_separated else matches
    standings = None
    size = set_size(fmt, entrants, SEATS[variant])
    for index in range(limit):
        lineup, match_seed, set_no = schedule(fmt, entrants, SEATS[variant], seed, index)
        bots = [make_strategy(name, match_seed * 10 + s) for s, name in enumerate(lineup)]
        m = play_match(variant, options, match_seed, bots)
        results.append(ladder_result(variant, index, set_no, size, match_seed, lineup, m.result,
                                     len(m.deals)))
        if progress:
            progress(index + 1, results)
        next_set = schedule(fmt, entrants, SEATS[variant], seed, index + 1)[2]
        if until_separated and next_set != set_no and (check_every is None or (index + 1) % check_every == 0):
            standings = compute(variant, entrants, results, yardsticks)
            if standings["separated"]:
                break
    if standings and standings["matches"] == len(results):
        return standings
    return compute(variant, entrants, results, yardsticks)
