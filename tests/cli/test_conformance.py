"""`domino conformance` as users run it: the house bot and the Node bot pass every case
(the arena's too);
deliberately broken bots (tests/cli/broken_bots) fail the case named for what they break,
with a reason, and the exit status is non-zero; mistakes are one line."""

import json
import pathlib
import shutil
import sys

import pytest

from tests.bots_runner.support import ensure_node_modules

from .support import DOMINO, ROOT, assert_one_line_failure, run

# A conformance run is a dozen scripted matches with a bot process each (180 s allowed).
pytestmark = pytest.mark.timeout(600)

BROKEN = pathlib.Path(__file__).parent / "broken_bots"
HOUSE = [*DOMINO, "bot"]


def conformance(*args, bot):
    p = run("conformance", "--json", *args, "--", *bot, check=False, timeout=180)
    assert "Traceback" not in p.stderr, p.stderr
    table = json.loads(p.stdout)
    return p, {f"{c['variant']} {c['case']}": c for c in table["cases"]}, table


def failures(cases):
    return {k: c["reason"] for k, c in cases.items() if c["verdict"] != "pass"}


def test_the_house_bot_passes_every_case_of_both_games():
    p, cases, table = conformance(bot=HOUSE)
    assert p.returncode == 0 and table["passed"], failures(cases)
    assert not failures(cases)
    names = {c["case"] for c in cases.values()}
    assert {"first-turn", "refusal-stale", "refusal-illegal", "refusal-unknown-id",
            "draw-and-play", "double-mode", "closed-arm", "pass", "passebunge",
            "engine-restart", "match-over", "clock"} <= names
    assert all(c["reason"] for c in cases.values())
    assert "retried at version 1 after STALE_VERSION" in cases["hhl refusal-stale"]["reason"]


def test_the_house_pool_bot_passes_every_case():
    # One game: the seat cases of both ran above, and pool mode changes only the Hello.
    p, cases, _ = conformance("--pool", "--variant", "hhl", bot=HOUSE)
    assert p.returncode == 0, failures(cases)
    assert {"hhl pool-capacity", "hhl pool-several", "hhl match-over"} <= set(cases)
    assert "enlisted with capacity 2" in cases["hhl pool-capacity"]["reason"]


def test_the_search_strategy_passes_the_timed_cases():
    p, cases, _ = conformance("--variant", "hhl", "--cases", "first-turn,double-mode,clock",
                              bot=[*HOUSE, "--strategy", "search"])
    assert p.returncode == 0, failures(cases)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_bot_passes_every_case():
    ensure_node_modules()
    p, cases, _ = conformance(bot=["node", str(ROOT / "bots" / "js" / "bot.js")])
    assert p.returncode == 0, failures(cases)


def test_the_arena_case_counts_a_match_of_the_bot_and_fails_a_bot_that_never_plays():
    p, cases, _ = conformance("--arena", "--variant", "both", bot=HOUSE)
    assert p.returncode == 0, failures(cases)
    assert set(cases) == {"hhl arena", "domeng arena"}
    assert all("counted, no fault" in c["reason"] and "house-" in c["reason"]
               for c in cases.values())
    p, cases, _ = conformance("--arena", "--variant", "hhl", bot=[sys.executable, "-c", "pass"])
    assert p.returncode != 0
    assert "before any match of it was counted" in cases["hhl arena"]["reason"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_node_bot_passes_the_arena_case():
    ensure_node_modules()
    p, cases, _ = conformance("--arena", "--variant", "hhl",
                              bot=["node", str(ROOT / "bots" / "js" / "bot.js")])
    assert p.returncode == 0, failures(cases)


@pytest.mark.parametrize("bot, broken, passing, reason", [
    ("never_reconnects", "engine-restart", "first-turn",
     "did not connect again after the engine restart"),
    ("resends_refused", "refusal-stale", "refusal-illegal",
     "answered version 0 after the refusal; expected 1"),
    ("answers_late", "clock", "first-turn", "after its deadline"),
    ("wrong_seat", "first-turn", None, "without being asked (its seat is 1)"),
])
def test_a_broken_bot_fails_its_case(bot, broken, passing, reason):
    names = ",".join(n for n in (broken, passing) if n)
    p, cases, table = conformance("--variant", "hhl", "--cases", names,
                                  bot=[sys.executable, str(BROKEN / f"{bot}.py")])
    assert p.returncode == 1 and not table["passed"]
    assert cases[f"hhl {broken}"]["verdict"] == "fail"
    assert reason in cases[f"hhl {broken}"]["reason"], cases
    if passing:
        assert cases[f"hhl {passing}"]["verdict"] == "pass", cases


def test_the_table_says_pass_or_fail_per_case():
    p = run("conformance", "--variant", "domeng", "--cases", "first-turn,pass", "--",
            sys.executable, str(BROKEN / "base.py"), check=False, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["case", "result", "reason"]
    assert lines[1].startswith("domeng first-turn") and " pass " in lines[1]
    assert lines[-1].startswith("2 passed, 0 failed, 0 skipped")


@pytest.mark.parametrize("args, needle", [
    ((), "give the bot's command after --"),
    (("--", "no-such-bot-program"), "command not found"),
    (("--cases", "nonsense", "--", sys.executable), "no case 'nonsense'"),
])
def test_a_mistake_is_one_line(args, needle):
    p = run("conformance", *args, check=False)
    assert_one_line_failure(p, "conformance", needle)


@pytest.mark.parametrize("env, needle", [
    ({"DOMINO_MATCH": "m1", "DOMINO_SEAT": "one", "DOMINO_SEAT_TOKEN": "t"}, "DOMINO_SEAT"),
    ({"DOMINO_POOL": "p", "DOMINO_POOL_CAPACITY": "many"}, "--capacity"),
])
def test_the_bot_says_which_variable_is_wrong(env, needle):
    p = run("bot", check=False, extra_env=env)
    assert_one_line_failure(p, "bot", needle)
