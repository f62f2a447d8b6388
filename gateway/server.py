"""The gateway's HTTP server: one asyncio event loop (uvicorn) for every connection.

- Event streams (GET .../events) are coroutines on the loop (streams.py): a thousand open
  streams cost no thread, and the spectators of one match share one engine stream.
- Every other route is the Flask app, run on a pool of WORKERS threads (a2wsgi), each
  making its one gRPC call to the engine.
- Connections are guarded (RequestGuard): a request must arrive whole within
  REQUEST_TIMEOUT_S of the connection (or of the previous answer), so an idle socket or one
  trickling a header line now and then is closed; one address may hold at most
  MAX_PER_ADDRESS connections at once, so one client cannot use up the server; keep-alive
  connections idle for KEEP_ALIVE_S are closed.

docs/gateway.md explains the choice and gives the figures (`make bench`, section gateway).
"""

from __future__ import annotations

import logging
import resource
import socket
from collections import Counter

import h11
import uvicorn
from a2wsgi import WSGIMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    HttpToolsProtocol = None

from . import metrics
from .app import cors_headers, create_app
from .fork_gate import ForkGate, may_carry_a_record
from .stream_caps import StreamCaps
from .streams import PATH, EventStreams

log = logging.getLogger(__name__)

WORKERS = 32                 # threads for the Flask routes (each waits on one gRPC call)
REQUEST_TIMEOUT_S = 10.0     # from connecting (or the previous answer) to a whole request
KEEP_ALIVE_S = 5.0           # an idle keep-alive connection is closed after this
MAX_PER_ADDRESS = 256        # connections one client address may hold at once
MAX_CONNECTIONS = 8192       # connections at once, in all (beyond: 503)


class GatewayApp:
    """ASGI: the event streams natively, everything else through the Flask app."""

    def __init__(self, flask_app, workers: int = WORKERS):
        self.flask = flask_app
        self.wsgi = WSGIMiddleware(flask_app, workers=workers)
        cfg = flask_app.config
        self.streams = EventStreams(cfg["ENGINE_ADDRESS"], cfg["ENGINE_WATCH_TIMEOUT_S"],
                                    lambda origin: cors_headers(cfg["CORS_ORIGINS"], origin),
                                    StreamCaps(cfg["MAX_STREAMS"], cfg["MAX_STREAMS_PER_ADDRESS"]))
        self.fork_gate = ForkGate()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await self.streams.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] == "http" and scope["method"] == "GET" and PATH.fullmatch(scope["path"]):
            await self.streams.serve(scope, receive, _counted(send))
            return
        if may_carry_a_record(scope, self.flask.config["MAX_CONTENT_LENGTH"]):
            await self.fork_gate.serve(scope, receive, send, self.wsgi)   # few at once
            return
        await self.wsgi(scope, receive, send)


def _counted(send):
    """`send`, counting the answer's status in the gateway's metrics (the Flask routes
    count theirs in gateway/metrics.py; an event stream is not timed)."""
    async def counting_send(message) -> None:
        if message["type"] == "http.response.start":
            metrics.answered(metrics.EVENTS_ROUTE, message["status"])
        await send(message)
    return counting_send


class RequestGuard:
    """Mixed into uvicorn's HTTP protocols: a deadline on receiving each request, and a
    limit of connections per client address. uvicorn has neither: its keep-alive timer
    starts only after a first answer and is reset by every byte received, so an idle socket,
    or one trickling a header line now and then, would be held open for good."""

    request_timeout_s = REQUEST_TIMEOUT_S
    max_per_address = MAX_PER_ADDRESS

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            # An answer leaves in two writes (head, then body): without this, Nagle's
            # algorithm holds the second until the client's delayed ACK, 40 ms later.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._deadline = None
        self._address = self.client[0] if self.client else ""
        per_address = self._per_address()
        per_address[self._address] += 1
        if per_address[self._address] > self.max_per_address:
            log.warning("%s holds %d connections already: refusing another", self._address,
                        per_address[self._address] - 1)
            transport.write(b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\n"
                            b"connection: close\r\ncontent-length: 45\r\n\r\n"
                            b"too many connections from your address; wait\n")
            transport.close()
            return
        self._arm()

    def _per_address(self) -> Counter:
        state = self.server_state
        if not hasattr(state, "per_address"):
            state.per_address = Counter()
        return state.per_address

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            log.info("%s sent no whole request within %.0f s: closing", self._address,
                     self.request_timeout_s)
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()             # the next request on this connection gets its deadline

    def connection_lost(self, exc) -> None:
        self._disarm()
        per_address = self._per_address()
        per_address[self._address] -= 1
        if per_address[self._address] <= 0:
            del per_address[self._address]
        super().connection_lost(exc)


class GuardedH11Protocol(RequestGuard, H11Protocol):
    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._deadline is not None and self.conn.their_state in (h11.DONE, h11.MUST_CLOSE,
                                                                     h11.CLOSED):
            self._disarm()          # the request is in: the answer may take its time


if HttpToolsProtocol is not None:
    class GuardedHttpToolsProtocol(RequestGuard, HttpToolsProtocol):
        """The same guard on httptools, which parses in C and frames each chunk of an event
        stream in one write: much cheaper per event than h11, which counts with a thousand
        streams (docs/gateway.md has the figures)."""

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._disarm()          # the request is in: the answer may take its time
else:   # httptools is a compiled extension; without it, h11 serves as well, slower
    GuardedHttpToolsProtocol = None


def _more_files() -> None:
    """Every stream is a socket: take the process's whole allowance of file descriptors."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class GatewayServer:
    """The gateway on `host:port` (0 picks a free port: see `port`), not yet serving.
    `run()` serves until `close()` (from any thread) or a signal in the main thread."""

    def __init__(self, config: dict, host: str = "127.0.0.1", port: int = 0,
                 workers: int = WORKERS, max_per_address: int = MAX_PER_ADDRESS,
                 request_timeout_s: float = REQUEST_TIMEOUT_S, http: str = "auto"):
        """`http`: "auto" (httptools when installed, else h11) or "h11"."""
        _more_files()
        self.app = GatewayApp(create_app(config), workers)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))        # OSError when the port is in use
        self.socket.listen(2048)
        self.port = self.socket.getsockname()[1]
        base = (GuardedHttpToolsProtocol if http == "auto" else None) or GuardedH11Protocol
        protocol = type("GatewayProtocol", (base,),
                        {"max_per_address": max_per_address,
                         "request_timeout_s": request_timeout_s})
        self._server = uvicorn.Server(uvicorn.Config(
            self.app, http=protocol, lifespan="on", loop="asyncio", log_level="warning",
            access_log=False,     # no access log: a seat token may ride in ?seat_token=
            timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=MAX_CONNECTIONS,
            server_header=False))

    def run(self) -> None:
        self._server.run(sockets=[self.socket])

    def close(self) -> None:
        self._server.should_exit = True

