"""The conformance kit's scripts, walked with the rules core: every script's moves are
legal, and it leads to its situation whatever the bot plays where it has a choice."""

import pytest

from domino_cli.conformance import scripts as S
from engine_service import rules


def branches(name, depth=2):
    return S.decision_points(S.SCRIPTS[name], depth=depth)


@pytest.mark.parametrize("name", list(S.SCRIPTS))
def test_every_script_replays_and_deals_the_full_set(name):
    script = S.SCRIPTS[name]
    deal = script.deal
    tiles = [t for hand in deal["hands"] for t in hand] + deal.get("stock", deal.get("sleeping"))
    assert sorted(tiles) == sorted(str(t) for t in rules.TILES)
    assert script.record["format"] == "domino-record/1"
    assert branches(name), name       # raises if a scripted move is not legal


@pytest.mark.parametrize("name", ["hhl-first", "domeng-first"])
def test_first_scripts_give_the_bot_its_first_turn_after_the_lead(name):
    for branch in branches(name, depth=1):
        point = branch[0]
        assert [e["kind"] for e in point["events"]] == ["play"]
        assert len(point["legal"]) > 1


def test_hhl_draw_offers_only_the_drawn_tile():
    point = branches("hhl-draw", 1)[0][0]
    bot = S.SCRIPTS["hhl-draw"].bot
    assert {"kind": "draw", "seat": bot, "count": 2} in [
        {k: e[k] for k in ("kind", "seat", "count")} for e in point["events"]
        if e["kind"] == "draw"]
    assert {m.split()[0] for m in point["legal"]} == {"4-0"}


def test_hhl_double_offers_both_modes():
    assert branches("hhl-double", 1)[0][0]["legal"] == ["3-3 left normal", "3-3 left barricade"]


def test_hhl_closed_arm_is_closed_and_not_offered():
    point = branches("hhl-closed", 1)[0][0]
    assert point["view"]["arms"]["left"]["closed"]
    assert not any(" left" in m for m in point["legal"])


@pytest.mark.parametrize("name, passebunge", [("domeng-pass", False),
                                              ("domeng-passebunge", True)])
def test_domeng_passes_are_the_engines(name, passebunge):
    bot = S.SCRIPTS[name].bot
    for branch in branches(name):
        passes = [e for p in branch for e in p["events"]
                  if e["kind"] == "pass" and e["seat"] == bot]
        assert passes and passes[0]["passebunge"] is passebunge, branch


@pytest.mark.parametrize("name", ["hhl-last", "domeng-last"])
def test_last_scripts_end_the_match_with_every_move_of_the_bot(name):
    for branch in branches(name):
        assert branch[-1].get("over"), branch
