"""Where matches survive a crash: the Store interface and the rows it keeps. The SQLite
implementation (the embedded default) is in sqlite_store.py, the PostgreSQL one (what
several engines share) in pg_store.py.

What is stored is exactly what replays a match (the rules core is deterministic):
the creation parameters (variant, options, seed, explicit deals), the engine settings
(seat kinds, names, clocks), the seat token hashes, and an append-only log of accepted
moves; besides, the hashes of the operators' API keys and of the pools' enlist secrets.
A move row is committed before the move is acknowledged, so a kill -9 at any moment loses
no acknowledged move.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class MatchRow:
    id: str
    variant: str
    options: dict
    seed: int
    deals: list | None
    settings: dict                 # per seat: "kinds", "names", "clocks_ms", "pools" (lists)
    created: float                 # Unix seconds
    status: str = "waiting"        # "waiting" | "live" | "over"
    result: dict | None = None
    version: int = 0               # the final version, once over (0 before)
    created_by: str = ""           # the API key's name that created it ("open" in open mode)


@dataclass(frozen=True)
class MoveRow:
    """One accepted move: it took the match from version - 1 to version."""
    version: int
    seat: int
    move_text: str                 # the move in text notation; "" for an engine action (time_up)
    cause: str                     # "seat" | "timeout" | "absent" | "time_up"
    at: float = field(default=0.0)  # Unix seconds


class Store(Protocol):
    def add_match(self, row: MatchRow) -> None: ...
    def set_status(self, match_id: str, status: str, result: dict | None = None,
                   version: int = 0) -> None: ...
    def claim_seat(self, match_id: str, seat: int, token_hash: str, name: str = "") -> bool: ...
    def append_move(self, match_id: str, row: MoveRow) -> None: ...
    def match(self, match_id: str) -> MatchRow | None: ...
    def unfinished(self) -> list[MatchRow]: ...
    def finished(self, limit: int) -> list[MatchRow]: ...
    def seat_hashes(self, match_id: str) -> dict[int, str]: ...
    def seat_names(self, match_id: str) -> dict[int, str]: ...
    def moves(self, match_id: str) -> list[MoveRow]: ...
    def add_key(self, name: str, key_hash: str, quotas: dict, created: float) -> bool: ...
    def key_by_hash(self, key_hash: str) -> tuple[str, dict] | None: ...
    def keys(self) -> list[tuple[str, dict, float, bool]]: ...
    def revoke_key(self, name: str) -> bool: ...
    def set_pool(self, name: str, secret_hash: str, created: float) -> None: ...
    def pool_hash(self, name: str) -> str | None: ...
    def check(self) -> None: ...
    def close(self) -> None: ...


# How a MatchRow is kept, the same in every store: its JSON values as text, so they read
# back exactly as written (key order included).
MATCH_COLUMNS = ("id, variant, options, seed, deals, settings, created, status, result, "
                 "version, created_by")


def match_values(row: MatchRow) -> tuple:
    """The row's values in MATCH_COLUMNS order."""
    return (row.id, row.variant, json.dumps(row.options), row.seed,
            None if row.deals is None else json.dumps(row.deals), json.dumps(row.settings),
            row.created, row.status, None if row.result is None else json.dumps(row.result),
            row.version, row.created_by)


def match_row(r: tuple) -> MatchRow:
    """A MatchRow from values in MATCH_COLUMNS order."""
    id_, variant, options, seed, deals, settings, created, status, result, version, by = r
    return MatchRow(id_, variant, json.loads(options), seed,
                    None if deals is None else json.loads(deals), json.loads(settings),
                    created, status, None if result is None else json.loads(result),
                    version, by)


class Fenced(Exception):
    """A write of a match (or ladder) this engine no longer owns: another engine took it
    over (docs/cluster.md). The engine drops it; its clients are sent to the new owner."""


class StoreUnavailable(Exception):
    """The store cannot be reached (a PostgreSQL server away, refusing, unknown): the
    message names it, without its password, and why."""


def is_dsn(db: str) -> bool:
    """True when `db` names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def open_stores(db: str):
    """(match store, ladder store) for `db`: a SQLite file (or ":memory:"), or a
    PostgreSQL database (a postgresql:// DSN)."""
    if is_dsn(db):
        from .pg_store import PostgresLadderStore, PostgresStore  # psycopg only when asked
        store = PostgresStore(db)
        return store, PostgresLadderStore(store)
    from .ladder_store import LadderStore
    from .sqlite_store import SQLiteStore
    return SQLiteStore(db), LadderStore(db)
