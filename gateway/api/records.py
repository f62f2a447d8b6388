"""GET /matches/{match_id}/record: the domino-record/1 document, once the match is over."""

import json

from flask import jsonify

from ..schemas_record import RECORD_REF, rest_record
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("records", __name__, url_prefix=PREFIX + "/matches/<match_id>/record",
                description="The full record of a finished match")


@blp.route("")
# Record is one of two schemas by variant (schemas_record.register): the body is sent as
# the engine made it, but for its seed, and not dumped field by field again.
@blp.response(200, RECORD_REF)
@documented(blp, 400, 404, (409, ("MATCH_NOT_OVER", "DEAL_IN_PLAY")))
def get_record(match_id):
    """The domino-record/1 document (every deal, move and result; replays with `domino
    replay`). 409 MATCH_NOT_OVER while the match is live: it holds every hidden tile; 409
    DEAL_IN_PLAY for a duplicate ladder's match until every match of its set is over"""
    return jsonify(rest_record(json.loads(engine().get_record(match_id).record_json)))
