"""How many event streams one gateway process holds: in all, and per client address.

Every open stream is a socket and a coroutine on the gateway's one event loop, which also
carries every REST request to and from its thread. Past some thousand streams the loop
spends its time on them (keepalives, events) and REST answers queue behind them: with
5,000 streams from 30 addresses REST took 1 to 2 s. So a stream past MAX_STREAMS, or past
MAX_STREAMS_PER_ADDRESS of one address, is refused at once (429 TOO_MANY_STREAMS, with
Retry-After), before anything is asked of the engine; REST keeps its pace at the cap
(docs/gateway.md has the figures: `python -m benchmarks safety`).
"""

from __future__ import annotations

from collections import Counter

MAX_STREAMS = 1000             # open event streams, every client together
MAX_STREAMS_PER_ADDRESS = 128  # ... of one client address


class StreamCaps:
    """Used on the event loop only (no lock)."""

    def __init__(self, total: int = MAX_STREAMS, per_address: int = MAX_STREAMS_PER_ADDRESS):
        self.total, self.per_address = total, per_address
        self.open = 0
        self._by: Counter[str] = Counter()

    def enter(self, address: str) -> str:
        """"" when the stream may open (call leave() when it ends), else why not."""
        if self.open >= self.total:
            return f"this gateway holds {self.total} event streams, its most; try again later"
        if self._by[address] >= self.per_address:
            return (f"your address holds {self.per_address} event streams, its most; close "
                    "one first")
        self.open += 1
        self._by[address] += 1
        return ""

    def leave(self, address: str) -> None:
        self.open -= 1
        self._by[address] -= 1
        if self._by[address] <= 0:
            del self._by[address]
