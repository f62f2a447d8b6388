"""GET /api/v1/matches/{id}/worlds: SampleWorlds over REST, with the seat token.

Against an engine of its own (in this process) whose seats may take 1000 worlds at once
and one more a second, so the rate is reached in two calls."""

import pytest
from gateway_support import error

from engine_service.core.engine import Engine
from engine_service.core.sampling.service import WorldService
from engine_service.core.storage.sqlite import SQLiteStore
from engine_service.rpc.server import start_server
from engine_service.rules import worlds
from engine_service.rules.tiles import Tile
from gateway import create_app


@pytest.fixture(scope="module")
def rest():
    engine = Engine(SQLiteStore(":memory:"), worlds=WorldService(rate=1, burst=1000))
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=8)
    app = create_app({"ENGINE_ADDRESS": f"127.0.0.1:{port}", "HOUSE_STRATEGIES": [],
                      "TESTING": True})
    yield app.test_client(), engine
    app.extensions["engine"].close()
    server.stop(0).wait()
    engine.close()


def seated(client, variant="hhl"):
    created = client.post("/api/v1/matches", json={"variant": variant, "seed": 4,
                                                   "options": {"hands": 1} if variant == "hhl"
                                                   else {}}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"/api/v1/matches/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(created["num_seats"])]
    return match_id, [{"Authorization": f"Bearer {t}"} for t in tokens]


def test_worlds_for_the_token_seat_agree_with_its_view(rest):
    client, engine = rest
    match_id, auth = seated(client)
    r = client.get(f"/api/v1/matches/{match_id}/worlds?count=25&seed=18446744073709551615",
                   headers=auth[2])
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["match_id"], body["seat"], body["version"]) == (match_id, 2, 0)
    # a uint64, so a decimal string (gateway/int64.py)
    assert body["exact"] is True and int(body["consistent_worlds"]) > 1000
    view = engine.get(match_id).match.view(2)
    consistent = worlds.checker(view)
    for w in body["worlds"]:
        assert w["hands"][2] == view["hand"]
        world = worlds.World(tuple(tuple(Tile.parse(t) for t in h) for h in w["hands"]),
                             tuple(Tile.parse(t) for t in w["rest"]))
        assert consistent(world)
    again = client.get(f"/api/v1/matches/{match_id}/worlds?count=25&seed=18446744073709551615",
                       headers=auth[2]).get_json()
    assert again["worlds"] == body["worlds"]      # the same view and seed: the same worlds


@pytest.mark.parametrize("query,field", [
    ("", "count"), ("count=0", "count"), ("count=1001", "count"), ("count=x", "count"),
    ("count=3&seed=-1", "seed"), ("count=3&seed=18446744073709551616", "seed"),
    ("count=3&seed=1.5", "seed"),
])
def test_bad_queries_are_400_naming_the_field(rest, query, field):
    client, _ = rest
    match_id, auth = seated(client, "domeng")
    body = error(client.get(f"/api/v1/matches/{match_id}/worlds?{query}", headers=auth[0]),
                 400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == [field], body


def test_no_token_a_bad_token_an_unknown_match(rest):
    client, _ = rest
    match_id, auth = seated(client, "domeng")
    error(client.get(f"/api/v1/matches/{match_id}/worlds?count=3"), 401, "NO_TOKEN")
    error(client.get(f"/api/v1/matches/{match_id}/worlds?count=3",
                     headers={"Authorization": "Bearer nope"}), 401, "BAD_TOKEN")
    error(client.get("/api/v1/matches/nosuchmatch/worlds?count=3", headers=auth[0]),
          404, "UNKNOWN_MATCH")


def test_a_seat_over_its_rate_gets_429(rest):
    client, _ = rest
    match_id, auth = seated(client, "domeng")
    url = f"/api/v1/matches/{match_id}/worlds"
    assert len(client.get(f"{url}?count=1000", headers=auth[1]).get_json()["worlds"]) == 1000
    body = error(client.get(f"{url}?count=10", headers=auth[1]), 429, "RATE_LIMITED")
    assert "try again in" in body["message"] and body["version"] == 0
    assert client.get(f"{url}?count=10", headers=auth[3]).status_code == 200   # per seat
