"""The engine's refusals: one exception, a stable reason code, and its status category.

Every reason the engine can give is a member of `Reason`, and `STATUS` gives each one the
name of its gRPC status code (the error tables of docs/protocol.md and docs/design.md);
tests/engine/test_reasons.py checks that no member lacks one. Only the rpc layer turns the
name into a grpc.StatusCode, so this module stays free of grpc.
"""

from __future__ import annotations

from enum import StrEnum

from ..rules import errors as rules


class Reason(StrEnum):
    # malformed request
    MALFORMED_MOVE = "MALFORMED_MOVE"
    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    UNKNOWN_MOVE_ID = "UNKNOWN_MOVE_ID"
    BAD_SEAT = "BAD_SEAT"
    HELLO_TIMEOUT = "HELLO_TIMEOUT"          # a Play stream sent no Hello in time
    # no or wrong secret: seat token, API key, pool enlist secret
    NO_TOKEN = "NO_TOKEN"
    BAD_TOKEN = "BAD_TOKEN"
    NO_KEY = "NO_KEY"
    BAD_KEY = "BAD_KEY"
    BAD_POOL_SECRET = "BAD_POOL_SECRET"
    BAD_CLAIM_SECRET = "BAD_CLAIM_SECRET"    # not the seat's claim secret
    SEAT_NOT_OPEN = "SEAT_NOT_OPEN"          # ClaimSeat with neither the key nor the secret
    # a key may not act on what another created
    NOT_YOURS = "NOT_YOURS"
    # over a quota or a bound of the engine
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    ENGINE_FULL = "ENGINE_FULL"
    RATE_LIMITED = "RATE_LIMITED"            # calls over their rate (SampleWorlds)
    BUSY = "BUSY"                            # the engine's bounded work is at capacity (forks)
    TOO_MANY_STREAMS = "TOO_MANY_STREAMS"    # Watch streams over a bound (an address, a match)
    SLOW_READER = "SLOW_READER"              # a stream dropped: its reader fell too far behind
    # unknown match or ladder
    UNKNOWN_MATCH = "UNKNOWN_MATCH"
    UNKNOWN_LADDER = "UNKNOWN_LADDER"
    # the arena (docs/arena.md): registered bots' keys, names, lobbies and seats
    BAD_BOT_KEY = "BAD_BOT_KEY"              # unknown bot key (a rotated one is unknown)
    BOT_RETIRED = "BOT_RETIRED"              # the bot was retired: it can no longer connect
    UNKNOWN_BOT = "UNKNOWN_BOT"
    UNKNOWN_ARENA = "UNKNOWN_ARENA"
    BOT_NAME_TAKEN = "BOT_NAME_TAKEN"
    NOT_SEATED = "NOT_SEATED"                # the bot has no seat in that arena match
    LOBBY_REPLACED = "LOBBY_REPLACED"        # a newer lobby of the same bot and arena took over
    STANDBY_REPLACED = "STANDBY_REPLACED"    # a newer standby stream of the bot, arena, engine
    # stale version
    STALE_VERSION = "STALE_VERSION"
    # a seat's token is handed out once
    SEAT_TAKEN = "SEAT_TAKEN"
    # a pool seat is filled by the engine, not claimed
    POOL_SEAT = "POOL_SEAT"
    # the record holds hidden tiles until the end (and so does an analysis: it reads them)
    MATCH_NOT_OVER = "MATCH_NOT_OVER"
    # a duplicate ladder's match: its deal is in play in another match of its set, so its
    # record and spectator views wait until the set is over
    DEAL_IN_PLAY = "DEAL_IN_PLAY"
    # this engine was started without the analyser (the composition root gives it)
    ANALYSIS_OFF = "ANALYSIS_OFF"
    # a ladder that already ended cannot be cancelled
    LADDER_OVER = "LADDER_OVER"
    # a bug of the engine: logged, and only the one request or stream fails
    INTERNAL = "INTERNAL"
    # another engine of the cluster owns the match or ladder (docs/cluster.md): the
    # refusal names it (Refusal.owner), or no one does for a moment (a failover)
    NOT_OWNER = "NOT_OWNER"
    # the store (PostgreSQL) did not answer: nothing was changed; try again shortly
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    # the rules core's refusals (engine_service/rules/errors.py)
    NOT_YOUR_TURN = rules.NOT_YOUR_TURN
    TILE_NOT_IN_HAND = rules.TILE_NOT_IN_HAND
    END_MISMATCH = rules.END_MISMATCH
    ARM_CLOSED = rules.ARM_CLOSED
    MUST_PLAY_DRAWN_TILE = rules.MUST_PLAY_DRAWN_TILE
    MUST_OPEN_WITH = rules.MUST_OPEN_WITH
    OPENING_HAS_NO_PLACE = rules.OPENING_HAS_NO_PLACE
    PLACE_REQUIRED = rules.PLACE_REQUIRED
    MODE_REQUIRED = rules.MODE_REQUIRED
    MODE_NOT_ALLOWED = rules.MODE_NOT_ALLOWED
    MATCH_OVER = rules.MATCH_OVER


INVALID, ILLEGAL = "INVALID_ARGUMENT", "FAILED_PRECONDITION"

STATUS: dict[Reason, str] = {
    Reason.MALFORMED_MOVE: INVALID,
    Reason.MALFORMED_REQUEST: INVALID,
    Reason.UNKNOWN_MOVE_ID: INVALID,
    Reason.BAD_SEAT: INVALID,
    Reason.HELLO_TIMEOUT: "DEADLINE_EXCEEDED",
    Reason.NO_TOKEN: "UNAUTHENTICATED",
    Reason.BAD_TOKEN: "UNAUTHENTICATED",
    Reason.NO_KEY: "UNAUTHENTICATED",
    Reason.BAD_KEY: "UNAUTHENTICATED",
    Reason.BAD_POOL_SECRET: "UNAUTHENTICATED",
    Reason.BAD_CLAIM_SECRET: "UNAUTHENTICATED",
    Reason.SEAT_NOT_OPEN: "UNAUTHENTICATED",
    Reason.NOT_YOURS: "PERMISSION_DENIED",
    Reason.QUOTA_EXCEEDED: "RESOURCE_EXHAUSTED",
    Reason.ANALYSIS_OFF: "FAILED_PRECONDITION",
    Reason.ENGINE_FULL: "RESOURCE_EXHAUSTED",
    Reason.RATE_LIMITED: "RESOURCE_EXHAUSTED",
    Reason.BUSY: "RESOURCE_EXHAUSTED",
    Reason.TOO_MANY_STREAMS: "RESOURCE_EXHAUSTED",
    Reason.SLOW_READER: "RESOURCE_EXHAUSTED",
    Reason.UNKNOWN_MATCH: "NOT_FOUND",
    Reason.UNKNOWN_LADDER: "NOT_FOUND",
    Reason.BAD_BOT_KEY: "UNAUTHENTICATED",
    Reason.BOT_RETIRED: "UNAUTHENTICATED",
    Reason.UNKNOWN_BOT: "NOT_FOUND",
    Reason.UNKNOWN_ARENA: "NOT_FOUND",
    Reason.BOT_NAME_TAKEN: "ALREADY_EXISTS",
    Reason.NOT_SEATED: "PERMISSION_DENIED",
    Reason.LOBBY_REPLACED: "ABORTED",
    Reason.STANDBY_REPLACED: "ABORTED",
    Reason.STALE_VERSION: "ABORTED",
    Reason.SEAT_TAKEN: "ALREADY_EXISTS",
    Reason.POOL_SEAT: ILLEGAL,
    Reason.MATCH_NOT_OVER: ILLEGAL,
    Reason.DEAL_IN_PLAY: ILLEGAL,
    Reason.LADDER_OVER: ILLEGAL,
    Reason.INTERNAL: "INTERNAL",
    Reason.NOT_OWNER: "UNAVAILABLE",   # try again there (or shortly): any client retries it
    Reason.STORE_UNAVAILABLE: "UNAVAILABLE",
    **{Reason(r): ILLEGAL for r in rules.REASONS},   # illegal here and now
}


# The refusals of a move submitted during the seat's turn: they carry the seat's legal moves
# (Refusal.legal_moves), so a client can answer again without asking for its view. No other
# refusal does: not the turn (NOT_YOUR_TURN, MATCH_OVER), or not the current version
# (STALE_VERSION: the next TurnRequest or GetView has the new moves), or not about a move.
WITH_LEGAL_MOVES = frozenset({Reason.MALFORMED_MOVE, Reason.UNKNOWN_MOVE_ID,
                              *(Reason(r) for r in rules.REASONS)}
                             - {Reason.NOT_YOUR_TURN, Reason.MATCH_OVER})


class EngineError(Exception):
    """A refusal: nothing was changed. `legal_moves` is [(id, text), ...], the seat's legal
    moves, for a reason of WITH_LEGAL_MOVES (empty when the seat has none to make);
    `field` names the request field at fault for a malformed request ("options.hands");
    `owner` is where a NOT_OWNER refusal sends the client."""

    def __init__(self, reason: Reason | str, message: str, version: int | None = None,
                 legal_moves: list[tuple[str, str]] | None = None, field: str = "",
                 owner: str = ""):
        reason = Reason(reason)   # an unknown reason is a bug here, not a new code on the wire
        if STATUS[reason] == INVALID and not field:
            raise ValueError(f"a {reason} refusal must name its field")   # (a bug here too)
        if legal_moves and reason not in WITH_LEGAL_MOVES:
            raise ValueError(f"a {reason} refusal carries no legal moves")   # (and here)
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.version = version
        self.legal_moves = legal_moves or []
        self.field = field
        self.owner = owner     # NOT_OWNER: the owning engine's address ("" while none)

    @property
    def code(self) -> str:
        return STATUS[self.reason]
