"""Ladders through REST against a real engine: create one, enlist its entrants' bots as real
`domino bot` processes (pool "<key>/<entrant>"), watch it finish, read the standings and the
matches; the error paths; the OpenAPI document; and the ladder view in headless Chromium
(the standings table and the SVG rating chart, updating by polling, also on a phone)."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys

import pytest
from gateway_cdp import needs_chromium
from gateway_support import error, wait_for
from openapi_spec_validator import validate

from ladders.standings import compute

ENTRANTS = ["random", "greedy"]
SMALL = {"variant": "hhl", "options": {"hands": 1}, "entrants": ENTRANTS, "matches": 4,
         "seed": 5, "concurrency": 2}
FAULT_KINDS = {"timeouts", "illegal", "disconnects", "crashes", "spam"}


class Bots:
    """`domino bot` processes enlisted in a ladder's pools, one per entrant (two streams:
    with two entrants at an HHL table each holds two seats of every match)."""

    def __init__(self, address: str, log_path: str):
        self.address, self.log_path, self.procs = address, log_path, []

    def enlist(self, ladder: dict) -> None:
        with open(self.log_path, "a") as log:
            for k, pool in enumerate(ladder["pools"]):
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "domino_cli", "bot", "--engine", self.address,
                     "--strategy", pool["entrant"], "--pool", pool["pool"], "--bots", "2",
                     "--capacity", "2", "--matches", "0", "--seed", str(k)],
                    stdout=subprocess.DEVNULL, stderr=log,
                    env={**os.environ, "DOMINO_POOL_SECRET": pool["enlist_secret"]}))

    def stop(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs = []


@pytest.fixture
def bots(engine_address, tmp_path):
    b = Bots(engine_address, str(tmp_path / "ladder-bots.log"))
    yield b
    b.stop()




def create(client, **changes) -> dict:
    body = {k: v for k, v in {**SMALL, **changes}.items() if v is not None}
    r = client.post("/api/v1/ladders", json=body)
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    assert r.headers["Location"].endswith(f"/api/v1/ladders/{created['ladder_id']}")
    return created


def wait_done(client, ladder_id, timeout=40.0) -> dict:
    def done():
        got = client.get(f"/api/v1/ladders/{ladder_id}").get_json()
        return got if got["status"] == "done" else None
    return wait_for(done, timeout=timeout, step=0.2)


# ----- a whole ladder -------------------------------------------------------------------------
def test_a_ladder_created_over_rest_plays_out_with_enlisted_bots(client, bots):
    created = create(client)
    ladder_id, key = created["ladder_id"], created["key"]
    assert created["status"] == "running" and created["matches_counted"] == 0
    assert created["variant"] == "hhl" and created["options"] == {
        "minutes": None, "hands": 1, "profile": "rulings", "dead_stock": "stop"}
    assert created["entrants"] == ENTRANTS and created["format"] == "rotation"
    assert created["target_matches"] == 4 and created["until_separated"] is False
    # The seed is secret while the ladder runs: it tells every hidden tile of its matches.
    assert created["seed"] is None and created["leader"] is None
    assert [(p["entrant"], p["pool"]) for p in created["pools"]] == [(e, f"{key}/{e}")
                                                                     for e in ENTRANTS]
    assert all(p["enlist_secret"].startswith("ps_") for p in created["pools"])
    assert "enlist_secret" not in str(client.get(f"/api/v1/ladders/{ladder_id}").get_json())

    bots.enlist(created)
    info = wait_done(client, ladder_id)
    assert info["seed"] == "5"     # over: the seed may be told (a 64-bit integer: a string)
    assert info["matches_counted"] == 4 and info["matches_playing"] == 0
    assert info["matches_voided"] == 0 and info["leader"] in ENTRANTS

    listed = client.get("/api/v1/ladders").get_json()["ladders"]
    assert listed[0]["ladder_id"] == ladder_id     # newest first
    done_ids = [x["ladder_id"] for x in client.get("/api/v1/ladders?status=done").get_json()["ladders"]]
    assert ladder_id in done_ids
    assert ladder_id not in [x["ladder_id"] for x in
                             client.get("/api/v1/ladders?status=running").get_json()["ladders"]]

    s = client.get(f"/api/v1/ladders/{ladder_id}/standings").get_json()
    assert s["ladder_id"] == ladder_id and s["variant"] == "hhl"
    assert s["matches"] == 4 and s["voided"] == 0 and isinstance(s["separated"], bool)
    rows = s["entries"]
    assert [r["place"] for r in rows] == [1, 2]
    assert sorted(r["entrant"] for r in rows) == sorted(ENTRANTS)
    assert rows[0]["entrant"] == info["leader"]
    assert rows[0]["score"] >= rows[1]["score"]
    for r in rows:
        assert math.isclose(r["score"], r["mu"] - 3 * r["sigma"], abs_tol=1e-9)
        assert r["matches"] == 4            # two entrants: both sit at every table
        assert r["ci95"] is None or r["ci95"] > 0
        assert set(r["faults"]) == FAULT_KINDS and not any(r["faults"].values())
    assert isinstance(rows[0]["separated_from_next"], bool)
    assert rows[-1]["separated_from_next"] is None
    assert len(s["history"]) == 4
    assert all(set(p["scores"]) == set(ENTRANTS) for p in s["history"])
    assert {e: round(v, 3) for e, v in s["history"][-1]["scores"].items()} == {
        r["entrant"]: round(r["score"], 3) for r in rows}

    matches = client.get(f"/api/v1/ladders/{ladder_id}/matches").get_json()["matches"]
    assert sorted(m["index"] for m in matches) == [0, 1, 2, 3]
    assert all(m["status"] == "counted" for m in matches)
    for m in matches:
        assert len(m["lineup"]) == 4 and set(m["lineup"]) == set(ENTRANTS)
        assert m["result"]["lineup"] == m["lineup"] and m["result"]["deals"] == 1
        played = client.get(f"/api/v1/matches/{m['match_id']}").get_json()
        assert played["status"] == "over"
        assert [seat["name"] for seat in played["seats"]] == m["lineup"]
        record = client.get(f"/api/v1/matches/{m['match_id']}/record")
        assert record.status_code == 200
        assert m["result"]["seed"] == record.get_json()["seed"] and m["result"]["seed"].isdigit()
    # the standings are what the result rows say (recomputed here from the REST answer)
    again = compute("hhl", ENTRANTS, [m["result"] for m in matches])
    assert [r["entrant"] for r in again["entries"]] == [r["entrant"] for r in rows]
    for mine, theirs in zip(again["entries"], rows, strict=True):
        assert math.isclose(mine["mu"], theirs["mu"]) and math.isclose(mine["sigma"], theirs["sigma"])
        assert math.isclose(mine["mean"], theirs["mean"])

    assert client.get(f"/api/v1/ladders/{ladder_id}").get_json() == info


def test_until_separated_and_duplicate_are_taken_and_answered(client):
    created = create(client, matches=None, until_separated=True, max_matches=30,
                     format="duplicate", entrants=["nobody-a", "nobody-b"], seat_wait_s=600)
    # no bots enlist: its first set's matches wait for them
    assert created["until_separated"] is True and created["target_matches"] is None
    assert created["max_matches"] == 30 and created["format"] == "duplicate"
    assert created["options"] == {"minutes": None, "hands": 1, "profile": "rulings",
                                  "dead_stock": "stop"}
    s = client.get(f"/api/v1/ladders/{created['ladder_id']}/standings").get_json()
    assert s["matches"] == 0 and [r["matches"] for r in s["entries"]] == [0, 0]
    assert all(r["ci95"] is None for r in s["entries"]) and s["history"] == []
    wait_for(lambda: client.get(f"/api/v1/ladders/{created['ladder_id']}/matches")
             .get_json()["matches"], timeout=10)
    waiting = client.get(f"/api/v1/ladders/{created['ladder_id']}/matches").get_json()["matches"]
    assert all(m["status"] == "playing" and m["result"] is None for m in waiting)
    # a duplicate set: the same deal once per rotation of the seats
    assert {m["set"] for m in waiting} == {0}


# ----- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["", "/standings", "/matches"])
def test_an_unknown_ladder_is_404(client, path):
    body = error(client.get(f"/api/v1/ladders/no-such-ladder{path}"), 404, "UNKNOWN_LADDER")
    assert "no-such-ladder" in body["message"] and body["version"] is None


@pytest.mark.parametrize("change,words", [
    ({"variant": None}, "variant"),
    ({"variant": "chess"}, "variant"),
    ({"entrants": ["solo"]}, "entrants"),
    ({"entrants": ["a", "a"]}, "once"),
    ({"entrants": ["a", "b c"]}, "entrants"),
    ({"entrants": "a,b"}, "entrants"),
    ({"format": "swiss"}, "format"),
    ({"matches": None}, "matches"),
    ({"matches": 0}, "matches"),
    ({"matches": "4"}, "matches"),
    ({"until_separated": True}, "matches"),
    ({"max_matches": 10}, "max_matches"),
    ({"options": {"cycles": 1}}, "cycles"),
    ({"options": {"hands": 0}}, "options"),
    ({"seed": -1}, "seed"),
    ({"seed": "five"}, "seed"),
    ({"seed": str(2**63)}, "seed"),
    ({"concurrency": 0}, "concurrency"),
    ({"clock_ms": 5}, "clock_ms"),
    ({"colour": "red"}, "colour"),
])
def test_a_malformed_ladder_is_400_naming_the_field(client, change, words):
    body = {**SMALL, **change}
    body = {k: v for k, v in body.items() if v is not None}
    before = len(client.get("/api/v1/ladders").get_json()["ladders"])
    answer = error(client.post("/api/v1/ladders", json=body), 400, "MALFORMED_REQUEST")
    assert words in answer["message"], answer
    assert answer["errors"]
    assert len(client.get("/api/v1/ladders").get_json()["ladders"]) == before   # nothing made


def test_a_ladder_body_that_is_not_json_is_400(client):
    error(client.post("/api/v1/ladders", data="{nope", content_type="application/json"), 400,
          "MALFORMED_REQUEST")
    error(client.get("/api/v1/ladders?status=asleep"), 400, "MALFORMED_REQUEST")


def test_ladders_are_in_the_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    validate(doc)
    paths = doc["paths"]
    assert set(paths["/api/v1/ladders"]) >= {"get", "post"}
    post = paths["/api/v1/ladders"]["post"]
    assert {"201", "400", "503", "504"} <= set(post["responses"]) and "422" not in post["responses"]
    for sub in ("", "/standings", "/matches"):
        get = paths["/api/v1/ladders/{ladder_id}" + sub]["get"]
        assert {"200", "404"} <= set(get["responses"])
        schema = get["responses"]["404"]["content"]["application/json"]["schema"]
        assert schema["allOf"][0]["$ref"].endswith("/Error")
        assert "UNKNOWN_LADDER" in schema["allOf"][1]["properties"]["reason"]["enum"]
    assert "Location" in post["responses"]["201"]["headers"]
    schemas = doc["components"]["schemas"]
    row = schemas["StandingsEntry"]["properties"]
    assert {"place", "entrant", "mu", "sigma", "score", "matches", "mean", "ci95", "faults",
            "separated_from_next"} <= set(row)
    assert "null" in row["ci95"]["type"]          # OpenAPI 3.1: type [number, null]
    assert {"entries", "separated", "history"} <= set(schemas["Standings"]["required"])


# ----- the web page ---------------------------------------------------------------------------


@needs_chromium
def test_the_ladder_view_shows_standings_and_a_chart_updating_live(browser, live, client, bots,
                                                                   tmp_path):
    b = browser
    created = create(client, seed=9)
    ladder_id = created["ladder_id"]
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('lobby-ladders')")
    b.click_until("#lobby-ladders", "location.hash === '#/ladders'")   # reachable from the lobby
    b.wait(f"!!document.querySelector('#lad-list a[data-ladder=\"{ladder_id}\"]')")
    # by keyboard: focus the ladder's link and press Enter
    b.js(f"document.querySelector('#lad-list a[data-ladder=\"{ladder_id}\"]').focus()")
    b.key("Enter", 13)
    b.wait(f"location.hash === '#/ladder/{ladder_id}'", timeout=5)
    b.wait("document.querySelectorAll('#ld-entries tr').length === 2")
    assert b.js("document.getElementById('ld-status').dataset.status") == "running"
    assert "domino bot" in b.js("document.getElementById('ld-enlist').textContent")
    assert b.js("document.querySelectorAll('#ld-chart svg polyline').length") == 2

    bots.enlist(created)                                    # the page polls: it sees them play
    b.wait("document.getElementById('ld-status').dataset.status === 'done'", timeout=40)
    cells = b.js("[...document.querySelectorAll('#ld-entries tr')].map(tr => "
                 "[...tr.children].map(td => td.textContent))")
    s = client.get(f"/api/v1/ladders/{ladder_id}/standings").get_json()
    assert [c[1] for c in cells] == [r["entrant"] for r in s["entries"]]
    for c, r in zip(cells, s["entries"], strict=True):
        assert c[0] == str(r["place"]) and c[2] == f"{r['score']:.2f}" and c[3] == "4"
        assert c[4].startswith(f"{r['mean']:.2f} ±") and c[5] == "none"
    assert cells[0][6] in ("yes", "no") and cells[-1][6] == "—"
    heads = b.js("[...document.querySelectorAll('#ld-table thead th')].map(th => th.textContent)")
    assert heads == ["#", "Entrant", "μ−3σ", "Matches", "Mean ± 95% CI", "Faults", "Separated from next"]
    chart = b.js("""(() => { const svg = document.querySelector('#ld-chart svg');
        return {lines: [...svg.querySelectorAll('polyline')]
                    .map(p => p.getAttribute('points').split(' ').length),
                title: svg.querySelector('title').textContent, role: svg.getAttribute('role')}; })()""")
    assert chart["lines"] == [5, 5]                          # the start and 4 counted matches
    assert chart["role"] == "img" and "Rating" in chart["title"]
    assert b.js("document.getElementById('ld-enlist-panel').hidden")
    assert b.js("document.querySelectorAll('#ld-matches a[href^=\"#/replay/\"]').length") == 4
    # the legend highlights an entrant's line and row, by keyboard too
    b.js("document.querySelector('#ld-legend button[data-entrant=\"greedy\"]').focus()")
    for kind in ("keyDown", "keyUp"):     # a button acts on the key press that types "\r"
        b.send("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                          "windowsVirtualKeyCode": 13,
                                          **({"text": "\r"} if kind == "keyDown" else {})})
    b.wait("document.querySelector('#ld-legend button[data-entrant=\"greedy\"]')"
           ".getAttribute('aria-pressed') === 'true'", timeout=5)
    assert b.js("document.querySelector('#ld-chart g.line.dim').dataset.entrant") == "random"
    assert b.js("document.querySelector('#ld-entries tr.hl').dataset.entrant") == "greedy"
    shots = [tmp_path / "ladder.png", tmp_path / "ladder-phone.png"]
    b.js("window.scrollTo(0, 0)")
    b.screenshot(str(shots[0]))

    # a phone: the page never scrolls sideways; the table scrolls inside its box if it must
    b.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844,
                                                  "deviceScaleFactor": 1, "mobile": True})
    b.js("window.__before_reload = true; location.reload()")
    b.wait("!window.__before_reload && document.querySelectorAll('#ld-entries tr').length === 2 && "
           "!!document.querySelector('#ld-chart svg')")
    assert b.js("document.documentElement.scrollWidth") <= 400
    assert b.js("document.querySelector('#ld-chart svg').getBoundingClientRect().width") <= 390
    b.screenshot(str(shots[1]))
    if os.environ.get("GATEWAY_SCREENSHOTS"):
        for shot in shots:
            shutil.copy(shot, os.path.join(os.environ["GATEWAY_SCREENSHOTS"], shot.name))


def test_a_ladder_is_cancelled_by_its_creator_over_rest(client):
    # A seed past 2^53, as a string (a JavaScript number would round it): it comes back whole.
    created = create(client, entrants=["nobody-x", "nobody-y"], seat_wait_s=600,
                     seed="5893219166477011277")
    r = client.post(f"/api/v1/ladders/{created['ladder_id']}/cancel")
    assert r.status_code == 200, r.get_json()
    cancelled = r.get_json()
    assert cancelled["status"] == "cancelled" and cancelled["seed"] == "5893219166477011277"
    assert all(m["status"] == "voided" for m in
               client.get(f"/api/v1/ladders/{created['ladder_id']}/matches").get_json()["matches"])
    error(client.post(f"/api/v1/ladders/{created['ladder_id']}/cancel"), 409, "LADDER_OVER")
    error(client.post("/api/v1/ladders/nope/cancel"), 404, "UNKNOWN_LADDER")
