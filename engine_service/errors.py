"""The engine's refusals: one exception, a stable reason code, and its status category.

Each category is named by its gRPC status code (the table in docs/protocol.md and
../shared/design.md); only the rpc modules turn the name into a grpc.StatusCode, so this
module stays free of grpc imports.
"""

from __future__ import annotations

# reason -> status code name. Rules refusals (IllegalMove.reason) are FAILED_PRECONDITION
# unless listed here; see code_for().
CODES = {
    # malformed request
    "MALFORMED_MOVE": "INVALID_ARGUMENT",
    "MALFORMED_REQUEST": "INVALID_ARGUMENT",
    "UNKNOWN_MOVE_ID": "INVALID_ARGUMENT",
    "BAD_SEAT": "INVALID_ARGUMENT",
    # no or wrong seat token
    "NO_TOKEN": "UNAUTHENTICATED",
    "BAD_TOKEN": "UNAUTHENTICATED",
    # unknown match
    "UNKNOWN_MATCH": "NOT_FOUND",
    "UNKNOWN_LADDER": "NOT_FOUND",
    # stale version
    "STALE_VERSION": "ABORTED",
    # a seat's token is handed out once
    "SEAT_TAKEN": "ALREADY_EXISTS",
    # a pool seat is filled by the engine, not claimed
    "POOL_SEAT": "FAILED_PRECONDITION",
    # the record holds hidden tiles until the end
    "MATCH_NOT_OVER": "FAILED_PRECONDITION",
}

ILLEGAL = "FAILED_PRECONDITION"


def code_for(reason: str) -> str:
    """The status code name for a reason; every rules refusal is 'illegal here and now'."""
    return CODES.get(reason, ILLEGAL)


class EngineError(Exception):
    """A refusal: nothing was changed. `legal_moves` is [(id, text), ...] for rules refusals."""

    def __init__(self, reason: str, message: str, version: int = 0,
                 legal_moves: list[tuple[str, str]] | None = None):
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.version = version
        self.legal_moves = legal_moves or []

    @property
    def code(self) -> str:
        return code_for(self.reason)
