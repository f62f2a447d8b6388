"""Seats: who is expected at a place at the table, who may act for it, and how long it
may think.

A match is created with one SeatSpec per seat (who is expected there); its row in the
store keeps, per seat, that spec and the seat's clock (`stored_seats`, `seat_specs`). A seat
is claimed once and gets a long random token (256 bits, hex: it never starts
with "-", so it is safe as a command-line argument). Only
the token's sha256 is kept, in memory and in the store; checks compare hashes with
hmac.compare_digest so timing reveals nothing. Tokens are never logged.

Who may claim a seat (`may_claim`, docs/security.md "Claiming a seat"): anyone, for a seat
its creator made open (SeatSpec.open, the lobby's "open seats"); otherwise only the key that
created the match, or whoever holds the seat's claim secret, which the creation answer
hands the creator once (its sha256 is kept in the row, like a token's).
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
    open: bool = False     # anyone may claim it (a person joining from the lobby)

    @property
    def by_token(self) -> bool:
        """Claimed with ClaimSeat (not filled by a pool, nor played by the engine)."""
        return not self.pool and not self.yardstick


def new_claim_secret() -> str:
    return "cs_" + secrets.token_urlsafe(32)


def stored_seats(specs: list[SeatSpec], clocks_ms: list[int],
                 claim_hashes: list[str] | None = None) -> list[dict]:
    """The seats as a match row's settings keep them ("seats"): one object per seat, with
    the hash of its claim secret ("" for a seat that has none; none at all, claim_hashes
    absent, for a match whose seats only the engine fills: the arena's)."""
    claims = claim_hashes if claim_hashes is not None else [""] * len(specs)
    return [{"kind": spec.kind, "name": spec.name, "clock_ms": clock_ms, "pool": spec.pool,
             "yardstick": spec.yardstick, "open": spec.open, "claim": claim}
            for spec, clock_ms, claim in zip(specs, clocks_ms, claims, strict=True)]


def seat_specs(settings: dict) -> list[tuple[SeatSpec, int]]:
    """Each seat's spec and clock (ms) from a match row's settings: one object per seat
    ("seats"), or, in rows stored before those, parallel lists ("kinds", "names",
    "clocks_ms", "pools", "yardsticks"; the last two optional)."""
    if "seats" in settings:
        return [(SeatSpec(s["kind"], s["name"], s["pool"], s["yardstick"], s.get("open", False)),
                 s["clock_ms"]) for s in settings["seats"]]
    n = len(settings["kinds"])
    return [(SeatSpec(kind, name, pool, yardstick), clock_ms)
            for kind, name, clock_ms, pool, yardstick in zip(
                settings["kinds"], settings["names"], settings["clocks_ms"],
                settings.get("pools") or [""] * n, settings.get("yardsticks") or [""] * n,
                strict=True)]


def claim_hashes(settings: dict) -> list[str]:
    """Each seat's claim secret hash from a match row's settings ("" when it has none, as in
    rows stored before claim secrets)."""
    if "seats" in settings:
        return [s.get("claim", "") for s in settings["seats"]]
    return [""] * len(settings["kinds"])


def may_claim(spec_open: bool, claim_hash: str, created_by: str, who: str | None,
              claim_secret: str) -> bool:
    """The rule of ClaimSeat: an open seat is anyone's; any other token seat is claimed by
    the principal that created the match (`who`: the claimant's principal name, None with
    no key on an engine that needs keys) or with the seat's claim secret."""
    if spec_open:
        return True
    if claim_secret and claim_hash and hmac.compare_digest(hash_token(claim_secret),
                                                           claim_hash):
        return True
    return who is not None and who == created_by


@dataclass
class Seat:
    kind: str = BOT
    name: str = ""
    clock_ms: int = DEFAULT_CLOCK_MS[BOT]
    token_hash: str = ""           # "" until claimed
    pool: str = ""                 # filled from this bot pool; "" when claimed by token
    open: bool = False             # anyone may claim it (SeatSpec.open)
    claim_hash: str = ""           # sha256 of its claim secret; "" when it has none
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
