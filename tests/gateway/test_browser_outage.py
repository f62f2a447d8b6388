"""The match page across an engine outage, in headless Chromium: a real `domino engine` on a
file store, stopped while the page watches a match and started again on the same port and
store. The page notices, says it is reconnecting, and once the engine is back shows the
version and the seat to move the server has, moves made meanwhile included, with no reload."""

import pytest
from gateway_cdp import needs_chromium
from gateway_support import LiveGateway, seat_everyone, start_engine, wait_for

from gateway import create_app

pytestmark = needs_chromium

STATUS = "document.getElementById('tb-status').textContent"
TURN = "document.getElementById('tb-turn').textContent"
CONN = "document.getElementById('tb-conn')"


def move(client, match_id, auths) -> str:
    """The seat to move plays its first legal move in text order; the move's text."""
    match = client.get(f"/api/v1/matches/{match_id}").get_json()
    seat = match["to_move"]
    state = client.get(f"/api/v1/matches/{match_id}/view", headers=auths[seat]).get_json()
    text = min(m["text"] for m in state["legal_moves"])
    r = client.post(f"/api/v1/matches/{match_id}/moves", headers=auths[seat],
                    json={"version": state["version"], "move_text": text})
    assert r.status_code == 200, r.get_json()
    return text


@pytest.fixture
def own_engine(tmp_path):
    """An engine of this test's own, which the test stops and starts: [process, port]."""
    db = str(tmp_path / "engine.sqlite3")
    proc, port = start_engine(db, 0, str(tmp_path / "engine.log"))
    held = {"proc": proc, "port": port, "db": db, "log": str(tmp_path / "engine.log")}
    yield held
    held["proc"].terminate()
    held["proc"].wait(60)


def test_the_page_recovers_after_the_engine_comes_back(browser, own_engine):
    address = f"127.0.0.1:{own_engine['port']}"
    app = create_app({"ENGINE_ADDRESS": address, "HOUSE_STRATEGIES": [], "TESTING": True})
    client = app.test_client()
    gw = LiveGateway(address, [])
    try:
        match_id, auths = seat_everyone(client, "hhl", 7, {"hands": 1})
        # every seat a person's, each move chosen here: nothing moves unless the test moves it
        for _ in range(3):
            move(client, match_id, auths)
        before = client.get(f"/api/v1/matches/{match_id}").get_json()

        b = browser
        b.goto(f"{gw.url}/#/match/{match_id}")
        b.wait(f"{STATUS}.includes('version {before['version']} ')")
        assert b.js(f"{CONN}.hidden")

        own_engine["proc"].terminate()
        own_engine["proc"].wait(60)
        b.wait(f"!{CONN}.hidden && {CONN}.textContent.includes('reconnecting')", timeout=30)
        assert b.js(TURN) == "Reconnecting…"      # no clock counted while out of touch

        proc, port = start_engine(own_engine["db"], own_engine["port"], own_engine["log"])
        own_engine["proc"] = proc
        assert port == own_engine["port"]
        # the gateway's channel to the engine comes back on its own backoff
        wait_for(lambda: client.get(f"/api/v1/matches/{match_id}").status_code == 200, timeout=60)
        # moves the page's stream never carried: made while it was still reconnecting, or after
        target = before["version"] + 3
        for _ in range(3):
            move(client, match_id, auths)
        after = client.get(f"/api/v1/matches/{match_id}").get_json()
        assert after["version"] == target
        # caught up: a watcher's page shows the events it was behind on at its pace, and
        # marks the seat to move only once it is live again (app.js render)
        b.wait(f"{STATUS}.includes('version {target} ') && {CONN}.hidden && "
               "document.getElementById('tb-behind').textContent === 'live'", timeout=40)
        to_move = after["to_move"]
        assert b.js("document.querySelector('#tb-seats li.to-move strong').textContent") == \
            f"Seat {to_move} (player)"
        assert b.js(TURN).startswith(f"Seat {to_move} (player) to move")
        # and the stream is live again: one more move arrives without a reload
        text = move(client, match_id, auths)
        b.wait(f"{STATUS}.includes('version {target + 1} ')", timeout=20)
        b.wait("[...document.querySelectorAll('#tb-log li')].some(li => li.textContent"
               f".startsWith('Seat {to_move} (player) ') && li.textContent.includes(' {text.split()[0]}'))",
               timeout=20)
        assert b.js("performance.getEntriesByType('navigation').length") == 1   # never reloaded
    finally:
        gw.close()
        app.extensions["engine"].close()
