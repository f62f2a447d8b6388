"""How many requests carrying a record to fork the gateway takes on at once.

Such a body is up to a megabyte: reading it, checking its JSON and passing it on takes
the gateway some 50 ms of its one Python thread at a time, and the engine half a second of
a worker process. So at most AT_ONCE of them are in hand at once, and PER_ADDRESS of one
client address. Another is refused on the event loop, before a thread or its body is
touched: after REFUSED_AFTER_S (a timer, no thread), with 429 BUSY and the connection
closed, so that its unread megabyte is dropped by the network, not read, and a client
forking again and again costs the gateway a refusal a second per connection while the
other clients' requests keep their pace.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

from . import metrics

AT_ONCE = 1            # fork bodies in hand at once, every client together
PER_ADDRESS = 1        # ... and of one client address
REFUSED_AFTER_S = 1.0  # a refused one waits this long for its answer
ROUTE = "/api/v1/matches"


class ForkGate:
    """Used on the event loop only (no lock)."""

    def __init__(self, at_once: int = AT_ONCE, per_address: int = PER_ADDRESS):
        self.at_once, self.per_address = at_once, per_address
        self._by: Counter[str] = Counter()

    @property
    def in_hand(self) -> int:
        return sum(self._by.values())

    def enter(self, address: str) -> str:
        """"" when the request may go on (call leave() after), else why not."""
        if self.in_hand >= self.at_once:
            return f"{self.at_once} forks are being made; try again shortly"
        if self._by[address] >= self.per_address:
            return "your address has a fork being made; wait for its answer"
        self._by[address] += 1
        return ""

    def leave(self, address: str) -> None:
        self._by[address] -= 1
        if self._by[address] <= 0:
            del self._by[address]

    async def serve(self, scope, receive, send, app) -> None:
        """Pass a request that may carry a record on to `app` (the Flask routes) while
        the gate lets it in; else refuse it."""
        address = (scope.get("client") or ("",))[0]
        why = self.enter(address)
        if not why:
            try:
                await app(scope, receive, send)
            finally:
                self.leave(address)
            return
        await asyncio.sleep(REFUSED_AFTER_S)
        body = json.dumps({"code": 429, "status": "Too Many Requests", "reason": "BUSY",
                           "message": why, "version": None, "legal_moves": []}).encode()
        await send({"type": "http.response.start", "status": 429, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"retry-after", b"1"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
        metrics.answered(ROUTE, 429)


def may_carry_a_record(scope, normal_limit: int) -> bool:
    """A POST /api/v1/matches larger than the app's usual bound: it may carry a record."""
    if scope["type"] != "http" or scope["method"] != "POST" or \
            scope["path"].rstrip("/") != ROUTE:
        return False
    for name, value in scope["headers"]:
        if name == b"content-length":
            return value.isdigit() and int(value) > normal_limit
        if name == b"transfer-encoding":
            return True          # no length given: it may be anything
    return False
