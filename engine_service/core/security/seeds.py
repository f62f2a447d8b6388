"""Seeds that tell nothing: a match's seed derived by a keyed function of a secret.

A seed tells every hidden tile of its match (the rules deal from it). A seed made by a
public formula of public numbers (a ladder's index, an arena's match count) would let
anyone who knows the formula compute the deals of live matches. `derive_seed` is
HMAC-SHA256 of the parts under a secret the engine keeps (an arena's lives in its store
row, never in a response or a log), truncated to 63 bits: the signed 64-bit range every
store keeps and every message carries (rules' MAX_SEED).
"""

from __future__ import annotations

import hashlib
import hmac

SEED_BITS = 63


def derive_seed(secret: str, *parts) -> int:
    """A seed in 0..2^63-1 from `secret` and `parts` (each turned to text, joined so that
    ("a", "bc") and ("ab", "c") differ)."""
    message = "\x1f".join(str(p) for p in parts).encode("utf-8", "surrogatepass")
    digest = hmac.new(secret.encode("utf-8", "surrogatepass"), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)
