"""One JSON error body for every failure, and the handlers that produce it.

    {"code": 409, "status": "Conflict", "reason": "NOT_YOUR_TURN",
     "message": "seat 1 is to move, not seat 0", "version": 12, "legal_moves": []}

`code` is the HTTP status, `status` its name, `reason` a stable code (the engine's, or one
of the gateway's below), `version` the match's current version when the engine said it
(else null), `legal_moves` the seat's legal moves for a rules refusal (else empty).
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
    406: "NOT_ACCEPTABLE",
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


def _flatten(messages, prefix="") -> list[str]:
    """webargs' nested {location: {field: [msg]}} as 'field: msg' lines."""
    if isinstance(messages, dict):
        out = []
        for key, value in messages.items():
            if key in ("json", "query", "headers", "path", "view_args", "form") and not prefix:
                out += _flatten(value, "")
            else:
                out += _flatten(value, f"{prefix}{key}." if not isinstance(value, list)
                                else f"{prefix}{key}: ")
        return out
    if isinstance(messages, list):
        if all(isinstance(m, str) for m in messages):
            return [prefix + " ".join(messages)]
        return [line for m in messages for line in _flatten(m, prefix)]
    return [prefix + str(messages)]


def from_http_exception(err: HTTPException) -> ApiError:
    status = err.code or 500
    data = getattr(err, "data", None) or {}
    if status == 422 or data.get("messages"):   # webargs / marshmallow validation
        messages = data.get("messages") or data.get("errors") or {}
        lines = _flatten(messages)
        return ApiError(400, "MALFORMED_REQUEST", "; ".join(lines) or "invalid request",
                        errors=messages if isinstance(messages, dict) else None)
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
