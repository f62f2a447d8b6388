"""Token buckets: a rate per key, with a burst, for calls that cost the engine CPU time.

A bucket holds at most `burst` tokens and gains `rate` per second; a call takes its cost
or is refused with the wait until it could. Buckets idle long enough to be full again
are forgotten, so the map stays as small as the set of keys in recent use.
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
