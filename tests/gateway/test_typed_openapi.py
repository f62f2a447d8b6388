"""Every answer of whole matches, held to the typed OpenAPI document: views of both games
(seats and spectators), every event kind the rules and the engine send, every result, the
options. schemathesis (test_openapi.py) fuzzes the routes; this plays the games through, so
that each oneOf alternative is met by real answers, not only by generated ones."""

import json
import random
import urllib.request

import pytest
from openapi_schema_validator import OAS31Validator

HHL_KINDS = {"deal_start", "play", "draw", "pass", "deal_over", "match_over"}
DOMENG_KINDS = {"deal_start", "play", "pass", "deal_over", "cycle_over", "match_over"}


class Checker:
    """Validates bodies against the response schemas of the gateway's own document."""

    def __init__(self, client):
        self.doc = client.get("/api/v1/openapi.json").get_json()
        self.kinds: set[str] = set()
        self.checked = 0

    def schema(self, path: str, method: str, status: int) -> dict:
        answer = self.doc["paths"][path][method]["responses"][str(status)]
        return answer["content"]["application/json"]["schema"]

    def check(self, r, path: str, method: str = "get", status: int = 200):
        body = r.get_json()
        assert r.status_code == status, body
        self.validate(body, self.schema(path, method, status))
        return body

    def validate(self, body, schema: dict):
        # The document's "#/components/..." refs resolve against this root.
        OAS31Validator({**schema, "components": self.doc["components"]}).validate(body)
        self.checked += 1
        self._kinds(body)

    def _kinds(self, value):
        if isinstance(value, dict):
            if isinstance(value.get("kind"), str):
                self.kinds.add(value["kind"])
            for v in value.values():
                self._kinds(v)
        elif isinstance(value, list):
            for v in value:
                self._kinds(v)

    def events_schema(self) -> dict:
        """A list of events, as a move's answer holds them."""
        return self.doc["components"]["schemas"]["MoveResult"]["properties"]["events"]


M = "/api/v1/matches"
MATCH = "/api/v1/matches/{match_id}"


def play_through(client, checker, body, seed):
    rng = random.Random(seed)
    created = checker.check(client.post(M, json=body), M, "post", 201)
    match_id = created["match_id"]
    tokens = [checker.check(client.post(f"{M}/{match_id}/seats/{s}/claim"),
                            MATCH + "/seats/{seat}/claim", "post")["seat_token"]
              for s in range(created["num_seats"])]
    auth = [{"Authorization": f"Bearer {t}"} for t in tokens]
    while True:
        match = checker.check(client.get(f"{M}/{match_id}"), MATCH)
        if match["status"] == "over":
            break
        seat = match["to_move"]
        state = checker.check(client.get(f"{M}/{match_id}/view", headers=auth[seat]),
                              MATCH + "/view")
        if rng.random() < 0.2:     # a seat that is not to move sees its own view too
            other = (seat + 1) % len(tokens)
            checker.check(client.get(f"{M}/{match_id}/view", headers=auth[other]), MATCH + "/view")
        move = rng.choice(state["legal_moves"])
        checker.check(client.post(f"{M}/{match_id}/moves", headers=auth[seat],
                                  json={"version": state["version"], "move_id": move["id"]}),
                      MATCH + "/moves", "post")
    assert match["result"] is not None and match["view"]["over"]
    for token in auth:
        checker.check(client.get(f"{M}/{match_id}/view", headers=token), MATCH + "/view")
    checker.check(client.get(f"{M}/{match_id}/record"), MATCH + "/record")
    return match_id


@pytest.mark.parametrize("variant,options,kinds", [
    ("hhl", {"hands": 3}, HHL_KINDS),
    ("domeng", {"cycles": 1, "round_cap": 4}, DOMENG_KINDS),
])
def test_whole_matches_answer_as_the_document_says(client, variant, options, kinds):
    checker = Checker(client)
    for seed in (1, 2, 3):
        play_through(client, checker, {"variant": variant, "options": options, "seed": seed},
                     seed)
    checker.check(client.get(f"{M}?limit=20"), M)
    checker.check(client.get("/api/v1/variants"), "/api/v1/variants")
    assert kinds <= checker.kinds, kinds - checker.kinds
    assert checker.checked > 100


def test_the_engines_own_events_match_the_document_too(client, live):
    """timeout, absent and returned, as the event stream sends them.

    Once every seat is absent the match plays itself at the pace of its clocks: one hand
    would be over about two seconds after the first absent, which a loaded machine can
    take to pass the event on and call back. Eight hands leave it many times that."""
    checker = Checker(client)
    created = client.post(M, json={"variant": "hhl", "options": {"hands": 8},
                                   "person_clock_ms": 100}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"{M}/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(4)]
    seen, called_back = [], False
    with urllib.request.urlopen(f"{live.url}{M}/{match_id}/events", timeout=30) as stream:
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if not line.startswith("data: "):
                continue
            for e in json.loads(line[6:]).get("events", []):
                checker.validate([e], checker.events_schema())
                seen.append(e["kind"])
                if e["kind"] == "absent" and not called_back:
                    # the absent seat's holder comes back: "returned"
                    called_back = True
                    back = client.get(f"{M}/{match_id}/view",
                                      headers={"Authorization": f"Bearer {tokens[e['seat']]}"})
                    assert back.status_code == 200, back.get_json()
                    assert "result" not in back.get_json(), "the match ended before the return"
            if "returned" in seen:
                break
    assert {"timeout", "absent", "returned"} <= set(seen)
