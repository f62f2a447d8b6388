"""A late answer is not an outage (storage/health.py): a call whose wait on the store ran
out fails alone, and the store is marked down only when the probe's own round trip fails
too. A refused or broken call marks it down at once (tests/hostile/test_store_outage.py
takes real servers away)."""

from __future__ import annotations

import threading

import pytest

from engine_service.core.storage.health import StoreHealth
from engine_service.core.storage.rows import StoreUnavailable
from tests.engine.support import wait_for


class Probe:
    """A probe that counts its looks, and fails while `away` is set."""

    def __init__(self):
        self.looks = 0
        self.away = False
        self.lock = threading.Lock()

    def __call__(self, was_up: bool) -> None:
        with self.lock:
            self.looks += 1
        if self.away:
            raise OSError("no answer")


def watched(health: StoreHealth) -> list[bool]:
    changes: list[bool] = []
    health.listen(changes.append)
    return changes


@pytest.fixture
def probed():
    """(the probe, the health it keeps, running, the health's changes as heard)."""
    probe = Probe()
    health = StoreHealth("test", probe)
    changes = watched(health)
    health.start()
    try:
        yield probe, health, changes
    finally:
        health.close()


@pytest.mark.timeout(60)
def test_a_doubt_keeps_the_store_up_when_the_probe_answers(probed):
    probe, health, changes = probed
    wait_for(lambda: probe.looks >= 1, timeout=10, what="the probe's first look")
    before = probe.looks
    health.doubted("the server did not answer within 0.5 s")
    wait_for(lambda: probe.looks > before, timeout=10, what="the probe's look")
    assert health.up and changes == []


@pytest.mark.timeout(60)
def test_a_doubt_the_probe_confirms_marks_the_store_down_and_a_failure_at_once(probed):
    probe, health, changes = probed
    probe.away = True
    health.doubted("the server did not answer within 0.5 s")
    wait_for(lambda: not health.up, timeout=10, what="the store marked down")
    assert changes == [False]
    probe.away = False
    wait_for(lambda: health.up, timeout=10, what="the store up again")
    health.failed("connection refused")       # no probe needed to mark it down
    assert not health.up
    assert changes[:3] == [False, True, False]


@pytest.mark.timeout(120)
def test_a_statement_later_than_the_bound_fails_alone_on_a_real_server(pg_dsn, monkeypatch):
    """PostgreSQL: a statement slower than the store's wait bound is refused with
    StoreUnavailable, and the store stays up (its probe answers): the next statement is
    served, where before every call was refused until the probe's next answer. The bound
    is 2 s, so that the probe's own round trips are well within it on a loaded machine."""
    from engine_service.core.storage import postgres

    monkeypatch.setenv(postgres.WAIT_ENV, "2000")
    store = postgres.PostgresStore(pg_dsn)
    try:
        changes = watched(store.health)
        with pytest.raises(StoreUnavailable, match="did not answer within 2 s"):
            store.read("SELECT pg_sleep(4)")
        assert store.read("SELECT 1") == [(1,)]
        assert store.health.up and changes == []
    finally:
        store.close()
