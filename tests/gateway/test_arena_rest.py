"""The arena through REST (docs/gateway.md, Arenas) against the suite's real engine, which
runs the hhl and domeng arenas with their residents: accounts and keys, every refusal
named as the engine names it, the leaderboard's ETag and 304, and a real `domino bot
--arena` process whose counted match shows on the board, in its profile, its matches and
its rating history — every answer held to the OpenAPI document."""

import secrets

import pytest
from gateway_support import error, wait_for
from openapi_schema_validator import OAS31Validator

from tests.arena.support import arena_bot

A = "/api/v1/arenas"
B = "/api/v1/arena/bots"


@pytest.fixture(scope="module")
def doc(app):
    return app.test_client().get("/api/v1/openapi.json").get_json()


def conforms(doc, path: str, method: str, status: int, body) -> None:
    """`body` is what the document says `method path` answers with `status`."""
    answer = doc["paths"][path][method]["responses"][str(status)]
    schema = answer["content"]["application/json"]["schema"]
    OAS31Validator({**schema, "components": doc["components"]}).validate(body)


def fresh_name() -> str:
    return "rest-" + secrets.token_hex(4)


def register(client, name=None, **headers):
    return client.post(B, json={"name": name or fresh_name(), "description": "a test bot"},
                       headers=headers)


def test_register_rotate_retire(client, doc):
    r = register(client)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    conforms(doc, B, "post", 201, made)
    name = made["bot"]["name"]
    assert made["bot_key"].startswith("dbk_") and made["bot"]["owner"] == "open"
    assert r.headers["Location"] == f"{B}/{name}"
    profile = client.get(r.headers["Location"]).get_json()
    assert profile["bot"] == made["bot"] and "bot_key" not in repr(profile)
    conforms(doc, B + "/{name}", "get", 200, profile)

    error(register(client, name), 409, "BOT_NAME_TAKEN")
    rotated = client.post(f"{B}/{name}/rotate")
    assert rotated.status_code == 200
    conforms(doc, B + "/{name}/rotate", "post", 200, rotated.get_json())
    assert rotated.get_json()["bot_key"] not in (made["bot_key"], "")
    retired = client.post(f"{B}/{name}/retire")
    assert retired.status_code == 200 and retired.get_json()["retired"]
    assert retired.get_json()["retired_unix_s"] > 0
    conforms(doc, B + "/{name}/retire", "post", 200, retired.get_json())
    for verb in ("rotate", "retire"):
        body = error(client.post(f"{B}/{name}/{verb}"), 409, "BOT_RETIRED")
        conforms(doc, B + "/{name}/" + verb, "post", 409, body)


def test_a_bot_key_is_no_operator_key(client, doc):
    key = register(client).get_json()["bot_key"]
    auth = {"Authorization": f"Bearer {key}"}
    body = error(register(client, **auth), 401, "BAD_KEY")
    conforms(doc, B, "post", 401, body)
    assert key not in repr(body)                       # a secret never comes back
    other = register(client).get_json()["bot"]["name"]
    error(client.post(f"{B}/{other}/rotate", headers=auth), 401, "BAD_KEY")
    error(client.post(f"{B}/{other}/retire", headers=auth), 401, "BAD_KEY")
    error(client.post("/api/v1/matches", json={"variant": "hhl"}, headers=auth), 401, "BAD_KEY")
    # a resident is the house's: no key may change it
    body = error(client.post(f"{B}/house-greedy/retire"), 403, "NOT_YOURS")
    conforms(doc, B + "/{name}/retire", "post", 403, body)


@pytest.mark.parametrize("body, field", [
    ({"name": "no spaces"}, "name"), ({"name": ""}, "name"), ({"name": "x" * 41}, "name"),
    ({}, "name"), ({"name": "ok", "description": "d" * 201}, "description"),
    ({"name": "ok", "extra": 1}, "extra"), ({"name": "house-mine"}, "name"),
    ({"name": "ok", "description": "tab\there"}, "description")])
def test_a_bad_registration_names_its_field(client, body, field):
    got = error(client.post(B, json=body), 400, "MALFORMED_REQUEST")
    assert list(got["errors"]) == [field], got


@pytest.mark.parametrize("path, field", [
    (A + "/hhl/leaderboard?versions=some", "versions"),
    (A + "/hhl/leaderboard?limit=1001", "limit"), (A + "/hhl/leaderboard?limit=x", "limit"),
    (B + "/house-greedy/matches?limit=0", "limit"),
    (B + "/house-greedy/matches?before=-1", "before"),
    (B + "/house-greedy/matches?before=nan", "before"),
    (B + "/house-greedy/history?limit=100001", "limit"),
    (B + "/house-greedy/history?version=" + "v" * 41, "version")])
def test_a_bad_query_names_its_field(client, path, field):
    got = error(client.get(path), 400, "MALFORMED_REQUEST")
    assert list(got["errors"]) == [field], got


def test_unknown_bots_and_arenas(client, doc):
    body = error(client.get(f"{B}/nobody-{secrets.token_hex(3)}"), 404, "UNKNOWN_BOT")
    conforms(doc, B + "/{name}", "get", 404, body)
    error(client.get(f"{B}/nobody-x/matches"), 404, "UNKNOWN_BOT")
    error(client.post(f"{B}/nobody-x/rotate"), 404, "UNKNOWN_BOT")
    body = error(client.get(f"{A}/chess/leaderboard"), 404, "UNKNOWN_ARENA")
    conforms(doc, A + "/{arena_id}/leaderboard", "get", 404, body)
    error(client.get(f"{B}/house-greedy/history?arena=chess"), 404, "UNKNOWN_ARENA")
    error(client.delete(f"{A}/hhl/leaderboard"), 405, "METHOD_NOT_ALLOWED")


def test_the_arenas_and_an_unchanged_board_answers_304(client, doc):
    arenas = client.get(A).get_json()
    conforms(doc, A, "get", 200, arenas)
    assert {a["arena_id"] for a in arenas["arenas"]} >= {"hhl", "domeng"}
    hhl = next(a for a in arenas["arenas"] if a["arena_id"] == "hhl")
    assert hhl["variant"] == "hhl" and hhl["options"]["hands"] == 4
    assert "house-greedy" in hhl["residents"] and isinstance(hhl["matches_counted"], str)
    first = client.get(f"{A}/hhl/leaderboard")
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache"
    assert 0 <= int(first.headers["Age"]) <= 1      # read in this request, or just before
    board = first.get_json()
    conforms(doc, A + "/{arena_id}/leaderboard", "get", 200, board)
    assert board["versions"] == "latest" and isinstance(board["last_sequence"], str)
    residents = [r for r in board["rows"] if r["resident"]]
    assert residents and all(r["online"] and r["last_seen_unix_s"] is None for r in residents)
    tag = first.headers["ETag"]
    again = client.get(f"{A}/hhl/leaderboard", headers={"If-None-Match": tag})
    if again.status_code == 200:      # a match ended in between: the new tag holds instead
        tag = again.headers["ETag"]
        again = client.get(f"{A}/hhl/leaderboard", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    assert again.headers["Age"].isdigit()
    other = client.get(f"{A}/hhl/leaderboard?versions=all&limit=2",
                       headers={"If-None-Match": tag})
    assert other.status_code == 200 and other.headers["ETag"] != tag
    assert len(other.get_json()["rows"]) == 2 and other.get_json()["versions"] == "all"


def test_a_bot_that_plays_shows_everywhere(client, doc, engine_address):
    made = register(client).get_json()
    name, key = made["bot"]["name"], made["bot_key"]
    before = client.get(f"{A}/hhl/leaderboard")
    bot = arena_bot(engine_address, key, version="r1", matches=1)
    try:
        def counted_row():
            board = client.get(f"{A}/hhl/leaderboard").get_json()
            return next((r for r in board["rows"] if r["name"] == name and r["matches"]), None)
        row = wait_for(counted_row, timeout=240)
        out, err = bot.communicate(timeout=60)
        assert bot.returncode == 0, err[-2000:]
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert row["version"] == "r1" and row["matches"] == 1 and not row["resident"]
    after = client.get(f"{A}/hhl/leaderboard", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and int(after.get_json()["last_sequence"]) > int(
        before.get_json()["last_sequence"])

    profile = client.get(f"{B}/{name}").get_json()
    conforms(doc, B + "/{name}", "get", 200, profile)
    assert [(v["arena_id"], v["version"]) for v in profile["versions"]] == [("hhl", "r1")]
    assert profile["versions"][0]["row"]["matches"] == 1

    page = client.get(f"{B}/{name}/matches?limit=1").get_json()
    conforms(doc, B + "/{name}/matches", "get", 200, page)
    (match,) = page["matches"]
    assert match["status"] == "counted" and name in [s["name"] for s in match["lineup"]]
    assert isinstance(match["result"]["sequence"], str) and len(match["result"]["scores"]) == 4
    assert page["more"] is False and page["next_before"] is None
    older = client.get(f"{B}/{name}/matches?before={match['created_unix_s']}").get_json()
    assert older["matches"] == []
    record = client.get(f"/api/v1/matches/{match['match_id']}/record")
    assert record.status_code == 200                  # the replay viewer's source

    history = client.get(f"{B}/{name}/history").get_json()
    conforms(doc, B + "/{name}/history", "get", 200, history)
    assert history["arena_id"] == "hhl" and history["version"] == "r1"
    (point,) = history["points"]
    assert point["sequence"] == match["result"]["sequence"]
    assert point["mu"] == pytest.approx(row["mu"]) and point["sigma"] == pytest.approx(
        row["sigma"])
