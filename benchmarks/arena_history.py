"""The statements an engine's arena runs again and again, over a long history.

A standing arena keeps every match it ever made: its arena match, its seats, its match row
and its result. The delivery look (the seats not sent yet to the lobbies this engine holds)
runs every DELIVERY_S on every engine; a bot's new lobby sends its seats in play again.
Both are timed on a store holding HISTORY past matches and a few in play, on SQLite and on
PostgreSQL, with and without the partial index of the seats not sent
(arena_seats_undelivered): side by side on the same rows, in one run. The other hot
statements (the free bots, the results to count, the lobbies' tick) are timed alongside,
with the index; the tick also as it was, naming each lobby's session.
tests/arena/test_query_plans.py checks that none of them reads the whole history."""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from benchmarks import sized

HISTORY = sized(100_000, 300)    # past matches: 4 seats each, counted, over
IN_PLAY = 50                      # matches in play, their seats not sent yet
BOTS = 1_000
REPEAT = sized(40, 3)
ARENA = "hhl"
SERIES = {   # n integers from 0, as each store writes them
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {n} - 1) ",
    "postgresql": "WITH n(i) AS (SELECT generate_series(0, {n} - 1)) ",
}


def _mod(a: str, b: int) -> str:
    """a modulo b in SQL both stores take (PostgreSQL's driver reads % as a placeholder)."""
    return f"(({a}) - (({a}) / {b}) * {b})"


def _fill(store, engine_id: str, kind: str) -> None:
    """HISTORY counted matches and IN_PLAY playing ones, their seats, rows and results;
    BOTS bots present, their lobbies on this engine."""
    with_n = SERIES[kind]
    total = HISTORY + IN_PLAY
    w = store.store.write
    w(with_n.format(n=total) +
      "INSERT INTO matches (id, variant, options, seed, deals, settings, created, status, "
      "result, version, created_by) SELECT 'm' || i, 'hhl', '{}', i, NULL, '{}', i, "
      f"CASE WHEN i < {HISTORY} THEN 'over' ELSE 'waiting' END, NULL, 0, 'arena' FROM n")
    w(with_n.format(n=total) +
      "INSERT INTO arena_matches (match_id, arena, lineup, status, created, engine) "
      f"SELECT 'm' || i, '{ARENA}', '[]', CASE WHEN i < {HISTORY} THEN 'counted' "
      "ELSE 'playing' END, i, '' FROM n")
    w(with_n.format(n=total * 4) +
      "INSERT INTO arena_seats (match_id, seat, bot_id, version, arena, delivered, created) "
      f"SELECT 'm' || (i / 4), {_mod('i', 4)}, 'b' || {_mod('i * 7', BOTS)}, 'v1', '{ARENA}', "
      f"CASE WHEN i / 4 < {HISTORY} THEN 1700000000000 ELSE 0 END, i / 4 FROM n")
    w(with_n.format(n=HISTORY) +
      "INSERT INTO arena_results (match_id, arena, seq, ended, row) "
      f"SELECT 'm' || i, '{ARENA}', i + 1, i, '{{}}' FROM n")
    w(with_n.format(n=BOTS) +
      "INSERT INTO arena_presence (bot_id, arena, version, engine, session, connected, "
      f"free_since, paused, seat_limit, seated) SELECT 'b' || i, '{ARENA}', 'v1', "
      f"'{engine_id}', 's' || i, 0, 0, '', 0, 0 FROM n")
    if kind == "postgresql":
        w("ANALYZE")


def _timed(call) -> float:
    """The median of REPEAT calls, in ms."""
    took = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        call()
        took.append((time.perf_counter() - started) * 1e3)
    return statistics.median(took)


def _store(db: str):
    from engine_service.core.engine import Engine
    from engine_service.core.storage.arena_sql import ArenaStore

    engine = Engine.open(db)
    store = ArenaStore(engine.store)
    store.ensure()
    return engine, store


def _measure(db: str, kind: str, indexed: bool) -> dict[str, float]:
    engine, store = _store(db)
    try:
        if not indexed:
            store.store.write("DROP INDEX arena_seats_undelivered")
        with store.store.starting():    # the start-up's bound: a bulk fill is long
            _fill(store, store.engine_id or "", kind)
        undelivered = store.undelivered()
        assert len(undelivered) == IN_PLAY * 4, len(undelivered)   # every bot's lobby is here
        out = {"the delivery look": _timed(store.undelivered)}
        if indexed:
            out["a new lobby's seats sent again"] = _timed(
                lambda: store.redeliver("b1", ARENA, "v1"))
            out["the free bots"] = _timed(lambda: store.present(ARENA, 2.0))
            out["the results to count"] = _timed(lambda: store.uncounted(ARENA))
            # The lobbies' tick as it was (each session named: a new statement at every
            # tick, split by the driver and planned by the server; an index of the
            # sessions) and as it is (the presence rows of the engine, no index).
            sessions = [f"s{i}" for i in range(BOTS)]
            named = ("SELECT session, paused FROM arena_presence WHERE session IN "
                     f"({', '.join('?' * BOTS)})")
            store.store.write("CREATE INDEX presence_by_session ON arena_presence (session)")
            assert len(store._r(named, tuple(sessions))) == len(store.sessions()) == BOTS
            out[f"the lobbies' tick ({BOTS:,} lobbies), each session named"] = _timed(
                lambda: store._r(named, tuple(sessions)))
            store.store.write("DROP INDEX presence_by_session")   # as the schema has it
            out[f"the lobbies' tick ({BOTS:,} lobbies), by engine"] = _timed(store.sessions)
        return out
    finally:
        engine.close()


def run():
    from tests.pg_server import PostgresServer, why_not

    yield (f"the arena's hot statements with {HISTORY:,} past matches ({HISTORY * 4:,} seats) "
           f"and {IN_PLAY} in play, median of {REPEAT} calls:")
    stores = []
    with tempfile.TemporaryDirectory(prefix="arena-history-") as tmp:
        stores.append(("SQLite", "sqlite", lambda i: os.path.join(tmp, f"h{i}.db")))
        why = why_not()
        pg = None if why else PostgresServer()
        if pg is not None:
            stores.append(("PostgreSQL", "postgresql", lambda i: pg.database()))
        try:
            for name, kind, db in stores:
                before = _measure(db(0), kind, indexed=False)
                after = _measure(db(1), kind, indexed=True)
                for what, ms in after.items():
                    if what in before:
                        yield (f"  {name}, {what}: {before[what]:.2f} ms without the index "
                               f"of the seats not sent, {ms:.2f} ms with it "
                               f"({before[what] / max(ms, 1e-6):.0f}x)")
                    else:
                        yield f"  {name}, {what}: {ms:.2f} ms"
        finally:
            if pg is not None:
                pg.stop()
    if why:
        yield f"  PostgreSQL: skipped: {why}"
