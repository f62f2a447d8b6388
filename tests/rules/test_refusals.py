"""Refusals change nothing (docs/design.md, "Errors"): for every reason code, the
IllegalMove names the reason, carries the legal moves of the seat to move, and the
record, the spectator's view and every seat's view are unchanged afterwards; the same
move list then still plays on as if the refusal never happened."""

import pytest
from rules_helpers import assert_refused, domeng, hhl, play_script
from test_domeng_scenarios import PLAIN
from test_hhl_scenarios import DRAW_HANDS, DRAW_RESULT, DRAW_SCRIPT, DRAW_STOCK

# (position: moves of DRAW_SCRIPT already played, seat, move, reason)
HHL_REFUSALS = [
    pytest.param(0, 1, "1-1", "NOT_YOUR_TURN", id="HHL-NOT_YOUR_TURN-opening"),
    pytest.param(4, 0, "5-1 left", "NOT_YOUR_TURN", id="HHL-NOT_YOUR_TURN-mid-hand"),
    pytest.param(4, 2, "6-3 left", "NOT_YOUR_TURN", id="HHL-NOT_YOUR_TURN-before-tile-check"),
    pytest.param(0, 0, "1-1", "TILE_NOT_IN_HAND", id="HHL-TILE_NOT_IN_HAND-opening"),
    pytest.param(4, 1, "6-6 left normal", "TILE_NOT_IN_HAND", id="HHL-TILE_NOT_IN_HAND"),
    pytest.param(2, 3, "2-0 left", "END_MISMATCH", id="HHL-4-END_MISMATCH"),
    pytest.param(4, 1, "2-1 left", "END_MISMATCH", id="HHL-4-END_MISMATCH-other-arm-fits"),
    pytest.param(5, 2, "4-2 right", "ARM_CLOSED", id="HHL-5-ARM_CLOSED"),
    pytest.param(5, 2, "6-2 right", "ARM_CLOSED", id="HHL-5-ARM_CLOSED-not-matching"),
    pytest.param(1, 1, "6-3 left", "MUST_PLAY_DRAWN_TILE", id="HHL-6-MUST_PLAY_DRAWN_TILE"),
    pytest.param(1, 1, "2-1 left", "MUST_PLAY_DRAWN_TILE", id="HHL-6-MUST_PLAY_DRAWN_TILE-dealt"),
    pytest.param(0, 0, "6-6", "MUST_OPEN_WITH", id="HHL-2-MUST_OPEN_WITH"),
    pytest.param(0, 0, "5-1", "MUST_OPEN_WITH", id="HHL-2-MUST_OPEN_WITH-non-double"),
    pytest.param(0, 0, "0-0 left", "OPENING_HAS_NO_PLACE", id="HHL-3-OPENING_HAS_NO_PLACE"),
    pytest.param(4, 1, "2-1", "PLACE_REQUIRED", id="HHL-PLACE_REQUIRED"),
    pytest.param(1, 1, "1-0", "PLACE_REQUIRED", id="HHL-PLACE_REQUIRED-drawn"),
    pytest.param(4, 1, "2-2 right", "MODE_REQUIRED", id="HHL-5-MODE_REQUIRED"),
    pytest.param(4, 1, "2-1 right normal", "MODE_NOT_ALLOWED", id="HHL-5-MODE_NOT_ALLOWED"),
    pytest.param(len(DRAW_SCRIPT), 0, "5-1 left", "MATCH_OVER", id="HHL-10-MATCH_OVER"),
    pytest.param(len(DRAW_SCRIPT), 3, "0-0", "MATCH_OVER", id="HHL-10-MATCH_OVER-any-seat"),
]


@pytest.mark.parametrize("upto,seat,move,reason", HHL_REFUSALS)
def test_HHL_refusal_changes_nothing(upto, seat, move, reason):
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    play_script(m, DRAW_SCRIPT[:upto])
    err = assert_refused(m, seat, move, reason)
    assert err.message  # a human message naming the input
    # the same move list still plays on to the same end
    play_script(m, DRAW_SCRIPT[upto:])
    assert m.deals[0].result == DRAW_RESULT


# (position: moves of PLAIN already played, seat, move, reason)
DOM_REFUSALS = [
    pytest.param(0, 2, "6-5", "NOT_YOUR_TURN", id="DOM-NOT_YOUR_TURN-lead"),
    pytest.param(1, 3, "5-5 right", "NOT_YOUR_TURN", id="DOM-NOT_YOUR_TURN"),
    pytest.param(0, 0, "5-5", "TILE_NOT_IN_HAND", id="DOM-TILE_NOT_IN_HAND-lead"),
    pytest.param(1, 2, "3-1 left", "TILE_NOT_IN_HAND", id="DOM-1-TILE_NOT_IN_HAND-sleeping"),
    pytest.param(2, 3, "5-5 left", "END_MISMATCH", id="DOM-4-END_MISMATCH"),
    pytest.param(2, 3, "4-3 right", "END_MISMATCH", id="DOM-4-END_MISMATCH-no-number"),
    pytest.param(0, 0, "6-4", "MUST_OPEN_WITH", id="DOM-2-MUST_OPEN_WITH"),
    pytest.param(0, 0, "6-6 left", "OPENING_HAS_NO_PLACE", id="DOM-OPENING_HAS_NO_PLACE"),
    pytest.param(1, 2, "6-5", "PLACE_REQUIRED", id="DOM-PLACE_REQUIRED"),
    pytest.param(1, 2, "6-5 right normal", "MODE_NOT_ALLOWED", id="DOM-MODE_NOT_ALLOWED"),
    pytest.param(2, 3, "5-5 right barricade", "MODE_NOT_ALLOWED", id="DOM-MODE_NOT_ALLOWED-double"),
    pytest.param(len(PLAIN.moves), 0, "6-6", "MATCH_OVER", id="DOM-11-MATCH_OVER"),
]


@pytest.mark.parametrize("upto,seat,move,reason", DOM_REFUSALS)
def test_DOM_refusal_changes_nothing(upto, seat, move, reason):
    m = domeng(PLAIN.hands, PLAIN.sleeping, {"cycles": 1, "round_cap": 1})
    play_script(m, PLAIN.moves[:upto])
    err = assert_refused(m, seat, move, reason)
    assert err.message
    play_script(m, PLAIN.moves[upto:])
    assert m.deals[0].result == PLAIN.result
    assert m.over


def test_refusal_reports_legal_moves_of_the_seat_to_move():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    play_script(m, DRAW_SCRIPT[:1])
    err = assert_refused(m, 3, "2-0 left", "NOT_YOUR_TURN")
    assert sorted(str(x) for x in err.legal_moves) == [
        "1-0 down", "1-0 left", "1-0 right", "1-0 up"]


def test_refusal_after_match_over_lists_no_moves():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    play_script(m, DRAW_SCRIPT)
    err = assert_refused(m, 0, "6-6 left normal", "MATCH_OVER")
    assert err.legal_moves == []
    assert m.to_move is None and all(m.legal_moves(s) == [] for s in range(4))
