"""Fixtures every test directory may use: a real PostgreSQL server for the test session
(started on first use, stopped at the end; skipped with the reason where none can run),
a fresh database per test, and `store_db`, which runs a test once on each store."""

import pytest

from tests.pg_server import STORES, PostgresServer, why_not

# What the tests ask of PostgreSQL is what engines do with it, not that it survives a power
# cut: no fsync, so that a test's CREATE DATABASE and the server's stop at the end of a
# worker's session do not wait on the disk (the benchmarks' server keeps the defaults).
TEST_SETTINGS = {"fsync": "off", "full_page_writes": "off"}


@pytest.fixture(scope="session")
def pg_server():
    """One server per test session, which is one per worker process under `make test`
    (pytest-xdist): each worker's tests get databases of their own on it."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    server = PostgresServer(TEST_SETTINGS)
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
