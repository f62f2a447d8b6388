"""The arena's pages in headless Chromium against the suite's real engine: the leaderboard
gains a row and counts a match while it is open (no reload), a bot's page shows the match
it plays now with a link to watch it, its rating chart (points of mu, the mu ± 3 sigma band,
the mu - 3 sigma line), and its recent matches linked to the replay viewer; at 1280 px and
at 390 px nothing leaves the page and no two panels overlap."""

import os
import secrets
import shutil

from gateway_cdp import needs_chromium
from gateway_support import wait_for

from tests.arena.support import arena_bot

B = "/api/v1/arena/bots"

# Every element of the page lies within the viewport's width (the tables scroll inside their
# own box, .table-wrap, so their cells are measured by that box), and no two panels overlap.
LAYOUT = """(() => {
  const W = document.documentElement.clientWidth, bad = [];
  for (const e of document.querySelectorAll('#main *')) {
    if (e.closest('.table-wrap') && !e.classList.contains('table-wrap')) continue;
    const r = e.getBoundingClientRect();
    if (r.width && (r.left < -1 || r.right > W + 1)) bad.push(e.tagName + '#' + e.id + '.' + e.className);
  }
  const panels = [...document.querySelectorAll('#main > section')].map(s => s.getBoundingClientRect());
  for (let i = 0; i < panels.length; i++) for (let j = i + 1; j < panels.length; j++) {
    const a = panels[i], b = panels[j];
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
      bad.push('panels ' + i + ' and ' + j + ' overlap');
  }
  return {bad, scroll: document.documentElement.scrollWidth, width: W};
})()"""


def layout_is_clean(b, width: int) -> None:
    got = b.js(LAYOUT)
    assert got["bad"] == [] and got["scroll"] <= width, got


def phone(b) -> None:
    b.send("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844,
                                                  "deviceScaleFactor": 1, "mobile": True})


def desktop(b) -> None:
    b.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900,
                                                  "deviceScaleFactor": 1, "mobile": False})


@needs_chromium
def test_the_arena_pages_follow_a_bot_as_it_plays(browser, live, client, engine_address, tmp_path):
    b = browser
    desktop(b)
    made = client.post(B, json={"name": "web-" + secrets.token_hex(3)}).get_json()
    name = made["bot"]["name"]
    b.goto(live.url + "/")
    b.wait("!!document.getElementById('nav-arena')")
    b.click_until("#nav-arena", "location.hash === '#/arena'")
    b.wait("document.querySelectorAll('#ar-rows tr[data-bot]').length > 0")
    before = b.js("document.querySelectorAll('#ar-rows tr[data-bot]').length")
    sequence = b.js("document.getElementById('ar-rows').dataset.sequence")
    assert b.js("document.querySelector('#ar-tabs a.current').textContent") == "hhl"
    layout_is_clean(b, 1280)
    b.js("window.__no_reload = true")

    # slow moves (0.6 s each) keep its match in play long enough to be seen live
    bot = arena_bot(engine_address, made["bot_key"], "--delay", "0.6", version="w1", matches=1)
    try:
        row = f"#ar-rows tr[data-bot=\"{name}\"]"
        b.wait(f"!!document.querySelector('{row}')", timeout=120)
        # the page that is open shows the match counted: the row's matches cell and the
        # board's sequence change, with no reload
        b.wait(f"document.querySelector('{row}').children[6].textContent === '1'", timeout=300)
        assert b.js("window.__no_reload") is True
        assert b.js("document.querySelectorAll('#ar-rows tr[data-bot]').length") == before + 1
        assert b.js("document.getElementById('ar-rows').dataset.sequence") != sequence
        out, err = bot.communicate(timeout=60)
        assert bot.returncode == 0, err[-2000:]
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    b.screenshot(str(tmp_path / "arena.png"))

    # the bot's page, from its row
    b.click_until(f"#ar-rows a[data-bot=\"{name}\"]", f"location.hash === '#/bot/{name}'")
    b.wait("document.querySelectorAll('#bt-chart svg .points circle').length === 1")
    chart = b.js("""(() => { const svg = document.querySelector('#bt-chart svg');
        return {role: svg.getAttribute('role'), mu: !!svg.querySelector('polyline.mu'),
                score: !!svg.querySelector('polyline.score'),
                band: !!svg.querySelector('.band, .band-one'),
                title: svg.querySelector('title').textContent}; })()""")
    assert chart == {"role": "img", "mu": True, "score": True, "band": True,
                     "title": chart["title"]} and name in chart["title"]
    match_id = client.get(f"{B}/{name}/matches").get_json()["matches"][0]["match_id"]
    b.wait(f"!!document.querySelector('#bt-matches li[data-match=\"{match_id}\"] a.replay')")
    assert b.js("document.querySelector('#bt-matches a.replay').getAttribute('href')") == \
        f"#/replay/{match_id}"
    assert "w1" in b.js("document.getElementById('bt-versions').textContent")
    layout_is_clean(b, 1280)
    b.screenshot(str(tmp_path / "bot.png"))

    phone(b)
    # (the flag goes with the old page: the wait is for the new one's chart)
    b.js("window.__before_reload = true; location.reload()")
    b.wait("!window.__before_reload && "
           "document.querySelectorAll('#bt-chart svg .points circle').length === 1")
    assert b.js("document.querySelector('#bt-chart svg').getBoundingClientRect().width") <= 390
    layout_is_clean(b, 390)
    b.screenshot(str(tmp_path / "bot-phone.png"))
    b.js("location.hash = '#/arena/hhl'")
    b.wait(f"!!document.querySelector('#ar-rows tr[data-bot=\"{name}\"]')")
    layout_is_clean(b, 390)

    # the replay viewer, from the bot's page
    b.js(f"location.hash = '#/bot/{name}'")
    b.wait(f"!!document.querySelector('#bt-matches li[data-match=\"{match_id}\"] a.replay')")
    b.click_until("#bt-matches a.replay", f"location.hash === '#/replay/{match_id}'")
    b.wait("!!document.getElementById('rp-slider')")
    if os.environ.get("GATEWAY_SCREENSHOTS"):
        for shot in ("arena.png", "bot.png", "bot-phone.png"):
            shutil.copy(tmp_path / shot, os.path.join(os.environ["GATEWAY_SCREENSHOTS"], shot))


@needs_chromium
def test_a_bot_page_links_the_match_it_plays_now(browser, live, client, engine_address):
    b = browser
    made = client.post(B, json={"name": "live-" + secrets.token_hex(3)}).get_json()
    name = made["bot"]["name"]
    b.goto(live.url + f"/#/bot/{name}")
    b.wait("document.getElementById('bt-title').textContent === 'Bot " + name + "'")
    assert b.js("document.querySelector('#bt-live .empty').textContent") == "not playing now"
    bot = arena_bot(engine_address, made["bot_key"], "--delay", "0.6", version="w2", matches=1)
    try:
        (match,) = wait_for(lambda: client.get(f"{B}/{name}").get_json()["live"], timeout=120)
        # its match lasts longer than the page's poll (its moves take 0.6 s each)
        b.wait(f"document.querySelector('#bt-live a.watch')?.getAttribute('href') === "
               f"'#/match/{match['match_id']}'", timeout=15)
        b.click_until("#bt-live a.watch", f"location.hash === '#/match/{match['match_id']}'")
        b.wait("!!document.getElementById('tb-board')")
    finally:
        bot.kill()
        bot.wait()
