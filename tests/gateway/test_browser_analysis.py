"""The replay viewer's analysis panel in Chromium: "Analyse this match" polls the analysis
to its end, then shows each seat's value over the match (seat-honest and perfect
information, SVG), the mistakes and blunders marked on it and listed ("best was ..."), and
each hand's skill/luck split as bars."""

import re

from gateway_cdp import needs_chromium
from gateway_support import bot_seats, wait_for

pytestmark = needs_chromium


def test_the_replay_viewer_shows_the_analysis(browser, live, client):
    r = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1},
                                             "seats": bot_seats(4, human=())})
    match_id = r.get_json()["match_id"]
    wait_for(lambda: client.get(f"/api/v1/matches/{match_id}").get_json()["status"] == "over")
    b = browser
    b.goto(f"{live.url}/#/replay/{match_id}")
    b.wait("document.getElementById('rp-where').textContent.startsWith('Step 0')")
    b.click("#rp-analyse")
    b.wait("['Analysis done', 'Analysis (kept', 'The analysis failed'].some(w => "
           "document.getElementById('rp-an-status').textContent.startsWith(w))", timeout=600)
    assert b.js("document.getElementById('rp-an-status').textContent") == "Analysis done."
    assert b.js("document.querySelectorAll('#rp-an svg polyline.an-honest').length") == 4
    assert b.js("document.querySelectorAll('#rp-an svg polyline.an-pi').length") == 4
    assert b.js("document.querySelectorAll('#rp-an .an-split').length") == 4   # 4 seats, 1 hand
    marks = b.js("[...document.querySelectorAll('#rp-an .an-marks li')].map(x => x.textContent)")
    assert b.js("document.querySelectorAll('#rp-an svg circle.an-mark').length") == len(marks)
    for text in marks:
        assert re.fullmatch(r"Seat \d \(random\), hand 1, play \d+: .+ is a (mistake|blunder): "
                            r"best was .+ \(\+\d+\)", text), text
    split = b.js("document.querySelector('#rp-an .an-split').textContent")
    assert re.match(r"Seat 0 \(random\), hand 1: result [+-]?\d+", split), split
    # a second visit is answered from the store
    b.js("location.reload()")
    b.wait("document.getElementById('rp-where').textContent.startsWith('Step 0') && "
           "document.getElementById('rp-an-status').textContent === ''")
    b.click("#rp-analyse")
    b.wait("document.getElementById('rp-an-status').textContent.startsWith('Analysis (kept')")
