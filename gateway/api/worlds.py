"""GET /matches/{match_id}/worlds: worlds for the token's seat, from its own view
(the Play service's SampleWorlds; docs/bots.md "SampleWorlds")."""


from ..schemas import WorldsQuerySchema, WorldsSchema
from . import PREFIX, SECURITY, Blueprint, bearer_token, documented, engine, needs_token

blp = Blueprint("worlds", __name__, url_prefix=PREFIX + "/matches/<match_id>/worlds",
                description="Guesses of the hidden tiles for a seat (needs its token)")



@blp.route("")
@needs_token()
@blp.arguments(WorldsQuerySchema(), location="query")
@blp.response(200, WorldsSchema())
@blp.doc(security=SECURITY)
@documented(blp, 400, 401, 404, (409, ("MATCH_OVER",)), (429, ("RATE_LIMITED",)))
def sample_worlds(query, match_id):
    """`count` worlds (every other seat's hand and the stock or sleeping tiles) drawn
    from the posterior of the shuffle given the seat's own view (counts, the layout, the
    voids its draws and passes showed): a world's chance is proportional to the deals
    behind it. Computed from that view only, never the true deal. At most 1000 a call
    and a rate per seat (429 RATE_LIMITED)"""
    got = engine().sample_worlds(match_id, bearer_token(), query["count"], query["seed"])
    return {"match_id": got.match_id, "seat": got.seat, "version": got.version,
            "exact": got.exact, "consistent_worlds": got.consistent_worlds,
            "worlds": [{"hands": [[_text(t) for t in h.tiles] for h in w.hands],
                        "rest": [_text(t) for t in w.rest]} for w in got.worlds]}


def _text(t) -> str:
    return f"{t.high}-{t.low}"
