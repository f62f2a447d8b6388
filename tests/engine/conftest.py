"""Fixtures for the engine service: a real gRPC server on 127.0.0.1 with port 0."""

import pytest

from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from plumbing.alarms import ManualAlarms

from .support import Served


def serve(db=":memory:", alarms=None):
    engine = Engine.open(db, alarms=alarms)
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=64)
    s = Served(engine, server, port)
    s.alarms = engine.alarms
    yield s
    s.channel.close()
    server.stop(0).wait()
    engine.close()


@pytest.fixture
def served(store_db):
    """An engine on each store in turn (SQLite, then PostgreSQL)."""
    yield from serve(store_db)


@pytest.fixture
def served_manual(store_db):
    """An engine whose turn clocks move only when the test advances `served.alarms`."""
    yield from serve(store_db, ManualAlarms())
