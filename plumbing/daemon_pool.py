"""A pool of daemon threads with the Executor interface (submit, shutdown, and so
loop.run_in_executor).

concurrent.futures.ThreadPoolExecutor joins its threads when the interpreter exits, so a
job still at work holds the process's exit until it ends: an engine told to stop waited
for the analysis it was running (minutes for a long match, longer at a low priority on a
busy machine) before it could exit. Work handed to this pool is abandoned at exit instead:
use it for work that is safe to lose (an analysis is asked for again; a leaderboard is
made again by the next process), never for a write that must land.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Executor, Future


class DaemonPool(Executor):
    def __init__(self, threads: int, name: str):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = False
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
                         for i in range(threads)]
        for thread in self._threads:
            thread.start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot schedule new futures after shutdown")
            future: Future = Future()
            self._queue.put((future, fn, args, kwargs))
            return future

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as e:   # the caller reads it from its future
                future.set_exception(e)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if cancel_futures:
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    item[0].cancel()
        for _ in self._threads:
            self._queue.put(None)
        if wait:
            for thread in self._threads:
                thread.join()
