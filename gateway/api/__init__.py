"""One blueprint per resource, all under /api/v1, and the helpers they share."""

from __future__ import annotations

import functools

import flask_smorest
from flask import current_app, request
from flask_smorest.arguments import ArgumentsMixin
from marshmallow import missing
from webargs.flaskparser import is_json_request

from ..engine_client import EngineClient
from ..errors import ApiError
from ..schemas import ErrorSchema

PREFIX = "/api/v1"


class _Parser(type(ArgumentsMixin.ARGUMENTS_PARSER)):
    """webargs' parser, with the gateway's JSON rules: bodies are parsed by the app's
    strict JSON (gateway/json_body.py: no lone surrogates, no deep nesting), and a body
    that is not sent as JSON is 415, saying what to send."""

    DEFAULT_VALIDATION_STATUS = 400   # malformed is 400 here (the error table), not 422

    def _raw_load_json(self, req):
        data = req.get_data(cache=True)
        if not is_json_request(req):
            if data:
                raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as JSON, with "
                               "the header Content-Type: application/json")
            return missing
        if not data:
            return missing
        try:
            return current_app.json.loads(data)
        except ValueError as e:
            raise ApiError(400, "MALFORMED_REQUEST", f"the body is not valid JSON: "
                           f"{str(e)[:120]}", errors={"body": ["is not valid JSON"]}) from None


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = _Parser()

ERROR_TEXT = {
    400: "malformed request (MALFORMED_REQUEST, MALFORMED_MOVE, UNKNOWN_MOVE_ID, BAD_SEAT)",
    401: "no or wrong secret: seat token (NO_TOKEN, BAD_TOKEN) or API key (NO_KEY, BAD_KEY)",
    403: "the key may not act on what another key created (NOT_YOURS)",
    404: "unknown match (UNKNOWN_MATCH)",
    409: "refused here and now: a rules refusal (NOT_YOUR_TURN, END_MISMATCH, ...; during the "
         "seat's turn with its legal moves), STALE_VERSION, SEAT_TAKEN, POOL_SEAT, "
         "MATCH_NOT_OVER, or NO_HOUSE_BOT (no house bot of that strategy is connected)",
    413: "request body too large (BODY_TOO_LARGE)",
    502: "the engine failed the call, or ended a stream at once (ENGINE_ERROR)",
    429: "over a quota of the key (QUOTA_EXCEEDED) or of the engine (ENGINE_FULL), or a "
         "seat over its rate (RATE_LIMITED)",
    503: "engine unreachable (ENGINE_UNAVAILABLE)",
    504: "the engine did not answer in time (ENGINE_TIMEOUT)",
}


def engine() -> EngineClient:
    return current_app.extensions["engine"]


def error_response(code: int) -> dict:
    """An error answer as the OpenAPI document writes it, for an operation documented by
    hand (the event stream: gateway/streams.py)."""
    return {"description": ERROR_TEXT[code],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}


def documented(blp, *codes):
    """Document the error answers an operation can give (the body is always ErrorSchema)."""
    def wrap(view):
        for code in sorted({*codes, 503, 504}):
            view = blp.alt_response(code, schema=ErrorSchema, description=ERROR_TEXT[code],
                                    success=False)(view)
        return view
    return wrap


def bearer_token(query_too: bool = False) -> str:
    """The seat token from `Authorization: Bearer <seat_token>` (or ?seat_token= when
    allowed)."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    if query_too and request.args.get("seat_token"):
        return request.args["seat_token"]
    where = ("an Authorization: Bearer <seat_token> header"
             + (" or ?seat_token=" if query_too else ""))
    raise ApiError(401, "NO_TOKEN", f"this needs the seat token: send {where}",
                   headers={"WWW-Authenticate": 'Bearer realm="seat"'})


def needs_token(query_too: bool = False):
    """Check that a token was sent before anything else is parsed (401 before 400)."""
    def wrap(view):
        @functools.wraps(view)
        def call(*args, **kwargs):
            bearer_token(query_too)
            return view(*args, **kwargs)
        return call
    return wrap


SECURITY = [{"seatToken": []}]
KEY_SECURITY = [{"apiKey": []}, {}]    # a key, or nothing when the engine runs open


def api_key() -> str:
    """The operator API key of a request that creates work: `Authorization: Bearer <key>`,
    or else the gateway's own key (config API_KEY, env DOMINO_GATEWAY_KEY), if it has one."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return current_app.config.get("API_KEY") or ""
