"""Server-Sent Events of a match, as text (the streams themselves: streams.py).

A stream opens with `retry`, then sends the messages of EVENTS below, each with its match
version as `id` where it has one: a `snapshot` first, `events` batches as they happen,
`keepalive` when idle and `match_over` last, or `error` if the engine goes away (the
browser's EventSource reconnects and gets a fresh snapshot).
"""

from __future__ import annotations

import json

from domino_wire import game

from . import convert

RETRY_MS = 2000
RETRY = f"retry: {RETRY_MS}\n\n"

# Every message a stream sends, by its SSE event name: its data and when it comes. The
# OpenAPI document describes the stream from this table (streams.openapi_operation); a
# schema for an event's data goes in its entry, next to its description.
EVENTS = {
    "snapshot": {"data": "{match, state}",
                 "description": "first, on every (re)connect; `state` is the seat's view with "
                                "a seat token, the spectator's without"},
    "events": {"data": "{match_id, version, events}",
               "description": "as they happen, redacted for the recipient"},
    "keepalive": {"data": "{server_unix_ms, version}",
                  "description": "every 5 s when nothing happens"},
    "match_over": {"data": "{match_id, version, result}",
                   "description": "last; the stream then ends"},
    "error": {"data": "{reason, message}",
              "description": f"the engine went away; EventSource reconnects after "
                             f"{RETRY_MS // 1000} s and gets a fresh snapshot"},
}


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
