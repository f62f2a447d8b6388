"""The kit's engines: real gRPC engine servers in this process, on 127.0.0.1, each on a
SQLite file of its own in the kit's temporary folder.

An engine can be restarted on its port, the way `domino engine` is restarted: the server
stops (every stream ends), the store is closed, and a new Engine opens the same file,
replays its unfinished matches (Engine.recover) and serves on the same port, so a bot
that reconnects with its token finds its seat waiting.
"""

from __future__ import annotations

import contextlib
import io
import logging

from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server


class LocalEngine:
    def __init__(self, db: str):
        self.db = db
        self.port = 0
        self.engine: Engine | None = None
        self._server = None
        self._pools: dict[str, str] = {}

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> LocalEngine:
        # The engine logs a line per match start and end: not the kit's output.
        logging.getLogger("engine_service").setLevel(logging.WARNING)
        self.engine = Engine.open(self.db)
        for name, secret in self._pools.items():
            self.engine.pools.define(name, secret)
        self.engine.recover()
        self._server, self.port = start_server(self.engine, "127.0.0.1", self.port,
                                               max_workers=16)
        return self

    def stop(self) -> None:
        if self._server is not None:
            # The kit cuts the bots' streams on purpose (an engine restart): grpc.aio
            # prints a traceback for each call it cancels, which says nothing about the
            # bot under test. The stop is over once the event is set.
            with contextlib.redirect_stderr(io.StringIO()):
                self._server.stop(grace=0).wait(10)
            self._server = None
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def define_pool(self, name: str, secret: str) -> None:
        self._pools[name] = secret
        self.engine.pools.define(name, secret)
