"""plumbing/daemon_pool.py: an Executor whose work in progress never holds the process's
exit (the engine's analyses and leaderboards run on it)."""

import asyncio
import subprocess
import sys
import threading

import pytest

from plumbing.daemon_pool import DaemonPool

ROOT = __file__.rsplit("/tests/", 1)[0]


@pytest.mark.timeout(60)
def test_results_errors_and_the_event_loop():
    pool = DaemonPool(2, "test")
    assert pool.submit(lambda a, b=0: a + b, 2, b=3).result(10) == 5
    failed = pool.submit(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failed.result(10)

    async def on_loop():
        return await asyncio.get_running_loop().run_in_executor(pool, sum, [1, 2, 3])
    assert asyncio.run(on_loop()) == 6
    pool.shutdown()
    with pytest.raises(RuntimeError):
        pool.submit(print)


@pytest.mark.timeout(60)
def test_shutdown_cancels_what_waits_and_lets_the_work_at_hand_finish():
    pool = DaemonPool(1, "test")
    started, release = threading.Event(), threading.Event()
    busy = pool.submit(lambda: (started.set(), release.wait(30))[1])
    assert started.wait(10)
    waiting = pool.submit(lambda: "never")
    pool.shutdown(wait=False, cancel_futures=True)
    assert waiting.cancelled()
    release.set()
    assert busy.result(10) is True


@pytest.mark.timeout(60)
def test_work_in_progress_does_not_hold_the_exit():
    """A ThreadPoolExecutor's job at work holds the interpreter's exit until it ends; this
    pool's is abandoned."""
    code = ("import threading, time\n"
            "from plumbing.daemon_pool import DaemonPool\n"
            "from concurrent.futures import ThreadPoolExecutor\n"
            "pool = {kind}\n"
            "started = threading.Event()\n"
            "pool.submit(lambda: (started.set(), time.sleep(3600)))\n"
            "started.wait()\n")
    done = subprocess.run([sys.executable, "-c", code.format(kind='DaemonPool(1, "x")')],
                          cwd=ROOT, timeout=30, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with pytest.raises(subprocess.TimeoutExpired):    # the contrast: it waits for the job
        subprocess.run([sys.executable, "-c", code.format(kind="ThreadPoolExecutor(1)")],
                       cwd=ROOT, timeout=5, capture_output=True)
