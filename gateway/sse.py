"""Server-Sent Events of a match, as text: one format for the async streams (streams.py)
and the plain WSGI route (api/events.py).

A stream opens with `retry`, then a `snapshot` {match, state}, then `events` {match_id,
version, events} batches as they happen, `keepalive` {server_unix_ms, version} when idle,
and `match_over` {match_id, version, result} last; `error` {reason, message} if the engine
goes away (the browser's EventSource reconnects and gets a fresh snapshot). Each
message's `id` is the match version.
"""

from __future__ import annotations

import json

from domino_wire import game

from . import convert

RETRY_MS = 2000
RETRY = f"retry: {RETRY_MS}\n\n"


def sse(kind: str, data: dict, version: int | None = None) -> str:
    head = f"id: {version}\n" if version is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def snapshot(summary, state: dict) -> str:
    """`summary` a MatchSummary message, `state` a seat state as convert gives it."""
    return sse("snapshot", {"match": convert.match(summary), "state": state}, state["version"])


def match_over(match_id: str, version: int, result) -> str:
    """`result` a MatchResult message."""
    return sse("match_over", {"match_id": match_id, "version": version,
                              "result": game.match_result(result)}, version)


def error(reason: str, message: str) -> str:
    return sse("error", {"reason": reason, "message": message})


def message_text(message) -> str:
    """An engine WatchMessage as SSE text ("" for a message of no known kind)."""
    body = message.WhichOneof("body")
    if body == "snapshot":
        return snapshot(message.snapshot.summary, convert.seat_state(message.snapshot.state))
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
        return match_over(m.match_id, m.version, m.result)
    return ""


def version_of(message) -> int | None:
    """The match version a WatchMessage brings the watcher to (None for a keepalive)."""
    body = message.WhichOneof("body")
    if body == "events" and message.events.events:
        return message.events.events[0].version
    if body == "match_over":
        return message.match_over.version
    if body == "snapshot":
        return message.snapshot.state.version
    return None
