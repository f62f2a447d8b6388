"""The replay viewer's "Play from here": a forked match at the shown move, opened with the
seat to move taken by this browser and house bots at the others."""

from gateway_cdp import needs_chromium
from gateway_support import bot_seats, wait_for

from tests.fork.fork_support import plays

pytestmark = needs_chromium


def test_play_from_here_forks_the_replayed_match_at_the_shown_move(browser, live, client):
    r = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1},
                                             "seats": bot_seats(4, human=())})
    original = r.get_json()["match_id"]
    wait_for(lambda: client.get(f"/api/v1/matches/{original}").get_json()["status"] == "over")
    record = client.get(f"/api/v1/matches/{original}/record").get_json()
    # step 4 of the replay shows the first deal after its first four turns
    n = sum("play" in m for m in record["deals"][0]["moves"][:4])
    me = plays(record)[n]["seat"]
    b = browser
    b.goto(f"{live.url}/#/replay/{original}")
    b.wait("document.getElementById('rp-where').textContent.startsWith('Step 0')")
    for _ in range(4):
        b.click("#rp-next")
    assert b.js("document.getElementById('rp-fork').textContent") == f"Play from here as seat {me}"
    b.click("#rp-fork")
    b.wait(f"location.hash.startsWith('#/match/') && !location.hash.endsWith('{original}')")
    forked = b.js("location.hash.split('/')[2]")
    assert b.js(f"JSON.parse(localStorage.getItem('seat:{forked}')).seat") == me
    b.wait(f"document.getElementById('tb-status').textContent.includes('you are seat {me}')")
    match = client.get(f"/api/v1/matches/{forked}").get_json()
    assert (match["version"], match["to_move"]) == (n, me)   # the prefix, then my turn
    assert [s["strategy"] for s in match["seats"]] == ["random" if s != me else None
                                                       for s in range(4)]
