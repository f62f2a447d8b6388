"""Running an analysis: the moments of a record valued one by one, in parallel over
worker processes when asked, and put together into the document (report.py).

Each moment is one job with its own seed (values.moment_seed), so the document is the
same for a given seed whatever the number of processes. Workers are started with
"spawn": the engine calls this from a process with threads (gRPC), where a fork could copy
a lock held by another thread. So, as with any "spawn" pool, a script that calls
``analyse(..., processes=2)`` at its top level must do it under
``if __name__ == "__main__":`` (the workers import the script again); `domino analyse`,
the engine and the benchmarks do.
"""

from __future__ import annotations

import multiprocessing
import os

from .positions import hands_of
from .report import document, public
from .values import MAX_WORLDS, value_moment

# Worlds per moment: about 0.5 s of one core per HHL hand and seat, a standard error near
# 15 points on an HHL value (python -m benchmarks analysis).
DEFAULT_WORLDS = 1000


def moments_of(hands) -> list:
    """Every moment to value, in the order report.document reads them: per hand, its deal
    then its decisions."""
    return [mo for h in hands for mo in (h.start, *h.decisions)]


def analyse(record: dict, seats=None, worlds: int = DEFAULT_WORLDS, seed: int = 0,
            processes: int | None = 1, progress=None, exact: bool = False,
            nice: int = 0) -> dict:
    """The analysis document of a finished match's record. ``seats``: the seats to analyse
    (default all); ``processes``: worker processes (None: one per core; 1: in this
    process); ``progress(done, total)`` after each moment valued. ``exact``: keep the
    exact fractions of each hand's split (for tests). ``nice``: the worker processes lower
    their scheduling priority by this much (os.nice), so that a server's live work on the
    same cores goes first."""
    if type(worlds) is not int or not 1 <= worlds <= MAX_WORLDS:
        raise ValueError(f"worlds must be 1..{MAX_WORLDS}, got {worlds!r}")
    n_seats = len(record["deals"][0]["hands"]) if record.get("deals") else 0
    seats = list(range(n_seats)) if seats is None else sorted(set(seats))
    hands = hands_of(record, seats)
    moments = moments_of(hands)
    jobs = [(i, mo, worlds, seed) for i, mo in enumerate(moments)]
    results = {}
    procs = os.cpu_count() or 1 if processes is None else processes
    if procs <= 1 or len(jobs) <= 1:
        for job in jobs:
            got = value_moment(job)
            results[got["index"]] = got
            if progress:
                progress(len(results), len(jobs))
    else:
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(min(procs, len(jobs)), initializer=os.nice if nice else None,
                      initargs=(nice,) if nice else ()) as pool:
            for got in pool.imap_unordered(value_moment, jobs, chunksize=1):
                results[got["index"]] = got
                if progress:
                    progress(len(results), len(jobs))
    doc = document(record, seats, worlds, seed, hands, results)
    return doc if exact else public(doc)
