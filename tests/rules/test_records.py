"""Records (docs/records.md): a match record replays to the identical outcome, and a
record can be written by hand (a chosen deal and the plays only) to set up a scenario."""

import copy
import json
import random

import pytest
from rules_helpers import play_script
from test_domeng_scenarios import NO_MATT, PLAIN
from test_hhl_scenarios import DRAW_HANDS, DRAW_RESULT, DRAW_SCRIPT, DRAW_STOCK

from engine_service.rules import RECORD_FORMAT, ReplayError, new_match, replay_record


def hand_built(variant, options, deals):
    return {"format": RECORD_FORMAT, "variant": variant, "options": options, "seed": 0,
            "deals": deals}


def plays(script):
    out = []
    for seat, text in script:
        parts = text.split()
        d = {"seat": seat, "play": parts[0]}
        if len(parts) > 1:
            d["at"] = parts[1]
        if len(parts) > 2:
            d["mode"] = parts[2]
        out.append(d)
    return out


def test_HHL_hand_built_record_of_plays_only_replays_with_draws_and_passes_derived():
    rec = hand_built("hhl", {"hands": 1}, [{"hands": DRAW_HANDS, "stock": DRAW_STOCK,
                                            "moves": plays(DRAW_SCRIPT)}])
    m = replay_record(rec)
    assert m.over and m.deals[0].result == DRAW_RESULT
    moves = m.record()["deals"][0]["moves"]
    assert moves[1] == {"seat": 1, "draw": ["6-3", "5-3", "4-4", "1-0"]}
    assert moves[3] == {"seat": 2, "pass": True}
    # the full record, with the derived entries and the results, replays too
    full = m.record()
    assert replay_record(json.loads(json.dumps(full))).record() == full


def test_DOM_hand_built_record_replays_with_passes_and_stones_derived():
    rec = hand_built("domeng", {"cycles": 1, "round_cap": 1},
                     [{"hands": PLAIN.hands, "sleeping": PLAIN.sleeping,
                       "moves": plays(PLAIN.moves)}])
    m = replay_record(rec)
    assert m.deals[0].result == PLAIN.result and m.over
    passes = [e for e in m.record()["deals"][0]["moves"] if "pass" in e]
    assert passes[0] == {"seat": 1, "pass": True, "stones": [{"from": "table", "count": 2}]}


def test_record_with_a_wrong_result_is_refused():
    m = new_match("hhl", {"hands": 1}, deals=[{"hands": DRAW_HANDS, "stock": DRAW_STOCK}])
    play_script(m, DRAW_SCRIPT)
    rec = m.record()
    bad = copy.deepcopy(rec)
    bad["deals"][0]["result"]["points"][0] += 100
    with pytest.raises(ReplayError):
        replay_record(bad)
    bad = copy.deepcopy(rec)
    bad["result"]["ranking"] = [[0], [1], [2], [3]]
    with pytest.raises(ReplayError):
        replay_record(bad)


def test_record_with_a_wrong_derived_draw_is_refused():
    m = new_match("hhl", {"hands": 1}, deals=[{"hands": DRAW_HANDS, "stock": DRAW_STOCK}])
    play_script(m, DRAW_SCRIPT)
    bad = m.record()
    bad["deals"][0]["moves"][1] = {"seat": 1, "draw": ["6-3", "5-3", "4-4"]}
    with pytest.raises(ReplayError):
        replay_record(bad)


def test_record_with_a_wrong_stone_payment_is_refused():
    m = new_match("domeng", {"cycles": 1, "round_cap": 1},
                  deals=[{"hands": NO_MATT.hands, "sleeping": NO_MATT.sleeping}])
    play_script(m, NO_MATT.moves)
    bad = m.record()
    entry = next(e for e in bad["deals"][0]["moves"] if "pass" in e)
    entry["stones"] = [{"from": "table", "count": 1}]
    with pytest.raises(ReplayError):
        replay_record(bad)


def test_record_with_an_illegal_move_names_the_reason():
    rec = hand_built("hhl", {"hands": 1}, [{"hands": DRAW_HANDS, "stock": DRAW_STOCK,
                                            "moves": plays([(0, "0-0"), (1, "2-1 left")])}])
    with pytest.raises(ReplayError) as info:
        replay_record(rec)
    assert info.value.reason == "MUST_PLAY_DRAWN_TILE"
    assert sorted(info.value.legal_moves) == ["1-0 down", "1-0 left", "1-0 right", "1-0 up"]


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 3}), ("domeng", {"cycles": 2})])
def test_finished_seeded_match_replays_identically(variant, options):
    for seed in range(20):
        m = new_match(variant, options, seed=seed)
        rng = random.Random(seed)
        while not m.over:
            m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
        rec = m.record()
        again = replay_record(json.loads(json.dumps(rec)))
        assert again.record() == rec and again.result == m.result


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 3}), ("domeng", {"cycles": 2})])
def test_in_progress_record_replays_to_the_same_position(variant, options):
    m = new_match(variant, options, seed=11)
    rng = random.Random(1)
    while len(m.deals) < 2:
        m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    rec = m.record()
    again = replay_record(json.loads(json.dumps(rec)))
    assert again.record() == rec
    assert [again.view(s) for s in [None, *range(m.num_seats)]] == \
        [m.view(s) for s in [None, *range(m.num_seats)]]


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 3}), ("domeng", {"cycles": 2})])
def test_in_progress_record_replayed_then_continued_deals_like_the_original(variant, options):
    m = new_match(variant, options, seed=11)
    rng = random.Random(1)
    while len(m.deals) < 2:
        m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    again = replay_record(json.loads(json.dumps(m.record())))
    state = rng.getstate()
    rng2 = random.Random()
    rng2.setstate(state)
    while len(m.deals) < 3:
        m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    while len(again.deals) < 3:
        again.play(again.to_move, rng2.choice(again.legal_moves(again.to_move)))
    assert again.record()["deals"][2]["hands"] == m.record()["deals"][2]["hands"]


def test_HHL_10_time_limited_record_replays():
    m = new_match("hhl", {"minutes": 30}, deals=[{"hands": DRAW_HANDS, "stock": DRAW_STOCK}])
    play_script(m, DRAW_SCRIPT[:3])
    m.time_up()
    play_script(m, DRAW_SCRIPT[3:])
    assert m.over
    again = replay_record(json.loads(json.dumps(m.record())))
    assert again.record() == m.record() and again.result == m.result


def test_HHL_10_record_of_match_with_minutes_and_hands_ended_by_time_replays():
    m = new_match("hhl", {"minutes": 30, "hands": 5},
                  deals=[{"hands": DRAW_HANDS, "stock": DRAW_STOCK}])
    play_script(m, DRAW_SCRIPT[:3])
    m.time_up()
    play_script(m, DRAW_SCRIPT[3:])
    assert m.over and len(m.deals) == 1
    again = replay_record(json.loads(json.dumps(m.record())))
    assert again.record() == m.record() and again.result == m.result
