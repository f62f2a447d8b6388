"""Where matches survive a crash: a small Store interface and its SQLite implementation.

What is stored is exactly what replays a match (the rules core is deterministic):
the creation parameters (variant, options, seed, explicit deals), the engine settings
(seat kinds, names, clocks), the seat token hashes, and an append-only log of accepted
moves. A move row is committed before the move is acknowledged, so a kill -9 at any moment
loses no acknowledged move.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class MatchRow:
    id: str
    variant: str
    options: dict
    seed: int
    deals: list | None
    settings: dict                 # seat kinds/names and clocks; see match.Settings
    created: float                 # Unix seconds
    status: str = "waiting"        # "waiting" | "live" | "over"
    result: dict | None = None


@dataclass(frozen=True)
class MoveRow:
    """One accepted move: it took the match from version - 1 to version."""
    version: int
    seat: int
    move: str                      # text notation; "" for an engine action (time_up)
    cause: str                     # "seat" | "timeout" | "absent" | "time_up"
    at: float = field(default=0.0)  # Unix seconds


class Store(Protocol):
    def add_match(self, row: MatchRow) -> None: ...
    def set_status(self, match_id: str, status: str, result: dict | None = None) -> None: ...
    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool: ...
    def append_move(self, match_id: str, row: MoveRow) -> None: ...
    def match(self, match_id: str) -> MatchRow | None: ...
    def unfinished(self) -> list[MatchRow]: ...
    def seat_hashes(self, match_id: str) -> dict[int, str]: ...
    def seat_names(self, match_id: str) -> dict[int, str]: ...
    def moves(self, match_id: str) -> list[MoveRow]: ...
    def close(self) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    deals TEXT,
    settings TEXT NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    token_hash TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL REFERENCES matches(id),
    version INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    cause TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, version)
);
"""


class SQLiteStore:
    """SQLite behind one connection. The lock serialises statements on that connection
    (SQLite serialises writers anyway); it is held only for one short statement + commit,
    never while a match is being played, so matches still proceed independently."""

    def __init__(self, path: str = ":memory:"):
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        if path != ":memory:":
            # WAL + NORMAL: a commit survives a killed process (not a power cut) and costs
            # no fsync per move.
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def _write(self, sql: str, args: tuple) -> int:
        with self._lock:
            cur = self._db.execute(sql, args)   # autocommit: committed on return
            return cur.rowcount

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def add_match(self, row: MatchRow) -> None:
        self._write(
            "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, row.variant, json.dumps(row.options), row.seed,
             None if row.deals is None else json.dumps(row.deals), json.dumps(row.settings),
             row.created, row.status, None if row.result is None else json.dumps(row.result)))

    def set_status(self, match_id: str, status: str, result: dict | None = None) -> None:
        self._write("UPDATE matches SET status = ?, result = ? WHERE id = ?",
                    (status, None if result is None else json.dumps(result), match_id))

    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool:
        """Store the hash of a seat's token (and the name of a pool bot seated there);
        False when the seat was already claimed."""
        return self._write("INSERT OR IGNORE INTO seats VALUES (?, ?, ?, ?)",
                           (match_id, seat, token_hash, name)) == 1

    def append_move(self, match_id: str, row: MoveRow) -> None:
        # The primary key refuses a second row for one version: a move is never logged twice.
        self._write("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)",
                    (match_id, row.version, row.seat, row.move, row.cause, row.at))

    def match(self, match_id: str) -> MatchRow | None:
        rows = self._read("SELECT * FROM matches WHERE id = ?", (match_id,))
        return _match_row(rows[0]) if rows else None

    def unfinished(self) -> list[MatchRow]:
        rows = self._read("SELECT * FROM matches WHERE status != 'over' ORDER BY created", ())
        return [_match_row(r) for r in rows]

    def seat_hashes(self, match_id: str) -> dict[int, str]:
        rows = self._read("SELECT seat, token_hash FROM seats WHERE match_id = ?", (match_id,))
        return dict(rows)

    def seat_names(self, match_id: str) -> dict[int, str]:
        rows = self._read("SELECT seat, name FROM seats WHERE match_id = ? AND name != ''", (match_id,))
        return dict(rows)

    def moves(self, match_id: str) -> list[MoveRow]:
        rows = self._read("SELECT version, seat, move, cause, at FROM moves WHERE match_id = ?"
                          " ORDER BY version", (match_id,))
        return [MoveRow(*r) for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _match_row(r: tuple) -> MatchRow:
    id_, variant, options, seed, deals, settings, created, status, result = r
    return MatchRow(id_, variant, json.loads(options), seed,
                    None if deals is None else json.loads(deals), json.loads(settings),
                    created, status, None if result is None else json.loads(result))
