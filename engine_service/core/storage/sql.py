"""The rows every SQL store keeps, written once for SQLite and PostgreSQL alike.

Both backends run the statements here unchanged: they are written with `?` placeholders
(the PostgreSQL backend turns them into psycopg's `%s`) in the SQL both dialects share
(`ON CONFLICT DO NOTHING`, `TRUE`, `NOT revoked`). A backend supplies `_read`, `_write`,
its schema and what only it has (SQLite's file checks, PostgreSQL's cluster tables).

Every statement goes through `read` or `write`, which make a backend's failures one of
two kinds: StoreUnavailable when the store could not do it now (the server away, the disk
full: `unavailable`), and anything else, a bug. While the store's health (health.py) says
it is down, they refuse at once, without touching the store. A move row the log already
has is LogConflict (`conflicts`).

Writes of a match or a ladder carry a *fence* (`{fence}` in the statement): the
condition that this engine still owns that row at the epoch it took it at
(docs/cluster.md). An engine that has not joined a cluster (every SQLite store, and a
PostgreSQL store before `join`) owns everything: its fence is TRUE.
"""

from __future__ import annotations

import json
import time

from .. import metrics
from .health import StoreHealth
from .rows import (
    MATCH_COLUMNS,
    Fenced,
    LogConflict,
    MatchRow,
    MoveRow,
    StoreUnavailable,
    match_row,
    match_values,
)

# A new match row names its owner and epoch: this engine's, at epoch 1, in a cluster;
# nobody's, at 0, otherwise.
_NEW_MATCH = (f"INSERT INTO matches ({MATCH_COLUMNS}, owner, epoch) VALUES "
              f"({', '.join('?' * (len(MATCH_COLUMNS.split(',')) + 2))})")


class SQLStore:
    """The match store's rows on a backend's `_read` and `_write`."""

    kind = "sql"           # the backend's name in the metrics ("sqlite", "postgresql")
    shared = False         # a store several engines may share (a cluster, cluster/)
    # How a ladder's matches are read back in the order they were started.
    ladder_match_order = "rowid"
    # The backend's errors that mean "not now" (see `outage`), and "that row exists".
    unavailable: tuple[type[Exception], ...] = ()
    conflicts: tuple[type[Exception], ...] = ()
    path = "?"             # how messages name the store (never with a password)

    def __init__(self):
        # A backend that can tell when its store is back gives a probe (postgres.py).
        self.health = StoreHealth(self.path)
        # Set once this engine joins a cluster: then every write of a match or ladder is
        # fenced by its owner and epoch, so one another engine took since refuses this
        # engine's writes (Fenced) instead of splitting it.
        self.engine_id: str | None = None
        self.epochs: dict[str, int] = {}          # match id -> epoch, of the matches owned
        self.ladder_epochs: dict[str, int] = {}   # ladder id -> epoch, of the ladders owned
        self.ladders = SQLLadderStore(self)

    # ----- what a backend gives -----------------------------------------------------
    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        raise NotImplementedError

    def _write(self, sql: str, args: tuple = ()) -> int:
        """Run one statement, committed on return: the number of rows it changed."""
        raise NotImplementedError

    def outage(self, error: Exception) -> bool:
        """Whether an error of `unavailable` means the store could not do it now (rather
        than a statement of ours being wrong)."""
        return True

    # ----- every statement ------------------------------------------------------------
    def read(self, sql: str, args: tuple = ()) -> list[tuple]:
        return self._statement(self._read, sql, args)

    def write(self, sql: str, args: tuple = ()) -> int:
        return self._statement(self._write, sql, args)

    def _statement(self, run, sql: str, args: tuple):
        if not self.health.up:
            raise StoreUnavailable(f"{self.health.refusal()}; try again shortly")
        try:
            return run(sql, args)
        except self.unavailable as e:
            if not self.outage(e):
                raise
            why = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            self.health.failed(why)
            raise StoreUnavailable(f"the store {self.path} did not answer ({why}); try "
                                   "again shortly") from None

    # ----- fencing ------------------------------------------------------------------
    def fence(self, key: str, table: str = "matches") -> tuple[str, tuple]:
        """The condition that this engine still owns row `key` of `table` (matches or
        ladders) at the epoch it took it at, as SQL and its arguments."""
        if self.engine_id is None:
            return "TRUE", ()
        epoch = (self.epochs if table == "matches" else self.ladder_epochs).get(key)
        if epoch is None:
            raise Fenced(f"{table} row {key} is not owned by this engine")
        return (f"EXISTS (SELECT 1 FROM {table} WHERE id = ? AND owner = ? AND epoch = ?)",
                (key, self.engine_id, epoch))

    def fenced_write(self, sql: str, args: tuple, key: str, table: str = "matches") -> int:
        """`sql` with its {fence} made the fence of `key`: the rows it changed."""
        cond, cond_args = self.fence(key, table)
        return self.write(sql.replace("{fence}", cond), args + cond_args)

    def _check_owned(self, match_id: str) -> None:
        if self.engine_id is None:
            return
        cond, args = self.fence(match_id)
        if not self.read(f"SELECT {cond}", args)[0][0]:
            raise Fenced(f"match {match_id}: another engine owns it now")

    # ----- matches ------------------------------------------------------------------
    def add_match(self, row: MatchRow) -> None:
        self.write(_NEW_MATCH, (*match_values(row), *self._new_owner("matches", row.id)))

    def _new_owner(self, table: str, key: str) -> tuple[str | None, int]:
        """(owner, epoch) of a row this engine creates: its own at epoch 1 in a cluster."""
        if not self.engine_id:
            return None, 0
        (self.epochs if table == "matches" else self.ladder_epochs)[key] = 1
        return self.engine_id, 1

    def set_status(self, match_id: str, status: str, result: dict | None = None,
                   version: int = 0) -> None:
        if self.fenced_write("UPDATE matches SET status = ?, result = ?, version = ? "
                             "WHERE id = ? AND {fence}",
                             (status, None if result is None else json.dumps(result),
                              version, match_id), match_id) == 0:
            raise Fenced(f"match {match_id}: another engine owns it now")
        if status == "over":
            self.epochs.pop(match_id, None)

    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool:
        """Store the hash of a seat's token (and the name of a pool bot seated there);
        False when the seat was already claimed."""
        if self.fenced_write("INSERT INTO seats SELECT ?, ?, ?, ? WHERE {fence} "
                             "ON CONFLICT DO NOTHING",
                             (match_id, seat, token_hash, name), match_id) == 1:
            return True
        self._check_owned(match_id)
        return False

    def append_move(self, match_id: str, row: MoveRow) -> None:
        # The primary key refuses a second row for one version (LogConflict): a move is
        # never logged twice. The fence refuses the row of an engine that no longer owns
        # the match.
        started = time.perf_counter()
        try:
            written = self.fenced_write("INSERT INTO moves SELECT ?, ?, ?, ?, ?, ? WHERE "
                                        "{fence}", (match_id, row.version, row.seat,
                                                    row.move_text, row.cause, row.at), match_id)
        except self.conflicts as e:
            raise LogConflict(f"match {match_id} version {row.version}: "
                              f"{str(e).strip().splitlines()[0][:200]}") from None
        if written == 0:
            raise Fenced(f"match {match_id}: another engine owns it now")
        metrics.commit_took(self.kind, time.perf_counter() - started)

    def match(self, match_id: str) -> MatchRow | None:
        rows = self.read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,))
        return match_row(rows[0]) if rows else None

    def unfinished(self) -> list[MatchRow]:
        rows = self.read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status != 'over' "
                          "ORDER BY created")
        return [match_row(r) for r in rows]

    def finished(self, limit: int) -> list[MatchRow]:
        """The latest finished matches, newest first."""
        rows = self.read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status = 'over' "
                          "ORDER BY created DESC LIMIT ?", (limit,))
        return [match_row(r) for r in rows]

    def seat_hashes(self, match_id: str) -> dict[int, str]:
        return dict(self.read("SELECT seat, token_hash FROM seats WHERE match_id = ?",
                               (match_id,)))

    def seat_names(self, match_id: str) -> dict[int, str]:
        return dict(self.read("SELECT seat, name FROM seats WHERE match_id = ? AND "
                               "name != ''", (match_id,)))

    def moves(self, match_id: str) -> list[MoveRow]:
        rows = self.read("SELECT version, seat, move, cause, at FROM moves WHERE "
                          "match_id = ? ORDER BY version", (match_id,))
        return [MoveRow(*r) for r in rows]

    # ----- operators' keys and pools --------------------------------------------------
    def add_analysis(self, match_id: str, params: str, doc: str) -> bool:
        """Keep a finished match's analysis (the JSON text) once; False if one with these
        parameters was kept already (two engines computed it: either is the same)."""
        return self.write("INSERT INTO analyses VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                          (match_id, params, doc, time.time())) == 1

    def analysis(self, match_id: str, params: str) -> str | None:
        rows = self.read("SELECT doc FROM analyses WHERE match_id = ? AND params = ?",
                         (match_id, params))
        return rows[0][0] if rows else None

    def add_key(self, name: str, key_hash: str, quotas: dict, created: float) -> bool:
        """False when a key of that name exists already."""
        return self.write("INSERT INTO api_keys (name, key_hash, quotas, created) VALUES "
                           "(?, ?, ?, ?) ON CONFLICT DO NOTHING",
                           (name, key_hash, json.dumps(quotas), created)) == 1

    def key_by_hash(self, key_hash: str) -> tuple[str, dict] | None:
        """(name, quotas) of the live key with this hash."""
        rows = self.read("SELECT name, quotas FROM api_keys WHERE key_hash = ? AND "
                          "NOT revoked", (key_hash,))
        return (rows[0][0], json.loads(rows[0][1])) if rows else None

    def keys(self) -> list[tuple[str, dict, float, bool]]:
        """(name, quotas, created, revoked) of every key, by name."""
        rows = self.read("SELECT name, quotas, created, revoked FROM api_keys ORDER BY name")
        return [(n, json.loads(q), c, bool(r)) for n, q, c, r in rows]

    def revoke_key(self, name: str) -> bool:
        return self.write("UPDATE api_keys SET revoked = TRUE WHERE name = ? AND NOT revoked",
                           (name,)) == 1

    def set_pool(self, name: str, secret_hash: str, created: float) -> None:
        """Define a pool, or give it a new enlist secret."""
        self.write("INSERT INTO pools VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
                    "secret_hash = excluded.secret_hash", (name, secret_hash, created))

    def pool_hash(self, name: str) -> str | None:
        rows = self.read("SELECT secret_hash FROM pools WHERE name = ?", (name,))
        return rows[0][0] if rows else None


class SQLLadderStore:
    """Where ladders survive a restart: their definition, their schedule and their
    results, in the match store's database, written like matches only by the ladder's
    owner. Ladder results are immutable: one per (ladder, schedule index), inserted once;
    standings are always recomputed from them."""

    def __init__(self, store: SQLStore):
        self._store = store

    def _fenced(self, sql: str, args: tuple, ladder_id: str) -> int:
        return self._store.fenced_write(sql, args, ladder_id, "ladders")

    def add_ladder(self, ladder_id: str, spec: dict, created: float) -> None:
        self._store.write("INSERT INTO ladders (id, spec, status, created, owner, epoch) "
                           "VALUES (?, ?, 'running', ?, ?, ?)",
                           (ladder_id, json.dumps(spec), created,
                            *self._store._new_owner("ladders", ladder_id)))

    def set_status(self, ladder_id: str, status: str, error: str = "") -> None:
        if self._fenced("UPDATE ladders SET status = ?, error = ? WHERE id = ? AND {fence}",
                        (status, error, ladder_id), ladder_id) == 0:
            raise Fenced(f"ladder {ladder_id}: another engine owns it now")

    def ladders(self) -> list[tuple[str, dict, str, float, str]]:
        """(id, spec, status, created, error) of every ladder, oldest first."""
        rows = self._store.read("SELECT id, spec, status, created, error FROM ladders "
                                 "ORDER BY created")
        return [(i, json.loads(s), st, c, e) for i, s, st, c, e in rows]

    def ladder(self, ladder_id: str) -> tuple[str, dict, str, float, str] | None:
        rows = self._store.read("SELECT id, spec, status, created, error FROM ladders "
                                 "WHERE id = ?", (ladder_id,))
        return next(((i, json.loads(s), st, c, e) for i, s, st, c, e in rows), None)

    def add_match(self, ladder_id: str, match_id: str, idx: int) -> None:
        if self._fenced("INSERT INTO ladder_matches (ladder_id, match_id, idx, status) "
                        "SELECT ?, ?, ?, 'playing' WHERE {fence}",
                        (ladder_id, match_id, idx), ladder_id) == 0:
            raise Fenced(f"ladder {ladder_id}: another engine owns it now")

    def set_match_status(self, ladder_id: str, match_id: str, status: str) -> None:
        self._fenced("UPDATE ladder_matches SET status = ? WHERE ladder_id = ? AND "
                     "match_id = ? AND {fence}", (status, ladder_id, match_id), ladder_id)

    def matches(self, ladder_id: str) -> list[tuple[str, int, str]]:
        """(match id, schedule index, status) in the order they were started."""
        return self._store.read("SELECT match_id, idx, status FROM ladder_matches WHERE "
                                 f"ladder_id = ? ORDER BY {self._store.ladder_match_order}",
                                 (ladder_id,))

    def add_result(self, ladder_id: str, idx: int, result: dict) -> bool:
        """Insert a ladder result once; False if that index was already counted."""
        return self._fenced("INSERT INTO ladder_results SELECT ?, ?, ? WHERE {fence} "
                            "ON CONFLICT DO NOTHING",
                            (ladder_id, idx, json.dumps(result)), ladder_id) == 1

    def results(self, ladder_id: str) -> list[dict]:
        rows = self._store.read("SELECT row FROM ladder_results WHERE ladder_id = ? "
                                 "ORDER BY idx", (ladder_id,))
        return [json.loads(r) for (r,) in rows]

    def close(self) -> None:
        """The connections are the match store's: it closes them."""
