"""The bounds of every input the engine accepts, checked once at its edge (docs/security.md).

Whatever comes from outside (a gRPC request, a Play stream message, a ladder definition)
is checked here before anything is looked up or stored: a bad one is refused with
MALFORMED_REQUEST naming the field, so no oversized id is echoed back, no number too large
for the store is kept, and nothing malformed reaches code that does not expect it.
"""

from __future__ import annotations

import re

from ...rules.errors import shown
from ...rules.match import MAX_SEED
from ..errors import EngineError, Reason

ID_MAX = 64              # match and ladder ids (the engine's own are 16 and 12 hex digits)
TOKEN_MAX = 128          # seat tokens (64 hex digits), API keys, enlist secrets
NAME_MAX = 40            # seat names, pool bot names, entrant names
POOL_MAX = 100           # pool names
CLIENT_MAX = 200         # Hello.client, free text for the logs
MOVE_TEXT_MAX = 40       # "4-4 up barricade" is 16
MOVE_ID_MAX = 8          # legal move ids are indices: "0".."99"
DEALS_MAX = 1000              # explicit deals of one match
DEAL_HANDS_MAX = 8            # hands in one explicit deal (4 or 5 are right)
DEAL_TILES_MAX = 28           # tiles in one hand or in a deal's rest
CLOCK_MS = (100, 3_600_000)   # a turn clock: 100 ms .. 1 h (0 means the default)
SEEDS = (0, MAX_SEED)
LIST_MAX = 1000               # ListMatches.limit
CAPACITY_MAX = 64             # matches one pool stream plays at once

POOL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}")
ENTRANT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")
# The arena (docs/arena.md): registered bots, their lobbies, the Arena service's lists.
BOT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,40}")   # as an entrant's
BOT_DESCRIPTION_MAX = 200     # printable characters
ARENA_ID_MAX = 40             # ArenaInfo.arena_id, Hello.arena.arena
BOT_VERSION_MAX = 40          # Hello.arena.version: 1..40 printable characters
LOBBY_MATCHES_MAX = 10_000    # Hello.arena.max_matches (0: no limit)
ARENA_LIST_MAX = 1000         # GetLeaderboard.limit, ListBotMatches.limit
RATING_POINTS_MAX = 100_000   # GetRatingHistory.limit


def refuse(field: str, message: str, version: int | None = None) -> EngineError:
    return EngineError(Reason.MALFORMED_REQUEST, f"{field}: {message}", version, field=field)


def text(value: str, field: str, max_len: int, *, required: bool = False,
         pattern: re.Pattern | None = None, printable: bool = True) -> str:
    """A string field: at most max_len characters, printable (no control characters), and
    matching `pattern` when one is given."""
    if not isinstance(value, str):
        raise refuse(field, "must be text")
    if required and not value:
        raise refuse(field, "is required")
    if len(value) > max_len:
        raise refuse(field, f"is at most {max_len} characters, got {len(value)}")
    if printable and not value.isprintable():
        raise refuse(field, f"must be printable text, got {shown(value)}")
    if pattern is not None and value and not pattern.fullmatch(value):
        raise refuse(field, f"{shown(value)} does not have the form {pattern.pattern}")
    return value


def integer(value: int, field: str, lo: int, hi: int, *, zero_ok: bool = False) -> int:
    """An integer field in lo..hi (0 allowed too when it means "the default")."""
    if type(value) is not int:
        raise refuse(field, "must be an integer")
    if zero_ok and value == 0:
        return value
    if not lo <= value <= hi:
        raise refuse(field, f"must be {lo}..{hi}" + (" (or 0: the default)" if zero_ok else "")
                     + f", got {shown(value, 24)}")
    return value


def match_id(value: str, field: str = "match_id") -> str:
    return text(value, field, ID_MAX, required=True)


def seat_token(value: str, field: str = "seat_token") -> str:
    return text(value, field, TOKEN_MAX)


