"""How many requests carrying a record to fork the gateway takes on at once.

Such a body is up to a megabyte: reading it, checking its JSON and passing it on takes
the gateway some 50 ms of its one Python thread at a time, and the engine half a second of
a worker process. So at most AT_ONCE of them are in hand at once, and one per client
address; another is refused at once, before its body is read (429 BUSY), so that a
client forking again and again costs the gateway a refusal, and the other clients'
requests keep their pace.
"""

from __future__ import annotations

import threading
from collections import Counter

AT_ONCE = 2            # fork bodies in hand at once, every client together
PER_ADDRESS = 1        # ... and of one client address


class ForkGate:
    def __init__(self, at_once: int = AT_ONCE, per_address: int = PER_ADDRESS):
        self.at_once, self.per_address = at_once, per_address
        self._lock = threading.Lock()
        self._by: Counter[str] = Counter()

    def enter(self, address: str) -> str:
        """"" when the request may go on (call leave() after), else why not."""
        with self._lock:
            if sum(self._by.values()) >= self.at_once:
                return f"{self.at_once} forks are being made; try again shortly"
            if self._by[address] >= self.per_address:
                return "your address has a fork being made; wait for its answer"
            self._by[address] += 1
            return ""

    def leave(self, address: str) -> None:
        with self._lock:
            self._by[address] -= 1
            if self._by[address] <= 0:
                del self._by[address]
