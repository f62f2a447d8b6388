"""Matches: create (POST /matches), list (GET /matches), read (GET /matches/{match_id})."""

from __future__ import annotations

from flask import current_app, request, url_for

from domino_proto.domino.v1 import engine_pb2
from domino_wire import game
from domino_wire.names import MATCH_STATUS, SEAT_KIND, VARIANT

from .. import convert
from ..errors import ApiError
from ..house import pool_of
from ..requests import malformed, record_json, typed_deals, typed_options
from ..schemas import CreateMatchSchema, MatchListSchema, MatchQuerySchema, MatchSchema
from ..variants import SEATS
from . import (
    KEY_REFUSALS,
    KEY_SECURITY,
    LOCATION,
    PREFIX,
    Blueprint,
    api_key,
    documented,
    engine,
)

blp = Blueprint("matches", __name__, url_prefix=PREFIX + "/matches",
                description="Create, list and read matches (public information)")


def _seat_specs(variant: str, seats: list[dict] | None) -> list[engine_pb2.SeatSpec]:
    if seats is None:
        seats = [{"kind": "person"}] * SEATS[variant]
    strategies = current_app.config["HOUSE_STRATEGIES"]
    specs = []
    for i, seat in enumerate(seats):
        strategy = seat.get("strategy")
        if strategy and strategy not in strategies:
            raise ApiError(400, "MALFORMED_REQUEST", f"seats[{i}].strategy: no house bot "
                           f"plays {strategy!r}; use one of {', '.join(strategies)}",
                           errors={f"seats.{i}.strategy": [f"one of {', '.join(strategies)}"]})
        if strategy:
            _house_bot_is_there(strategy)
        specs.append(engine_pb2.SeatSpec(
            kind=SEAT_KIND.number(seat["kind"]), name=seat.get("name") or strategy or "",
            pool=pool_of(strategy) if strategy else ""))
    return specs


def _house_bot_is_there(strategy: str) -> None:
    """A seat for a house bot waits for one: refuse it, saying why, when none is enlisted
    (a gateway in front of an engine that runs no house bots)."""
    pool = engine().get_pool(pool_of(strategy))
    if not pool.bots:
        raise ApiError(409, "NO_HOUSE_BOT", f"no house bot plays {strategy!r} now: the engine "
                       f"has {'no bot in' if pool.exists else 'no'} pool {pool.name!r}; run "
                       f"`domino serve`, or `domino bot --pool {pool.name}` next to the engine")


def _fork_variant(record: dict) -> str:
    variant = record.get("variant")
    if variant not in SEATS:
        raise malformed("fork.record", f"a record's variant is one of {', '.join(SEATS)}")
    return variant


@blp.before_request
def _room_for_a_record():
    """A fork carries a whole record: a body that creates a forked match may be up to
    MAX_FORK_BODY bytes (the engine bounds the record itself); any other body keeps the
    app's bound, MAX_CONTENT_LENGTH. (How many of those at once: fork_gate.py, on the
    event loop before this.) The JSON parsed here is the one the schema loads."""
    if request.method != "POST" or request.path.rstrip("/") != blp.url_prefix:
        return
    normal = current_app.config["MAX_CONTENT_LENGTH"]
    if (request.content_length or 0) <= normal:
        return
    request.max_content_length = current_app.config["MAX_FORK_BODY"]
    body = request.get_json(silent=True)   # over MAX_FORK_BODY: 413 here already
    if not (isinstance(body, dict) and "fork" in body):
        raise ApiError(413, "BODY_TOO_LARGE", "the request body is too large: at most "
                       f"{normal} bytes, unless it carries a record to fork")


@blp.route("", methods=["GET"])
@blp.arguments(MatchQuerySchema(), location="query")
@blp.response(200, MatchListSchema())
@documented(blp, 400)
def list_matches(query):
    """Public summaries of matches, newest first"""
    status = MATCH_STATUS.number(query["status"]) if query.get("status") else 0
    limit = query["limit"]
    variant = query.get("variant")
    # The engine filters by status only; a variant filter reads further and cuts here.
    found = engine().list_matches(status, 1000 if variant else limit)
    matches = [convert.match(m) for m in found]
    if variant:
        matches = [m for m in matches if m["variant"] == variant][:limit]
    return {"matches": matches}


@blp.route("", methods=["POST"])
@blp.arguments(CreateMatchSchema())
@blp.response(201, MatchSchema(), headers=LOCATION)
@blp.doc(security=KEY_SECURITY)
@documented(blp, 400, (401, KEY_REFUSALS), (409, ("NO_HOUSE_BOT",)),
            (429, ("QUOTA_EXCEEDED", "ENGINE_FULL")), body=True)
def create_match(body):
    """Create a match: bot seats with a strategy are filled by house bots, the others are
    claimed with POST .../seats/{seat}/claim. Needs an operator API key (Authorization:
    Bearer <key>) unless the engine runs open. With `fork`, the match starts from a
    recorded match after its first `at` plays"""
    variant = body.get("variant") or _fork_variant(body["fork"]["record"])
    request = engine_pb2.CreateMatchRequest(
        variant=VARIANT.number(variant),
        seats=_seat_specs(variant, body.get("seats")),
        bot_clock_ms=body.get("bot_clock_ms", 0),
        person_clock_ms=body.get("person_clock_ms", 0))
    if "seed" in body:
        request.seed = body["seed"]
    if "fork" not in body:   # a fork's options and deals are its record's (the schema checks)
        request.options.CopyFrom(typed_options(variant, body.get("options")))
        request.deals.extend(typed_deals(variant, body.get("deals")))
    else:   # the engine checks the record (its size, the rules' replay, at)
        request.fork.record_json = record_json(body["fork"]["record"])
        request.fork.at = body["fork"]["at"]
    created = engine().create_match(request, api_key())
    out = convert.match(created.summary)   # no seed: it would tell every hidden tile
    location = url_for("matches.get_match", match_id=created.match_id)
    return out, 201, {"Location": location}


@blp.route("/<match_id>")
@blp.response(200, MatchSchema())
@documented(blp, 400, 404)
def get_match(match_id):
    """A match's public summary and spectator view"""
    got = engine().get_match(match_id)
    out = convert.match(got.summary)
    out["view"] = game.view(got.view)
    return out
