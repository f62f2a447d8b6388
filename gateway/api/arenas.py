"""Arenas: the list and each arena's leaderboard, one call each on the engine's Arena
service (docs/arena.md). Public: no key.

The leaderboard is live by polling with an ETag, not by an event stream: the engine has no
push for a board (every engine folds the stored results when asked), so a stream would only
move the same poll into the gateway and hold a connection per viewer. A poll whose
`If-None-Match` is the board's ETag is answered 304 with no body, so an idle board costs a
reader one small request a period, and any cache in between can serve it. The gateway
answers from the boards it keeps (leaderboard_cache.py: about a second old at most while the
engine answers, never more than 5 s), so that no reader waits on an engine busy with its
matches."""

from __future__ import annotations

from flask import Response, current_app, request

from domino_wire.names import LEADERBOARD_VIEW

from .. import arena_wire
from ..errors import ApiError
from ..schemas_arena import ArenaListSchema, LeaderboardQuerySchema, LeaderboardSchema
from . import PREFIX, Blueprint, engine
from . import documented as api_documented

blp = Blueprint("arenas", __name__, url_prefix=PREFIX + "/arenas",
                description="Arenas: registered bots play all the time, matched by rating, "
                            "on a persistent leaderboard")

UNKNOWN_ARENA = (404, ("UNKNOWN_ARENA", "NO_SUCH_ROUTE"))
VIEWS = {"latest": LEADERBOARD_VIEW.number("latest"),
         "all": LEADERBOARD_VIEW.number("all_versions")}
BOARD_HEADERS = {
    "ETag": {"description": "the board's tag: send it back as If-None-Match to be answered "
                            "304 while the board is unchanged", "schema": {"type": "string"}},
    "Age": {"description": "whole seconds since the gateway read the board from an engine: "
                           "under a second or so while the engines answer promptly, up to "
                           "60 while one is too busy to (docs/arena.md)",
            "schema": {"type": "integer", "minimum": 0}}}


def board_reader(client):
    """What the gateway's LeaderboardCache reads: the whole board of (arena, versions), dumped."""
    def read(arena_id: str, versions: str) -> dict:
        board = client.get_leaderboard(arena_id, VIEWS[versions], 0)
        return LeaderboardSchema().dump(arena_wire.leaderboard(board, versions))
    return read


def ran_out_of_time(err: Exception) -> bool:
    """Whether a board's read failed for the engine's slowness (504), not its refusal."""
    return isinstance(err, ApiError) and err.status == 504


def documented(*codes):
    return api_documented(blp, *codes)


@blp.route("", methods=["GET"])
@blp.response(200, ArenaListSchema())
@documented()
def list_arenas():
    """The arenas: each one's game, fixed options and what is going on in it now"""
    return {"arenas": [arena_wire.arena(a) for a in engine().list_arenas().arenas]}


@blp.route("/<arena_id>/leaderboard", methods=["GET"])
@blp.arguments(LeaderboardQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema(), headers=BOARD_HEADERS)
@blp.alt_response(304, description="the board is the one of the If-None-Match tag: no body",
                  headers=BOARD_HEADERS, success=True)
@blp.doc(parameters=[{"in": "header", "name": "If-None-Match", "required": False,
                      "schema": {"type": "string"},
                      "description": "the ETag of the board last read: 304 while it holds"}])
@documented(400, UNKNOWN_ARENA)
def get_leaderboard(query, arena_id):
    """An arena's leaderboard, by mu - 3 sigma: place, bot, version, owner, mu, sigma,
    matches, mean per deal with its 95% interval, faults, online now. Live by polling:
    send the ETag of the last answer as If-None-Match and a board that has not changed
    since is answered 304 with no body"""
    text, tag, age = current_app.extensions["boards"].get(arena_id, query["versions"],
                                                          query["limit"])
    headers = {"ETag": tag, "Age": str(int(age)), "Cache-Control": "no-cache"}
    if tag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
        return Response(status=304, headers=headers)
    return Response(text, 200, headers, mimetype="application/json")
