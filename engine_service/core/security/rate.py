"""Rates per key, with a burst, for calls that cost the engine CPU time.

A token bucket (TokenBuckets) holds at most `burst` tokens and gains `rate` per second;
a call takes its cost or is refused with the wait until it could. A budget (Budgets) is
the same account for a cost known only once the call is done: it may go into debt.
Accounts idle long enough to be full again are forgotten, so the maps stay as small as
the set of keys in recent use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable


class TokenBuckets:
    def __init__(self, rate: float, burst: float, now: Callable[[], float] = time.monotonic):
        if rate <= 0 or burst <= 0:
            raise ValueError("a bucket needs a positive rate and burst")
        self.rate, self.burst, self._now = rate, burst, now
        self._buckets: dict[Hashable, tuple[float, float]] = {}   # key -> (tokens, at)
        self._lock = threading.Lock()
        self._swept = now()

    def take(self, key: Hashable, cost: float) -> float:
        """Take `cost` tokens of `key`'s bucket: 0.0 when taken, else the seconds to wait
        before the same call would be (nothing is taken then). A cost above the burst can
        never be taken; the caller bounds it first."""
        now = self._now()
        with self._lock:
            tokens, at = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - at) * self.rate)
            if tokens < cost:
                self._buckets[key] = (tokens, now)
                return (cost - tokens) / self.rate
            self._buckets[key] = (tokens - cost, now)
            self._sweep(now)
            return 0.0

    def _sweep(self, now: float) -> None:
        """Forget the buckets that are full again (caller holds the lock)."""
        full_after = self.burst / self.rate
        if now - self._swept < full_after:
            return
        self._swept = now
        for key in [k for k, (_, at) in self._buckets.items() if now - at >= full_after]:
            del self._buckets[key]


class Budgets:
    """Budgets of time per key (CPU seconds a second, say), which a call may overdraw:
    admitted while its key is not in debt (`wait` is 0), it is charged what it cost once
    done (`charge`), so a call whose cost is known only afterwards (counting a new view)
    pays all of it, and the next calls of its key wait until the debt is paid back."""

    def __init__(self, rate: float, burst: float, now: Callable[[], float] = time.monotonic):
        if rate <= 0 or burst <= 0:
            raise ValueError("a budget needs a positive rate and burst")
        self.rate, self.burst, self._now = rate, burst, now
        self._left: dict[Hashable, tuple[float, float]] = {}   # key -> (balance, at)
        self._lock = threading.Lock()
        self._swept = now()

    def _balance(self, key: Hashable, now: float) -> float:
        balance, at = self._left.get(key, (self.burst, now))
        return min(self.burst, balance + (now - at) * self.rate)

    def wait(self, key: Hashable) -> float:
        """0.0 when `key` may spend now, else the seconds until its debt is paid back."""
        now = self._now()
        with self._lock:
            balance = self._balance(key, now)
        return 0.0 if balance >= 0 else -balance / self.rate

    def charge(self, key: Hashable, cost: float) -> None:
        now = self._now()
        with self._lock:
            self._left[key] = (self._balance(key, now) - cost, now)
            if now - self._swept >= self.burst / self.rate:
                self._swept = now
                for k in [k for k in self._left if self._balance(k, now) >= self.burst]:
                    del self._left[k]


class InFlight:
    """At most so many calls of one key at once, per level: InFlight(client=1) holds one
    fork per client address; InFlight(client=1024, match=16) the Watch streams of an
    address and of a match. enter() names the first level that is full ("" when in)."""

    def __init__(self, **per_key: int):
        self.per_key = per_key
        self._by: dict[tuple, int] = {}
        self._lock = threading.Lock()

    def enter(self, **keys: Hashable) -> str:
        held = [(level, key) for level, key in keys.items()]
        with self._lock:
            for level, key in held:
                if self._by.get((level, key), 0) >= self.per_key[level]:
                    return level
            for k in held:
                self._by[k] = self._by.get(k, 0) + 1
            return ""

    def leave(self, **keys: Hashable) -> None:
        with self._lock:
            for k in keys.items():
                left = self._by.get(k, 0) - 1
                if left > 0:
                    self._by[k] = left
                else:
                    self._by.pop(k, None)


class Gate:
    """At most `running` calls at once; up to `waiting` more wait for a turn, each at most
    `wait_s`; the rest are refused at once. For work whose callers hold a server thread:
    the threads that wait hold no lock and use no CPU, and so few run at once that the
    others (the event loop first) are not held up by them."""

    def __init__(self, running: int, waiting: int = 0, wait_s: float = 0.0):
        self.running, self.waiting, self.wait_s = running, waiting, wait_s
        self._turns = threading.Semaphore(running)
        self._lock = threading.Lock()
        self._inside = 0          # running or waiting

    def enter(self) -> bool:
        """True with a turn (call leave() after), False when none came (refused)."""
        with self._lock:
            if self._inside >= self.running + self.waiting:
                return False
            self._inside += 1
        if self._turns.acquire(timeout=self.wait_s) if self.wait_s else self._turns.acquire(False):
            return True
        with self._lock:
            self._inside -= 1
        return False

    def leave(self) -> None:
        self._turns.release()
        with self._lock:
            self._inside -= 1
