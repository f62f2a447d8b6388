"""The variants table against the rules core, CORS when configured, the JSON error body for
unexpected failures, and the engine client's one channel per process."""

import pytest

from engine_service import rules
from gateway import create_app
from gateway.variants import RULES, SEATS


def test_variants_match_the_rules_core(client):
    body = client.get("/api/v1/variants").get_json()
    assert body["strategies"] == ["random"]
    assert [v["id"] for v in body["variants"]] == sorted(rules.VARIANTS, key=["hhl", "domeng"].index)
    for v in body["variants"]:
        game = rules.new_match(v["id"], {}, seed=0)
        assert v["seats"] == game.num_seats == SEATS[v["id"]] and v["rules"] == RULES[v["id"]]
        assert v["name"] == type(game).title
        specs = type(game).option_specs()
        assert {o["name"] for o in v["options"]} == set(game.options) == set(specs)
        for o in v["options"]:
            assert o["default"] == game.options[o["name"]] == specs[o["name"]].default
            assert (o["min"], o["max"]) == (specs[o["name"]].lo, specs[o["name"]].hi)
            assert tuple(o["choices"]) == specs[o["name"]].choices
            assert o["type"] == ("enum" if specs[o["name"]].is_enum else "integer")


def test_a_match_of_the_literal_profile_shows_its_readings_in_its_view(client):
    """profile=literal through REST: the engine fills in each reading, the view carries the
    options in force (a look-ahead plays them), and a reading given wins over the profile."""
    r = client.post("/api/v1/matches", json={"variant": "domeng", "options": {
        "profile": "literal", "first_lead": "double"}})
    assert r.status_code == 201, r.get_json()
    view = client.get(f"/api/v1/matches/{r.get_json()['match_id']}").get_json()["view"]
    assert view["options"] == {"cycles": 1, "round_cap": 200, "profile": "literal",
                               "closing_pass": "paid", "first_lead": "double"}


def test_cors_is_off_by_default_and_on_for_configured_origins(engine_address):
    plain = create_app({"ENGINE_ADDRESS": engine_address}).test_client()
    r = plain.get("/api/v1/variants", headers={"Origin": "https://elsewhere.example"})
    assert "Access-Control-Allow-Origin" not in r.headers
    app = create_app({"ENGINE_ADDRESS": engine_address,
                      "CORS_ORIGINS": ["https://front.example"]}).test_client()
    r = app.get("/api/v1/variants", headers={"Origin": "https://front.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "https://front.example"
    r = app.options("/api/v1/matches/x/moves", headers={
        "Origin": "https://front.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, Content-Type"})
    assert r.status_code == 200
    assert "Authorization" in r.headers["Access-Control-Allow-Headers"]
    assert "POST" in r.headers["Access-Control-Allow-Methods"]
    r = app.get("/api/v1/variants", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in r.headers
    anyone = create_app({"ENGINE_ADDRESS": engine_address, "CORS_ORIGINS": "*"}).test_client()
    r = anyone.get("/api/v1/variants", headers={"Origin": "https://x.example"})
    assert r.headers["Access-Control-Allow-Origin"] == "*"


def test_an_unexpected_failure_is_a_json_500(engine_address):
    class Broken:
        def list_matches(self, *args):
            raise RuntimeError("boom")

        def close(self):
            pass
    app = create_app({"ENGINE_CLIENT": Broken()})
    r = app.test_client().get("/api/v1/matches")
    assert r.status_code == 500
    assert r.get_json()["reason"] == "INTERNAL" and "boom" not in r.get_json()["message"]


def test_one_channel_per_process(app):
    client = app.extensions["engine"]
    assert client.stub is client.stub
    assert client.timeout > 0 and client.watch_timeout > 0


@pytest.mark.parametrize("path", ["/api/v1", "/api/v1/"])
def test_the_api_root_points_to_the_docs(client, path):
    r = client.get(path)
    assert r.status_code in (301, 302, 308) and r.headers["Location"].endswith("/api/v1/docs")
