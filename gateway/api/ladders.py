"""Ladders: create (POST /ladders), list, read, standings and matches — one call each on
the engine's Ladder service (docs/ladders.md).

The engine plays a ladder's matches itself; each seat waits in the bot pool
"<key>/<entrant>" until a bot enlisted there takes it. The gateway starts no bots: run
`domino bot --engine HOST:PORT --strategy S --pool <key>/S ...` for a built-in entrant, or
enlist your own bot (docs/gateway.md, Ladders).
"""

from __future__ import annotations

from flask import url_for

from domino_proto.domino.v1 import ladder_pb2
from domino_wire import game
from domino_wire import ladders as wire_ladders
from domino_wire.ladders import ladder_result
from domino_wire.names import LADDER_FORMAT, LADDER_MATCH_STATUS, LADDER_STATUS, VARIANT

from ..requests import typed_options
from ..schemas_ladders import (
    CreateLadderSchema,
    LadderListSchema,
    LadderMatchListSchema,
    LadderQuerySchema,
    LadderSchema,
    StandingsSchema,
)
from . import KEY_REFUSALS, KEY_SECURITY, LOCATION, PREFIX, Blueprint, api_key, engine
from . import documented as api_documented

blp = Blueprint("ladders", __name__, url_prefix=PREFIX + "/ladders",
                description="Bot ladders: the engine schedules, plays and rates matches "
                            "among enlisted bots")

UNKNOWN = (404, ("UNKNOWN_LADDER", "NO_SUCH_ROUTE"))


def documented(*codes, body: bool = False):
    """The error answers of a ladder operation (api.documented): an unknown ladder is
    UNKNOWN_LADDER, and a key is the secret a 401 is about."""
    return api_documented(blp, *codes, body=body)


# ----- protobuf -> the REST objects ------------------------------------------------------
def ladder(info: ladder_pb2.LadderInfo) -> dict:
    return {"ladder_id": info.ladder_id, "key": info.key,
            "variant": VARIANT.word(info.variant),
            "options": game.options(info.options),
            "entrants": list(info.entrants), "yardsticks": list(info.yardsticks),
            "pools": [{"entrant": e, "pool": f"{info.key}/{e}"} for e in info.entrants
                      if e not in info.yardsticks],
            "format": LADDER_FORMAT.word(info.format),
            "target_matches": None if info.until_separated else info.target_matches,
            "until_separated": info.until_separated, "max_matches": info.max_matches,
            "seed": info.seed if info.HasField("seed") else None,
            "status": LADDER_STATUS.word(info.status),
            "matches_counted": info.matches_counted, "matches_voided": info.matches_voided,
            "matches_playing": info.matches_playing, "leader": info.leader or None,
            "created_unix_ms": int(round(info.created_unix_s * 1000)),
            "created_by": info.created_by, "error": info.error or None}


def ladder_match(m: ladder_pb2.LadderMatch) -> dict:
    return {"index": m.index, "set": m.set, "match_id": m.match_id, "lineup": list(m.lineup),
            "status": LADDER_MATCH_STATUS.word(m.status),
            "result": ladder_result(m.result) if m.HasField("result") else None}


# ----- routes ------------------------------------------------------------------------------
@blp.route("", methods=["GET"])
@blp.arguments(LadderQuerySchema(), location="query")
@blp.response(200, LadderListSchema())
@documented(400)
def list_ladders(query):
    """The engine's ladders with their progress, newest first"""
    found = [ladder(i) for i in engine().list_ladders()]
    if query.get("status"):
        found = [x for x in found if x["status"] == query["status"]]
    return {"ladders": found[:query["limit"]]}


@blp.route("", methods=["POST"])
@blp.arguments(CreateLadderSchema())
@blp.response(201, LadderSchema(), headers=LOCATION)
@blp.doc(security=KEY_SECURITY)
@documented(400, (401, KEY_REFUSALS), 429, body=True)
def create_ladder(body):
    """Create a ladder; the engine starts scheduling its matches at once. Each entrant's
    seats wait in the bot pool '<key>/<entrant>' of the answer until its bots enlist with
    that pool's enlist_secret (in this answer only): the gateway starts none (`domino bot
    --strategy S --pool <key>/S` with DOMINO_POOL_SECRET for a built-in one). Needs an
    operator API key unless the engine runs open"""
    request = ladder_pb2.CreateLadderRequest(
        variant=VARIANT.number(body["variant"]),
        options=typed_options(body["variant"], body.get("options")),
        entrants=body["entrants"], format=LADDER_FORMAT.number(body["format"]),
        matches=body.get("matches", 0), until_separated=body["until_separated"],
        max_matches=body.get("max_matches", 0), concurrency=body.get("concurrency", 0),
        clock_ms=body.get("clock_ms", 0), seat_wait_s=body.get("seat_wait_s", 0),
        yardsticks=body.get("yardsticks", []))
    if "seed" in body:
        request.seed = body["seed"]
    answer = engine().create_ladder(request, api_key())
    created = ladder(answer.ladder)
    created["pools"] = [{"entrant": p.entrant, "pool": p.pool, "enlist_secret": p.enlist_secret}
                        for p in answer.pools]
    location = url_for("ladders.get_ladder", ladder_id=created["ladder_id"])
    return created, 201, {"Location": location}


@blp.route("/<ladder_id>/cancel", methods=["POST"])
@blp.response(200, LadderSchema())
@blp.doc(security=KEY_SECURITY)
@documented(400, (401, KEY_REFUSALS), 403, UNKNOWN, (409, ("LADDER_OVER",)))
def cancel_ladder(ladder_id):
    """Cancel a running ladder: no match is scheduled any more, those in play are voided.
    Only the key that created it may"""
    return ladder(engine().cancel_ladder(ladder_id, api_key()))


@blp.route("/<ladder_id>")
@blp.response(200, LadderSchema())
@documented(400, UNKNOWN)
def get_ladder(ladder_id):
    """One ladder: its definition, status and progress"""
    return ladder(engine().get_ladder(ladder_id))


@blp.route("/<ladder_id>/standings")
@blp.response(200, StandingsSchema())
@documented(400, UNKNOWN)
def get_standings(ladder_id):
    """The leaderboard, recomputed from the ladder's results: by mu - 3 sigma, with matches,
    mean per hand/round and its 95% interval, faults, separation from the next row, and the
    history of every entrant's score for a rating chart"""
    return wire_ladders.standings(engine().get_standings(ladder_id))


@blp.route("/<ladder_id>/matches")
@blp.response(200, LadderMatchListSchema())
@documented(400, UNKNOWN)
def list_ladder_matches(ladder_id):
    """The ladder's matches (playing, counted and voided), in the order they were started;
    watch one at GET /matches/{match_id} and its events"""
    return {"matches": [ladder_match(m) for m in engine().list_ladder_matches(ladder_id).matches]}
