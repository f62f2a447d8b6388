"""POST /matches/{match_id}/seats/{seat}/claim: the seat's secret token, handed out once."""


from ..errors import ApiError
from ..schemas import ClaimSchema
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("seats", __name__, url_prefix=PREFIX + "/matches/<match_id>/seats",
                description="Claim a seat: its token authorises reading its view and moving")


@blp.route("/<int(signed=True):seat>/claim", methods=["POST"])
@blp.response(200, ClaimSchema())
@documented(blp, (400, ("BAD_SEAT", "MALFORMED_REQUEST")), 404,
            (409, ("SEAT_TAKEN", "POOL_SEAT")))
def claim_seat(match_id, seat):
    """Claim an open seat; answers its token once (a seat already claimed is 409 SEAT_TAKEN,
    a house bot's seat 409 POOL_SEAT)"""
    if not 0 <= seat < 2**31:   # the engine's seat is an int32; anything else is no seat
        raise ApiError(400, "BAD_SEAT", f"seat {seat} is out of range",
                       errors={"seat": ["is out of range"]})
    claimed = engine().claim_seat(match_id, seat)
    return {"match_id": claimed.match_id, "seat": claimed.seat,
            "seat_token": claimed.seat_token}
