"""Whole matches in headless Chromium against the suite's house bots (strategy "random"),
started by someone else over REST: a Domeng match joined from the lobby and clicked through
to its result, with the Domeng words explained where the page writes them; an open seat of
an HHL match another person plays over REST; a match watched as a spectator while its moves
arrive. Every sentence the page wrote is checked for grammar."""

import threading

from gateway_cdp import needs_chromium
from gateway_support import RestPlayer, bot_seats
from table_page import (
    assert_good_grammar,
    assert_terms_explained,
    log_lines,
    page_sentences,
    play_by_clicking,
    terms_on_the_page,
)

pytestmark = needs_chromium


def create(client, variant, options, seats, seed=None):
    body = {"variant": variant, "options": options, "seats": seats}
    if seed is not None:
        body["seed"] = seed
    r = client.post("/api/v1/matches", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["match_id"]


def choose_pace(b, ms: str) -> None:
    """Choose the spectator's pace in its select, as a person would."""
    b.js(f"(() => {{ const s = document.getElementById('tb-pace-select'); s.value = '{ms}'; "
         "s.dispatchEvent(new Event('change')); })()")


def join_from_the_lobby(b, live, match_id, seat, only=None):
    """Click "Join seat N" of the match in the lobby's open seats; `only`: the seats it offers."""
    b.goto(live.url + "/")
    button = f"#list-open button[data-match='{match_id}'][data-seat='{seat}']"
    b.wait(f"!!document.querySelector({button!r})")
    if only is not None:
        assert b.js(f"[...document.querySelectorAll(\"#list-open button[data-match='{match_id}']\")]"
                    ".map(x => x.dataset.seat)") == only
    b.click(button)
    b.wait(f"location.hash === '#/match/{match_id}' && "
           f"document.getElementById('tb-status').textContent.includes('you are seat {seat}')")


def test_a_domeng_match_joined_from_the_lobby_to_its_result(browser, live, client):
    # round_cap keeps the cycle short: the match ends after 3 rounds at most
    match_id = create(client, "domeng", {"cycles": 1, "round_cap": 3},
                      bot_seats(5, human=(), open_=(0,)), seed=5)
    b = browser
    join_from_the_lobby(b, live, match_id, 0)
    assert b.js("document.getElementById('tb-rules').getAttribute('href')") == "/rules#domeng"
    moves = play_by_clicking(b)
    assert moves >= 1
    b.wait("document.getElementById('tb-result').textContent.includes('Match over')")
    lines = log_lines(b)
    assert any(line.startswith("Round 1 dealt;") for line in lines), lines
    assert any(line.startswith("You play ") for line in lines), lines
    assert any(line.startswith("Round over.") for line in lines), lines
    assert_good_grammar(page_sentences(b))

    # the Domeng words: in the narration, in the result panel, each with its meaning
    in_log = terms_on_the_page(b, "#tb-log")
    words = {t["word"] for t in in_log}
    assert words & {"CUCUQ", "MANGUNO"}, words        # every round names one or the other
    assert "STONE" in words or "STONES" in words, words
    assert_terms_explained(in_log)
    in_result = terms_on_the_page(b, "#tb-result")
    assert {t["word"] for t in in_result} >= {"CAMAT", "STONES"}, in_result
    assert_terms_explained(in_result)
    assert_terms_explained(terms_on_the_page(b, "#tb-seats"))
    # built as elements, not markup: an abbr holds its word and nothing else
    assert b.js("[...document.querySelectorAll('#tb-log abbr.term')].every(a => "
                "a.children.length === 0 && a.textContent === a.textContent.toUpperCase())")

    # the glossary: there for Domeng, and a click on a word opens it at that word
    assert b.js("!document.getElementById('tb-glossary').hidden")
    assert not b.js("document.getElementById('tb-glossary').open")
    b.click("#tb-log abbr.term")
    b.wait("document.getElementById('tb-glossary').open")
    word = b.js("document.querySelector('#tb-log abbr.term').textContent")
    highlighted = b.js("document.querySelector('#tb-terms dt.hl').textContent")
    assert highlighted == {"CAPPU": "FIRST CAPPU", "STONE": "STONES"}.get(word, word)
    assert b.js("document.querySelectorAll('#tb-terms dt').length") >= 11


def test_an_open_seat_of_someone_elses_match_is_joined_and_played(browser, live, client):
    # seat 0: another person, over REST; seat 2: open, for the browser; 1 and 3: house bots
    seats = bot_seats(4, human=(0,), open_=(2,))
    match_id = create(client, "hhl", {"hands": 1}, seats)
    other = RestPlayer(client, match_id, 0)
    b = browser
    join_from_the_lobby(b, live, match_id, 2, only=["2"])   # seat 0 is taken
    done = {}
    thread = threading.Thread(target=lambda: done.update(state=other.play_to_end()), daemon=True)
    thread.start()
    moves = play_by_clicking(b)
    thread.join(60)
    assert done["state"]["to_move"] is None and other.moves >= 1
    assert moves >= 1
    lines = log_lines(b)
    assert any(line.startswith("You play ") for line in lines), lines
    assert any(line.startswith("Seat 0 (player) plays ") for line in lines), lines
    assert "Match over" in b.js("document.getElementById('tb-result').textContent")
    assert b.js("document.getElementById('tb-glossary').hidden")     # no Domeng words in HHL
    assert_good_grammar(page_sentences(b))


def test_a_match_is_watched_as_its_moves_arrive(browser, live, client):
    match_id = create(client, "hhl", {"hands": 1}, bot_seats(4))
    player = RestPlayer(client, match_id, 0)
    b = browser
    b.goto(live.url + "/")
    watch = f"#list-live a[data-match='{match_id}']"
    b.wait(f"!!document.querySelector({watch!r})")
    assert b.js(f"document.querySelector({watch!r}).textContent") == "Watch"
    b.click(watch)
    b.wait("document.getElementById('tb-status').textContent.includes('watching')")
    assert b.js("document.getElementById('tb-hand-panel').hidden")
    choose_pace(b, "0")      # live: every move as it comes (the paced view: the test below)
    seen = 0
    for _ in range(300):
        state = player.view()
        if state["to_move"] is None:
            break
        if state["to_move"] != 0 or not state["legal_moves"]:
            b.wait(f"document.querySelectorAll('#tb-log li').length > {seen}", timeout=10)
            seen = b.js("document.querySelectorAll('#tb-log li').length")
            continue
        move = state["legal_moves"][0]
        r = client.post(f"/api/v1/matches/{match_id}/moves", headers=player.auth,
                        json={"version": state["version"], "move_id": move["id"]})
        assert r.status_code == 200, r.get_json()
        tile = move["text"].split()[0]
        # the event arrives on the watcher's stream and is narrated
        b.wait(f"[...document.querySelectorAll('#tb-log li')].some(li => "
               f"li.textContent.startsWith('Seat 0 (player) plays {tile}'))", timeout=10)
        seen = b.js("document.querySelectorAll('#tb-log li').length")
    else:
        raise AssertionError("the match did not end")
    b.wait("!document.getElementById('tb-result').hidden", timeout=30)
    assert b.js("document.getElementById('tb-turn').textContent") == "The match is over."
    assert_good_grammar(page_sentences(b))


# What a spectator's page shows in one look: how far behind, the board's tiles, and the log's
# plays since the latest deal.
PACED = """(() => {
  const lines = [...document.querySelectorAll('#tb-log li')].map((li) => li.textContent);
  let dealt = -1;
  lines.forEach((line, i) => { if (/^Hand \\d+ dealt/.test(line)) dealt = i; });
  const plays = lines.slice(dealt + 1).filter((line) => / plays \\d-\\d/.test(line)).length;
  return {behind: document.getElementById('tb-behind').textContent, lines: lines.length, plays,
          tiles: document.querySelectorAll('#tb-board .tile').length,
          result: !document.getElementById('tb-result').hidden,
          status: document.getElementById('tb-status').textContent,
          turn: document.getElementById('tb-turn').textContent}; })()"""


def test_a_fast_match_is_watched_at_a_human_pace(browser, live, client):
    """Bots and a quick player finish a hand in moments; the spectator's page shows it move
    by move at the pace chosen, the board following the log, and jumps to live on a click."""
    match_id = create(client, "hhl", {"hands": 1}, bot_seats(4))
    player = RestPlayer(client, match_id, 0)
    b = browser
    b.goto(f"{live.url}/#/match/{match_id}")
    b.wait("document.getElementById('tb-status').textContent.includes('watching')")
    assert b.js("document.getElementById('tb-pace-select').value") == "1000"   # "normal"
    assert not b.js("document.getElementById('tb-pace').hidden")
    choose_pace(b, "300")
    done = {}
    thread = threading.Thread(target=lambda: done.update(state=player.play_to_end()), daemon=True)
    thread.start()
    thread.join(90)
    assert done["state"]["to_move"] is None
    over = client.get(f"/api/v1/matches/{match_id}").get_json()
    assert over["status"] == "over"

    # the match is over on the server; the page is still showing it, a move at a time
    seen = b.js(PACED)
    assert seen["behind"].endswith("behind live") and not seen["result"], seen
    assert seen["turn"].startswith("Watching at your pace"), seen
    for _ in range(3):
        b.wait(f"(() => {{ const p = {PACED}; return p.lines > {seen['lines']} || p.result; }})()",
               timeout=10)
        seen = b.js(PACED)
        if seen["result"]:
            break
        # the board shown is the one after the last line of the log: the spinner and a
        # tile for every play since the deal
        assert seen["tiles"] == seen["plays"], seen

    b.click("#tb-live")
    b.wait("!document.getElementById('tb-result').hidden")
    seen = b.js(PACED)
    assert seen["behind"] == "live", seen
    assert f"version {over['version']} " in seen["status"], (seen, over["version"])
    assert b.js("document.getElementById('tb-turn').textContent") == "The match is over."
    arms = over["view"]["arms"]
    assert seen["tiles"] == (1 if over["view"]["spinner"] else 0) + sum(
        len(a["tiles"]) for a in arms.values()), (seen, arms)
    assert b.js("document.getElementById('tb-live').disabled")
    assert_good_grammar(page_sentences(b))
