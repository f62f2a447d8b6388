"""What a reload reads: the REST view's history (GET .../view, GET /matches/{id}) and the
event stream's snapshot hold the engine's events where the live stream sent them, so the
clock's moves are named as the clock's and HHL's time limit is told (HHL-10); the web page
narrates both after a reload.

The engine runs in this process on a manual clock (a turn clock, or the time limit, runs
out only when the test moves it), behind a real gRPC server and the real gateway server."""

import pytest
from gateway_cdp import needs_chromium
from gateway_support import LiveGateway, sse_messages
from openapi_schema_validator import OAS31Validator

from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from gateway import create_app
from plumbing.alarms import ManualAlarms

M = "/api/v1/matches"
CLOCK_MS = 40_000       # a person's turn clock here: 40 s of the manual clock


@pytest.fixture
def manual():
    """(the engine, its clock, a Flask client, a live gateway), the engine in process."""
    alarms = ManualAlarms()
    engine = Engine.open(":memory:", alarms=alarms)
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=16)
    address = f"127.0.0.1:{port}"
    app = create_app({"ENGINE_ADDRESS": address, "HOUSE_STRATEGIES": [], "TESTING": True})
    live = LiveGateway(address, [])
    yield engine, alarms, app.test_client(), live
    live.close()
    app.extensions["engine"].close()
    server.stop(0).wait()
    engine.close()


def seated(client, options) -> tuple[str, list[dict]]:
    created = client.post(M, json={"variant": "hhl", "options": options, "seed": 3,
                                   "person_clock_ms": CLOCK_MS}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"{M}/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(4)]
    return match_id, [{"Authorization": f"Bearer {t}"} for t in tokens]


def histories(client, match_id, auths) -> list[list[dict]]:
    """The deal's history as a reload reads it: the spectator's, and each seat's (its own
    tiles cut, so they compare)."""
    spectator = client.get(f"{M}/{match_id}").get_json()["view"]["history"]
    seats = [[{k: v for k, v in e.items() if k != "tiles"}
              for e in client.get(f"{M}/{match_id}/view", headers=a).get_json()["view"]["history"]]
             for a in auths]
    return [spectator, *seats]


def test_a_reload_names_the_clocks_move_and_the_time_limit(manual):
    engine, alarms, client, live = manual
    match_id, auths = seated(client, {"minutes": 1})
    referee = engine.get(match_id)
    mover = referee.match.to_move
    alarms.advance(CLOCK_MS / 1000)            # 40 s: the mover's clock plays its lead
    nxt = referee.match.to_move
    state = client.get(f"{M}/{match_id}/view", headers=auths[nxt]).get_json()
    r = client.post(f"{M}/{match_id}/moves", headers=auths[nxt],
                    json={"version": state["version"], "move_id": state["legal_moves"][0]["id"]})
    assert r.status_code == 200, r.get_json()
    alarms.advance(20)                          # 60 s: the time is up, before the next clock

    doc = client.get("/api/v1/openapi.json").get_json()
    schema = doc["paths"][M + "/{match_id}/view"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    for history in histories(client, match_id, auths):
        kinds = [(e["kind"], e.get("seat")) for e in history]
        assert kinds[:4] == [("deal_start", None), ("timeout", mover), ("play", mover),
                             ("play", nxt)]
        assert history[-1] == {"kind": "time_up"}
    state = client.get(f"{M}/{match_id}/view", headers=auths[0]).get_json()
    OAS31Validator({**schema, "components": doc["components"]}).validate(state)

    # The stream's snapshot is the same history, as a reconnecting page reads it.
    first = sse_messages(f"{live.url}{M}/{match_id}/events", until="snapshot")[0]
    assert first["data"]["state"]["view"]["history"] == histories(client, match_id, auths)[0]


@needs_chromium
def test_the_page_narrates_the_clocks_move_and_the_time_limit_after_a_reload(manual, browser):
    engine, alarms, client, live = manual
    match_id, _ = seated(client, {"minutes": 1})
    alarms.advance(CLOCK_MS / 1000)            # the clock plays the lead
    alarms.advance(20)                          # and the time is up
    b = browser
    b.goto(f"{live.url}/#/match/{match_id}")    # a fresh page: the log is the history's
    b.wait("document.querySelectorAll('#tb-log li').length >= 4")
    log = b.js("[...document.querySelectorAll('#tb-log li')].map(li => li.textContent)")
    assert any("ran out of time; the clock played" in line for line in log), log
    assert log[-1] == "Time is up: the hand in progress is the last.", log
