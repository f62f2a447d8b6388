"""Seats: who is expected at a place at the table, who may act for it, and how long it
may think.

A match is created with one SeatSpec per seat (who is expected there); its row in the
store keeps, per seat, that spec and the seat's clock (`stored_seats`, `seat_specs`). A seat
is claimed once and gets a long random token (256 bits, hex: it never starts
with "-", so it is safe as a command-line argument). Only
the token's sha256 is kept, in memory and in the store; checks compare hashes with
hmac.compare_digest so timing reveals nothing. Tokens are never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

BOT, PERSON = "bot", "person"
DEFAULT_CLOCK_MS = {BOT: 10_000, PERSON: 120_000}
ABSENT_AFTER = 3  # timeouts in a row before a seat is played automatically at once


def new_token() -> str:
    return secrets.token_hex(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class SeatSpec:
    """Who is expected at one seat, as the creator of a match asks for it. The engine
    checks every field (Engine.create_match) before anything is stored."""
    kind: str = BOT        # BOT or PERSON: chooses the seat's default clock
    name: str = ""         # shown in views and records; a pool bot's name when left ""
    pool: str = ""         # the bot pool that fills the seat; "" for a seat claimed by token
    yardstick: str = ""    # the engine's own strategy that plays it (a ladder's oracle); ""


def stored_seats(specs: list[SeatSpec], clocks_ms: list[int]) -> list[dict]:
    """The seats as a match row's settings keep them ("seats"): one object per seat."""
    return [{"kind": spec.kind, "name": spec.name, "clock_ms": clock_ms, "pool": spec.pool,
             "yardstick": spec.yardstick} for spec, clock_ms in zip(specs, clocks_ms, strict=True)]


def seat_specs(settings: dict) -> list[tuple[SeatSpec, int]]:
    """Each seat's spec and clock (ms) from a match row's settings: one object per seat
    ("seats"), or, in rows stored before those, parallel lists ("kinds", "names",
    "clocks_ms", "pools", "yardsticks"; the last two optional)."""
    if "seats" in settings:
        return [(SeatSpec(s["kind"], s["name"], s["pool"], s["yardstick"]), s["clock_ms"])
                for s in settings["seats"]]
    n = len(settings["kinds"])
    return [(SeatSpec(kind, name, pool, yardstick), clock_ms)
            for kind, name, clock_ms, pool, yardstick in zip(
                settings["kinds"], settings["names"], settings["clocks_ms"],
                settings.get("pools") or [""] * n, settings.get("yardsticks") or [""] * n,
                strict=True)]


@dataclass
class Seat:
    kind: str = BOT
    name: str = ""
    clock_ms: int = DEFAULT_CLOCK_MS[BOT]
    token_hash: str = ""           # "" until claimed
    pool: str = ""                 # filled from this bot pool; "" when claimed by token
    timeouts_in_a_row: int = 0
    absent: bool = False           # played automatically until its holder returns

    @property
    def claimed(self) -> bool:
        return bool(self.token_hash)

    def holds(self, token_hash: str) -> bool:
        # Compare every seat's hash even after a match (no early exit by the caller) and in
        # constant time, so a guess learns nothing from timing.
        return self.claimed and hmac.compare_digest(self.token_hash, token_hash)


def seat_of(seats: list[Seat], token: str) -> int | None:
    """The seat whose token this is, or None. Every seat is compared."""
    if not token:
        return None
    digest = hash_token(token)
    found = None
    for i, seat in enumerate(seats):
        if seat.holds(digest):
            found = i
    return found
