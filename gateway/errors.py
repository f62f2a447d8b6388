"""One JSON error body for every failure, and the handlers that produce it.

    {"code": 409, "status": "Conflict", "reason": "NOT_YOUR_TURN",
     "message": "seat 1 is to move, not seat 0", "version": 12, "legal_moves": []}

`code` is the HTTP status, `status` its name, `reason` a stable code (the engine's, or one
of the gateway's below), `version` the match's current version when the engine said it
(else null), `legal_moves` the seat's legal moves when a move made during its turn is refused
(a rules refusal, MALFORMED_MOVE, UNKNOWN_MOVE_ID; else empty: common.proto's Refusal).
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from flask import jsonify
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)

# Reasons the gateway itself gives (the engine's are in docs/protocol.md).
GATEWAY_REASONS = {
    400: "MALFORMED_REQUEST",
    401: "NO_TOKEN",
    404: "NO_SUCH_ROUTE",
    405: "METHOD_NOT_ALLOWED",
    413: "BODY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    500: "INTERNAL",
}


class ApiError(Exception):
    def __init__(self, status: int, reason: str, message: str, version: int | None = None,
                 legal_moves: list[dict] | None = None, errors: dict | None = None,
                 headers: dict | None = None):
        super().__init__(f"{reason}: {message}")
        self.status, self.reason, self.message = status, reason, message
        self.version = version
        self.legal_moves = legal_moves or []
        self.errors = errors
        self.headers = headers or {}

    def body(self) -> dict:
        body = {"code": self.status, "status": _name(self.status), "reason": self.reason,
                "message": self.message, "version": self.version,
                "legal_moves": self.legal_moves}
        if self.errors:
            body["errors"] = self.errors
        return body


def _name(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def respond(err: ApiError):
    response = jsonify(err.body())
    response.status_code = err.status
    for key, value in err.headers.items():
        response.headers[key] = value
    return response


LOCATIONS = ("json", "query", "headers", "path", "view_args", "form", "cookies")


def field_errors(messages, prefix: str = "") -> dict[str, list[str]]:
    """webargs' nested {location: {field: {index: [msg]}}} as the documented flat
    {"seats.0.kind": [msg]}: one dotted path per field, as the engine names them."""
    if isinstance(messages, dict):
        out: dict[str, list[str]] = {}
        for key, value in messages.items():
            path = prefix if (not prefix and key in LOCATIONS) else f"{prefix}{key}"
            for field, lines in field_errors(value, path + "." if path else "").items():
                out.setdefault(field, []).extend(lines)
        return out
    lines = messages if isinstance(messages, list) else [messages]
    field = prefix.rstrip(".") or "body"
    out = {}
    for line in lines:
        if isinstance(line, (dict, list)):
            for sub, sublines in field_errors(line, prefix).items():
                out.setdefault(sub, []).extend(sublines)
        else:
            out.setdefault(field, []).append(str(line))
    return out


def from_http_exception(err: HTTPException) -> ApiError:
    status = err.code or 500
    data = getattr(err, "data", None) or {}
    if status == 422 or data.get("messages"):   # webargs / marshmallow validation
        messages = data.get("messages") or data.get("errors") or {}
        errors = field_errors(messages) or {"body": ["invalid request"]}
        message = "; ".join(f"{field}: {' '.join(lines)}" for field, lines in errors.items())
        return ApiError(400, "MALFORMED_REQUEST", message, errors=errors)
    reason = GATEWAY_REASONS.get(status, "HTTP_" + str(status))
    message = data.get("message") or err.description or _name(status)
    headers = {}
    if status == 405 and getattr(err, "valid_methods", None):
        headers["Allow"] = ", ".join(err.valid_methods)
        message = f"use {', '.join(err.valid_methods)} on this path"
    if status == 404:
        message = "no such route; the API lives under /api/v1 (see /api/v1/openapi.json)"
    if status == 413:
        message = "the request body is too large"
    return ApiError(status, reason, message, headers=headers)


def register(app) -> None:
    """JSON errors for everything: ApiError, HTTP errors (404, 405, 413, validation) and
    unexpected exceptions (500, logged)."""

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError):
        return respond(err)

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        return respond(from_http_exception(err))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception):
        if isinstance(err, HTTPException):
            return respond(from_http_exception(err))
        log.exception("unexpected error")
        return respond(ApiError(500, "INTERNAL", "internal error; the gateway logged it"))
