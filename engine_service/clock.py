"""Turn clocks for every match, on one timer thread.

A match arms a deadline for the seat to move; when the deadline passes the callback runs
on the timer thread (the match then plays the default move under its own lock). One
thread serves all matches so a move costs a heap push, not a new thread.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable


class Alarm:
    __slots__ = ("deadline", "callback", "cancelled")

    def __init__(self, deadline: float, callback: Callable[[], None]):
        self.deadline = deadline
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True   # lazily dropped when it reaches the top of the heap


class Clock:
    def __init__(self):
        self._heap: list[tuple[float, int, Alarm]] = []
        self._seq = itertools.count()
        self._cv = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="turn-clock", daemon=True)
        self._thread.start()

    def set(self, seconds: float, callback: Callable[[], None]) -> Alarm:
        """Call callback after `seconds` (monotonic time) unless the alarm is cancelled."""
        alarm = Alarm(time.monotonic() + seconds, callback)
        with self._cv:
            heapq.heappush(self._heap, (alarm.deadline, next(self._seq), alarm))
            if self._heap[0][2] is alarm:
                self._cv.notify()
        return alarm

    def stop(self) -> None:
        with self._cv:
            self._stopped = True
            self._cv.notify()
        self._thread.join(timeout=2)

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._stopped:
                    while self._heap and self._heap[0][2].cancelled:
                        heapq.heappop(self._heap)
                    now = time.monotonic()
                    if self._heap and self._heap[0][0] <= now:
                        alarm = heapq.heappop(self._heap)[2]
                        break
                    self._cv.wait(self._heap[0][0] - now if self._heap else None)
                else:
                    return
            try:
                alarm.callback()
            except Exception:  # a failing match must not stop every other match's clock
                logging.getLogger(__name__).exception("turn clock callback failed")
