"""GET /matches/{match_id}/events: Server-Sent Events (the format: gateway/sse.py).

`domino gateway` and `domino serve` serve this path on their event loop (gateway/streams.py:
a thousand streams cost no thread, and spectators of one match share one engine stream).
This route is the same stream for any other WSGI server, one thread per stream, and the
place the route is documented in OpenAPI.
"""

from __future__ import annotations

import grpc
from flask import Response, stream_with_context

from .. import metrics, sse
from ..engine_client import api_error
from ..errors import ApiError
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("events", __name__, url_prefix=PREFIX + "/matches/<match_id>/events",
                description="Live events of a match as Server-Sent Events")

SSE_DOC = {
    "description": "text/event-stream of `snapshot` {match, state}, `events` {match_id, "
                   "version, events}, `keepalive` {server_unix_ms, version} and `match_over` "
                   "{match_id, version, result} messages; `error` {reason, message} if the "
                   "engine goes away (the client reconnects)",
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}


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
    # an unknown match or a bad token answers JSON, not a stream
    call, first = engine().watch(match_id, _token())
    if first is None:
        call.cancel()
        raise ApiError(502, "ENGINE_ERROR", "the engine ended the stream at once")

    def generate():
        metrics.stream_opened()
        try:
            yield sse.RETRY
            yield sse.message_text(first)
            for message in call:
                yield sse.message_text(message)
        except grpc.RpcError as err:
            if err.code() != grpc.StatusCode.CANCELLED:
                e = api_error(err)
                yield sse.error(e.reason, e.message)
        finally:
            metrics.stream_closed()
            call.cancel()

    return Response(stream_with_context(generate()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
