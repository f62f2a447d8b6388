"""A standing arena's history grows without end: every match ever made keeps its row, its
seats, its moves and its result. The statements that an engine's arena runs over and over
(the matchmaker's cycle, the delivery look, the lobbies' tick, the no-shows, the results)
must find their rows through an index, never by reading the whole history, or every round
slows as the arena ages (a delivery look that scanned every seat ever made ran five times a
second on every engine).

The test records every statement of a live in-process arena on SQLite while a registered
bot is seated, fails to show, is charged, has its match counted, connects again and is
seated again; then it asks SQLite's planner how each would run. SQLite plans without
statistics, so its plan says whether an index can serve the statement at all; PostgreSQL
plans from its tables' statistics and reads a tiny test table whole whatever its indexes,
so its plans would prove nothing here (`python -m benchmarks arena` measures the
statements on PostgreSQL with a long history instead)."""

from __future__ import annotations

import re
import sqlite3
import threading

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from engine_service.core.storage.factory import open_store
from engine_service.core.storage.sqlite import SQLiteStore
from tests.arena.support import LobbyStub, wait_until

# Tables that grow with every match ever played. The others (bots, their presence, the
# arenas, the engines, keys) grow only with what is registered or connected.
HISTORY = {"matches", "moves", "seats", "arena_matches", "arena_seats", "arena_results",
           "arena_sets_closed", "analyses", "ladder_results", "ladder_matches"}
TABLE = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?", re.I)
NOT_ALIASES = {"where", "set", "join", "on", "left", "inner", "select", "values", "order",
               "group", "limit", "as"}


class Recorder:
    """Every statement the store's connections run from now on, as SQLite expands it."""

    def __init__(self, monkeypatch):
        self.statements: list[str] = []
        self.on = False
        self._lock = threading.Lock()
        real = SQLiteStore._open

        def traced(store):
            conn = real(store)
            conn.db.set_trace_callback(self._heard)
            return conn
        monkeypatch.setattr(SQLiteStore, "_open", traced)

    def _heard(self, sql: str) -> None:
        if self.on and sql.lstrip()[:6].upper() in ("SELECT", "UPDATE", "INSERT", "DELETE"):
            with self._lock:
                self.statements.append(" ".join(sql.split()))


def history_scans(db: sqlite3.Connection, sql: str, partial: set[str]) -> list[str]:
    """The steps of the statement's plan that read a history table whole: a SCAN of it,
    or of one of its indexes, but for a partial index (which holds only the rows in
    flight, e.g. the seats not sent yet)."""
    names = {}
    for table, alias in TABLE.findall(sql):
        names[table.lower()] = table.lower()
        if alias and alias.lower() not in NOT_ALIASES:
            names[alias.lower()] = table.lower()
    bad = []
    for *_, step in db.execute("EXPLAIN QUERY PLAN " + sql):
        words = step.split()
        if words[0] != "SCAN" or names.get(words[1].lower()) not in HISTORY:
            continue
        if "INDEX" in words and words[words.index("INDEX") + 1] in partial:
            continue
        bad.append(step)
    return bad


def test_what_the_arena_runs_again_and_again_never_reads_the_whole_history(
        tmp_path, monkeypatch):
    from domino_cli.engine_cmd import residents

    recorder = Recorder(monkeypatch)
    path = str(tmp_path / "arena.db")
    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    # one short deal, a short turn clock and seat wait: the bot's no-show ends it quickly
    quick = {**spec.parse("hhl"), "options": {"hands": 1}, "clock_ms": 100, "seat_wait_s": 0.5}
    engine = Engine(open_store(path), arenas=[quick], residents=makers)
    engine.recover()
    try:
        bot, key = engine.arenas.register(OPEN_PRINCIPAL, "absent", "")
        recorder.on = True      # from here on: what the arena does while it plays
        stream = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", stream)
        wait_until(lambda: stream.pauses == [spec.NO_SHOW], 120, "the no-show charged")
        # asked on a connection of its own, which the recorder does not hear
        outside = sqlite3.connect(path, check_same_thread=False)
        wait_until(lambda: outside.execute("SELECT 1 FROM arena_results WHERE seq IS NOT "
                                           "NULL").fetchall(), 120, "the match counted")
        outside.close()
        again = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", again)      # clears the pause: seated again
        wait_until(lambda: again.seats, 120, "a second seat")
        recorder.on = False
    finally:
        engine.close()

    statements = sorted(set(recorder.statements))
    text = "\n".join(statements)
    # what the rounds must have run, so that the check below is not vacuous
    for needed in ("FROM arena_seats s", "delivered = 0", "seq IS NULL", "INSERT INTO "
                   "arena_results", "INSERT INTO arena_matches", "FROM arena_presence"):
        assert needed in text, needed
    db = sqlite3.connect(path)
    partial = {name for name, sql in db.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'")}
    assert "arena_seats_undelivered" in partial
    scans = {sql: bad for sql in statements if (bad := history_scans(db, sql, partial))}
    assert not scans, "\n".join(f"{b}: {s[:300]}" for s, b in scans.items())
    # The delivery look starts from the seats not sent (their partial index), not from the
    # present bots and each one's every seat: no scan, but as slow as one over a long
    # history. An index of the presence rows by engine once made SQLite plan it so.
    looks = [sql for sql in statements if "s.delivered = 0" in sql]
    assert looks
    for sql in looks:
        plan = " | ".join(step for *_, step in db.execute("EXPLAIN QUERY PLAN " + sql))
        assert "arena_seats_undelivered" in plan.split(" | ")[0], plan
