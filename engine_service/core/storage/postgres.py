"""The PostgreSQL store: what several engines share (docs/cluster.md).

The same rows, statements (sql.py) and guarantees as the SQLite store: a move row is committed
before the move is acknowledged, the log replays a match to its identical state and
version, ladder results are inserted once and never changed. The schema is created and
migrated by the engine that finds it missing or old, under an advisory lock, so engines
started together do it once; its version is kept in `schema_version`.

Every statement runs in autocommit on a pooled connection (psycopg_pool): one round trip,
and no lock of ours spans matches. Commits use synchronous_commit=off unless the DSN sets
it: a committed move is in PostgreSQL before it is acknowledged, so the death of any
engine loses nothing; a crash of the database server itself may lose its last fraction
of a second of commits (PostgreSQL's own trade-off, like the SQLite store's WAL with
synchronous=NORMAL against a power cut). Give `options=-c synchronous_commit=on` in the
DSN for the other trade-off; make bench measures both.
"""

from __future__ import annotations

import contextlib
import logging

import psycopg
import psycopg_pool
from psycopg_pool import ConnectionPool

from plumbing import settings

from .health import StoreHealth
from .listener import Listener
from .rows import StoreUnavailable, expected
from .sql import SQLStore

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id text PRIMARY KEY,
    variant text NOT NULL,
    options text NOT NULL,
    seed bigint NOT NULL,
    deals text,
    settings text NOT NULL,
    created double precision NOT NULL,
    status text NOT NULL,
    result text,
    version bigint NOT NULL DEFAULT 0,
    created_by text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches (status, created);
CREATE TABLE IF NOT EXISTS seats (
    match_id text NOT NULL REFERENCES matches(id),
    seat integer NOT NULL,
    token_hash text NOT NULL,
    name text NOT NULL DEFAULT '',
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS moves (
    match_id text NOT NULL REFERENCES matches(id),
    version bigint NOT NULL,
    seat integer NOT NULL,
    move text NOT NULL,
    cause text NOT NULL,
    at double precision NOT NULL,
    PRIMARY KEY (match_id, version)
);
CREATE TABLE IF NOT EXISTS api_keys (
    name text PRIMARY KEY,
    key_hash text NOT NULL UNIQUE,
    quotas text NOT NULL,
    created double precision NOT NULL,
    revoked boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS pools (
    name text PRIMARY KEY,
    secret_hash text NOT NULL,
    created double precision NOT NULL
);
CREATE TABLE IF NOT EXISTS ladders (
    id text PRIMARY KEY,
    spec text NOT NULL,
    status text NOT NULL,
    created double precision NOT NULL,
    error text NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS ladder_matches (
    seq bigserial,
    ladder_id text NOT NULL REFERENCES ladders(id),
    match_id text NOT NULL,
    idx integer NOT NULL,
    status text NOT NULL,
    PRIMARY KEY (ladder_id, match_id)
);
CREATE INDEX IF NOT EXISTS ladder_matches_by_match ON ladder_matches (match_id);
CREATE TABLE IF NOT EXISTS quota_charges (
    kind text NOT NULL,
    id text NOT NULL,
    name text NOT NULL,
    created double precision NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX IF NOT EXISTS quota_charges_by_name ON quota_charges (name, kind, created);
CREATE TABLE IF NOT EXISTS quota_holders (
    name text PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS ladder_results (
    ladder_id text NOT NULL REFERENCES ladders(id),
    idx integer NOT NULL,
    row text NOT NULL,
    PRIMARY KEY (ladder_id, idx)
);
-- Analyses of finished matches (analysis/, docs/analysis.md), kept: a second request is
-- free. Made here, IF NOT EXISTS, by the schema every open runs: no migration needed.
CREATE TABLE IF NOT EXISTS analyses (
    match_id text NOT NULL,
    params text NOT NULL,
    doc text NOT NULL,
    created double precision NOT NULL,
    PRIMARY KEY (match_id, params)
);
"""
# From version n to n + 1. Version 2: the cluster (docs/cluster.md) — engines that heartbeat
# their row, and an owner and an epoch on every match and ladder.
MIGRATIONS: dict[int, str] = {
    1: """
CREATE TABLE engines (
    id text PRIMARY KEY,
    address text NOT NULL,
    started double precision NOT NULL,
    heartbeat timestamptz NOT NULL,
    live_matches integer NOT NULL DEFAULT 0,
    draining boolean NOT NULL DEFAULT false
);
ALTER TABLE matches ADD COLUMN owner text;
ALTER TABLE matches ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
CREATE INDEX matches_by_owner ON matches (owner) WHERE status != 'over';
ALTER TABLE ladders ADD COLUMN owner text;
ALTER TABLE ladders ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
""",
}
MIGRATION_LOCK = 0x646F6D696E6F   # "domino": the advisory lock engines take to migrate

POOL_MIN, POOL_MAX = 2, 16
OPEN_TIMEOUT_S = 15.0            # how long a starting engine waits for the database

# Every wait on the server is bounded, so that no call can hang the engine's event loop
# (where moves and their commits run) on a server that is away. A stopped server refuses
# at once; a frozen one (SIGSTOP, a network black hole) answers nothing at all, and its
# host's kernel may even acknowledge every packet, so neither TCP keepalives nor a
# server-side statement_timeout can end such a wait: only the client's own clock can.
# A call that waits longer than WAIT_S (a commit is ~0.2 ms, p99 0.4 ms: make bench) is
# refused, and the probe looks at once: the store is down when the probe's own round trip
# is late or refused too (health.py: one late answer on a busy machine is no outage).
# Longer would stall the loop longer at the start of an outage.
WAIT_S = 0.5                     # one round trip on a connection
POOL_WAIT_S = 0.5                # for a connection of the pool
# An operator whose server is slower than that under normal load (a remote database, a
# busy disk) raises both at once with this variable, in milliseconds: a longer bound
# trades a longer stall of the loop at the start of an outage for fewer refused moves.
WAIT_ENV = "DOMINO_STORE_WAIT_MS"
WAIT_MS_RANGE = (50, 60_000)
# libpq's own bounds, for what the bounds above do not cover (a connection being opened,
# an idle one whose peer vanished). The DSN may set any of them itself. libpq takes
# connect_timeout in whole seconds, 2 at least.
CONNECTION_DEFAULTS = {"connect_timeout": "2", "keepalives": "1", "keepalives_idle": "5",
                       "keepalives_interval": "1", "keepalives_count": "3",
                       "tcp_user_timeout": "5000"}
# The server gives up a statement its client gave up long ago (a lock wait, say).
SERVER_STATEMENT_TIMEOUT = "5s"


def wait_bound() -> float:
    """The bound of one wait on the server, in seconds: WAIT_S, or what WAIT_ENV says."""
    low, high = WAIT_MS_RANGE
    try:
        return settings.whole_number(WAIT_ENV, round(WAIT_S * 1000), low, high,
                                     "milliseconds") / 1000
    except settings.BadSetting as e:
        raise StoreUnavailable(str(e)) from None


class LateAnswer(psycopg.OperationalError):
    """A wait on the server that ran out: the server may be away, or only late."""


class BoundedConnection(psycopg.Connection):
    """A connection whose every wait on the server lasts at most `wait_s`. One that runs
    out is closed, since it is in the middle of the protocol, and raises
    psycopg.OperationalError; the pool replaces it. A wait given its own timeout (psycopg's
    `notifies`, listener.py) is its caller's: its end is no failure."""

    wait_s = WAIT_S

    def wait(self, gen, interval: float = 0.1, timeout: float | None = None):
        if timeout is not None:
            return super().wait(gen, interval=interval, timeout=timeout)
        try:
            return super().wait(gen, interval=interval, timeout=self.wait_s)
        except psycopg.errors._WaitTimeout:   # (psycopg >= 3.3 gives wait a timeout)
            self.close()
            raise LateAnswer(f"the server did not answer within {self.wait_s:g} s") from None


def _configure(conn: psycopg.Connection) -> None:
    dsn = conn.info.dsn or ""
    with conn.cursor() as cur:
        cur.execute("SHOW synchronous_commit")
        given = cur.fetchone()[0]
        # "on" is PostgreSQL's default: keep it only where the DSN asked for it.
        if given == "on" and "synchronous_commit" not in dsn:
            cur.execute("SET synchronous_commit = off")
        if "statement_timeout" not in dsn:
            cur.execute(f"SET statement_timeout = '{SERVER_STATEMENT_TIMEOUT}'")


class PostgresStore(SQLStore):
    """The store on a PostgreSQL database, for one engine or several. Besides the rows
    every store keeps, it has the cluster's: the engines' heartbeats, and the owner and
    epoch of every match and ladder (cluster/membership.py).

    Its health (health.py) is kept by a probe on a connection of its own: while the
    server does not answer, every call is refused at once (StoreUnavailable)."""

    # A commit is a round trip to the server (about 0.2 ms on an idle machine, far more
    # on a loaded one), so the moves are played on threads (rpc/moves.py) and the event
    # loop goes on meanwhile. What keeps a move from waiting long on a server that is
    # away is the bounds above and the store's health.
    kind = "postgresql"
    shared = True      # engines on one database make a cluster (engine.py, cluster/)
    remote = True      # each commit a round trip: moves are played on threads
    ladder_match_order = "seq"
    unavailable = (psycopg.OperationalError,)   # PoolTimeout, the bounds above, AdminShutdown...
    late = (LateAnswer, psycopg_pool.PoolTimeout)
    conflicts = (psycopg.errors.UniqueViolation,)

    def __init__(self, dsn: str):
        super().__init__()
        self.dsn = dsn
        self.path = _safe(dsn)       # how logs and messages name it: no password
        self._bound = bound = wait_bound()
        given = psycopg.conninfo.conninfo_to_dict(dsn)
        self._defaults = {k: v for k, v in CONNECTION_DEFAULTS.items() if k not in given}
        self.pool = ConnectionPool(dsn, min_size=POOL_MIN, max_size=POOL_MAX,
                                   kwargs={"autocommit": True, **self._defaults},
                                   configure=_configure, connection_class=BoundedConnection,
                                   timeout=max(bound, POOL_WAIT_S), name="store", open=False)
        self._probe_conn: BoundedConnection | None = None
        self._wait_s = bound        # a call's bound; longer while starting()
        self.health = StoreHealth(self.path, self._probe)
        try:
            self.pool.open(wait=True, timeout=OPEN_TIMEOUT_S)
            self._migrate()
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as e:
            self.pool.close()
            why = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
            raise StoreUnavailable(f"cannot reach the store {self.path}: {why}") from None
        except BaseException:
            self.pool.close()
            raise
        self.health.start()

    @contextlib.contextmanager
    def starting(self):
        # Start-up work (the schema, recovery) is bounded by OPEN_TIMEOUT_S, not by a
        # move's WAIT_S: another engine may hold the lock while it migrates, and a loaded
        # server can take longer than a commit over DDL or a scan of every match.
        before, self._wait_s = self._wait_s, OPEN_TIMEOUT_S
        try:
            yield
        finally:
            self._wait_s = before

    @contextlib.contextmanager
    def _connection(self):
        """A connection of the pool, bounded by the store's present bound."""
        wait_s = self._wait_s
        with self.pool.connection(timeout=max(wait_s, POOL_WAIT_S)) as conn:
            conn.wait_s = wait_s
            yield conn

    @contextlib.contextmanager
    def _starting(self):
        """A start-up transaction, with no statement timeout."""
        with self.starting(), self._connection() as conn, conn.transaction():
            conn.execute("SET LOCAL statement_timeout = 0")
            yield conn

    def _migrate(self) -> None:
        with self._starting() as conn:
            self._migrate_on(conn)

    def make_tables(self, schema: str, lock: int) -> None:
        """Another room's tables (`CREATE ... IF NOT EXISTS`), made once under the advisory
        lock `lock`, so that engines started together do not race on them."""
        with self._starting() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock,))
            conn.execute(schema)

    def _migrate_on(self, conn: psycopg.Connection) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute(SCHEMA)      # version 1, for a new database; then the migrations
        row = conn.execute("SELECT version FROM schema_version").fetchone()
        version = row[0] if row else 1
        if row is None:
            conn.execute("INSERT INTO schema_version VALUES (1)")
        if version > SCHEMA_VERSION:
            raise RuntimeError(f"store {self.path} has schema version {version}, newer "
                               f"than this engine's {SCHEMA_VERSION}: upgrade the engine")
        while version < SCHEMA_VERSION:
            conn.execute(MIGRATIONS[version])
            version += 1
            conn.execute("UPDATE schema_version SET version = %s", (version,))

    # The statements shared with SQLite (sql.py) are written with `?`; psycopg's is `%s`.
    # None of ours has a `?` of its own (no JSON operators). Errors go up as psycopg's:
    # sql.py makes them StoreUnavailable.
    def _write(self, sql: str, args: tuple = ()) -> int:
        with self._connection() as conn:
            return conn.execute(sql.replace("?", "%s"), args).rowcount

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._connection() as conn:
            return conn.execute(sql.replace("?", "%s"), args).fetchall()

    def _own_connection(self) -> BoundedConnection:
        """A connection outside the pool, with the pool's bounds."""
        conn = BoundedConnection.connect(self.dsn, autocommit=True, **self._defaults)
        conn.wait_s = self._bound
        return conn

    def listen(self, channel: str, heard) -> Listener:
        """Hear the notifications of `channel` (listener.py) on a connection of their own,
        from now until the listener is closed."""
        listener = Listener(self._own_connection, channel, heard, self.path)
        listener.start()
        return listener

    def _probe(self, was_up: bool) -> None:
        """One round trip on the probe's own connection (opened again when it broke): the
        pool's may all be busy, or broken, and it must not queue behind them. Back from
        an outage, the pool's idle connections are checked (a restarted server broke
        them all) before any call is let through."""
        try:
            if self._probe_conn is None or self._probe_conn.closed:
                self._probe_conn = self._own_connection()
            self._probe_conn.execute("SELECT 1")
        except BaseException:
            if self._probe_conn is not None:
                self._probe_conn.close()
            self._probe_conn = None
            raise
        if not was_up:
            self.pool.check()

    @contextlib.contextmanager
    def _transaction(self):
        # READ COMMITTED: each statement sees what was committed before it began, so a
        # count made after a row lock was granted sees the work of whoever held it.
        # Errors go up as psycopg's, like _write's: sql.py's transaction() makes them
        # StoreUnavailable.
        with self._connection() as conn, conn.transaction():
            def run(sql: str, args: tuple = ()):
                cur = conn.execute(sql.replace("?", "%s"), args)
                return cur.fetchall() if cur.description is not None else cur.rowcount
            yield run

    def _batch(self, writes: list[tuple]) -> None:
        # Pipelined: BEGIN and every write go out at once, and their answers come back
        # together (one round trip), then COMMIT (another), where one after another took a
        # round trip each; on a loaded machine each was milliseconds of the matchmaker's
        # thread (docs/arena.md). The row counts are checked before the commit.
        with self._connection() as conn, conn.pipeline() as pipeline, conn.transaction():
            cursors = [conn.execute(sql.replace("?", "%s"), args) for sql, args, _, _ in writes]
            pipeline.sync()
            for cur, (_, _, expect, refused) in zip(cursors, writes, strict=True):
                expected(cur.rowcount, expect, refused)

    def check(self) -> None:
        """PostgreSQL keeps its own files whole; a store that answers is usable."""
        self.read("SELECT 1")

    # ----- the cluster (cluster/membership.py) ----------------------------------------------------
    # Times are the database's own clock (now()), the one clock every engine shares.
    def join(self, engine_id: str, address: str, started: float) -> None:
        # One address is one listening socket: an engine joining at it means the engine
        # that was there is gone (restarted after kill -9, say). Its row goes, so its
        # matches are orphans at once instead of after a lease.
        self.write("DELETE FROM engines WHERE address = %s AND id != %s", (address, engine_id))
        self.write("INSERT INTO engines (id, address, started, heartbeat) VALUES "
                    "(%s, %s, %s, now())", (engine_id, address, started))
        self.engine_id = engine_id

    def beat(self, live_matches: int, draining: bool) -> bool:
        """This engine's heartbeat; False when its row is gone (it was taken for dead)."""
        return self.write("UPDATE engines SET heartbeat = now(), live_matches = %s, "
                           "draining = %s WHERE id = %s",
                           (live_matches, draining, self.engine_id)) == 1

    def leave(self) -> None:
        self.write("DELETE FROM engines WHERE id = %s", (self.engine_id,))

    def members(self, lease_s: float) -> list[dict]:
        """Every engine with a row, the live ones (heartbeat within the lease) first."""
        rows = self.read(
            "SELECT id, address, extract(epoch FROM now() - heartbeat), live_matches, "
            "draining FROM engines ORDER BY id")
        out = [{"engine_id": i, "address": a, "heartbeat_age_s": float(age),
                "live": float(age) <= lease_s, "live_matches": n, "draining": d}
               for i, a, age, n, d in rows]
        return sorted(out, key=lambda e: not e["live"])

    def forget_dead(self, older_than_s: float) -> None:
        """Rows of engines silent for long: gone for good (their matches were taken)."""
        self.write("DELETE FROM engines WHERE heartbeat < now() - make_interval(secs => %s) "
                    "AND id != %s", (older_than_s, self.engine_id))

    def owner(self, table: str, key: str, lease_s: float) -> tuple[str | None, str, bool] | None:
        """(owner id, its address, alive) of an unfinished match or running ladder
        (`table` "matches" or "ladders"); None when there is no such one."""
        unfinished = "m.status != 'over'" if table == "matches" else "m.status = 'running'"
        rows = self.read(
            f"SELECT m.owner, e.address, e.heartbeat >= now() - make_interval(secs => %s) "
            f"FROM {table} m LEFT JOIN engines e ON e.id = m.owner WHERE m.id = %s AND "
            f"{unfinished}", (lease_s, key))
        if not rows:
            return None
        owner, address, alive = rows[0]
        return owner, address or "", bool(alive) and owner is not None

    def orphans(self, lease_s: float) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """(ladders, matches) that no live engine owns, as (id, epoch), oldest first. A
        running ladder's matches are its own: they go with it, not on their own."""
        dead = ("(m.owner IS NULL OR e.id IS NULL OR "
                "e.heartbeat < now() - make_interval(secs => %s))")
        ladders = self.read(
            f"SELECT m.id, m.epoch FROM ladders m LEFT JOIN engines e ON e.id = m.owner "
            f"WHERE m.status = 'running' AND {dead} ORDER BY m.created", (lease_s,))
        matches = self.read(
            f"SELECT m.id, m.epoch FROM matches m LEFT JOIN engines e ON e.id = m.owner "
            f"WHERE m.status != 'over' AND {dead} AND NOT EXISTS (SELECT 1 FROM "
            f"ladder_matches lm JOIN ladders l ON l.id = lm.ladder_id WHERE "
            f"lm.match_id = m.id AND l.status = 'running') ORDER BY m.created", (lease_s,))
        return ladders, matches

    def take(self, table: str, key: str, epoch: int) -> int | None:
        """Own the match or ladder whose epoch is `epoch` (compare and set): its new epoch,
        or None when another engine took it first."""
        rows = self.read(f"UPDATE {table} SET owner = %s, epoch = epoch + 1 WHERE id = %s "
                          "AND epoch = %s RETURNING epoch", (self.engine_id, key, epoch))
        if not rows:
            return None
        (self.epochs if table == "matches" else self.ladder_epochs)[key] = rows[0][0]
        return rows[0][0]

    def ladder_match_epochs(self, ladder_id: str) -> list[tuple[str, int]]:
        """(match id, epoch) of a ladder's unfinished matches: taken with the ladder."""
        return self.read("SELECT m.id, m.epoch FROM ladder_matches lm JOIN matches m ON "
                          "m.id = lm.match_id WHERE lm.ladder_id = %s AND m.status != 'over'",
                          (ladder_id,))

    def owned(self) -> tuple[set[str], set[str]]:
        """(match ids, ladder ids) this engine owns by the database now."""
        matches = self.read("SELECT id, epoch FROM matches WHERE owner = %s AND "
                             "status != 'over'", (self.engine_id,))
        ladders = self.read("SELECT id, epoch FROM ladders WHERE owner = %s AND "
                             "status = 'running'", (self.engine_id,))
        return ({i for i, e in matches if self.epochs.get(i) == e},
                {i for i, e in ladders if self.ladder_epochs.get(i) == e})

    def release(self) -> None:
        """Let go of every match and ladder this engine owns (draining): another engine
        takes them at its next look."""
        self.write("UPDATE matches SET owner = NULL, epoch = epoch + 1 WHERE owner = %s AND "
                    "status != 'over'", (self.engine_id,))
        self.write("UPDATE ladders SET owner = NULL, epoch = epoch + 1 WHERE owner = %s AND "
                    "status = 'running'", (self.engine_id,))
        self.epochs.clear()
        self.ladder_epochs.clear()

    def close(self) -> None:
        self.health.close()
        if self._probe_conn is not None:
            self._probe_conn.close()
        self.pool.close()


def _safe(dsn: str) -> str:
    """The DSN without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://?"
    host = info.get("host", "localhost")
    port = info.get("port", "5432")
    return f"postgresql://{info.get('user', '')}@{host}:{port}/{info.get('dbname', '')}"
