"""The rest of the page in headless Chromium: the rules page reached from the header and the
lobby (both games' headings, the anchors, readable on a phone), the lobby's short list of
finished matches and the view of all of them, the favicon, and the sentences narrate.js
builds (you lead / Seat 2 leads, 1 tile / 2 tiles)."""

import json

from gateway_cdp import needs_chromium
from gateway_support import bot_seats, wait_for

pytestmark = needs_chromium

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}


def test_the_rules_are_one_click_from_the_page(browser, live):
    b = browser
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form')")
    b.click("#nav-rules")
    b.wait("location.pathname === '/rules' && document.readyState === 'complete'")
    assert b.js("document.querySelector('h1').textContent") == "Rules of play"
    assert b.js("document.getElementById('homo-homini-lupus-hhl').tagName") == "H2"
    assert b.js("document.getElementById('domeng').tagName") == "H2"
    assert b.js("document.getElementById('terms').textContent") == "Terms"
    # styled by the page's CSS, and a way back
    assert b.js("getComputedStyle(document.querySelector('header.top')).display") == "flex"
    b.click("header.top a.brand")
    b.wait("location.pathname === '/' && !!document.getElementById('lobby-rules')")
    # the lobby's link goes to the Domeng section itself
    b.click("#lobby-rules a[href='/rules#domeng']")
    b.wait("location.pathname === '/rules' && location.hash === '#domeng' && "
           "document.readyState === 'complete'")
    b.wait("Math.abs(document.getElementById('domeng').getBoundingClientRect().top) < 2", timeout=5)

    # on a phone: nothing sideways, the wide tables scroll inside themselves
    b.send("Emulation.setDeviceMetricsOverride", PHONE)
    b.goto(live.url + "/rules")
    b.wait("document.readyState === 'complete' && innerWidth === 390")
    assert b.js("document.documentElement.scrollWidth") <= 390
    assert b.js("[...document.querySelectorAll('.rules-text table')].every(t => "
                "t.getBoundingClientRect().right <= innerWidth)")


def test_the_lobby_keeps_five_finished_matches_and_links_to_all(browser, live, client):
    # enough finished matches: bots only, one hand each, over within moments
    made = set()
    for _ in range(6):
        r = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1},
                                                 "seats": bot_seats(4, human=())})
        made.add(r.get_json()["match_id"])

    def all_over():
        over = client.get("/api/v1/matches?status=over&limit=100").get_json()["matches"]
        return made <= {m["match_id"] for m in over} and len(over)
    total = wait_for(all_over, timeout=30)
    b = browser
    b.goto(live.url + "/")
    b.wait("document.querySelectorAll('#list-over li').length > 0")
    assert b.js("document.querySelectorAll('#list-over li').length") == 5
    items = b.js("[...document.querySelectorAll('#list-over li')].map(li => li.textContent)")
    assert all("random bot" in i and " moves" in i and "version" not in i for i in items), items
    b.click("#all-over")
    b.wait("location.hash === '#/finished' && document.querySelectorAll('#fin-list li').length > 0")
    shown = b.js("document.querySelectorAll('#fin-list li').length")
    # Other tests share this gateway and finish matches of their own meanwhile: the page
    # shows every match over when it asked (up to 100), between the counts before and after.
    after = len(client.get("/api/v1/matches?status=over&limit=100").get_json()["matches"])
    assert min(total, 100) <= shown <= min(after, 100) and shown > 5, (total, shown, after)
    replays = b.js("[...document.querySelectorAll('#fin-list a')].map(a => a.getAttribute('href'))")
    assert {f"#/replay/{m}" for m in made} <= set(replays)
    assert "finished matches" in b.js("document.getElementById('fin-count').textContent")


def test_the_favicon_is_there(browser, live):
    b = browser
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form')")
    assert b.js("document.querySelector('link[rel=icon]').getAttribute('href')") == "/static/favicon.svg"
    assert b.js("fetch('/favicon.ico').then(r => r.status)") == 200
    assert b.js("fetch('/static/favicon.svg').then(r => r.headers.get('content-type'))") \
        .startswith("image/svg+xml")


SENTENCES = [
    # (event, variant, sentence), with seat 0 the reader ("You") and seat 2 a bot
    ({"kind": "deal_start", "deal": 0, "leader": 0}, "hhl", "Hand 1 dealt; you lead."),
    ({"kind": "deal_start", "deal": 1, "leader": 2}, "hhl", "Hand 2 dealt; Seat 2 (random bot) leads."),
    ({"kind": "deal_start", "deal": 2, "leader": 0, "camat": 0, "cycle": 0}, "domeng",
     "Round 3 dealt; you lead as CAMAT."),
    ({"kind": "draw", "seat": 0, "count": 1, "tiles": ["3-1"]}, "hhl", "You draw 1 tile: 3-1."),
    ({"kind": "draw", "seat": 2, "count": 2}, "hhl", "Seat 2 (random bot) draws 2 tiles."),
    ({"kind": "play", "seat": 0, "play": "6-4", "at": "left"}, "hhl", "You play 6-4 on the left arm."),
    ({"kind": "play", "seat": 2, "play": "3-1", "at": "right"}, "domeng",
     "Seat 2 (random bot) plays 3-1 on the right end."),
    ({"kind": "pass", "seat": 0}, "hhl", "You pass (the stock is empty)."),
    ({"kind": "pass", "seat": 0, "cost": 1, "passebunge": False,
      "stones": [{"from": "table", "count": 1}]}, "domeng", "You PASS: you take 1 STONE from the table."),
    ({"kind": "pass", "seat": 2, "cost": 2, "passebunge": True,
      "stones": [{"from": "table", "count": 2}]}, "domeng",
     "Seat 2 (random bot) PASSEBUNGE: takes 2 STONES from the table."),
    ({"kind": "pass", "seat": 1, "cost": 2, "passebunge": True,
      "stones": [{"from": "table", "count": 1}, {"from": 0, "count": 1}]}, "domeng",
     "Seat 1 PASSEBUNGE: takes 2 STONES — 1 from the table and 1 from you."),
    ({"kind": "pass", "seat": 0, "cost": 1, "passebunge": False, "stones": []}, "domeng",
     "You PASS: you are due 1 STONE, but there are none left to give."),
    ({"kind": "pass", "seat": 0, "cost": 0, "stones": []}, "domeng",
     "You cannot play either: the round is blocked and you are the MANGUNO."),
    ({"kind": "returned", "seat": 0}, "hhl", "You are back."),
    ({"kind": "deal_over", "result": {"end": "cappu", "kind": "ceki", "winner": 2, "cucuq": 0,
                                      "transfers": [{"to": 0, "from": "table", "count": 3}],
                                      "table": 1, "camat": None}}, "domeng",
     "Round over. CEKI by Seat 2 (random bot); you are the CUCUQ. 3 STONES to you from the table. "
     "1 STONE on the table."),
    ({"kind": "deal_over", "result": {"end": "domino", "winners": [0], "points": [300, -100, -100, -100]}},
     "hhl", "Hand over (domino!). Won by you. Points: you +300, Seat 1 -100, Seat 2 (random bot) -100, "
     "Seat 3 -100."),
    ({"kind": "match_over", "result": {"totals": [300, -100, -100, -100], "ranking": [[0], [1, 2, 3]]}},
     "hhl", "Match over. Totals: you 300, Seat 1 -100, Seat 2 (random bot) -100, Seat 3 -100. "
     "Ranking: 1. You; 2. Seat 1 and Seat 2 (random bot) and Seat 3."),
]


def test_the_sentences_of_the_narration(browser, live):
    b = browser
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form')")
    names = ["You", "Seat 1", "Seat 2 (random bot)", "Seat 3", "Seat 4"]
    got = b.js(f"""import('/static/narrate.js').then((m) => {json.dumps(SENTENCES)}
        .map(([e, variant]) => m.describe(e, {json.dumps(names)}, variant)))""")
    assert got == [sentence for _, _, sentence in SENTENCES]


# The plays and passes the terminal and the page both narrate: one wording for both (the
# page names a seat "Seat N", the terminal "seat N"; the page ends a sentence with a stop).
SHARED = [
    ({"kind": "play", "seat": 3, "play": "2-0", "at": "up"}, "hhl"),
    ({"kind": "play", "seat": 2, "play": "6-6"}, "hhl"),
    ({"kind": "play", "seat": 0, "play": "3-1", "at": "left"}, "domeng"),
    ({"kind": "pass", "seat": 1, "stones": [{"from": 0, "count": 1}], "cost": 1,
      "passebunge": False}, "domeng"),
    ({"kind": "pass", "seat": 2, "stones": [{"from": "table", "count": 1}, {"from": 4, "count": 1}],
      "cost": 2, "passebunge": True}, "domeng"),
    ({"kind": "pass", "seat": 2, "stones": [], "cost": 1, "passebunge": False}, "domeng"),
]


def test_the_page_and_the_terminal_narrate_alike(browser, live):
    from domino_cli.narrate import describe

    b = browser
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form')")
    names = [f"Seat {s}" for s in range(5)]
    got = b.js(f"""import('/static/narrate.js').then((m) => {json.dumps(SHARED)}
        .map(([e, variant]) => m.describe(e, {json.dumps(names)}, variant)))""")
    for (event, variant), page in zip(SHARED, got, strict=True):
        assert page.replace("Seat ", "seat ").rstrip(".") == describe(event, variant), (event, page)


def test_the_lobby_names_a_seat_by_its_name(browser, live, client):
    r = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1}, "seats": [
        {"kind": "person", "name": "ana"}, {"kind": "person", "open": True},
        *[{"kind": "bot", "strategy": "random"}] * 2]})
    assert r.status_code == 201, r.get_json()
    match_id = r.get_json()["match_id"]
    r = client.post(f"/api/v1/matches/{match_id}/seats/0/claim")
    assert r.status_code == 200, r.get_json()
    b = browser
    b.goto(live.url + "/")
    item = f"#list-open button[data-match='{match_id}']"
    b.wait(f"!!document.querySelector({item!r})")
    text = b.js(f"document.querySelector({item!r}).closest('li').textContent")
    assert "ana, open seat, random bot, random bot" in text, text
    assert "person" not in text, text
