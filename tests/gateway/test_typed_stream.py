"""Every message of real event streams, held to the OpenAPI document: whole matches of both
games read through the live server's GET .../events, a spectator's stream and a seat's,
each message's data validated against the schema the route's `x-sse-events` names for its
event, and each parsed message against StreamMessage. The clock plays every seat (the
first legal move: the matches are the same at every run), so the engine's own events come
too: timeouts, absences, a return."""

import json
import threading

import pytest
from gateway_support import sse_messages, wait_for
from openapi_schema_validator import OAS31Validator

from domino_proto.domino.v1 import engine_pb2
from gateway import sse

M = "/api/v1/matches"
EVENTS = "/api/v1/matches/{match_id}/events"


class Doc:
    """The gateway's own document, and its schemas of the stream's messages."""

    def __init__(self, client):
        self.doc = client.get("/api/v1/openapi.json").get_json()
        media = self.doc["paths"][EVENTS]["get"]["responses"]["200"]["content"][
            "text/event-stream"]
        self.data = {name: e["schema"] for name, e in media["x-sse-events"].items()}
        self.kinds: set[str] = set()

    def validate(self, schema: dict, value) -> None:
        OAS31Validator({**schema, "components": self.doc["components"]}).validate(value)

    def message(self, m: dict) -> None:
        self.validate(self.data[m["event"]], m["data"])
        self.validate({"$ref": "#/components/schemas/StreamMessage"}, m)
        data = m["data"]
        events = data.get("events") or data.get("state", {}).get("view", {}).get("history", [])
        self.kinds |= {e["kind"] for e in events}


@pytest.mark.parametrize("variant,options,seed,kinds", [
    # Three hands, four rounds: once every seat is absent the match plays itself at the
    # pace of its clocks, and the return below must come before the end even on a loaded
    # machine.
    ("hhl", {"hands": 3}, 4, {"deal_start", "play", "draw", "pass", "deal_over"}),
    ("domeng", {"cycles": 1, "round_cap": 4}, 3, {"deal_start", "play", "pass", "deal_over",
                                                  "cycle_over"}),
])
def test_every_message_of_a_whole_match_is_typed_by_the_document(client, live, variant,
                                                                 options, seed, kinds):
    doc = Doc(client)
    created = client.post(M, json={"variant": variant, "options": options, "seed": seed,
                                   "person_clock_ms": 100}).get_json()
    match_id, n = created["match_id"], created["num_seats"]
    tokens = [client.post(f"{M}/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(n - 1)]
    url = f"{live.url}{M}/{match_id}/events"
    streams: dict[str, list] = {}
    opened = {"spectator": threading.Event(), "seat 0": threading.Event()}

    def read(name: str, headers: dict) -> None:
        streams[name] = sse_messages(url, headers, opened=opened[name])

    readers = [threading.Thread(target=read, args=("spectator", {}), daemon=True),
               threading.Thread(target=read, args=(
                   "seat 0", {"Authorization": f"Bearer {tokens[0]}"}), daemon=True)]
    for reader in readers:
        reader.start()
    assert all(o.wait(30) for o in opened.values())            # both streams are on
    client.post(f"{M}/{match_id}/seats/{n - 1}/claim")       # the last claim: live
    # Nobody plays: each seat's clock plays for it, and after three timeouts it is absent.
    # Seat 0's holder comes back once (a view with its token): "returned".
    wait_for(lambda: client.get(f"{M}/{match_id}").get_json()["seats"][0]["absent"])
    back = client.get(f"{M}/{match_id}/view", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert back.status_code == 200 and "result" not in back.get_json(), \
        "the match ended before the return"
    for reader in readers:
        reader.join(120)
    assert set(streams) == {"spectator", "seat 0"}
    for messages in streams.values():
        assert messages[0]["event"] == "snapshot" and messages[-1]["event"] == "match_over"
        for m in messages:
            doc.message(m)
    assert kinds | {"match_over", "timeout", "absent", "returned"} <= doc.kinds
    # The seat saw its own tiles, the spectator none (and both were typed).
    seat_starts = [e for m in streams["seat 0"] if m["event"] == "events"
                   for e in m["data"]["events"] if e["kind"] == "deal_start"]
    assert seat_starts and all("tiles" in e for e in seat_starts)


def test_keepalives_and_errors_are_typed_too(client):
    """The two messages a short match may not send, as sse.py writes them."""
    doc = Doc(client)
    keepalive = engine_pb2.WatchMessage(keepalive=engine_pb2.Keepalive(server_unix_ms=1,
                                                                       version=3))
    for text in (sse.message_text(keepalive), sse.error("ENGINE_UNAVAILABLE", "gone")):
        head, _, data = text.strip().partition("\ndata: ")
        message = {"event": head.removeprefix("event: "), "data": json.loads(data)}
        doc.message(message)
    with pytest.raises(Exception, match="required"):      # the schemas can fail
        doc.message({"event": "keepalive", "data": {"version": 3}})
