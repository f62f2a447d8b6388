"""Where matches survive a crash: the Store interface and the rows it keeps. The SQLite
implementation is in sqlite_store.py.

What is stored is exactly what replays a match (the rules core is deterministic):
the creation parameters (variant, options, seed, explicit deals), the engine settings
(seat kinds, names, clocks), the seat token hashes, and an append-only log of accepted
moves; besides, the hashes of the operators' API keys and of the pools' enlist secrets.
A move row is committed before the move is acknowledged, so a kill -9 at any moment loses
no acknowledged move.
"""

from __future__ import annotations

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
