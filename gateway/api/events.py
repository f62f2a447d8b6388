"""GET /matches/{match_id}/events: Server-Sent Events.

The stream opens with `snapshot` (the match and the view: the seat's with a token, the
spectator's without), then `events` batches as they happen, a `keepalive` every few
seconds, and `match_over` last. Each message's `id` is the match version. A client that
reconnects gets a fresh snapshot, so it never has to replay anything.
"""

from __future__ import annotations

import json

import grpc
from flask import Response, stream_with_context

from .. import convert
from ..engine_client import api_error
from ..errors import ApiError
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("events", __name__, url_prefix=PREFIX + "/matches/<match_id>/events",
                description="Live events of a match as Server-Sent Events")

RETRY_MS = 2000
SSE_DOC = {
    "description": "text/event-stream of `snapshot` {match, state}, `events` {match_id, "
                   "version, events}, `keepalive` {server_unix_ms, version} and `match_over` "
                   "{match_id, version, result} messages; `error` {reason, message} if the "
                   "engine goes away (the client reconnects)",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


def sse(kind: str, data: dict, version: int | None = None) -> str:
    head = f"id: {version}\n" if version is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def message_text(message) -> str:
    body = message.WhichOneof("body")
    if body == "snapshot":
        state = convert.seat_state(message.snapshot.state)
        return sse("snapshot", {"match": convert.match(message.snapshot.summary),
                                "state": state}, state["version"])
    if body == "events":
        batch = message.events
        version = batch.events[0].version if batch.events else None
        return sse("events", {"match_id": batch.match_id, "version": version,
                              "events": convert.events(batch.events)}, version)
    if body == "keepalive":
        k = message.keepalive
        return sse("keepalive", {"server_unix_ms": k.server_unix_ms, "version": k.version})
    if body == "match_over":
        m = message.match_over
        return sse("match_over", {"match_id": m.match_id, "version": m.version,
                                  "result": json.loads(m.result_json or "null")}, m.version)
    return ""


def _token() -> str:
    from flask import request

    from . import bearer_token
    if request.headers.get("Authorization") or request.args.get("seat_token"):
        return bearer_token(query_too=True)
    return ""


@blp.route("")
@blp.doc(responses={"200": SSE_DOC},
         parameters=[{"in": "query", "name": "seat_token", "required": False,
                      "schema": {"type": "string"},
                      "description": "the seat token, for EventSource (which cannot send "
                                     "headers); the Authorization header works too"}])
@documented(blp, 401, 404)
def stream_events(match_id):
    """Live events: seat-private with a token, public (spectator) without"""
    call = engine().watch(match_id, _token())
    try:
        first = next(call)   # an unknown match or a bad token answers JSON, not a stream
    except grpc.RpcError as err:
        call.cancel()
        raise api_error(err) from None
    except StopIteration:
        raise ApiError(502, "ENGINE_ERROR", "the engine ended the stream at once") from None

    def generate():
        try:
            yield f"retry: {RETRY_MS}\n\n"
            yield message_text(first)
            for message in call:
                yield message_text(message)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.CANCELLED:
                e = api_error(err)
                yield sse("error", {"reason": e.reason, "message": e.message})
        finally:
            call.cancel()

    return Response(stream_with_context(generate()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
