"""The gateway's connection guard: a deadline on receiving each request, and a limit of
connections per client address.

uvicorn has neither: its keep-alive timer starts only after a first answer and is reset by
every byte received, so an idle socket, or one trickling a header line now and then, would
be held open for good; and one client could take every connection. The guard keeps both
out, on two extension points that uvicorn and ASGI support, without touching uvicorn's own
protocol classes:

- `protocol(http)`: an asyncio.Protocol class for uvicorn's `http` setting (Config takes a
  protocol class there). Each connection gets one; it makes the HTTP protocol uvicorn would
  use by that name (h11 or httptools) with the arguments uvicorn gives, and passes
  everything on to it. Before that protocol sees a connection, the guard refuses it with a
  503 when its address holds `max_per_address` already, sets TCP_NODELAY, and arms the
  connection's deadline: `request_timeout_s` to send a whole request.
- `app(asgi)`: ASGI middleware that tells the guard where each request stands: the
  deadline is disarmed once the request is in (at once for one without a body, else when
  its last body chunk is read, or when the answer starts), and armed again when the answer
  is complete, for the next request on the connection.

The two halves meet on the client's address and port: the connection's peer, which uvicorn
puts in each request's scope as `client` (the gateway runs uvicorn with proxy_headers off,
so that no X-Forwarded-For header rewrites it).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections import Counter

from uvicorn.config import HTTP_PROTOCOLS
from uvicorn.importer import import_from_string

log = logging.getLogger("gateway.server")

REFUSED = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
           b"connection: close\r\ncontent-length: 45\r\n\r\n"
           b"too many connections from your address; wait\n")


class ConnectionGuard:
    """The guard of one server's connections (see the module doc). Used on its event loop
    only."""

    def __init__(self, max_per_address: int, request_timeout_s: float):
        self.max_per_address, self.request_timeout_s = max_per_address, request_timeout_s
        self.per_address: Counter[str] = Counter()      # client address -> open connections
        self.connections: dict[tuple[str, int], Guarded] = {}   # (address, port) -> its guard

    def protocol(self, http: str = "auto") -> type[asyncio.Protocol]:
        """The protocol class to give uvicorn as `http`: uvicorn's own protocol of that name
        ("auto": httptools when installed, else h11; "h11"), guarded."""
        inner = import_from_string(HTTP_PROTOCOLS[http])
        guard = self

        class GuardedProtocol(Guarded):
            def __init__(self, **kwargs):   # what uvicorn makes each protocol with
                super().__init__(guard, inner(**kwargs))

        return GuardedProtocol

    def app(self, asgi):
        """`asgi`, telling each request's connection guard when its request is in and when
        its answer is complete."""
        async def guarded(scope, receive, send) -> None:
            conn = self.connections.get(tuple(scope.get("client") or ())) \
                if scope["type"] == "http" else None
            if conn is None:
                await asgi(scope, receive, send)
                return
            if not _has_body(scope):
                conn.disarm()                  # the request is in: the answer may take its time

            async def receiving():
                message = await receive()
                if message["type"] == "http.request" and not message.get("more_body"):
                    conn.disarm()
                return message

            async def sending(message) -> None:
                if message["type"] == "http.response.start":
                    conn.disarm()              # answered: the rest of the request is not awaited
                await send(message)
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    conn.arm()                 # the next request on this connection

            await asgi(scope, receiving, sending)
        return guarded


class Guarded(asyncio.Protocol):
    """One connection: its guard's checks, then everything passed on to `inner`, uvicorn's
    HTTP protocol for it."""

    def __init__(self, guard: ConnectionGuard, inner: asyncio.Protocol):
        self.guard, self.inner = guard, inner
        self.transport: asyncio.Transport | None = None
        self.peer: tuple[str, int] = ("", 0)
        self.refused = False
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            self.peer = (str(peer[0]), int(peer[1]))
        guard, address = self.guard, self.peer[0]
        guard.per_address[address] += 1
        if guard.per_address[address] > guard.max_per_address:
            log.warning("%s holds %d connections already: refusing another", address,
                        guard.per_address[address] - 1)
            self.refused = True
            transport.write(REFUSED)
            transport.close()
            return
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # An answer leaves in two writes (head, then body): without this, Nagle's
            # algorithm holds the second until the client's delayed ACK, 40 ms later.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        guard.connections[self.peer] = self
        self.arm()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            self.inner.data_received(data)

    def eof_received(self):
        return None if self.refused else self.inner.eof_received()

    def pause_writing(self) -> None:
        if not self.refused:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused:
            self.inner.resume_writing()

    def connection_lost(self, exc) -> None:
        self.disarm()
        guard, address = self.guard, self.peer[0]
        guard.per_address[address] -= 1
        if guard.per_address[address] <= 0:
            del guard.per_address[address]
        if guard.connections.get(self.peer) is self:
            del guard.connections[self.peer]
        if not self.refused:
            self.inner.connection_lost(exc)

    # ----- the deadline -----------------------------------------------------------------
    def arm(self) -> None:
        """Give the connection request_timeout_s from now to send a whole request."""
        self.disarm()
        if self.transport is not None and not self.transport.is_closing():
            self._deadline = asyncio.get_running_loop().call_later(
                self.guard.request_timeout_s, self._too_slow)

    def disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.info("%s sent no whole request within %.0f s: closing", self.peer[0],
                     self.guard.request_timeout_s)
            self.transport.close()


def _has_body(scope) -> bool:
    """Whether the request's head announces a body (a length above 0, or chunks)."""
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in
                                            (b"", b"0")):
            return True
    return False
