"""POST /matches/{match_id}/moves: a move for the token's seat against a version."""


from .. import convert
from ..schemas import MoveRequestSchema, MoveResultSchema
from . import (
    MOVE_REFUSALS,
    PREFIX,
    SECURITY,
    Blueprint,
    bearer_token,
    documented,
    engine,
    needs_token,
)

blp = Blueprint("moves", __name__, url_prefix=PREFIX + "/matches/<match_id>/moves",
                description="Make a move (needs the seat's token)")


@blp.route("", methods=["POST"])
@needs_token()
@blp.arguments(MoveRequestSchema())
@blp.response(200, MoveResultSchema())
@blp.doc(security=SECURITY)
@documented(blp, (400, ("MALFORMED_REQUEST", "MALFORMED_MOVE", "UNKNOWN_MOVE_ID")), 401,
            404, (409, MOVE_REFUSALS), body=True)
def submit_move(body, match_id):
    """Submit {version, move_id} or {version, move_text}; answers the new version and the events
    the move set off. A refusal changes nothing; one during the seat's turn lists its legal moves"""
    done = engine().submit_move(match_id, bearer_token(), body["version"],
                                body.get("move_id", ""), body.get("move_text", ""))
    return {"version": done.version, "move_text": done.move_text,
            "events": convert.events(done.events)}
