"""GET /engines: the engines behind the gateway and their load (a cluster's members)."""

from ..schemas import EngineListSchema
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("engines", __name__, url_prefix=PREFIX + "/engines",
                description="The engines that play the matches (docs/cluster.md)")

FIELDS = ("engine_id", "address", "live", "live_matches", "draining", "heartbeat_age_s")


@blp.route("")
@blp.response(200, EngineListSchema())
@documented(blp)
def list_engines():
    """Every engine on the store, the live ones first, with the matches each plays now.
    A lone engine (no cluster) is listed with an empty engine_id."""
    return {"engines": [{f: getattr(e, f) for f in FIELDS}
                        for e in engine().list_engines().engines]}
