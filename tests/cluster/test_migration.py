"""The PostgreSQL schema migrates in place: a store made by a version-1 engine (one engine,
no cluster) is opened by this one, which adds the cluster's columns and tables and plays on
from the same rows."""

import psycopg

from engine_service import rules
from engine_service.core.engine import Engine
from engine_service.core.storage import postgres as pg_store
from engine_service.core.storage.rows import MoveRow
from tests.engine.test_store import row


def test_a_version_1_store_is_migrated_and_its_live_match_restored(pg_dsn):
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(pg_store.SCHEMA)          # what a version-1 engine made
        conn.execute("INSERT INTO schema_version VALUES (1)")
    store = pg_store.PostgresStore(pg_dsn)
    # Version 1's rows, written the way a version-1 engine wrote them (no owner, no epoch).
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [
            (pg_store.SCHEMA_VERSION,)]
        columns = {r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'matches'")}
        assert {"owner", "epoch"} <= columns
        assert conn.execute("SELECT count(*) FROM engines").fetchone() == (0,)
    store.add_match(row())
    first = rules.new_match("hhl", row().options, seed=row().seed)
    move = first.legal_moves(first.to_move)[0]
    store.append_move("m1", MoveRow(1, first.to_move, str(move), "seat", 1.0))
    store.set_status("m1", "live")
    store.close()

    # Opening again migrates nothing twice, and an engine restores the match from the log.
    engine = Engine.open(pg_dsn)
    try:
        assert engine.join("127.0.0.1:1") == ["m1"]    # an orphan: version 1 had no owners
        assert engine.get("m1").version == 1
    finally:
        engine.close()
