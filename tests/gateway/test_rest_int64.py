"""Integers past 2^53 travel as decimal strings (gateway/int64.py): a seed given as a
string or as a number is the same seed, to the last digit, and answers send strings."""

from gateway_support import error

M = "/api/v1/matches"
SEED = 5893219166477011277          # a JavaScript number reads it as 5893219166477011000


def first_hand(client, seed) -> list[str]:
    r = client.post(M, json={"variant": "hhl", "options": {"hands": 1}, "seed": seed})
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["match_id"]
    token = client.post(f"{M}/{match_id}/seats/0/claim").get_json()["seat_token"]
    return client.get(f"{M}/{match_id}/view",
                      headers={"Authorization": f"Bearer {token}"}).get_json()["view"]["hand"]


def test_a_seed_as_a_string_is_the_seed_to_its_last_digit(client):
    as_text = first_hand(client, str(SEED))
    assert as_text == first_hand(client, SEED)
    rounded = [first_hand(client, s) for s in ("5893219166477011000", SEED + 1)]
    assert all(hand != as_text for hand in rounded)
    body = error(client.post(M, json={"variant": "hhl", "seed": "5893219166477011277.0"}),
                 400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == ["seed"]


def test_the_document_types_them_as_strings(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    for name, field in (("Worlds", "consistent_worlds"), ("Ladder", "seed"),
                        ("LadderResult", "seed"), ("HHLRecord", "seed"), ("DomengRecord", "seed")):
        prop = schemas[name]["properties"][field]
        assert "string" in prop["type"] and prop["format"] in ("int64", "uint64"), name
    for name in ("CreateMatch", "CreateLadder"):        # requests: a string or a number
        seed = schemas[name]["properties"]["seed"]
        assert [alt["type"] for alt in seed["oneOf"]] == ["string", "integer"], name
    worlds = doc["paths"][M + "/{match_id}/worlds"]["get"]["parameters"]
    seed = next(p for p in worlds if p["name"] == "seed")["schema"]
    assert seed["oneOf"][1]["maximum"] == 2**64 - 1
