"""POST /matches/{match_id}/seats/{seat}/claim: the seat's secret token, handed out once."""

from flask import request

from ..errors import ApiError
from ..schemas import ClaimRequestSchema, ClaimSchema
from . import KEY_SECURITY, PREFIX, Blueprint, documented, engine

blp = Blueprint("seats", __name__, url_prefix=PREFIX + "/matches/<match_id>/seats",
                description="Claim a seat: its token authorises reading its view and moving")


@blp.route("/<int(signed=True):seat>/claim", methods=["POST"])
@blp.arguments(ClaimRequestSchema(), required=False)
@blp.response(200, ClaimSchema())
@blp.doc(security=KEY_SECURITY)
@documented(blp, (400, ("BAD_SEAT", "MALFORMED_REQUEST")),
            (401, ("SEAT_NOT_OPEN", "BAD_CLAIM_SECRET", "BAD_KEY")), 403, 404,
            (409, ("SEAT_TAKEN", "POOL_SEAT")), body=True)
def claim_seat(body, match_id, seat):
    """Claim a seat; answers its token once. An open seat is anyone's; any other needs the
    API key that created the match (Authorization: Bearer <key>) or the seat's claim
    secret (body {"claim_secret": ...}, from POST /matches): else 401 SEAT_NOT_OPEN, 401
    BAD_CLAIM_SECRET, or 403 NOT_YOURS (another key's match). A seat already claimed is
    409 SEAT_TAKEN, a house bot's seat 409 POOL_SEAT"""
    if not 0 <= seat < 2**31:   # the engine's seat is an int32; anything else is no seat
        raise ApiError(400, "BAD_SEAT", f"seat {seat} is out of range",
                       errors={"seat": ["is out of range"]})
    claimed = engine().claim_seat(match_id, seat, _own_key(), (body or {}).get("claim_secret", ""))
    return {"match_id": claimed.match_id, "seat": claimed.seat,
            "seat_token": claimed.seat_token}


def _own_key() -> str:
    """The request's own API key. Not the gateway's (api_key): that one creates the web
    lobby's matches for anyone, so it must not claim their seats for anyone too."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
