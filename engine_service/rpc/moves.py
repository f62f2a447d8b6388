"""Where the moves of Play streams and SubmitMove are played: on the event loop when the
store commits locally (SQLite: tens of microseconds), on threads of their own when each
commit is a round trip over the network (PostgreSQL).

Inline, the loop that carries every stream, read and health check of the engine waits out
each move's round trip. At 1,000 arena bots on a loaded 2-core machine it was waiting on
PostgreSQL for about half its time, and calls queued behind the moves: a GetLeaderboard
reached its handler up to 15 s after it arrived, while the handler itself took 0.1 s at
most (docs/arena.md). On threads, the loop goes on during the round trips.

How many threads is DOMINO_MOVE_THREADS (0..64, default 8; 0 plays them on the loop, as
SQLite's are). It is a trade, measured side by side (docs/cluster.md): threads keep the
loop's other calls quick and the engine taking its bots' seat streams in time under heavy
load, but each move then waits for the GIL after its round trip behind the engine's other
threads, which costs some throughput on a machine with few busy matches.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from plumbing import settings

from ..core import metrics
from .pacing import Pacer, target_s

THREADS_ENV = "DOMINO_MOVE_THREADS"
THREADS = 8
THREADS_RANGE = (0, 64)


def threads() -> int:
    """The threads a store's moves are played on: THREADS_ENV, else THREADS; BadSetting."""
    return settings.whole_number(THREADS_ENV, THREADS, *THREADS_RANGE, "threads")


def _timed(received: float, fn, *args):
    played = fn(*args)
    metrics.move_latency(time.perf_counter() - received)
    return played


class Mover:
    def __init__(self, remote_store: bool):
        n = threads() if remote_store else 0
        # A write that must land: a ThreadPoolExecutor's threads finish it before exit.
        self._pool = ThreadPoolExecutor(n, thread_name_prefix="moves") if n else None
        self.pacer = Pacer(target_s())
        metrics.follow_pace(lambda: self.pacer.rate)

    async def play(self, received: float, fn, *args):
        """fn(*args), a move through the referee (under the match's lock, as the clocks
        play theirs), inline or on a thread, once the pacer lets it in; its latency since
        `received` (perf_counter) is counted with it, on the same thread: a match's last
        move may end its stream, and cancel this await, before the loop takes the answer
        back."""
        await self.pacer.admit()
        if self._pool is None:
            return _timed(received, fn, *args)
        return await asyncio.get_running_loop().run_in_executor(
            self._pool, _timed, received, fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
