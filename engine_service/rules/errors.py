"""The two kinds of "no" the rules core gives, named once (docs/design.md, "Errors").

MalformedInput: the input cannot be understood at all (bad tile text, unknown arm, a
deal that is not a full set). IllegalMove: the input is understood but not allowed here
and now; it carries a stable reason code and the legal moves.
"""

# Stable reason codes for IllegalMove; the engine and gateway show these unchanged
# (engine_service/core/errors.py gives each its status).
NOT_YOUR_TURN = "NOT_YOUR_TURN"
TILE_NOT_IN_HAND = "TILE_NOT_IN_HAND"
END_MISMATCH = "END_MISMATCH"
ARM_CLOSED = "ARM_CLOSED"  # HHL-5
MUST_PLAY_DRAWN_TILE = "MUST_PLAY_DRAWN_TILE"  # HHL-6
MUST_OPEN_WITH = "MUST_OPEN_WITH"  # HHL-2 / DOM-2: the opening tile is fixed
OPENING_HAS_NO_PLACE = "OPENING_HAS_NO_PLACE"  # the opening tile goes on no arm or end
PLACE_REQUIRED = "PLACE_REQUIRED"  # a later tile needs its place: an arm (HHL) or an end (Domeng)
MODE_REQUIRED = "MODE_REQUIRED"  # HHL-5: a double needs normal|barricade
MODE_NOT_ALLOWED = "MODE_NOT_ALLOWED"
MATCH_OVER = "MATCH_OVER"

REASONS = (NOT_YOUR_TURN, TILE_NOT_IN_HAND, END_MISMATCH, ARM_CLOSED, MUST_PLAY_DRAWN_TILE,
           MUST_OPEN_WITH, OPENING_HAS_NO_PLACE, PLACE_REQUIRED, MODE_REQUIRED,
           MODE_NOT_ALLOWED, MATCH_OVER)


def shown(value, limit: int = 40) -> str:
    """`repr(value)` for a message, cut to about `limit` characters: a refusal names the
    input at fault without echoing an arbitrarily long one back."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


class MalformedInput(ValueError):
    """Input that cannot be parsed or is out of range; nothing was changed. `field` names
    the input at fault where it is one of a few ("seed", "options.hands", "deals")."""

    reason = "MALFORMED"

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field


class IllegalMove(Exception):
    """A well-formed move that the rules refuse here and now; nothing was changed."""

    def __init__(self, reason: str, message: str, legal_moves=()):
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.legal_moves = list(legal_moves)
