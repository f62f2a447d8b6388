"""The SQLite Store: the embedded default, one file (or memory) per engine."""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
import time
import uuid

from .store import MatchRow, MoveRow

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
) WITHOUT ROWID;   -- rows kept in key order: one b-tree, so a commit writes one page, not two
"""


BUSY_TIMEOUT_S = 10.0   # how long a statement waits for another connection's write
CHECKPOINT_S = 0.5      # how often the WAL is folded into the database file (file stores)


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
    every match (the engine's event loop)."""

    def __init__(self, path: str = ":memory:"):
        self._memory = path == ":memory:"
        self._target = f"file:memdb-{uuid.uuid4().hex}?mode=memory&cache=shared" if self._memory else path
        self._idle: queue.SimpleQueue[_Connection] = queue.SimpleQueue()
        self._all: list[_Connection] = []
        self._opening = threading.Lock()   # only while a connection is opened or at close
        self._closed = False
        first = self._open()
        if not self._memory:
            # WAL + NORMAL: a commit survives a killed process (not a power cut) and costs
            # no fsync per move.
            first.db.execute("PRAGMA journal_mode=WAL")
        first.db.executescript(SCHEMA)
        self._idle.put(first)
        # (frames in the WAL, frames of it in the database file) at the last checkpoint
        self.last_checkpoint = (0, 0)
        self._stop = threading.Event()
        self._checkpointer = None
        if not self._memory:
            self._checkpointer = threading.Thread(target=self._checkpoints, daemon=True,
                                                  name="store-checkpoint")
            self._checkpointer.start()

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
            except sqlite3.Error:   # closed meanwhile, or busy: the next round does it
                continue
            self.last_checkpoint = (frames, done)

    def _write(self, sql: str, args: tuple) -> int:
        return self._execute(sql, args, fetch=False)

    def _read(self, sql: str, args: tuple) -> list[tuple]:
        return self._execute(sql, args, fetch=True)

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
                    (match_id, row.version, row.seat, row.move_text, row.cause, row.at))

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
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
        with self._opening:
            self._closed = True
        for conn in self._all:   # waits for a statement running on another thread to finish
            with conn.lock:
                conn.db.close()


def _match_row(r: tuple) -> MatchRow:
    id_, variant, options, seed, deals, settings, created, status, result = r
    return MatchRow(id_, variant, json.loads(options), seed,
                    None if deals is None else json.loads(deals), json.loads(settings),
                    created, status, None if result is None else json.loads(result))
