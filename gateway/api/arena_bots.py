"""Registered bots of the arenas: register, rotate a key, retire (an operator API key), and
each bot's profile, matches and rating history (public) — one call each on the engine's
Arena service (docs/arena.md). A bot key is no operator key: sent here it is refused 401
BAD_KEY, as the engine refuses it."""

from __future__ import annotations

from flask import url_for

from .. import arena_wire
from ..errors import ApiError
from ..schemas_arena import (
    BotKeySchema,
    BotMatchesQuerySchema,
    BotMatchListSchema,
    BotProfileSchema,
    BotSchema,
    HistoryQuerySchema,
    RatingHistorySchema,
    RegisterBotSchema,
)
from . import KEY_REFUSALS, KEY_SECURITY, LOCATION, PREFIX, Blueprint, api_key, engine
from . import documented as api_documented

blp = Blueprint("arena_bots", __name__, url_prefix=PREFIX + "/arena/bots",
                description="Registered bots: their accounts and keys, profiles, matches "
                            "and rating histories")

UNKNOWN_BOT = (404, ("UNKNOWN_BOT", "NO_SUCH_ROUTE"))
RETIRED = (409, ("BOT_RETIRED",))


def documented(*codes, body: bool = False):
    return api_documented(blp, *codes, body=body)


@blp.route("", methods=["POST"])
@blp.arguments(RegisterBotSchema())
@blp.response(201, BotKeySchema(), headers=LOCATION)
@blp.doc(security=KEY_SECURITY)
@documented(400, (401, KEY_REFUSALS), (409, ("BOT_NAME_TAKEN",)), 429, body=True)
def register_bot(body):
    """Register a bot owned by the calling operator key; the answer has its bot key, shown
    only this once. Needs an operator API key unless the engine runs open (a bot key is no
    operator key: 401 BAD_KEY). A taken name is 409 BOT_NAME_TAKEN; over the key's quota of
    bots, 429 QUOTA_EXCEEDED"""
    answer = arena_wire.bot_key(engine().register_bot(body["name"], body["description"],
                                                      api_key()))
    location = url_for("arena_bots.get_bot", name=answer["bot"]["name"])
    return answer, 201, {"Location": location}


@blp.route("/<name>/rotate", methods=["POST"])
@blp.response(200, BotKeySchema())
@blp.doc(security=KEY_SECURITY)
@documented(400, (401, KEY_REFUSALS), 403, UNKNOWN_BOT, RETIRED)
def rotate_bot_key(name):
    """A new bot key for a bot of the calling operator key, shown only in this answer; the
    old key is refused at once and the bot's connected lobbies end. Only its owner may"""
    return arena_wire.bot_key(engine().rotate_bot_key(name, api_key()))


@blp.route("/<name>/retire", methods=["POST"])
@blp.response(200, BotSchema())
@blp.doc(security=KEY_SECURITY)
@documented(400, (401, KEY_REFUSALS), 403, UNKNOWN_BOT, RETIRED)
def retire_bot(name):
    """Retire a bot of the calling operator key: it can no longer connect, its lobbies end,
    matches in play go on to their end; its history and leaderboard rows stay. There is no
    way back. Only its owner may"""
    return arena_wire.bot(engine().retire_bot(name, api_key()))


@blp.route("/<name>", methods=["GET"])
@blp.response(200, BotProfileSchema())
@documented(400, UNKNOWN_BOT)
def get_bot(name):
    """A bot's profile: its facts, each (arena, version) it played or is connected with,
    with its leaderboard row, faults and presence, and the match it plays now (watch it at
    GET /matches/{match_id}/events)"""
    return arena_wire.profile(engine().get_bot(name))


@blp.route("/<name>/matches", methods=["GET"])
@blp.arguments(BotMatchesQuerySchema(), location="query")
@blp.response(200, BotMatchListSchema())
@documented(400, UNKNOWN_BOT)
def list_bot_matches(query, name):
    """A bot's arena matches (playing, counted and voided), newest first, a page at a time:
    ask for the next page with before = the answer's next_before. Each links to the engine
    match: watch it live, or replay its record once over"""
    answer = engine().list_bot_matches(name, query["limit"], query["before"])
    matches = [arena_wire.match(m) for m in answer.matches]
    return {"matches": matches, "more": answer.more,
            "next_before": matches[-1]["created_unix_s"] if answer.more and matches else None}


@blp.route("/<name>/history", methods=["GET"])
@blp.arguments(HistoryQuerySchema(), location="query")
@blp.response(200, RatingHistorySchema())
@documented(400, (404, ("UNKNOWN_BOT", "UNKNOWN_ARENA", "NO_SUCH_ROUTE")))
def get_rating_history(query, name):
    """The rating (mu, sigma) of one (bot, version) in one arena after each of its counted
    matches, oldest first: the chart of mu and mu - 3 sigma against the match sequence"""
    arena_id = query.get("arena")
    if arena_id is None:
        versions = engine().get_bot(name).versions
        if not versions:
            raise ApiError(404, "UNKNOWN_ARENA", f"bot {name} has played in no arena yet; "
                           "name one with ?arena=")
        # the arena it was seen in last (an online version is seen now)
        arena_id = max(versions, key=lambda v: (v.online, v.row.last_seen_unix_s)).arena_id
    return arena_wire.history(engine().get_rating_history(
        arena_id, name, query.get("version", ""), query["limit"]))
