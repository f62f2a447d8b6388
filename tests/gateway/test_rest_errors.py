"""Every failure answers the one error body with the status of the error table
(docs/protocol.md): malformed 400, token 401, unknown 404, refused 409, too large 413,
engine away 503 / late 504, and unknown routes and methods answer JSON too."""

import socket

import pytest
from gateway_support import error

from gateway import create_app


@pytest.fixture
def table(client):
    """An HHL match with every seat claimed through REST: (match_id, tokens, state)."""
    created = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1},
                                                   "seed": 3}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"/api/v1/matches/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(4)]
    leader = created["to_move"]
    state = client.get(f"/api/v1/matches/{match_id}/view",
                       headers={"Authorization": f"Bearer {tokens[leader]}"}).get_json()
    return match_id, tokens, state


def move(client, match_id, token, body):
    return client.post(f"/api/v1/matches/{match_id}/moves", json=body,
                       headers={"Authorization": f"Bearer {token}"})


# ----- 400 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("body,words", [
    ({}, "variant"),
    ({"variant": "chess"}, "variant"),
    ({"variant": "hhl", "colour": "red"}, "colour"),
    ({"variant": "hhl", "seed": -1}, "seed"),
    ({"variant": "hhl", "seed": "7 "}, "seed"),            # a decimal string, or a number
    ({"variant": "hhl", "seed": "7.0"}, "seed"),
    ({"variant": "hhl", "seed": str(2**63)}, "seed"),
    ({"variant": "hhl", "seed": True}, "seed"),
    ({"variant": "hhl", "options": {"hands": 0}}, "options"),
    ({"variant": "hhl", "options": {"hands": "two"}}, "options"),
    ({"variant": "hhl", "seats": [{"kind": "robot"}] * 4}, "kind"),
    ({"variant": "hhl", "seats": [{"kind": "person", "strategy": "greedy"}] * 4}, "strategy"),
])
def test_a_malformed_create_is_400_naming_the_field(client, body, words):
    body = error(client.post("/api/v1/matches", json=body), 400, "MALFORMED_REQUEST")
    assert words in body["message"]
    assert body["version"] is None


@pytest.mark.parametrize("body,words", [
    ({"variant": "hhl", "options": {"cycles": 2}}, "cycles"),
    ({"variant": "domeng", "seats": [{"kind": "person"}] * 4}, "5 seats"),
    ({"variant": "hhl", "seats": [{"kind": "bot", "strategy": "oracle"}] * 4}, "oracle"),
    ({"variant": "hhl", "deals": [{"hands": [["6-6"]], "stock": []}]}, ""),
])
def test_what_the_engine_finds_malformed_is_400_too(client, body, words):
    body = error(client.post("/api/v1/matches", json=body), 400, "MALFORMED_REQUEST")
    assert words in body["message"]


def test_a_body_that_is_not_json_is_400(client):
    r = client.post("/api/v1/matches", data="{not json", content_type="application/json")
    error(r, 400, "MALFORMED_REQUEST")


def test_malformed_moves_are_400(client, table):
    match_id, tokens, state = table
    leader = state["seat"]
    v = state["version"]
    error(move(client, match_id, tokens[leader], {"version": v}), 400, "MALFORMED_REQUEST")
    error(move(client, match_id, tokens[leader], {"version": v, "move_text": "0-0", "move_id": "0"}),
          400, "MALFORMED_REQUEST")
    error(move(client, match_id, tokens[leader], {"version": v, "move_text": "9-9 sideways"}),
          400, "MALFORMED_MOVE")
    error(move(client, match_id, tokens[leader], {"version": v, "move_id": "99"}),
          400, "UNKNOWN_MOVE_ID")
    error(client.post(f"/api/v1/matches/{match_id}/seats/7/claim"), 400, "BAD_SEAT")
    error(client.post(f"/api/v1/matches/{match_id}/seats/-1/claim"), 400, "BAD_SEAT")


# ----- 401 -----------------------------------------------------------------------------------
def test_no_token_is_401_before_anything_else(client, table):
    match_id, _, _ = table
    r = error(client.get(f"/api/v1/matches/{match_id}/view"), 401, "NO_TOKEN")
    assert r["legal_moves"] == []
    r = client.post(f"/api/v1/matches/{match_id}/moves", json={"garbage": True})
    error(r, 401, "NO_TOKEN")
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


# ----- 404 -----------------------------------------------------------------------------------
@pytest.mark.parametrize("method,path", [
    ("get", "/api/v1/matches/nosuchmatch"),
    ("get", "/api/v1/matches/nosuchmatch/record"),
    ("post", "/api/v1/matches/nosuchmatch/seats/0/claim"),
])
def test_an_unknown_match_is_404(client, method, path):
    error(getattr(client, method)(path), 404, "UNKNOWN_MATCH")


def test_an_unknown_match_is_404_on_the_event_stream_too(live):
    """The event stream is served by the gateway's own server (gateway/streams.py), not
    by a Flask route."""
    import json
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(f"{live.url}/api/v1/matches/nosuchmatch/events", timeout=10)
    assert answer.value.code == 404
    assert json.loads(answer.value.read())["reason"] == "UNKNOWN_MATCH"


def test_an_unknown_match_with_a_token_is_still_refused(client):
    auth = {"Authorization": "Bearer whatever"}
    r = client.get("/api/v1/matches/nosuchmatch/view", headers=auth)
    assert r.status_code in (401, 404) and r.get_json()["reason"] in ("UNKNOWN_MATCH", "BAD_TOKEN")
    r = client.post("/api/v1/matches/nosuchmatch/moves", json={"version": 0, "move_text": "0-0"},
                    headers=auth)
    assert r.status_code in (401, 404)


def test_unknown_routes_and_methods_answer_json(client):
    error(client.get("/api/v1/nothing-here"), 404, "NO_SUCH_ROUTE")
    error(client.get("/nothing-here.png"), 404, "NO_SUCH_ROUTE")
    r = error(client.delete("/api/v1/matches"), 405, "METHOD_NOT_ALLOWED")
    assert "POST" in r["message"]
    error(client.put("/api/v1/variants"), 405, "METHOD_NOT_ALLOWED")


# ----- 409 -----------------------------------------------------------------------------------
def test_rules_refusals_are_409_with_the_legal_moves_and_change_nothing(client, table):
    match_id, tokens, state = table
    leader, v = state["seat"], state["version"]
    other = (leader + 1) % 4
    body = error(move(client, match_id, tokens[other], {"version": v, "move_text": "6-6"}),
                 409, "NOT_YOUR_TURN")
    assert body["version"] == v
    not_opening = next(t for t in state["view"]["hand"] if t not in
                       [m["text"] for m in state["legal_moves"]])
    body = error(move(client, match_id, tokens[leader], {"version": v, "move_text": not_opening}),
                 409, body_reason(client, match_id, tokens[leader], v, not_opening))
    assert body["legal_moves"] == state["legal_moves"] and body["version"] == v
    after = client.get(f"/api/v1/matches/{match_id}").get_json()
    assert after["version"] == v


def body_reason(client, match_id, token, v, text):
    return move(client, match_id, token, {"version": v, "move_text": text}).get_json()["reason"]


def test_a_tile_not_in_hand_and_a_stale_version_are_409(client, table):
    match_id, tokens, state = table
    leader, v = state["seat"], state["version"]
    opening = state["legal_moves"][0]
    ok = move(client, match_id, tokens[leader], {"version": v, "move_id": opening["id"]})
    assert ok.status_code == 200
    assert ok.get_json()["version"] == v + 1
    # the same move again at the old version is answered as accepted (idempotent)
    again = move(client, match_id, tokens[leader], {"version": v, "move_id": opening["id"]})
    assert again.status_code == 200 and again.get_json()["version"] == v + 1
    # any other move at the old version is stale
    body = error(move(client, match_id, tokens[leader], {"version": v, "move_text": "6-5 left"}),
                 409, "STALE_VERSION")
    assert body["version"] == v + 1
    nxt = (leader + 1) % 4
    view = client.get(f"/api/v1/matches/{match_id}/view",
                      headers={"Authorization": f"Bearer {tokens[nxt]}"}).get_json()
    theirs = [t for t in ("6-6", "5-5", "4-4", "6-0", "5-0", "4-0", "3-0", "2-0", "1-0")
              if t not in view["view"]["hand"] and t != opening["text"]]
    body = error(move(client, match_id, tokens[nxt], {"version": v + 1,
                                                      "move_text": theirs[0] + " left"}),
                 409, "TILE_NOT_IN_HAND")
    assert body["legal_moves"] == view["legal_moves"]


def test_claiming_twice_a_pool_seat_and_an_early_record_are_409(client, table):
    match_id, _, _ = table
    error(client.post(f"/api/v1/matches/{match_id}/seats/0/claim"), 409, "SEAT_TAKEN")
    error(client.get(f"/api/v1/matches/{match_id}/record"), 409, "MATCH_NOT_OVER")
    created = client.post("/api/v1/matches", json={
        "variant": "hhl", "options": {"hands": 1},
        "seats": [{"kind": "person"}] + [{"kind": "bot", "strategy": "random"}] * 3}).get_json()
    error(client.post(f"/api/v1/matches/{created['match_id']}/seats/1/claim"), 409, "POOL_SEAT")


# ----- 413, 503, 504 ----------------------------------------------------------------------------
def test_a_body_too_large_is_413(client):
    big = {"variant": "hhl", "deals": [{"pad": "x" * 100_000}]}
    error(client.post("/api/v1/matches", json=big), 413, "BODY_TOO_LARGE")


def test_an_engine_that_is_away_is_503_and_a_slow_one_504():
    away = create_app({"ENGINE_ADDRESS": "127.0.0.1:1", "ENGINE_TIMEOUT_S": 2}).test_client()
    error(away.get("/api/v1/matches"), 503, "ENGINE_UNAVAILABLE")
    error(away.post("/api/v1/matches", json={"variant": "hhl"}), 503, "ENGINE_UNAVAILABLE")
    with socket.socket() as mute:   # listens, never speaks: every call runs into its deadline
        mute.bind(("127.0.0.1", 0))
        mute.listen(8)
        slow = create_app({"ENGINE_ADDRESS": f"127.0.0.1:{mute.getsockname()[1]}",
                           "ENGINE_TIMEOUT_S": 0.5}).test_client()
        error(slow.get("/api/v1/matches"), 504, "ENGINE_TIMEOUT")


# ----- what a hostile client sent (docs/security.md) ------------------------------------------
def test_bodies_no_client_should_send_are_400_or_415_not_500(client, table):
    match_id, tokens, state = table
    leader = state["seat"]
    auth = {"Authorization": f"Bearer {tokens[leader]}"}
    moves = f"/api/v1/matches/{match_id}/moves"
    # a lone surrogate is no character (and no protobuf string)
    r = client.post(moves, data='{"version": 0, "move_text": "\\ud800"}',
                    content_type="application/json", headers=auth)
    assert "surrogate" in error(r, 400, "MALFORMED_REQUEST")["message"]
    # nested 10,000 deep: no RecursionError
    deep = "[" * 10_000 + "]" * 10_000
    r = client.post("/api/v1/matches", data=deep, content_type="application/json")
    assert "nested" in error(r, 400, "MALFORMED_REQUEST")["message"]
    # "²" passes isdigit() and fails int()
    body = error(move(client, match_id, tokens[leader], {"version": 0, "move_id": "²"}), 400,
                 "UNKNOWN_MOVE_ID")
    assert body["legal_moves"] and body["version"] == 0
    # a body that is not sent as JSON: say what to send
    r = client.post(moves, data='{"version": 0, "move_id": "0"}', content_type="text/plain",
                    headers=auth)
    assert "Content-Type: application/json" in error(r, 415, "UNSUPPORTED_MEDIA_TYPE")["message"]
    assert client.get(f"/api/v1/matches/{match_id}").get_json()["version"] == 0


def test_an_option_out_of_range_names_the_option(client):
    r = client.post("/api/v1/matches", json={"variant": "hhl",
                                             "options": {"hands": 18446744073709551616}})
    body = error(r, 400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == ["options.hands"] and body["version"] is None
    assert body["message"] == "options.hands: " + body["errors"]["options.hands"][0]
    listed = client.get("/api/v1/matches?limit=100")
    assert listed.status_code == 200              # the lobby is not poisoned
    r = client.post("/api/v1/matches", json={"variant": "hhl", "seats": [
        {"kind": "person", "name": "n" * 1_000}] * 4})
    assert r.status_code in (400, 413)
