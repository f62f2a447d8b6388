"""The server's event loop hands its blocking calls (asyncio.to_thread: an arena seat
stream's key, a lobby's enlisting and leaving, an Analyse stream waiting for its next
step) to the server's pool of threads, not to asyncio's default executor of
min(32, cores + 4) threads: with 6 threads on 2 cores, six clients following analyses
would hold them all, and 1,000 arena bots' seat streams queued there for seconds while
the store was slow (docs/arena.md)."""

import asyncio
import os
import threading

import pytest

from .conftest import serve


@pytest.fixture
def served_memory():
    yield from serve(":memory:")


def test_more_blocking_calls_run_at_once_than_asyncio_would_allow(served_memory):
    n = min(32, (os.cpu_count() or 1) + 4) + 4      # asyncio's default, and some
    everyone = threading.Barrier(n, timeout=20)     # passes only when all n run at once

    async def all_at_once():
        return await asyncio.gather(*(asyncio.to_thread(everyone.wait) for _ in range(n)))

    done = asyncio.run_coroutine_threadsafe(all_at_once(), served_memory.server._loop)
    assert sorted(done.result(30)) == list(range(n))
