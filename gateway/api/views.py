"""GET /matches/{match_id}/view: the token's seat's view with its legal moves."""


from .. import convert
from ..schemas import SeatStateSchema
from . import PREFIX, SECURITY, Blueprint, bearer_token, documented, engine, needs_token

blp = Blueprint("views", __name__, url_prefix=PREFIX + "/matches/<match_id>/view",
                description="A seat's own view (needs its token)")


@blp.route("")
@needs_token()
@blp.response(200, SeatStateSchema())
@blp.doc(security=SECURITY)
@documented(blp, 400, 401, 404)
def get_view(match_id):
    """The seat's view: its hand, the table, counts, scores, whose turn, and its legal
    moves (each with an id) when it is to move"""
    return convert.seat_state(engine().get_view(match_id, bearer_token()))
