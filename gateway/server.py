"""The gateway's HTTP server: one asyncio event loop (uvicorn) for every connection.

- Event streams (GET .../events) are coroutines on the loop (streams.py): a thousand open
  streams cost no thread, and the spectators of one match share one engine stream. So is
  the stream of a match's analysis (GET .../analysis/events, analysis_stream.py).
- Every other route is the Flask app, run on a pool of WORKERS threads (a2wsgi), each
  making its one gRPC call to the engine.
- Connections are guarded (guard.py, on uvicorn's protocol setting and as ASGI
  middleware, not inside uvicorn's own classes): a request must arrive whole within
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

import uvicorn
from a2wsgi import WSGIMiddleware

from . import analysis_stream, metrics
from .analysis_stream import AnalysisStreams
from .app import cors_headers, create_app
from .fork_gate import ForkGate, may_carry_a_record
from .guard import ConnectionGuard
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
        self.analyses = AnalysisStreams(self.streams, cfg.get("API_KEY") or "")
        self.fork_gate = ForkGate()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await self.streams.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] == "http" and scope["method"] == "GET":
            if PATH.fullmatch(scope["path"]):
                await self.streams.serve(scope, receive, _counted(send, metrics.EVENTS_ROUTE))
                return
            if analysis_stream.PATH.fullmatch(scope["path"]):
                await self.analyses.serve(scope, receive, _counted(send, analysis_stream.ROUTE))
                return
        if may_carry_a_record(scope, self.flask.config["MAX_CONTENT_LENGTH"]):
            await self.fork_gate.serve(scope, receive, send, self.wsgi)   # few at once
            return
        await self.wsgi(scope, receive, send)


def _counted(send, route: str):
    """`send`, counting the answer's status under `route` in the gateway's metrics (the
    Flask routes count theirs in gateway/metrics.py; an event stream is not timed)."""
    async def counting_send(message) -> None:
        if message["type"] == "http.response.start":
            metrics.answered(route, message["status"])
        await send(message)
    return counting_send


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
        """`http`: "auto" (httptools when installed, else h11) or "h11": the parser, for
        the guard to wrap."""
        _more_files()
        self.app = GatewayApp(create_app(config), workers)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))        # OSError when the port is in use
        self.socket.listen(2048)
        self.port = self.socket.getsockname()[1]
        self.guard = ConnectionGuard(max_per_address, request_timeout_s)
        self._server = uvicorn.Server(uvicorn.Config(
            self.guard.app(self.app), http=self.guard.protocol(http), ws="none",
            lifespan="on", loop="asyncio", log_level="warning",
            access_log=False,     # no access log: a seat token may ride in ?seat_token=
            # The guard knows a request's connection by its client address and port: no
            # X-Forwarded-For may rewrite them (and nothing here reads a forwarded address).
            proxy_headers=False,
            timeout_keep_alive=KEEP_ALIVE_S, limit_concurrency=MAX_CONNECTIONS,
            server_header=False))

    def run(self) -> None:
        self._server.run(sockets=[self.socket])

    def close(self) -> None:
        self._server.should_exit = True

