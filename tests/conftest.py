"""Fixtures every test directory may use: a real PostgreSQL server for the test session
(started on first use, stopped at the end; skipped with the reason where none can run),
a fresh database per test, and `store_db`, which runs a test once on each store."""

import os
import sys

import pytest

from tests.pg_server import STORES, PostgresServer, why_not

# Six workers of engines, bots and PostgreSQL servers on two cores can keep a server from
# answering within the engine's default bound of 0.5 s, and a move or a read is then
# refused with STORE_UNAVAILABLE in a test that is not about outages. The engines of the
# tests (in this process and its children) wait up to 5 s; the outage tests, which are
# about that bound, set the default back for their engines (hostile/outage_support.py).
os.environ["DOMINO_STORE_WAIT_MS"] = "5000"

# The suite starts hundreds of Python processes (one run: 198 engines, 237 bots, the CLI
# tests' commands, the xdist workers). With bytecode writing off (PYTHONDONTWRITEBYTECODE,
# which some environments set), each compiled every module of the product from source, and
# each worker rewrote every test module's asserts again: importing an engine and a bot cost
# 0.35 CPU-s, 0.18 from the cache, and collecting the suite 5.4 CPU-s, 2.2 from the cache.
# A whole run went from 340 s to 303 s on two cores. Processes started from here inherit
# this environment.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

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
def own_pg_server():
    """A server of the test's own, which it may stop, restart or freeze (pg_server.py)."""
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


# Under `make test` (pytest-xdist, --dist loadgroup) the tests of a group run on one worker,
# one after another; everything else is spread over the workers. A group is given where a
# fixture is expensive or loud, so that it runs once instead of once per worker:
GROUPS = {
    # an engine, house bot processes and a live gateway for the session (gateway/conftest.py)
    # and Chromium: the browser tests apart from the others, so the two halves run side by side
    "tests/gateway/test_browser": "gateway-browser",
    "tests/gateway/": "gateway",
    # its module fixture runs every mistake's command at once: some 30 processes
    "tests/cli/test_mistakes.py": "cli-mistakes",
    # the C++ bot, which `make test` builds while the other tests run: one worker waits for
    # the build (not one per test), and it comes last (LAST), when the build is done
    "tests/bots_runner/test_cpp_bot.py": "cpp-bot",
}
LAST = ("cpp-bot",)


@pytest.hookimpl(tryfirst=True)     # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("xdist_group"):
            continue
        group = next((g for prefix, g in GROUPS.items() if item.nodeid.startswith(prefix)), None)
        if group:
            item.add_marker(pytest.mark.xdist_group(group))

    def last(item):
        mark = item.get_closest_marker("xdist_group")
        return bool(mark and mark.args and mark.args[0] in LAST)
    items[:] = [i for i in items if not last(i)] + [i for i in items if last(i)]


@pytest.hookimpl(trylast=True)      # after pytest-xdist has given each its group
def pytest_collection_finish(session):
    """pytest-xdist marks a grouped test by its node id (TEST@GROUP); where it cannot
    (a pytest it does not follow yet), the groups would be spread over the workers
    without a word: the run stops instead."""
    if not session.config.getoption("loadgroup", default=False):
        return
    lost = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group")
            and "@" not in i.nodeid]
    if lost:
        raise pytest.UsageError(f"pytest-xdist did not group {lost[0]} (and {len(lost) - 1} "
                                "more): is pytest newer than pytest-xdist supports?")
