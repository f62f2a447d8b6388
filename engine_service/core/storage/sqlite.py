"""The SQLite store: the embedded default, one file (or memory) per engine. Its rows and
statements are the ones every SQL store shares (sql.py); what is here is SQLite's own:
the schema, the pool of connections, the WAL's checkpoints and the file's health."""

from __future__ import annotations

import contextlib
import os
import queue
import sqlite3
import threading
import time
import uuid

from .rows import StoreDamaged
from .sql import SQLStore

# Version 1 had matches, seats and moves; version 2 adds the matches' final version and
# creator, API keys and pools; version 3 the ladders (kept before by a store of their own
# in the same file) and the owner and epoch of matches and ladders that PostgreSQL's
# cluster uses, so that both backends keep the same rows. `_migrate` brings an older file
# up to date.
SCHEMA_VERSION = 3
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
    created_by TEXT NOT NULL DEFAULT '',   -- the API key's name ("open" in open mode)
    owner TEXT,                            -- always NULL: one engine owns a SQLite file
    epoch INTEGER NOT NULL DEFAULT 0
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
CREATE TABLE IF NOT EXISTS ladders (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    owner TEXT,
    epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ladder_matches (
    ladder_id TEXT NOT NULL REFERENCES ladders(id),
    match_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (ladder_id, match_id)
);
CREATE INDEX IF NOT EXISTS ladder_matches_by_match ON ladder_matches (match_id);
CREATE TABLE IF NOT EXISTS quota_charges (   -- what each principal's quotas count (sql.py)
    kind TEXT NOT NULL,                      -- 'match' or 'ladder'
    id TEXT NOT NULL,                        -- the match's or the ladder's id
    name TEXT NOT NULL,                      -- the principal charged (an API key's name)
    created REAL NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS quota_charges_by_name ON quota_charges (name, kind, created);
CREATE TABLE IF NOT EXISTS quota_holders (   -- one row per principal: the lock of its quotas
    name TEXT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS ladder_results (
    ladder_id TEXT NOT NULL REFERENCES ladders(id),
    idx INTEGER NOT NULL,
    row TEXT NOT NULL,
    PRIMARY KEY (ladder_id, idx)
);
-- Analyses of finished matches (analysis/, docs/analysis.md), kept: a second request is
-- free. Made here, IF NOT EXISTS, by the schema every open runs: no migration needed.
CREATE TABLE IF NOT EXISTS analyses (
    match_id TEXT NOT NULL,
    params TEXT NOT NULL,
    doc TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (match_id, params)
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
# Columns a file may lack (version 3): added where the table exists and the column does not.
# The ladders' tables came and went with a store of their own, so they may be missing or
# older than any version number says.
ADDED_COLUMNS = {
    "matches": ("owner TEXT", "epoch INTEGER NOT NULL DEFAULT 0"),
    "ladders": ("error TEXT NOT NULL DEFAULT ''", "owner TEXT", "epoch INTEGER NOT NULL DEFAULT 0"),
}


BUSY_TIMEOUT_S = 10.0   # how long a statement waits for another connection's write
CHECKPOINT_S = 0.5      # how often the WAL is folded into the database file (file stores)
# When the WAL file is larger than this after a checkpoint, it is folded in completely and
# cut back to nothing (TRUNCATE): writers wait for the milliseconds that takes, once in a
# while, instead of the file growing for as long as writes never pause.
WAL_TRUNCATE_BYTES = 4 * 1024 * 1024
JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024   # what SQLite itself leaves of the WAL after a reset


class _Connection:
    """One pooled connection. Its lock is only ever contended by close()."""

    __slots__ = ("db", "lock")

    def __init__(self, db: sqlite3.Connection):
        self.db = db
        self.lock = threading.Lock()


class SQLiteStore(SQLStore):
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

    kind = "sqlite"
    # A disk full, an I/O error, a file locked past BUSY_TIMEOUT_S: the move is refused
    # (STORE_UNAVAILABLE) and the match goes back to its log, like PostgreSQL away.
    unavailable = (sqlite3.OperationalError,)
    conflicts = (sqlite3.IntegrityError,)

    def __init__(self, path: str = ":memory:"):
        super().__init__()
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
        while has_matches and version < SCHEMA_VERSION and version in MIGRATIONS:
            db.executescript(f"BEGIN; {MIGRATIONS[version]} PRAGMA user_version = "
                             f"{version + 1}; COMMIT;")
            version += 1
        for table, columns in ADDED_COLUMNS.items():
            have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
            for column in columns:
                if have and column.split()[0] not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
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

    @contextlib.contextmanager
    def _transaction(self):
        # BEGIN IMMEDIATE takes the database's write lock at once, so every other writer
        # (any thread, any connection) waits until COMMIT: what is counted stays true.
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = self._open()
        try:
            with conn.lock:
                self._begin_immediate(conn.db)

                def run(sql: str, args: tuple = ()):
                    cur = conn.db.execute(sql, args)
                    return cur.fetchall() if cur.description is not None else cur.rowcount
                try:
                    yield run
                except BaseException:
                    conn.db.execute("ROLLBACK")
                    raise
                conn.db.execute("COMMIT")
        finally:
            self._idle.put(conn)

    @staticmethod
    def _begin_immediate(db: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE; in shared-cache memory another writer refuses it with
        SQLITE_LOCKED instead of waiting (a file waits in SQLite's busy timeout)."""
        give_up = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as e:
                if (getattr(e, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_LOCKED
                        or time.monotonic() > give_up):
                    raise
                time.sleep(0.0005)

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

    def _write(self, sql: str, args: tuple = ()) -> int:
        return self._execute(sql, args, fetch=False)

    def outage(self, error: Exception) -> bool:
        """SQLITE_ERROR is a statement of ours that is wrong (a bug); the other codes are
        the file's or the disk's state now."""
        code = getattr(error, "sqlite_errorcode", None)
        return code is None or code & 0xFF != sqlite3.SQLITE_ERROR

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._execute(sql, args, fetch=True)

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
        with self._opening:
            self._closed = True
        for conn in self._all:   # waits for a statement running on another thread to finish
            with conn.lock:
                conn.db.close()


