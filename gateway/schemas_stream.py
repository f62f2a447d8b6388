"""The messages of the event stream (GET .../events, gateway/sse.py) as the OpenAPI
document types them: one schema for the `data:` JSON of each SSE `event:` name, and
StreamMessage, one of them all as a parsed message ({event, id, data}) told apart by its
`event`, which is how a generated client types what its EventSource hands it.

OpenAPI 3.1 has no way to type the messages of text/event-stream (3.2's itemSchema is
that), so the route's answer lists them by name in an `x-sse-events` extension, each with
its data schema's $ref; generators ignore x- keys but type every component, so the types
come from the components named here. tests/gateway/test_typed_stream.py validates every
message of whole matches' streams against them."""

from __future__ import annotations

from marshmallow import Schema, fields

from .schemas import MatchSchema, SeatStateSchema
from .schemas_game import _d, event_field, match_result_field


class SnapshotDataSchema(Schema):
    match = fields.Nested(MatchSchema, required=True,
                          **_d("the match's public summary (without its view)"))
    state = fields.Nested(SeatStateSchema, required=True,
                          **_d("the seat's state with a seat token; the spectator's without "
                               "(seat null, no legal moves)"))


class EventsDataSchema(Schema):
    match_id = fields.String(required=True)
    version = fields.Integer(required=True, allow_none=True,
                             **_d("the version the events brought the match to (each event "
                                  "says it too)"))
    events = fields.List(event_field(), required=True,
                         **_d("what happened, redacted for the recipient"))


class KeepaliveDataSchema(Schema):
    server_unix_ms = fields.Integer(required=True, **_d("the engine's clock"))
    version = fields.Integer(required=True, **_d("the match's version now"))


class MatchOverDataSchema(Schema):
    match_id = fields.String(required=True)
    version = fields.Integer(required=True, **_d("the final version"))
    result = match_result_field(required=True)


class StreamErrorDataSchema(Schema):
    reason = fields.String(required=True, **_d("a reason of the error table, e.g. "
                                               "ENGINE_UNAVAILABLE"))
    message = fields.String(required=True)


# SSE event name -> the schema of its data (sse.EVENTS describes each in words).
DATA = {"snapshot": SnapshotDataSchema, "events": EventsDataSchema,
        "keepalive": KeepaliveDataSchema, "match_over": MatchOverDataSchema,
        "error": StreamErrorDataSchema}


def _name(cls) -> str:
    return cls.__name__.removesuffix("Schema")


def ref(event: str) -> dict:
    return {"$ref": f"#/components/schemas/{_name(DATA[event])}"}


def message_name(event: str) -> str:
    """The component of one parsed message, e.g. SnapshotMessage."""
    return "".join(part.title() for part in event.split("_")) + "Message"


def register(spec) -> None:
    """The data schema of each event name, a parsed message of each ({event, id, data}),
    and StreamMessage, one of those by `event`."""
    for cls in DATA.values():
        if _name(cls) not in spec.components.schemas:
            spec.components.schema(_name(cls), schema=cls)
    mapping = {}
    for event in DATA:
        name = message_name(event)
        spec.components.schema(name, {
            "type": "object",
            "description": f"an `event: {event}` message of the stream, parsed",
            "properties": {
                "event": {"type": "string", "const": event},
                "id": {"type": "string", "pattern": "^[0-9]+$",
                       "description": "the match version the message brings the watcher "
                                      "to; absent for a keepalive and an error"},
                "data": ref(event)},
            "required": ["event", "data"], "additionalProperties": False})
        mapping[event] = f"#/components/schemas/{name}"
    spec.components.schema("StreamMessage", {
        "description": "one message of GET /matches/{match_id}/events: its SSE `event` "
                       "name, its `id` and its `data` JSON, parsed",
        "oneOf": [{"$ref": r} for r in mapping.values()],
        "discriminator": {"propertyName": "event", "mapping": mapping}})
