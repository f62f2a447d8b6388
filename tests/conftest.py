"""Fixtures every test directory may use: a real PostgreSQL server for the test session
(started on first use, stopped at the end; skipped with the reason where none can run),
a fresh database per test, and `store_db`, which runs a test once on each store."""

import pytest

from tests.pg_server import STORES, PostgresServer, why_not


@pytest.fixture(scope="session")
def pg_server():
    reason = why_not()
    if reason:
        pytest.skip(reason)
    server = PostgresServer()
    yield server
    server.stop()


@pytest.fixture
def pg_dsn(pg_server) -> str:
    """A new, empty PostgreSQL database for this test."""
    return pg_server.database()


@pytest.fixture(params=STORES)
def store_db(request) -> str:
    """What `domino engine --db` takes, once per store: SQLite in memory, then a fresh
    PostgreSQL database."""
    if request.param == "sqlite":
        return ":memory:"
    return request.getfixturevalue("pg_dsn")


@pytest.fixture(params=STORES)
def durable_db(request, tmp_path) -> str:
    """Like store_db, with a SQLite file instead of memory: what survives closing."""
    if request.param == "sqlite":
        return str(tmp_path / "engine.sqlite3")
    return request.getfixturevalue("pg_dsn")
