"""Where the moves of Play streams and SubmitMove are played: on the event loop when the
store commits locally (SQLite: tens of microseconds), on threads of their own when each
commit is a round trip over the network (PostgreSQL).

Inline, the loop that carries every stream, read and health check of the engine waits out
each move's round trip. At 1,000 arena bots on a loaded 2-core machine it was waiting on
PostgreSQL for about half its time, and calls queued behind the moves: a GetLeaderboard
reached its handler up to 15 s after it arrived, while the handler itself took 0.1 s at
most (docs/arena.md). On threads, the loop goes on during the round trips.

THREADS is a measured choice (docs/cluster.md). A single thread played the moves one at a
time, as the loop did, but each one then waited for the GIL after its round trip, and the
arena played 0.4x the matches. Eight keep several round trips in flight and cost about
0.1 ms of CPU a move more than inline.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

THREADS = 8


class Mover:
    def __init__(self, remote_store: bool):
        # A write that must land: a ThreadPoolExecutor's threads finish it before exit.
        self._pool = (ThreadPoolExecutor(THREADS, thread_name_prefix="moves")
                      if remote_store else None)

    async def play(self, fn, *args):
        """fn(*args), a move through the referee (under the match's lock, as the clocks
        play theirs), inline or on a thread."""
        if self._pool is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)
