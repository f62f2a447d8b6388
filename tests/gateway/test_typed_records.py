"""Real records of both games, as GET .../record sends them, held to the document's Record
schema (one of HHLRecord and DomengRecord by variant: every deal, turn and result typed),
so that a replay viewer generated from the document reads every field typed."""

import pytest
from gateway_support import bot_seats, wait_for
from jsonschema.exceptions import ValidationError
from openapi_schema_validator import OAS31Validator

M = "/api/v1/matches"


def finished_records(client, variant, options, count) -> list[dict]:
    """Records of `count` matches the house bots played to their end."""
    ids = []
    for _ in range(count):
        r = client.post(M, json={"variant": variant, "options": options,
                                 "seats": bot_seats(4 if variant == "hhl" else 5, human=())})
        assert r.status_code == 201, r.get_json()
        ids.append(r.get_json()["match_id"])
    wait_for(lambda: all(client.get(f"{M}/{i}").get_json()["status"] == "over" for i in ids),
             timeout=90)
    return [client.get(f"{M}/{i}/record").get_json() for i in ids]


def turn_kinds(record) -> set[str]:
    """The kinds of turn a record holds: lead, play (on an arm or end), draw, pass."""
    kinds = set()
    for deal in record["deals"]:
        for turn in deal["moves"]:
            if "play" in turn:
                kinds.add("play" if "at" in turn else "lead")
            else:
                kinds.add("draw" if "draw" in turn else "pass")
    return kinds


@pytest.mark.parametrize("variant,options,kinds", [
    ("hhl", {"hands": 3}, {"lead", "play", "draw", "pass"}),
    ("domeng", {"cycles": 1, "round_cap": 3}, {"lead", "play", "pass"}),
])
def test_real_records_of_both_games_are_typed_by_the_document(client, variant, options, kinds):
    doc = client.get("/api/v1/openapi.json").get_json()
    get = doc["paths"][M + "/{match_id}/record"]["get"]["responses"]["200"]
    schema = {**get["content"]["application/json"]["schema"], "components": doc["components"]}
    assert schema["$ref"] == "#/components/schemas/Record"
    validator = OAS31Validator(schema)
    records = finished_records(client, variant, options, 3)
    seen = set()
    for record in records:
        validator.validate(record)
        assert record["variant"] == variant and isinstance(record["seed"], str)
        seen |= turn_kinds(record)
    assert kinds <= seen, kinds - seen
    # the schema can fail: a seed as a number, a deal of the other game, a turn unknown
    record = records[0]
    for broken in ({**record, "seed": int(record["seed"])},
                   {**record, "variant": "domeng" if variant == "hhl" else "hhl"},
                   {**record, "deals": [{**record["deals"][0],
                                         "moves": [{"seat": 0, "skip": True}]}]}):
        with pytest.raises(ValidationError):
            validator.validate(broken)
