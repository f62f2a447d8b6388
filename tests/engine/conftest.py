"""Fixtures for the engine service: a real gRPC server on 127.0.0.1 with port 0."""

import pytest
from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from engine_service.core.sqlite_store import SQLiteStore

from .support import Served


@pytest.fixture
def served():
    engine = Engine(SQLiteStore(":memory:"))
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=64)
    s = Served(engine, server, port)
    yield s
    s.channel.close()
    server.stop(0).wait()
    engine.close()


