"""Where matches survive a crash: the Store interface and the rows it keeps. The
statements every SQL store shares are in sql.py; the SQLite store (the embedded default)
is in sqlite.py, the PostgreSQL one (what several engines share) in postgres.py, and
factory.py opens the one a `--db` names.

What is stored is exactly what replays a match (the rules core is deterministic):
the creation parameters (variant, options, seed, explicit deals), the engine settings
(each seat's kind, name, clock, pool and yardstick), the seat token hashes, and an
append-only log of accepted moves; besides, the hashes of the operators' API keys and of
the pools' enlist secrets.
A move row is committed before the move is acknowledged, so a kill -9 at any moment loses
no acknowledged move.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import EngineError, Reason


@dataclass(frozen=True)
class MatchRow:
    id: str
    variant: str
    options: dict
    seed: int
    deals: list | None
    # "seats": one object per seat {kind, name, clock_ms, pool, yardstick}; "prefix": a
    # fork's first plays. Rows stored before per-seat objects hold parallel lists instead
    # ("kinds", "names", "clocks_ms", "pools", "yardsticks"); both read back the same
    # (matches/seats.py, seat_specs).
    settings: dict
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


class AlreadyDone(Exception):
    """A write of the arena's matchmaker found some of its rows written already (a result
    numbered, a match out of play): by an earlier try whose answer was lost, or by the
    engine that ran the arena before. Nothing of its transaction was made."""


class StoreDamaged(Exception):
    """The store file is damaged: the message names the file, what is damaged, and what
    to do."""


class StoreUnavailable(Exception):
    """The store cannot be reached (a PostgreSQL server away, refusing, unknown): the
    message names it, without its password, and why."""


class LogConflict(Exception):
    """The move log already has a row at that version: a write this engine was told had
    failed reached the store after all (a frozen server commits what it had received
    when it thaws). The log is the truth: the referee reads it back (referee._settle)."""


def expected(changed: int, expect: int | None, refused: Exception | None) -> None:
    """Raise `refused` when a write changed another number of rows than `expect` (None: any
    number): a fenced write its fence refused, in a batch or alone."""
    if expect is not None and changed != expect:
        raise refused


def store_away(e: BaseException) -> bool:
    """Is `e` the store not answering, as a store raises it or as the engine refuses with it
    (STORE_UNAVAILABLE)? Work that runs by itself (a ladder's director, an arena) waits for
    the store then, with one log line, instead of counting it as its own failure."""
    return isinstance(e, StoreUnavailable) or (isinstance(e, EngineError)
                                               and e.reason == Reason.STORE_UNAVAILABLE)
