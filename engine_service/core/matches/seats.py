"""Seats: who may act for a place at the table, and how long it may think.

A seat is claimed once and gets a long random token (256 bits, hex: it never starts
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
