"""A ladder played in-process with built-in strategies (no engine, no processes): for
benchmarks and quick comparisons. ``domino ladder run`` plays the same schedule through
the engine with real bot processes.

With ``field=NAME`` the schedule is ladders.formats.field_schedule instead: each entrant
plays every deal in the same seat against the strategy NAME in every other seat (listed in
the standings as ``field:NAME``), the way to rank bots against one kind of opponent.
``makers`` (name -> function of a seed making the strategy) overrides ``make_strategy``
for some names, e.g. a search bot with a fixed number of samples.

Long ladders (the house bots' thousands of hands) use two more things: ``processes`` plays
that many matches at once, each in a worker process (forked: the makers need not be
picklable); ``done`` hands in results already played (a file a run appended to, read
back), whose matches are not played again, so a stopped run resumes where it was. Every
match's deal and line-up follow from its index alone, so the results are the same
whichever process plays a match and in whatever order they finish."""

import multiprocessing

from engine_service.rules import NUM_SEATS
from ladders.formats import DUPLICATE, field_entrant, field_schedule, schedule, set_size
from ladders.results import ladder_result
from ladders.seeds import deal_seed
from ladders.standings import compute

from .arena import play_match
from .strategies import YARDSTICKS, make_strategy

SEATS = NUM_SEATS


class _Ladder:
    """One ladder's schedule and makers: ``play(index)`` plays its match ``index``."""

    def __init__(self, variant, entrants, fmt, options, seed, field, makers):
        self.variant, self.options, self.seed, self.field = variant, options, seed, field
        self.fmt = fmt
        seats = SEATS[variant]
        makers = dict(makers or {})
        if field is None:
            self.size = set_size(fmt, entrants, seats)
            self.ranked = list(entrants)
            self.slot = lambda i: schedule(fmt, entrants, seats, seed, i)
        else:
            self.size = len(entrants)
            self.ranked = [*entrants, field_entrant(field)]
            makers.setdefault(field_entrant(field), makers.get(field, lambda s: make_strategy(field, s)))
            self.slot = lambda i: field_schedule(entrants, field, seats, i)
        self.makers = makers

    def play(self, index: int) -> dict:
        lineup, set_no = self.slot(index)
        # In process nothing is hidden from anyone: the seed itself keys the deals.
        match_seed = deal_seed(f"in-process/{self.seed}", DUPLICATE if self.field else self.fmt,
                               index, set_no)
        bots = [self.makers.get(name, lambda s, n=name: make_strategy(n, s))(match_seed * 10 + s)
                for s, name in enumerate(lineup)]
        m = play_match(self.variant, self.options, match_seed, bots)
        return ladder_result(self.variant, index, set_no, self.size, match_seed, lineup,
                             m.result, len(m.deals))


_WORKER_LADDER: _Ladder | None = None   # the ladder a forked worker plays (set before the fork)


def _play_in_worker(index: int) -> dict:
    return _WORKER_LADDER.play(index)


def run(variant, entrants, fmt="rotation", options=None, seed=1, matches=None,
        until_separated=False, max_matches=2000, check_every=None, progress=None,
        field=None, makers=None, processes=1, done=()):
    """Play until ``matches`` are done, or (until_separated) every neighbour pair on the
    leaderboard is separated at 95%, checked after each complete set; returns standings.
    ``progress(count, results)`` follows each match; ``done``: results of this very ladder
    played before, not played again; ``processes`` > 1 plays matches at once in forked
    workers (not with ``until_separated``, which looks after every set)."""
    ladder = _Ladder(variant, entrants, fmt, options, seed, field, makers)
    yardsticks = [e for e in entrants if e in YARDSTICKS]
    limit = max_matches if until_separated else matches
    results = [r for r in done if r["index"] < limit]
    played = {r["index"] for r in results}
    todo = [i for i in range(limit) if i not in played]
    standings = None
    if processes > 1 and not until_separated:
        global _WORKER_LADDER
        _WORKER_LADDER = ladder
        try:
            with multiprocessing.get_context("fork").Pool(processes) as pool:
                for r in pool.imap_unordered(_play_in_worker, todo):
                    results.append(r)
                    if progress:
                        progress(len(results), results)
        finally:
            _WORKER_LADDER = None
        return compute(variant, ladder.ranked, results, yardsticks)
    for index in todo:
        r = ladder.play(index)
        results.append(r)
        set_no = r["set"]
        if progress:
            progress(len(results), results)
        next_set = ladder.slot(index + 1)[1]
        if until_separated and next_set != set_no and (check_every is None or (index + 1) % check_every == 0):
            standings = compute(variant, ladder.ranked, results, yardsticks)
            if standings["separated"]:
                break
    if standings and standings["matches"] == len(results):
        return standings
    return compute(variant, ladder.ranked, results, yardsticks)
