"""A ladder played in-process with built-in strategies (no engine, no processes): for
benchmarks and quick comparisons. ``domino ladder run`` plays the same schedule through
the engine with real bot processes.

With ``field=NAME`` the schedule is ladders.formats.field_schedule instead: each entrant
plays every deal in the same seat against the strategy NAME in every other seat (listed in
the standings as ``field:NAME``), the way to rank bots against one kind of opponent.
``makers`` (name -> function of a seed making the strategy) overrides ``make_strategy``
for some names, e.g. a search bot with a fixed number of samples."""

from engine_service.rules import NUM_SEATS
from ladders.formats import DUPLICATE, field_entrant, field_schedule, schedule, set_size
from ladders.results import ladder_result
from ladders.seeds import deal_seed
from ladders.standings import compute

from .arena import play_match
from .strategies import YARDSTICKS, make_strategy

SEATS = NUM_SEATS


def run(variant, entrants, fmt="rotation", options=None, seed=1, matches=None,
        until_separated=False, max_matches=2000, check_every=None, progress=None,
        field=None, makers=None):
    """Play until ``matches`` are done, or (until_separated) every neighbour pair on the
    leaderboard is separated at 95%, checked after each complete set; returns standings."""
    results = []
    yardsticks = [e for e in entrants if e in YARDSTICKS]
    limit = max_matches if until_separated else matches
    standings = None
    seats = SEATS[variant]
    if field is None:
        size = set_size(fmt, entrants, seats)
        ranked = entrants

        def slot(i):
            return schedule(fmt, entrants, seats, seed, i)
    else:
        size = len(entrants)
        ranked = [*entrants, field_entrant(field)]
        makers = {**(makers or {})}
        makers.setdefault(field_entrant(field), makers.get(field, lambda s: make_strategy(field, s)))

        def slot(i):
            return field_schedule(entrants, field, seats, i)
    makers = makers or {}
    for index in range(limit):
        lineup, set_no = slot(index)
        # In process nothing is hidden from anyone: the seed itself keys the deals.
        match_seed = deal_seed(f"in-process/{seed}", DUPLICATE if field else fmt, index,
                               set_no)
        bots = [makers.get(name, lambda s, n=name: make_strategy(n, s))(match_seed * 10 + s)
                for s, name in enumerate(lineup)]
        m = play_match(variant, options, match_seed, bots)
        results.append(ladder_result(variant, index, set_no, size, match_seed, lineup, m.result,
                                     len(m.deals)))
        if progress:
            progress(index + 1, results)
        next_set = slot(index + 1)[1]
        if until_separated and next_set != set_no and (check_every is None or (index + 1) % check_every == 0):
            standings = compute(variant, ranked, results, yardsticks)
            if standings["separated"]:
                break
    if standings and standings["matches"] == len(results):
        return standings
    return compute(variant, ranked, results, yardsticks)
