"""Where ladders survive a restart: their definition, their schedule and their results.

Ladder results are immutable: one per (ladder, schedule index), inserted once; standings are
always recomputed from them. Kept in its own tables (and its own SQLite connection to the
same file as the match store) so the match log stays small and simple.
"""

from __future__ import annotations

import json
import sqlite3
import threading

SCHEMA = """
CREATE TABLE IF NOT EXISTS ladders (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS ladder_matches (
    ladder_id TEXT NOT NULL REFERENCES ladders(id),
    match_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (ladder_id, match_id)
);
CREATE TABLE IF NOT EXISTS ladder_results (
    ladder_id TEXT NOT NULL REFERENCES ladders(id),
    idx INTEGER NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (ladder_id, idx)
);
"""


class LadderStore:
    def __init__(self, path: str = ":memory:"):
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._lock = threading.Lock()
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(ladders)")}
        if "error" not in columns:   # a file from before ladders could fail
            self._db.execute("ALTER TABLE ladders ADD COLUMN error TEXT NOT NULL DEFAULT ''")

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def add_ladder(self, ladder_id: str, spec: dict, created: float) -> None:
        self._run("INSERT INTO ladders (id, spec, status, created) VALUES (?, ?, 'running', ?)",
                  (ladder_id, json.dumps(spec), created))

    def set_status(self, ladder_id: str, status: str, error: str = "") -> None:
        self._run("UPDATE ladders SET status = ?, error = ? WHERE id = ?",
                  (status, error, ladder_id))

    def ladders(self) -> list[tuple[str, dict, str, float, str]]:
        """(id, spec, status, created, error) of every ladder, oldest first."""
        rows = self._run("SELECT id, spec, status, created, error FROM ladders ORDER BY created")
        return [(i, json.loads(s), st, c, e) for i, s, st, c, e in rows]

    def ladder(self, ladder_id: str) -> tuple[str, dict, str, float, str] | None:
        rows = self._run("SELECT id, spec, status, created, error FROM ladders WHERE id = ?",
                         (ladder_id,))
        return next(((i, json.loads(s), st, c, e) for i, s, st, c, e in rows), None)

    def add_match(self, ladder_id: str, match_id: str, idx: int) -> None:
        self._run("INSERT INTO ladder_matches VALUES (?, ?, ?, 'playing')", (ladder_id, match_id, idx))

    def set_match_status(self, ladder_id: str, match_id: str, status: str) -> None:
        self._run("UPDATE ladder_matches SET status = ? WHERE ladder_id = ? AND match_id = ?",
                  (status, ladder_id, match_id))

    def matches(self, ladder_id: str) -> list[tuple[str, int, str]]:
        """(match id, schedule index, status) in the order they were started."""
        return self._run("SELECT match_id, idx, status FROM ladder_matches WHERE ladder_id = ? "
                         "ORDER BY rowid", (ladder_id,))

    def add_result(self, ladder_id: str, idx: int, result: dict) -> bool:
        """Insert a ladder result once; False if that index was already counted."""
        with self._lock:
            cur = self._db.execute("INSERT OR IGNORE INTO ladder_results VALUES (?, ?, ?)",
                                   (ladder_id, idx, json.dumps(result)))
            return cur.rowcount == 1

    def results(self, ladder_id: str) -> list[dict]:
        rows = self._run("SELECT row FROM ladder_results WHERE ladder_id = ? ORDER BY idx", (ladder_id,))
        return [json.loads(r) for (r,) in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
