"""The SQLite Store: the embedded default, one file (or memory) per engine."""

from __future__ import annotations

import json
import os
import queue
import sqlite3
import threading
import time
import uuid

from . import metrics
from .store import MATCH_COLUMNS, MatchRow, MoveRow, match_row, match_values

# Version 1 had matches, seats and moves; version 2 adds the matches' final version and
# creator, API keys and pools. `_migrate` brings an older file up to date.
SCHEMA_VERSION = 2
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
    result TEXT,
    version INTEGER NOT NULL DEFAULT 0,    -- the final version, once over
    created_by TEXT NOT NULL DEFAULT ''    -- the API key's name ("open" in open mode)
);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches (status, created);
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
) WITHOUT ROWID;   -- rows kept in key order: one b-tree, so a commit writes one page, not two
CREATE TABLE IF NOT EXISTS api_keys (
    name TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    quotas TEXT NOT NULL,
    created REAL NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pools (
    name TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL,
    created REAL NOT NULL
);
"""
MIGRATIONS = {   # from version n to n + 1, for files made before SCHEMA existed as it is
    1: """
ALTER TABLE matches ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
UPDATE matches SET version = (SELECT COALESCE(MAX(version), 0) FROM moves
                              WHERE moves.match_id = matches.id) WHERE status = 'over';
""",
}


BUSY_TIMEOUT_S = 10.0   # how long a statement waits for another connection's write
CHECKPOINT_S = 0.5      # how often the WAL is folded into the database file (file stores)
# When the WAL file is larger than this after a checkpoint, it is folded in completely and
# cut back to nothing (TRUNCATE): writers wait for the milliseconds that takes, once in a
# while, instead of the file growing for as long as writes never pause.
WAL_TRUNCATE_BYTES = 4 * 1024 * 1024
JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024   # what SQLite itself leaves of the WAL after a reset


class StoreDamaged(Exception):
    """The store file is damaged: the message names the file, what is damaged, and what
    to do."""


class _Connection:
    """One pooled connection. Its lock is only ever contended by close()."""

    __slots__ = ("db", "lock")

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.lock = threading.Lock()


class SQLiteStore:
    """SQLite behind a pool of connections, so no lock of ours spans matches: a statement
    takes an idle connection (or opens one), runs, and puts it back. SQLite serialises
    writers itself (in WAL mode readers never wait), and a statement that finds the
    database busy waits inside SQLite (busy timeout) with the GIL released. The pool grows
    to the number of statements ever run at once, a handful, not one per thread.

    ":memory:" becomes a uniquely named in-memory database in shared-cache mode, so every
    connection sees the same data; the pool's first connection keeps it alive as long as
    the store. Shared-cache connections refuse each other with SQLITE_LOCKED rather than
    waiting, so such statements are retried for up to BUSY_TIMEOUT_S.

    A file store folds its WAL into the database file on a thread of its own, every
    CHECKPOINT_S, instead of in whichever commit crosses SQLite's threshold: a checkpoint
    copies pages and syncs the file, milliseconds, and commits run on the move path of
    every match (the engine's event loop). A WAL that still grew past WAL_TRUNCATE_BYTES is
    truncated, so the file stays small however long the engine runs."""

    def __init__(self, path: str = ":memory:"):
        self._memory = path == ":memory:"
        self._target = f"file:memdb-{uuid.uuid4().hex}?mode=memory&cache=shared" if self._memory else path
        self._idle: queue.SimpleQueue[_Connection] = queue.SimpleQueue()
        self._all: list[_Connection] = []
        self._opening = threading.Lock()   # only while a connection is opened or at close
        self._closed = False
        self.path = path
        first = self._open()
        if not self._memory:
            # WAL + NORMAL: a commit survives a killed process (not a power cut) and costs
            # no fsync per move.
            first.db.execute("PRAGMA journal_mode=WAL")
            first.db.execute(f"PRAGMA journal_size_limit={JOURNAL_SIZE_LIMIT}")
        self._migrate(first.db)
        self._idle.put(first)
        # (frames in the WAL, frames of it in the database file) at the last checkpoint
        self.last_checkpoint = (0, 0)
        self._stop = threading.Event()
        self._checkpointer = None
        if not self._memory:
            self._checkpointer = threading.Thread(target=self._checkpoints, daemon=True,
                                                  name="store-checkpoint")
            self._checkpointer.start()

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        has_matches = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                 "name = 'matches'").fetchone()
        if version == 0 and has_matches:
            version = 1        # made before versions were kept
        while has_matches and version < SCHEMA_VERSION:
            db.executescript(f"BEGIN; {MIGRATIONS[version]} PRAGMA user_version = "
                             f"{version + 1}; COMMIT;")
            version += 1
        db.executescript(SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _open(self) -> _Connection:
        with self._opening:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            db = sqlite3.connect(self._target, uri=self._memory, timeout=BUSY_TIMEOUT_S,
                                 check_same_thread=False, isolation_level=None)
            if self._memory:
                db.execute("PRAGMA read_uncommitted=true")   # shared cache: reads take no table locks
            else:
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute("PRAGMA wal_autocheckpoint=0")   # see _checkpoints
            conn = _Connection(db)
            self._all.append(conn)
            return conn

    def _execute(self, sql: str, args: tuple, fetch: bool) -> int | list[tuple]:
        """Run one statement: its rows (fetch) or the number of rows it changed."""
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open()
        try:
            give_up = None
            while True:
                try:
                    with conn.lock:
                        cur = conn.db.execute(sql, args)   # autocommit: committed on return
                        return cur.fetchall() if fetch else cur.rowcount
                except sqlite3.OperationalError as e:
                    if getattr(e, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_LOCKED:
                        raise
                    now = time.monotonic()
                    give_up = give_up or now + BUSY_TIMEOUT_S
                    if now > give_up:
                        raise
                    time.sleep(0.0005)
        finally:
            self._idle.put(conn)

    def _checkpoints(self) -> None:
        while not self._stop.wait(CHECKPOINT_S):
            try:
                # PASSIVE: copies what it can without waiting for, or blocking, anyone.
                (_, frames, done), = self._read("PRAGMA wal_checkpoint(PASSIVE)", ())
                self.last_checkpoint = (frames, done)
                if self.wal_bytes() > WAL_TRUNCATE_BYTES:
                    self._read("PRAGMA wal_checkpoint(TRUNCATE)", ())
            except sqlite3.Error:   # closed meanwhile, or busy: the next round does it
                continue

    def wal_bytes(self) -> int:
        """The size of the WAL file now (0 for a memory store or no WAL)."""
        if self._memory:
            return 0
        try:
            return os.path.getsize(self.path + "-wal")
        except OSError:
            return 0

    def check(self) -> None:
        """Raise StoreDamaged when SQLite's quick_check finds the file damaged, naming the
        matches whose rows can no longer be read."""
        if self._memory:
            return
        try:
            problems = [r[0] for r in self._read("PRAGMA quick_check(5)", ())]
        except sqlite3.DatabaseError as e:
            problems = [str(e)]
        if problems == ["ok"]:
            return
        damaged, names = [], "no match could be named"
        try:
            ids = [r[0] for r in self._read("SELECT id FROM matches", ())]
            for match_id in ids:
                try:
                    self.moves(match_id)
                    self.seat_hashes(match_id)
                    self.match(match_id)
                except sqlite3.DatabaseError:
                    damaged.append(match_id)
            if damaged:
                names = f"damaged match{'es' if len(damaged) > 1 else ''} " + ", ".join(
                    damaged[:10]) + (f" and {len(damaged) - 10} more" if len(damaged) > 10 else "")
        except sqlite3.DatabaseError:
            names = "the list of matches itself cannot be read"
        raise StoreDamaged(
            f"store {self.path} is damaged ({names}; quick_check: "
            f"{' '.join(problems[0].split())[:120]}): stop "
            f"every engine on it, then restore it from a backup, or save what is readable with "
            f"`sqlite3 {self.path} .recover | sqlite3 recovered.sqlite3` and start on that")

    def _write(self, sql: str, args: tuple) -> int:
        return self._execute(sql, args, fetch=False)

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        return self._execute(sql, args, fetch=True)

    def add_match(self, row: MatchRow) -> None:
        self._write(
            f"INSERT INTO matches ({MATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            match_values(row))

    def set_status(self, match_id: str, status: str, result: dict | None = None,
                   version: int = 0) -> None:
        self._write("UPDATE matches SET status = ?, result = ?, version = ? WHERE id = ?",
                    (status, None if result is None else json.dumps(result), version, match_id))

    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool:
        """Store the hash of a seat's token (and the name of a pool bot seated there);
        False when the seat was already claimed."""
        return self._write("INSERT OR IGNORE INTO seats VALUES (?, ?, ?, ?)",
                           (match_id, seat, token_hash, name)) == 1

    def append_move(self, match_id: str, row: MoveRow) -> None:
        # The primary key refuses a second row for one version: a move is never logged twice.
        started = time.perf_counter()
        self._write("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)",
                    (match_id, row.version, row.seat, row.move_text, row.cause, row.at))
        metrics.commit_took("sqlite", time.perf_counter() - started)

    def match(self, match_id: str) -> MatchRow | None:
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,))
        return match_row(rows[0]) if rows else None

    def unfinished(self) -> list[MatchRow]:
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status != 'over' "
                          "ORDER BY created", ())
        return [match_row(r) for r in rows]

    def finished(self, limit: int) -> list[MatchRow]:
        """The latest finished matches, newest first."""
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status = 'over' "
                          "ORDER BY created DESC LIMIT ?", (limit,))
        return [match_row(r) for r in rows]

    # ----- operators' keys and pools ---------------------------------------------------
    def add_key(self, name: str, key_hash: str, quotas: dict, created: float) -> bool:
        """False when a key of that name exists already."""
        return self._write("INSERT OR IGNORE INTO api_keys (name, key_hash, quotas, created) "
                           "VALUES (?, ?, ?, ?)", (name, key_hash, json.dumps(quotas),
                                                   created)) == 1

    def key_by_hash(self, key_hash: str) -> tuple[str, dict] | None:
        """(name, quotas) of the live key with this hash."""
        rows = self._read("SELECT name, quotas FROM api_keys WHERE key_hash = ? AND "
                          "revoked = 0", (key_hash,))
        return (rows[0][0], json.loads(rows[0][1])) if rows else None

    def keys(self) -> list[tuple[str, dict, float, bool]]:
        """(name, quotas, created, revoked) of every key, by name."""
        rows = self._read("SELECT name, quotas, created, revoked FROM api_keys ORDER BY name", ())
        return [(n, json.loads(q), c, bool(r)) for n, q, c, r in rows]

    def revoke_key(self, name: str) -> bool:
        return self._write("UPDATE api_keys SET revoked = 1 WHERE name = ? AND revoked = 0",
                           (name,)) == 1

    def set_pool(self, name: str, secret_hash: str, created: float) -> None:
        """Define a pool, or give it a new enlist secret."""
        self._write("INSERT INTO pools VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                    "secret_hash = excluded.secret_hash", (name, secret_hash, created))

    def pool_hash(self, name: str) -> str | None:
        rows = self._read("SELECT secret_hash FROM pools WHERE name = ?", (name,))
        return rows[0][0] if rows else None

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
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
        with self._opening:
            self._closed = True
        for conn in self._all:   # waits for a statement running on another thread to finish
            with conn.lock:
                conn.db.close()


