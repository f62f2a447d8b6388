"""Every error body has the one documented shape (docs/gateway.md, "Errors"): the same keys,
`code` equal to the HTTP status and `status` its name, `version` null unless a match's
version was known, and every 400 naming its fields in `errors` as flat dotted paths
("seats.0.kind", "options.hands"), never webargs' locations or marshmallow's internals."""

from http import HTTPStatus

import pytest

KEYS = {"code", "status", "reason", "message", "version", "legal_moves"}
TOO_DEEP = "[" * 100 + "]" * 100


def check_shape(r, status: int, version_known: bool = False) -> dict:
    body = r.get_json()
    assert r.status_code == status and r.mimetype == "application/json", (r.status_code, body)
    assert KEYS <= set(body) <= KEYS | {"errors"}, body
    assert body["code"] == status and body["status"] == HTTPStatus(status).phrase, body
    assert isinstance(body["reason"], str) and body["reason"].isupper(), body
    assert isinstance(body["message"], str) and body["message"], body
    assert all(set(m) == {"id", "text"} for m in body["legal_moves"]), body
    if version_known:
        assert isinstance(body["version"], int) and body["version"] >= 0, body
    else:
        assert body["version"] is None, body
    if status == 400:
        errors = body.get("errors")
        assert isinstance(errors, dict) and errors, f"a 400 names no field: {body}"
        for field, lines in errors.items():
            parts = field.split(".")
            assert parts[0] not in ("json", "query", "view_args", "_schema"), body
            assert "value" not in parts[1:] and all(parts), body
            assert isinstance(lines, list) and lines and all(
                isinstance(x, str) and x for x in lines), body
    else:
        assert "errors" not in body, body
    return body


CREATE = "/api/v1/matches"


@pytest.mark.parametrize("body,field", [
    ({}, "variant"),
    ({"variant": "chess"}, "variant"),
    ({"variant": "hhl", "colour": "red"}, "colour"),
    ({"variant": "hhl", "seed": -1}, "seed"),
    ({"variant": "hhl", "seed": "0x7"}, "seed"),
    ({"variant": "hhl", "options": {"hands": 0}}, "options.hands"),
    ({"variant": "hhl", "options": {"hands": "two"}}, "options.hands"),
    ({"variant": "hhl", "options": {"hands": {"value": 2}}}, "options.hands"),
    ({"variant": "hhl", "options": {"cycles": 2}}, "options.cycles"),
    ({"variant": "hhl", "options": {"profile": "letter"}}, "options.profile"),
    ({"variant": "hhl", "options": {"dead_stock": 2}}, "options.dead_stock"),
    ({"variant": "domeng", "options": {"first_lead": "first"}}, "options.first_lead"),
    ({"variant": "hhl", "options": {"closing_pass": "paid"}}, "options.closing_pass"),
    ({"variant": "hhl", "options": []}, "options"),
    ({"variant": "hhl", "seats": [{"kind": "robot"}] * 4}, "seats.0.kind"),
    ({"variant": "hhl", "seats": [{"kind": "person", "strategy": "greedy"}] * 4},
     "seats.0.strategy"),
    ({"variant": "hhl", "seats": [{"kind": "bot", "strategy": "oracle"}] * 4},
     "seats.0.strategy"),
    ({"variant": "domeng", "seats": [{"kind": "person"}] * 4}, "seats"),
    ({"variant": "hhl", "deals": [{"hands": [["6-6"]], "stock": []}]}, "deals"),
    ({"variant": "hhl", "bot_clock_ms": -5}, "bot_clock_ms"),
])
def test_every_malformed_create_names_its_field(client, body, field):
    got = check_shape(client.post(CREATE, json=body), 400)
    assert got["reason"] == "MALFORMED_REQUEST"
    assert any(f == field or f.startswith(field + ".") for f in got["errors"]), got


@pytest.mark.parametrize("data,content_type,status,field", [
    ("{not json", "application/json", 400, "body"),
    (TOO_DEEP, "application/json", 400, "body"),
    ('{"variant": "hhl"}', "text/plain", 415, None),
    ("x" * 70_000, "application/json", 413, None),
])
def test_bodies_that_are_no_json_object(client, data, content_type, status, field):
    got = check_shape(client.post(CREATE, data=data, content_type=content_type), status)
    if field:
        assert field in got["errors"]


def test_ladder_definitions_name_their_fields(client):
    for body, field in [
        ({"variant": "hhl", "entrants": ["a"], "matches": 4}, "entrants"),
        ({"variant": "hhl", "entrants": ["a", "a"], "matches": 4}, "entrants"),
        ({"variant": "hhl", "entrants": ["a", "b"]}, "matches"),
        ({"variant": "hhl", "entrants": ["a", "b/c"], "matches": 4}, "entrants"),
        ({"variant": "hhl", "entrants": ["a", "b"], "matches": 4, "options": {"x": 1}},
         "options.x"),
    ]:
        got = check_shape(client.post("/api/v1/ladders", json=body), 400)
        assert any(f == field or f.startswith(field + ".") for f in got["errors"]), got


@pytest.fixture
def seated(client):
    created = client.post(CREATE, json={"variant": "hhl", "options": {"hands": 1},
                                        "seed": 5}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"{CREATE}/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(4)]
    return match_id, tokens, created["to_move"]


def test_errors_about_a_match_carry_its_version_and_the_rest_null(client, seated):
    match_id, tokens, leader = seated
    other = (leader + 1) % 4
    moves = f"{CREATE}/{match_id}/moves"

    def as_seat(seat):
        return {"Authorization": f"Bearer {tokens[seat]}"}

    # the engine knew the match: its version is in the body
    check_shape(client.post(moves, json={"version": 0, "move_id": "0"}, headers=as_seat(other)),
                409, version_known=True)
    check_shape(client.post(moves, json={"version": 7, "move_id": "0"}, headers=as_seat(leader)),
                409, version_known=True)
    got = check_shape(client.post(moves, json={"version": 0, "move_id": "999"},
                                  headers=as_seat(leader)), 400, version_known=True)
    assert "move_id" in got["errors"] and got["legal_moves"]
    got = check_shape(client.post(moves, json={"version": 0, "move_text": "9-9 nowhere"},
                                  headers=as_seat(leader)), 400, version_known=True)
    assert "move_text" in got["errors"]
    # the gateway's own checks, before any match was read
    got = check_shape(client.post(moves, json={"version": "0"}, headers=as_seat(leader)), 400)
    assert "version" in got["errors"]
    check_shape(client.post(moves, json={"version": 0, "move_id": "0"}), 401)
    check_shape(client.post(moves, json={"version": 0, "move_id": "0"},
                            headers={"Authorization": "Bearer nope"}), 401, version_known=True)
    got = check_shape(client.post(f"{CREATE}/{match_id}/seats/99/claim"), 400, True)
    assert "seat" in got["errors"]
    got = check_shape(client.post(f"{CREATE}/{match_id}/seats/-1/claim"), 400)
    assert "seat" in got["errors"]
    check_shape(client.post(f"{CREATE}/{match_id}/seats/0/claim"), 409, True)
    check_shape(client.get(f"{CREATE}/{match_id}/record"), 409, True)
    # nothing known at all
    check_shape(client.get(f"{CREATE}/no-such-match"), 404)
    check_shape(client.get("/api/v1/ladders/no-such-ladder"), 404)
    check_shape(client.get("/api/v1/nothing-here"), 404)
    check_shape(client.delete(CREATE), 405)
    got = check_shape(client.get(f"{CREATE}?limit=0"), 400)
    assert "limit" in got["errors"]
    got = check_shape(client.get(f"{CREATE}?status=sleeping"), 400)
    assert "status" in got["errors"]
