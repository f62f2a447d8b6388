"""The store's listener (storage/listener.py) on a real PostgreSQL server of its own: it
hands on each notification; when its connection is cut it says so, opens another and says
so again (heard(None): anything may have been missed); a handler that fails stops nothing;
and closing it ends its thread even while the server is frozen."""

from __future__ import annotations

import queue

import psycopg

from engine_service.core.storage.factory import open_store
from tests.arena.support import wait_until

CHANNEL = "test_wakes"


def notify(dsn: str, payload: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))


def heard_next(heard: queue.Queue, payload: str | None, dsn: str) -> None:
    """Notify `payload` until the listener hands it on (it may be between connections)."""
    def arrived():
        if payload is not None:
            notify(dsn, payload)
        try:
            return heard.get(timeout=0.2) == payload
        except queue.Empty:
            return False
    wait_until(arrived, 60, f"the listener to hand on {payload!r}")


def test_the_listener_hands_on_notifications_and_listens_again_after_a_cut(own_pg_server, caplog):
    dsn = own_pg_server.database()
    store = open_store(dsn)
    heard: queue.Queue = queue.Queue()
    failed = []

    def handler(payload):
        if payload == "boom" and not failed:
            failed.append(payload)
            raise RuntimeError("a handler's bug")
        heard.put(payload)

    listener = store.listen(CHANNEL, handler)
    try:
        heard_next(heard, None, dsn)                 # listening: told at once
        heard_next(heard, "e1 count", dsn)
        notify(dsn, "boom")                          # the handler fails on this one ...
        heard_next(heard, "e1 adopt", dsn)           # ... and the next is handed on
        assert "handling one failed" in caplog.text
        # The server ends the listener's connection (as a restart does): it listens again.
        with psycopg.connect(dsn, autocommit=True) as conn:
            wait_until(lambda: conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE "
                "'LISTEN%%'").fetchall(), 30, "the listener's connection")
        heard_next(heard, None, dsn)                 # back, and told so
        heard_next(heard, "e2 deliver", dsn)
        assert "are not heard" in caplog.text and "heard again" in caplog.text
    finally:
        listener.close()
        store.close()


def test_closing_the_listener_ends_its_thread_while_the_server_is_frozen(own_pg_server):
    dsn = own_pg_server.database()
    store = open_store(dsn)
    heard: queue.Queue = queue.Queue()
    listener = store.listen(CHANNEL, heard.put)
    try:
        heard_next(heard, None, dsn)
        own_pg_server.freeze()
        try:
            listener.close()
            wait_until(lambda: not listener._thread.is_alive(), 60, "the thread to end")
        finally:
            own_pg_server.thaw()
    finally:
        listener.close()
        store.close()
