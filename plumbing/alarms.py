"""Alarms for many matches (or many bot turns) on one timer thread.

A caller arms an alarm; when its time comes the callback runs on the timer thread. One
thread serves every alarm, so arming one costs a heap push, not a new thread.
`ManualAlarms` has the same interface and moves only when a test tells it to.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

# The longest single wait of the timer thread. Condition.wait refuses timeouts past
# threading.TIMEOUT_MAX (OverflowError), and an alarm far in the future must not stop
# the thread: it simply waits again.
MAX_WAIT_S = 3600.0


class Alarm:
    __slots__ = ("deadline", "callback", "cancelled")

    def __init__(self, deadline: float, callback: Callable[[], None]):
        self.deadline = deadline
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True   # lazily dropped when it reaches the top of the heap


def _run_alarm(alarm: Alarm) -> None:
    try:
        alarm.callback()
    except Exception:   # one failing callback must not stop every other alarm
        log.exception("alarm callback %r failed", alarm.callback)


class Alarms:
    """Real time: `set` counts monotonic seconds, `now` is the wall clock (Unix seconds)
    that deadlines shown to clients are given in."""

    def __init__(self, name: str = "turn-clock"):
        self._heap: list[tuple[float, int, Alarm]] = []
        self._seq = itertools.count()
        self._cv = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @staticmethod
    def now() -> float:
        return time.time()

    def set(self, seconds: float, callback: Callable[[], None]) -> Alarm:
        """Call `callback` after `seconds` unless the alarm is cancelled first."""
        alarm = Alarm(time.monotonic() + max(0.0, seconds), callback)
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
                    wait = self._heap[0][0] - now if self._heap else MAX_WAIT_S
                    self._cv.wait(min(wait, MAX_WAIT_S))
                else:
                    return
            _run_alarm(alarm)


class ManualAlarms:
    """A clock for tests: time stands still until `advance`, which runs every alarm that
    falls due, in order, on the caller's thread."""

    def __init__(self, start: float | None = None):
        self._wall0 = time.time() if start is None else start
        self._t = 0.0
        self._heap: list[tuple[float, int, Alarm]] = []
        self._seq = itertools.count()
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._wall0 + self._t

    def set(self, seconds: float, callback: Callable[[], None]) -> Alarm:
        with self._lock:
            alarm = Alarm(self._t + max(0.0, seconds), callback)
            heapq.heappush(self._heap, (alarm.deadline, next(self._seq), alarm))
            return alarm

    def pending(self) -> list[float]:
        """Seconds until each armed alarm, soonest first."""
        with self._lock:
            return sorted(a.deadline - self._t for _, _, a in self._heap if not a.cancelled)

    def advance(self, seconds: float) -> None:
        with self._lock:
            target = self._t + seconds
        while True:
            with self._lock:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                if not self._heap or self._heap[0][0] > target:
                    self._t = target
                    return
                alarm = heapq.heappop(self._heap)[2]
                self._t = max(self._t, alarm.deadline)
            _run_alarm(alarm)

    def stop(self) -> None:
        pass
