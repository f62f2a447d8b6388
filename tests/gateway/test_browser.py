"""End to end in a real headless Chromium (Debian's package): open the page, start a match
against house bots, play every move by clicking, see the events and the result, replay it
back and forth with the buttons and the keyboard; the table on a phone-sized screen."""

import json
import os

from gateway_cdp import needs_chromium
from table_page import assert_good_grammar, page_sentences

pytestmark = needs_chromium


def test_play_a_match_against_bots_by_clicking_then_replay_it(browser, live, tmp_path):
    b = browser
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form') && "
           "document.querySelectorAll('#new-seats select').length === 4")
    b.js("document.getElementById('new-limit').value = '1'; "
         "document.getElementById('new-seed').value = '21'")
    b.click("#new-start")
    match_id = b.wait("location.hash.startsWith('#/match/') && location.hash.slice(8)")
    b.wait("!!document.querySelector('#tb-seats li')")
    clicks = 0
    for _ in range(200):
        state = b.wait("""(() => {
            if (!document.getElementById('tb-result').hidden) return 'over';
            if (document.querySelector('.tile-btn:not([disabled])')) return 'turn';
            return ''; })()""", timeout=30)
        if state == "over":
            break
        b.click_until(".tile-btn:not([disabled])", "!!document.querySelector('#tb-where .where-btn')")
        # keyboard flow: choosing a tile moves the focus to where it can go
        b.wait("document.activeElement.classList.contains('where-btn')", timeout=10)
        before = b.js("document.querySelectorAll('#tb-log li').length")
        if clicks == 0:
            # The first move goes out against a version the match has left (as if another
            # tab had moved meanwhile): the page shows the refusal and its reason.
            b.js("""window.__fetch = window.fetch; window.fetch = (url, opts) => {
                if (String(url).endsWith('/moves') && !window.__stale) {
                    window.__stale = true;
                    const body = JSON.parse(opts.body); body.version += 1000;
                    opts = {...opts, body: JSON.stringify(body)};
                }
                return window.__fetch(url, opts); }""")
            b.click_until("#tb-where .where-btn",
                          "document.getElementById('tb-notice').textContent.includes('Refused')")
            notice = b.js("document.getElementById('tb-notice').textContent")
            assert "STALE_VERSION" in notice, notice
            b.wait("!!document.querySelector('#tb-where .where-btn')", timeout=5)
        try:
            b.click_until("#tb-where .where-btn",
                          "!document.querySelector('.tile-btn:not([disabled])') || "
                          "!document.getElementById('tb-result').hidden")
        except AssertionError:
            raise AssertionError(b.js(f"[{before}, document.querySelectorAll('#tb-log li').length, "
                                      "document.getElementById('tb-notice').textContent, "
                                      "document.getElementById('tb-turn').textContent, "
                                      "document.getElementById('tb-where').innerHTML, "
                                      "document.getElementById('tb-log').textContent.slice(-300)]"
                                      )) from None
        clicks += 1
        b.wait(f"document.querySelectorAll('#tb-log li').length > {before} || "
               "!document.getElementById('tb-result').hidden", timeout=10)
    else:
        raise AssertionError("the match did not end")
    assert clicks >= 1
    log = b.js("[...document.querySelectorAll('#tb-log li')].map(li => li.textContent)")
    assert any(line.startswith("You play ") for line in log), log
    assert any("dealt" in line for line in log)
    assert any(line.startswith("Hand over") for line in log), log
    result = b.js("document.getElementById('tb-result').textContent")
    assert "Match over" in result and "Ranking" in result
    assert_good_grammar(page_sentences(b))
    assert b.js("document.getElementById('tb-turn').textContent") == "The match is over."
    b.screenshot(str(tmp_path / "table.png"))

    # the replay viewer, forwards and back
    b.click("#tb-result a[href^='#/replay/']")
    b.wait("!!document.getElementById('rp-slider') && document.getElementById('rp-where')"
           ".textContent.startsWith('Step 0')")
    last = int(b.js("document.getElementById('rp-slider').max"))
    assert last > 10
    b.click("#rp-next")
    b.click("#rp-next")
    assert b.js("document.getElementById('rp-where').textContent").startswith("Step 2 ")
    b.click("#rp-prev")
    assert b.js("document.getElementById('rp-where').textContent").startswith("Step 1 ")
    b.js("document.activeElement.blur()")
    b.key("End", 35)
    where = b.js("document.getElementById('rp-where').textContent")
    assert where.startswith(f"Step {last} ") and "Hand over" in where
    assert "Match over" in b.js("document.getElementById('rp-log').textContent")
    b.key("ArrowLeft", 37)
    assert b.js("document.getElementById('rp-where').textContent").startswith(f"Step {last - 1} ")
    b.key("Home", 36)
    assert b.js("document.querySelector('#rp-board').textContent").count("end") == 0
    b.screenshot(str(tmp_path / "replay.png"))
    record = json.loads(b.js(f"fetch('/api/v1/matches/{match_id}/record')"
                             ".then(r => r.text())"))
    assert record["result"]["ranking"]
    if os.environ.get("GATEWAY_SCREENSHOTS"):
        import shutil
        for name in ("table.png", "replay.png"):
            shutil.copy(tmp_path / name, os.path.join(os.environ["GATEWAY_SCREENSHOTS"], name))


def test_a_domeng_table_is_readable_on_a_phone(browser, live, tmp_path):
    b = browser
    b.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844,
                                                  "deviceScaleFactor": 1, "mobile": True})
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('new-form')")
    b.js("const v = document.getElementById('new-variant'); v.value = 'domeng'; "
         "v.dispatchEvent(new Event('change'))")
    b.wait("document.querySelectorAll('#new-seats select').length === 5")
    b.click("#new-start")
    b.wait("location.hash.startsWith('#/match/')")
    b.wait("document.querySelectorAll('#tb-hand .tile-btn').length === 5 || "
           "document.querySelectorAll('#tb-hand .tile-btn').length === 4")
    b.wait("document.querySelectorAll('#tb-log li').length > 0")
    width = b.js("document.documentElement.scrollWidth")
    assert width <= 400, width     # no sideways scrolling of the page
    assert "STONES on the table" in b.js("document.getElementById('tb-pool').textContent")
    assert b.js("document.querySelector('#tb-pool abbr.term').title").startswith("penalty counters")
    b.screenshot(str(tmp_path / "phone.png"))
    if os.environ.get("GATEWAY_SCREENSHOTS"):
        import shutil
        shutil.copy(tmp_path / "phone.png", os.path.join(os.environ["GATEWAY_SCREENSHOTS"],
                                                         "phone.png"))
