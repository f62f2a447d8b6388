"""Seeds nobody can predict: the one function that gives the deals of the matches the
engine schedules itself (a ladder's, an arena's), from a secret it keeps.

A match's seed rebuilds every tile of every deal, and a finished match's seed is public
(its record shows it). So the seeds of one schedule must not be related in a way a
reader could use: from one public seed nobody may compute another. Each seed is
HMAC-SHA256(secret, parts), its first 63 bits: without the secret, a seed tells nothing
about any other parts' (HMAC is a pseudorandom function), and the secret cannot be
recovered from any number of them. A secret is 256 random bits (`new_secret`, or the
arena's keys.new_secret), drawn by the engine and never sent anywhere: guessing it is
out of reach, as it would not be for a secret a person chose (a ladder seed of 1 is
tried first).

The parts name the purpose and the place in the schedule (("duplicate-set", 3),
("rotation-slot", 7, 0); an arena's (arena id, match id) or (arena id, "set", n)): two
purposes never share a seed. docs/security.md ("Seeds nobody can predict") says who uses
which parts. Pure (the standard library only), so the engine, the arena and the
in-process ladder of bots/ share it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .formats import DUPLICATE

SEED_BITS = 63      # seeds are 0..2^63-1: the signed 64-bit integer every store keeps
SECRET_BYTES = 32   # 256 bits


def new_secret() -> str:
    """A fresh secret, as hex text (what a store keeps); shown to no one."""
    return secrets.token_hex(SECRET_BYTES)


def derive_seed(secret: str, *parts) -> int:
    """The seed of `parts` under `secret`: HMAC-SHA256(secret, the parts as text joined by
    U+001F, so that ("a", "bc") and ("ab", "c") differ), its first 63 bits. The same
    (secret, parts) always gives the same seed, so a schedule resumes after a restart;
    different parts give unrelated seeds. An empty secret is refused: it would make
    every seed public."""
    if not secret:
        raise ValueError("a seed needs a secret")
    message = "\x1f".join(str(p) for p in parts).encode("utf-8", "surrogatepass")
    mac = hmac.new(secret.encode("utf-8", "surrogatepass"), message, hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") >> (64 - SEED_BITS)


def deal_seed(secret: str, fmt: str, index: int, set_no: int, attempt: int = 0) -> int:
    """The seed of a ladder's match: in the duplicate format one per set (every match of
    the set plays the same deal, replays of a voided slot included); in rotation one per
    slot and attempt, so a slot played again after a void gets a deal of its own and the
    voided match, public once over, tells nothing about its replay."""
    if fmt == DUPLICATE:
        return derive_seed(secret, "duplicate-set", set_no)
    return derive_seed(secret, "rotation-slot", index, attempt)
