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

# What each error status means, and the reasons it answers unless an operation says
# which of its own it can (a 409 always does: its reasons differ by operation). The
# error table of docs/gateway.md lists them all; tests/gateway/test_openapi_declared.py
# checks the table against every reason the gateway can answer.
STATUS_TEXT = {
    400: "malformed request",
    401: "no or wrong secret",
    403: "the key may not act on what another key created",
    404: "unknown match, or no such route",
    405: "not a method of this path (the answer's Allow header lists them)",
    409: "refused here and now",
    413: "request body too large",
    415: "the body was not sent as JSON (Content-Type: application/json)",
    429: "over a quota or a rate",
    502: "the engine failed the call, or ended a stream at once",
    503: "the engine is unreachable, or its store or the match's owner is, for now",
    504: "the engine did not answer in time",
}
REASONS = {
    400: ("MALFORMED_REQUEST",),
    401: ("NO_TOKEN", "BAD_TOKEN"),
    403: ("NOT_YOURS",),
    404: ("UNKNOWN_MATCH", "NO_SUCH_ROUTE"),
    405: ("METHOD_NOT_ALLOWED",),
    413: ("BODY_TOO_LARGE",),
    415: ("UNSUPPORTED_MEDIA_TYPE",),
    429: ("QUOTA_EXCEEDED",),
    502: ("ENGINE_ERROR", "INTERNAL"),
    503: ("ENGINE_UNAVAILABLE", "STORE_UNAVAILABLE", "NOT_OWNER"),
    504: ("ENGINE_TIMEOUT",),
}
KEY_REFUSALS = ("NO_KEY", "BAD_KEY")          # 401 of a route that takes an API key
# The rules' refusals of a move (engine_service/rules/errors.py REASONS; a test checks
# they agree) and a stale version: the 409s of POST .../moves, and nothing else.
RULES_REFUSALS = ("NOT_YOUR_TURN", "TILE_NOT_IN_HAND", "END_MISMATCH", "ARM_CLOSED",
                  "MUST_PLAY_DRAWN_TILE", "MUST_OPEN_WITH", "OPENING_HAS_NO_PLACE",
                  "PLACE_REQUIRED", "MODE_REQUIRED", "MODE_NOT_ALLOWED", "MATCH_OVER")
MOVE_REFUSALS = (*RULES_REFUSALS, "STALE_VERSION")
HEADERS = {
    401: {"WWW-Authenticate": {"description": 'Bearer realm="seat" for a seat token',
                               "schema": {"type": "string"}}},
    405: {"Allow": {"description": "the methods of this path", "schema": {"type": "string"}}},
}
LOCATION = {"Location": {"description": "the path of what was created",
                         "schema": {"type": "string"}}}


def engine() -> EngineClient:
    return current_app.extensions["engine"]


def error_schema(reasons) -> dict:
    """The one error body, its `reason` one of `reasons`."""
    return {"allOf": [ErrorSchema, {"type": "object", "required": ["reason"], "properties": {
        "reason": {"type": "string", "enum": list(reasons)}}}]}


def error_text(code: int, reasons) -> str:
    return f"{STATUS_TEXT[code]}: {', '.join(reasons)}"


def error_response(code: int, reasons=None) -> dict:
    """An error answer as the OpenAPI document writes it, for an operation documented by
    hand (the event stream: gateway/streams.py)."""
    reasons = reasons or REASONS[code]
    answer = {"description": error_text(code, reasons),
              "content": {"application/json": {"schema": {
                  "allOf": [{"$ref": "#/components/schemas/Error"},
                            error_schema(reasons)["allOf"][1]]}}}}
    if code in HEADERS:
        answer["headers"] = HEADERS[code]
    return answer


def documented(blp, *codes, body: bool = False):
    """Document the error answers an operation can give (the body is always ErrorSchema,
    its reason one of those listed). A code alone answers the reasons of REASONS; (code,
    reasons) says which. Every operation can answer 405 and 503/504 (and 502); one that
    reads a JSON `body`, 413 and 415 too."""
    listed = dict(REASONS)
    given = set()
    for code in codes:
        code, reasons = code if isinstance(code, tuple) else (code, REASONS[code])
        listed[code] = reasons
        given.add(code)
    given |= {405, 502, 503, 504} | ({413, 415} if body else set())

    def wrap(view):
        for code in sorted(given):
            view = blp.alt_response(code, schema=error_schema(listed[code]),
                                    description=error_text(code, listed[code]),
                                    headers=HEADERS.get(code), success=False)(view)
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
