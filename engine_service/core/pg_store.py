"""The PostgreSQL Store: what several engines share (docs/cluster.md).

The same rows and guarantees as the SQLite store (store.py): a move row is committed
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

import json
import logging

import psycopg
import psycopg_pool
from psycopg_pool import ConnectionPool

from .store import MATCH_COLUMNS, MatchRow, MoveRow, StoreUnavailable, match_row, match_values

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
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
CREATE TABLE IF NOT EXISTS ladder_results (
    ladder_id text NOT NULL REFERENCES ladders(id),
    idx integer NOT NULL,
    row text NOT NULL,
    PRIMARY KEY (ladder_id, idx)
);
"""
MIGRATIONS: dict[int, str] = {}   # from version n to n + 1, when there is a version 2
MIGRATION_LOCK = 0x646F6D696E6F   # "domino": the advisory lock engines take to migrate

POOL_MIN, POOL_MAX = 2, 16
OPEN_TIMEOUT_S = 15.0            # how long a starting engine waits for the database


def _configure(conn: psycopg.Connection) -> None:
    with conn.cursor() as cur:
        cur.execute("SHOW synchronous_commit")
        given = cur.fetchone()[0]
        # "on" is PostgreSQL's default: keep it only where the DSN asked for it.
        if given == "on" and "synchronous_commit" not in (conn.info.dsn or ""):
            cur.execute("SET synchronous_commit = off")


class PostgresStore:
    """Store on a PostgreSQL database, for one engine or several."""

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.path = _safe(dsn)       # how logs and messages name it: no password
        self.pool = ConnectionPool(dsn, min_size=POOL_MIN, max_size=POOL_MAX,
                                   kwargs={"autocommit": True}, configure=_configure,
                                   name="store", open=False)
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

    def _migrate(self) -> None:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(SCHEMA)
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else SCHEMA_VERSION
            if row is None:
                conn.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"store {self.path} has schema version {version}, newer "
                                   f"than this engine's {SCHEMA_VERSION}: upgrade the engine")
            while version < SCHEMA_VERSION:
                conn.execute(MIGRATIONS[version])
                version += 1
                conn.execute("UPDATE schema_version SET version = %s", (version,))

    def _write(self, sql: str, args: tuple) -> int:
        with self.pool.connection() as conn:
            return conn.execute(sql, args).rowcount

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self.pool.connection() as conn:
            return conn.execute(sql, args).fetchall()

    def check(self) -> None:
        """PostgreSQL keeps its own files whole; a store that answers is usable."""
        self._read("SELECT 1")

    # ----- matches --------------------------------------------------------------------
    def add_match(self, row: MatchRow) -> None:
        self._write(
            f"INSERT INTO matches ({MATCH_COLUMNS}) VALUES "
            "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            match_values(row))

    def set_status(self, match_id: str, status: str, result: dict | None = None,
                   version: int = 0) -> None:
        self._write("UPDATE matches SET status = %s, result = %s, version = %s WHERE id = %s",
                    (status, None if result is None else json.dumps(result), version, match_id))

    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool:
        return self._write("INSERT INTO seats VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                           (match_id, seat, token_hash, name)) == 1

    def append_move(self, match_id: str, row: MoveRow) -> None:
        # The primary key refuses a second row for one version: a move is never logged twice.
        self._write("INSERT INTO moves VALUES (%s, %s, %s, %s, %s, %s)",
                    (match_id, row.version, row.seat, row.move_text, row.cause, row.at))

    def match(self, match_id: str) -> MatchRow | None:
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id = %s", (match_id,))
        return match_row(rows[0]) if rows else None

    def unfinished(self) -> list[MatchRow]:
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status != 'over' "
                          "ORDER BY created")
        return [match_row(r) for r in rows]

    def finished(self, limit: int) -> list[MatchRow]:
        rows = self._read(f"SELECT {MATCH_COLUMNS} FROM matches WHERE status = 'over' "
                          "ORDER BY created DESC LIMIT %s", (limit,))
        return [match_row(r) for r in rows]

    def seat_hashes(self, match_id: str) -> dict[int, str]:
        return dict(self._read("SELECT seat, token_hash FROM seats WHERE match_id = %s",
                               (match_id,)))

    def seat_names(self, match_id: str) -> dict[int, str]:
        return dict(self._read("SELECT seat, name FROM seats WHERE match_id = %s AND "
                               "name != ''", (match_id,)))

    def moves(self, match_id: str) -> list[MoveRow]:
        rows = self._read("SELECT version, seat, move, cause, at FROM moves WHERE "
                          "match_id = %s ORDER BY version", (match_id,))
        return [MoveRow(*r) for r in rows]

    # ----- operators' keys and pools ---------------------------------------------------
    def add_key(self, name: str, key_hash: str, quotas: dict, created: float) -> bool:
        return self._write("INSERT INTO api_keys (name, key_hash, quotas, created) VALUES "
                           "(%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                           (name, key_hash, json.dumps(quotas), created)) == 1

    def key_by_hash(self, key_hash: str) -> tuple[str, dict] | None:
        rows = self._read("SELECT name, quotas FROM api_keys WHERE key_hash = %s AND "
                          "NOT revoked", (key_hash,))
        return (rows[0][0], json.loads(rows[0][1])) if rows else None

    def keys(self) -> list[tuple[str, dict, float, bool]]:
        rows = self._read("SELECT name, quotas, created, revoked FROM api_keys ORDER BY name")
        return [(n, json.loads(q), c, bool(r)) for n, q, c, r in rows]

    def revoke_key(self, name: str) -> bool:
        return self._write("UPDATE api_keys SET revoked = true WHERE name = %s AND NOT revoked",
                           (name,)) == 1

    def set_pool(self, name: str, secret_hash: str, created: float) -> None:
        self._write("INSERT INTO pools VALUES (%s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
                    "secret_hash = excluded.secret_hash", (name, secret_hash, created))

    def pool_hash(self, name: str) -> str | None:
        rows = self._read("SELECT secret_hash FROM pools WHERE name = %s", (name,))
        return rows[0][0] if rows else None

    def close(self) -> None:
        self.pool.close()


class PostgresLadderStore:
    """The ladders' rows (ladder_store.py says what they are) in the same database, on
    the match store's pool."""

    def __init__(self, store: PostgresStore):
        self._store = store

    def add_ladder(self, ladder_id: str, spec: dict, created: float) -> None:
        self._store._write("INSERT INTO ladders (id, spec, status, created) VALUES "
                           "(%s, %s, 'running', %s)", (ladder_id, json.dumps(spec), created))

    def set_status(self, ladder_id: str, status: str, error: str = "") -> None:
        self._store._write("UPDATE ladders SET status = %s, error = %s WHERE id = %s",
                           (status, error, ladder_id))

    def ladders(self) -> list[tuple[str, dict, str, float, str]]:
        rows = self._store._read("SELECT id, spec, status, created, error FROM ladders "
                                 "ORDER BY created")
        return [(i, json.loads(s), st, c, e) for i, s, st, c, e in rows]

    def add_match(self, ladder_id: str, match_id: str, idx: int) -> None:
        self._store._write("INSERT INTO ladder_matches (ladder_id, match_id, idx, status) "
                           "VALUES (%s, %s, %s, 'playing')", (ladder_id, match_id, idx))

    def set_match_status(self, ladder_id: str, match_id: str, status: str) -> None:
        self._store._write("UPDATE ladder_matches SET status = %s WHERE ladder_id = %s AND "
                           "match_id = %s", (status, ladder_id, match_id))

    def matches(self, ladder_id: str) -> list[tuple[str, int, str]]:
        return self._store._read("SELECT match_id, idx, status FROM ladder_matches WHERE "
                                 "ladder_id = %s ORDER BY seq", (ladder_id,))

    def add_result(self, ladder_id: str, idx: int, result: dict) -> bool:
        return self._store._write("INSERT INTO ladder_results VALUES (%s, %s, %s) "
                                  "ON CONFLICT DO NOTHING",
                                  (ladder_id, idx, json.dumps(result))) == 1

    def results(self, ladder_id: str) -> list[dict]:
        rows = self._store._read("SELECT row FROM ladder_results WHERE ladder_id = %s "
                                 "ORDER BY idx", (ladder_id,))
        return [json.loads(r) for (r,) in rows]

    def close(self) -> None:
        """The pool is the match store's: it closes it."""




def _safe(dsn: str) -> str:
    """The DSN without its password, for messages and logs."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://?"
    host = info.get("host", "localhost")
    port = info.get("port", "5432")
    return f"postgresql://{info.get('user', '')}@{host}:{port}/{info.get('dbname', '')}"
