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

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

from .. import metrics
from .health import StoreHealth
from .rows import (
    MATCH_COLUMNS,
    Fenced,
    LogConflict,
    MatchRow,
    MoveRow,
    StoreUnavailable,
    expected,
    match_row,
    match_values,
)

# What a quota counts, per kind of charge (docs/security.md, "Quotas"): the charges whose
# match is not over, or whose ladder still runs. A charge row is written with the match or
# ladder it pays for, in one transaction (SQLStore.add_charged).
_LIVE = {
    "match": "SELECT count(*) FROM quota_charges q JOIN matches m ON m.id = q.id WHERE "
             "q.kind = 'match' AND q.name = ? AND m.status != 'over'",
    "ladder": "SELECT count(*) FROM quota_charges q JOIN ladders l ON l.id = q.id WHERE "
              "q.kind = 'ladder' AND q.name = ? AND l.status = 'running'",
}
# Charges that count for nothing any more: a finished match's after its minute, a stopped
# ladder's. Removed as the same principal is charged again, so the table holds about what
# is live and recent.
# Each looks up only the principal's own charges (its index) and their rows by key, never
# the whole matches table.
_SPENT = {
    # (a match's charge with no match: a fork refused after its work was charged)
    "match": "DELETE FROM quota_charges WHERE kind = 'match' AND name = ? AND created < ? "
             "AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.id = quota_charges.id AND "
             "m.status != 'over')",
    "ladder": "DELETE FROM quota_charges WHERE kind = 'ladder' AND name = ? AND created < ? "
              "AND EXISTS (SELECT 1 FROM ladders l WHERE l.id = quota_charges.id AND "
              "l.status != 'running')",
}
# Locks one row per principal until the transaction ends: two engines charging the same
# principal at once take turns, so the second one counts the first one's charge.
_LOCK_PRINCIPAL = ("INSERT INTO quota_holders (name) VALUES (?) ON CONFLICT (name) DO "
                   "UPDATE SET name = excluded.name")

# A new match row names its owner and epoch: this engine's, at epoch 1, in a cluster;
# nobody's, at 0, otherwise.
_NEW_MATCH = (f"INSERT INTO matches ({MATCH_COLUMNS}, owner, epoch) VALUES "
              f"({', '.join('?' * (len(MATCH_COLUMNS.split(',')) + 2))})")


class SQLStore:
    """The match store's rows on a backend's `_read` and `_write`."""

    kind = "sql"           # the backend's name in the metrics ("sqlite", "postgresql")
    shared = False         # a store several engines may share (a cluster, cluster/)
    remote = False         # its commit is a round trip over the network (rpc/moves.py)
    # How a ladder's matches are read back in the order they were started.
    ladder_match_order = "rowid"
    # The backend's errors that mean "not now" (see `outage`), and "that row exists".
    unavailable: tuple[type[Exception], ...] = ()
    # Those of them that are a wait running out: the store may only be late (health.py).
    late: tuple[type[Exception], ...] = ()
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

    def _transaction(self) -> AbstractContextManager[Callable[[str, tuple], list | int]]:
        """Several statements as one transaction: the context gives `run(sql, args)` (the
        rows of a query, or the number of rows a write changed); all is committed when the
        block ends, nothing when it raises. A writer among them waits for (or is waited
        for by) every other writer of the same rows, on every engine of the store."""
        raise NotImplementedError

    def listen(self, channel: str, heard) -> object | None:
        """Hear what other engines of the store announce on `channel` (postgres.py): a
        listener to close, or None on a store no other engine shares."""
        return None

    def starting(self) -> AbstractContextManager:
        """The engine's start-up (opening, recovery, joining a cluster) runs in this: a
        backend that bounds each call tightly (postgres.py) gives the server longer there,
        so a slow answer at start-up delays the engine instead of failing it."""
        return contextlib.nullcontext()

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
        with self._answering():
            return run(sql, args)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Callable[[str, tuple], list | int]]:
        """_transaction, answered as every statement is (_answering)."""
        with self._answering(), self._transaction() as run:
            yield run

    @contextlib.contextmanager
    def batch(self) -> Iterator[Callable[..., None]]:
        """Writes made together at the block's end, as one transaction, in as few round
        trips as the backend can: the block's `add(sql, args, expect=None, refused=None)`
        queues one; a write that changes another number of rows than `expect` raises
        `refused`, and nothing is committed. Answered as every statement is."""
        writes: list[tuple] = []

        def add(sql: str, args: tuple = (), expect: int | None = None,
                refused: Exception | None = None) -> None:
            writes.append((sql, args, expect, refused))
        yield add
        if writes:
            with self._answering():
                self._batch(writes)

    def _batch(self, writes: list[tuple]) -> None:
        """batch's writes, one after another in a transaction (a backend whose round trips
        cost little)."""
        with self._transaction() as run:
            for sql, args, expect, refused in writes:
                expected(run(sql, args), expect, refused)

    @contextlib.contextmanager
    def _answering(self) -> Iterator[None]:
        """Refused at once while the store is away; the backend's failures that are
        outages mark it down (a wait that ran out, `late`, has the probe look first) and
        come out as StoreUnavailable."""
        if not self.health.up:
            raise StoreUnavailable(f"{self.health.refusal()}; try again shortly")
        try:
            yield
        except self.unavailable as e:
            if not self.outage(e):
                raise
            why = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            if isinstance(e, self.late):
                self.health.doubted(why)
            else:
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
        return self._owner_values()

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

    def seat_claims(self, match_id: str) -> dict[int, tuple[str, str]]:
        """seat -> (token hash, name) of the match's stored seats: what a restore needs of
        them, in one read."""
        return {seat: (token_hash, name) for seat, token_hash, name in self.read(
            "SELECT seat, token_hash, name FROM seats WHERE match_id = ?", (match_id,))}

    def seat_names(self, match_id: str) -> dict[int, str]:
        return dict(self.read("SELECT seat, name FROM seats WHERE match_id = ? AND "
                               "name != ''", (match_id,)))

    def moves(self, match_id: str) -> list[MoveRow]:
        rows = self.read("SELECT version, seat, move, cause, at FROM moves WHERE "
                          "match_id = ? ORDER BY version", (match_id,))
        return [MoveRow(*r) for r in rows]

    def add_charged_match(self, row: MatchRow, limits: dict, now: float) -> tuple[str, int] | None:
        """Store a new match charged to its creator (row.created_by), if within `limits`
        ({"live_matches", "matches_per_minute"}): None when stored, else (the quota's name,
        what the creator has of it) and nothing is stored."""
        def insert(run):
            run(_NEW_MATCH, (*match_values(row), *self._owner_values()))
        refused = self.add_charged("match", row.id, row.created_by, now,
                                   limits["live_matches"], limits["matches_per_minute"], insert)
        if refused is None:
            self._new_owner("matches", row.id)
        return refused

    def add_charged(self, kind: str, item_id: str, name: str, now: float, live_max: int,
                    per_minute_max: int | None, insert: Callable | None
                    ) -> tuple[str, int] | None:
        """The one place quotas are counted (docs/security.md, "Quotas"): in a
        transaction holding `name`'s lock, count what `name` has live of `kind` ("match" or
        "ladder") and, per_minute_max given, what it was charged in the last 60 s; within
        both, `insert(run)` adds the item and its charge row is written with it (`insert`
        None: the charge alone, for work done before the item is added; a charge of the
        same id already written is not written again). Returns None when added, else
        ("live" or "per_minute", the count) and nothing is added.
        Two engines charging one principal at once take turns on its lock, so the second
        counts the first one's item: a quota holds across the cluster."""
        with self.transaction() as run:
            run(_LOCK_PRINCIPAL, (name,))
            live = run(_LIVE[kind], (name,))[0][0]
            if live >= live_max:
                return "live", live
            if per_minute_max is not None:
                recent = run("SELECT count(*) FROM quota_charges WHERE kind = ? AND name = ? "
                             "AND created > ?", (kind, name, now - 60))[0][0]
                if recent >= per_minute_max:
                    return "per_minute", recent
            if insert is not None:
                insert(run)
            run("INSERT INTO quota_charges (kind, id, name, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (kind, id) DO NOTHING", (kind, item_id, name, now))
            run(_SPENT[kind], (name, now - 60))
        return None

    def _owner_values(self) -> tuple[str | None, int]:
        """(owner, epoch) a new row of this engine is stored with (_new_owner records it)."""
        return (self.engine_id, 1) if self.engine_id else (None, 0)

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

    def revoke_key(self, name: str, why: str) -> tuple[bool, list[str]]:
        """Revoke the live key `name` and cancel the ladders it runs (their error: `why`),
        in one transaction holding the principal's lock (add_charged), so that no ladder
        of the key's is added in between: (revoked, the ids of the ladders cancelled). The
        engines directing them see it in their rows and stop them (ladders/director.py)."""
        with self.transaction() as run:
            run(_LOCK_PRINCIPAL, (name,))
            if run("UPDATE api_keys SET revoked = TRUE WHERE name = ? AND NOT revoked",
                   (name,)) != 1:
                return False, []
            cancelled = [ladder_id for ladder_id, spec in
                         run("SELECT id, spec FROM ladders WHERE status = 'running'")
                         if json.loads(spec).get("created_by") == name]
            for ladder_id in cancelled:
                run("UPDATE ladders SET status = 'cancelled', error = ? WHERE id = ?",
                    (why, ladder_id))
        return True, cancelled

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

    def add_charged_ladder(self, ladder_id: str, spec: dict, created: float, name: str,
                           limit: int) -> tuple[str, int] | None:
        """add_ladder, charged to `name`'s quota of running ladders (SQLStore.add_charged)."""
        def insert(run):
            run("INSERT INTO ladders (id, spec, status, created, owner, epoch) VALUES "
                "(?, ?, 'running', ?, ?, ?)",
                (ladder_id, json.dumps(spec), created, *self._store._owner_values()))
        refused = self._store.add_charged("ladder", ladder_id, name, created, limit, None,
                                          insert)
        if refused is None:
            self._store._new_owner("ladders", ladder_id)
        return refused

    def add_ladder(self, ladder_id: str, spec: dict, created: float) -> None:
        self._store.write("INSERT INTO ladders (id, spec, status, created, owner, epoch) "
                           "VALUES (?, ?, 'running', ?, ?, ?)",
                           (ladder_id, json.dumps(spec), created,
                            *self._store._new_owner("ladders", ladder_id)))

    def cancel(self, ladder_id: str, why: str) -> str | None:
        """An operator's cancel, on the store itself (no engine asked, no fence: the
        operator holds the store): None when the running ladder is cancelled now (its
        engine's director stops it within STORE_POLL_S), else why not."""
        if self._store.write("UPDATE ladders SET status = 'cancelled', error = ? WHERE "
                              "id = ? AND status = 'running'", (why, ladder_id)) == 1:
            return None
        found = self.ladder(ladder_id)
        return f"ladder {ladder_id} is {found[2]}" if found else f"no ladder {ladder_id}"

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

    def set_spec(self, ladder_id: str, spec: dict) -> None:
        """Rewrite a ladder's definition (a ladder stored before it had a secret gets one)."""
        if self._fenced("UPDATE ladders SET spec = ? WHERE id = ? AND {fence}",
                        (json.dumps(spec), ladder_id), ladder_id) == 0:
            raise Fenced(f"ladder {ladder_id}: another engine owns it now")

    def slot_of(self, match_id: str) -> tuple[str, int] | None:
        """(ladder id, schedule index) of a ladder's match; None for any other match."""
        rows = self._store.read("SELECT ladder_id, idx FROM ladder_matches WHERE "
                                 "match_id = ?", (match_id,))
        return (rows[0][0], rows[0][1]) if rows else None

    def set_progress(self, ladder_id: str, start: int, stop: int) -> tuple[int, int]:
        """Of the schedule slots start..stop-1: (matches started there and not over,
        slots counted). One statement, so both are of one moment."""
        (unfinished, counted), = self._store.read(
            "SELECT (SELECT count(*) FROM ladder_matches lm JOIN matches m ON m.id = "
            "lm.match_id WHERE lm.ladder_id = ? AND lm.idx >= ? AND lm.idx < ? AND "
            "m.status != 'over'), (SELECT count(*) FROM ladder_results WHERE ladder_id = ? "
            "AND idx >= ? AND idx < ?)", (ladder_id, start, stop, ladder_id, start, stop))
        return unfinished, counted

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
