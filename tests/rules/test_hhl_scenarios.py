"""Homo Homini Lupus scenarios from fixed deals, one or more per ruling HHL-1..HHL-10.

Every expected value below was worked out by hand from the deal and the move list
(shown in the comments) following the rulings of docs/rules.md, then checked by running.
"""

import pytest
from rules_helpers import assert_refused, hhl, legal_strs, of_kind, play_script, turn_records

from engine_service.rules import MalformedInput, Move, new_match, replay_record

# ----- deal A: the stock is drawn to the end, a pass, barricade + normal, domino ---------
# Seat 0 holds 0-0 and opens. Seat 1 holds no 0 and must draw the whole stock: 6-3, 5-3,
# 4-4 do not fit, 1-0 does (HHL-6). Seat 2 holds no 0 and no 1: it passes (stock empty).
DRAW_HANDS = [
    ["0-0", "5-1", "6-1", "6-6", "5-5", "6-5"],
    ["1-1", "2-1", "3-1", "4-1", "2-2", "3-2"],
    ["3-3", "4-3", "4-2", "6-2", "5-2", "6-4"],
    ["2-0", "3-0", "4-0", "5-0", "6-0", "5-4"],
]
DRAW_STOCK = ["6-3", "5-3", "4-4", "1-0"]
DRAW_SCRIPT = [
    (0, "0-0"),                  # ends L0 R0 U0 D0; seat 1 draws 4, must play 1-0
    (1, "1-0 left"),             # L1; seat 2 has no 0/1 and the stock is empty: pass
    (3, "2-0 right"),            # R2
    (0, "6-1 left"),             # L6
    (1, "2-2 right barricade"),  # right arm closed for good
    (2, "6-2 left"),             # L2
    (3, "3-0 up"),               # U3; seat 0 (5-1 6-6 5-5 6-5) has no 2/3/0: pass
    (1, "3-2 left"),             # L3
    (2, "3-3 up normal"),        # U stays 3 and open
    (3, "4-0 down"),             # D4; seat 0 passes again
    (1, "4-4 down normal"),      # D stays 4
    (2, "6-4 down"),             # D6
    (3, "6-0 down"),             # D0; seat 0 passes
    (1, "5-3 up"),               # U5
    (2, "4-3 left"),             # L4
    (3, "5-4 left"),             # L5
    (0, "5-5 up barricade"),     # up arm closed; seat 1 (1-1 2-1 3-1 4-1 6-3) passes
    (2, "5-2 left"),             # L2
    (3, "5-0 down"),             # seat 3 lays its last tile: domino! (HHL-7)
]
# Left in hands: seat 0 5-1 6-6 6-5 = 29; seat 1 1-1 2-1 3-1 4-1 6-3 = 23; seat 2 4-2 = 6;
# seat 3 nothing. C = 58, P = 25*58 - 100*R = 1450 - 100*R.
DRAW_RESULT = {"end": "domino", "winners": [3], "pips": [29, 23, 6, 0],
               "points": [-1450, -850, 850, 1450]}

# ----- deal B: all four arms barricaded, co-winners ----------------------------------------
BLOCK_HANDS = [
    ["0-0", "2-2", "4-4", "6-6", "6-4", "5-5"],
    ["1-0", "3-0", "3-2", "4-2", "5-1", "6-0"],
    ["1-1", "3-3", "2-1", "3-1", "4-1", "6-5"],
    ["2-0", "4-0", "6-3", "5-4", "6-2", "5-3"],
]
BLOCK_STOCK = ["5-0", "5-2", "6-1", "4-3"]
BLOCK_SCRIPT = [
    (0, "0-0"),
    (1, "1-0 left"), (2, "1-1 left barricade"),
    (3, "2-0 right"), (0, "2-2 right barricade"),
    (1, "3-0 up"), (2, "3-3 up barricade"),
    (3, "4-0 down"), (0, "4-4 down barricade"),  # all four arms closed: blocked (HHL-8)
]
# Left: seat 0 6-6 6-4 5-5 = 32; seat 1 3-2 4-2 5-1 6-0 = 23; seat 2 2-1 3-1 4-1 6-5 = 23;
# seat 3 6-3 5-4 6-2 5-3 = 34. C = 112, P = 2800 - 100*R. Seats 1 and 2 share the fewest.
BLOCK_RESULT = {"end": "blocked", "winners": [1, 2], "pips": [32, 23, 23, 34],
                "points": [-400, 500, 500, -600]}

# ----- deal C: 0-0 and 1-1 in the stock; blocked with all arms open and a dead stock ------
DEAD_HANDS = [
    ["3-3", "4-2", "6-1", "5-5", "6-0", "5-1"],
    ["3-0", "5-4", "4-1", "1-0", "2-2", "5-2"],
    ["3-2", "6-3", "6-2", "6-6", "4-0", "2-0"],
    ["5-0", "2-1", "6-4", "3-1", "6-5", "4-3"],
]
DEAD_STOCK = ["1-1", "0-0", "5-3", "4-4"]
DEAD_SCRIPT = [
    (1, "2-2"),  # the lowest double dealt is 2-2 (0-0 and 1-1 lie in the stock)
    (2, "2-0 up"), (3, "2-1 right"), (0, "4-2 left"), (1, "3-0 up"), (2, "3-2 up"),
    (3, "6-4 left"), (0, "5-1 right"), (1, "5-2 right"),
    (2, "6-2 left"),  # every arm shows 2 and all seven 2-tiles are laid: blocked
]
# Nobody draws the dead stock (1-1 0-0 5-3 4-4 fit nothing). Left: seat 0 6-0 6-1 3-3 5-5
# = 29; seat 1 1-0 4-1 5-4 = 15; seat 2 4-0 6-3 6-6 = 25; seat 3 5-0 3-1 4-3 6-5 = 27.
# C = 96, P = 2400 - 100*R.
DEAD_RESULT = {"end": "blocked", "winners": [1], "pips": [29, 15, 25, 27],
               "points": [-500, 900, -100, -300]}

# ----- deal D: 0-0 at seat 3; blocked with two arms open at 0 and an empty stock ----------
EMPTY_HANDS = [
    ["2-2", "6-0", "5-4", "5-1", "2-0", "2-1"],
    ["3-1", "4-0", "4-4", "3-3", "3-2", "4-3"],
    ["6-6", "5-5", "1-0", "6-5", "6-3", "3-0"],
    ["4-1", "5-2", "5-0", "1-1", "6-4", "0-0"],
]
EMPTY_STOCK = ["6-1", "4-2", "5-3", "6-2"]
EMPTY_SCRIPT = [
    (3, "0-0"), (0, "6-0 right"), (1, "4-0 down"), (2, "6-6 right barricade"),
    (3, "5-0 left"), (0, "5-1 left"), (1, "4-4 down barricade"),
    (2, "1-0 left"),  # L0 U0: seat 3 has no 0, draws all four (none fits) and passes
    (0, "2-0 left"), (1, "3-2 left"),
    (2, "3-0 left"),  # L0 U0 and all seven 0-tiles are laid: blocked
]
# Left: seat 0 2-1 2-2 5-4 = 16; seat 1 3-1 3-3 4-3 = 17; seat 2 6-3 5-5 6-5 = 30;
# seat 3 1-1 4-1 6-1 4-2 5-2 6-2 5-3 6-4 = 53. C = 116, P = 2900 - 100*R.
EMPTY_RESULT = {"end": "blocked", "winners": [0], "pips": [16, 17, 30, 53],
                "points": [1300, 1200, -100, -2400]}


def draw_match(upto=None, options=None):
    m = hhl(DRAW_HANDS, DRAW_STOCK, options)
    play_script(m, DRAW_SCRIPT[:upto])
    return m


# ----- HHL-1 ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**40])
def test_HHL_1_deal_six_tiles_to_each_seat_and_four_in_the_stock(seed):
    m = new_match("hhl", {"hands": 1}, seed=seed)
    rec = m.record()["deals"][0]
    assert [len(h) for h in rec["hands"]] == [6, 6, 6, 6]
    assert len(rec["stock"]) == 4
    assert len({*rec["stock"], *(t for h in rec["hands"] for t in h)}) == 28
    v = m.view(None)
    assert v["counts"] == [6, 6, 6, 6] and v["stock"] == 4
    for s in range(4):
        assert sorted(m.view(s)["hand"]) == sorted(rec["hands"][s])
    # the same seed deals the same hand (reproducible shuffle)
    assert new_match("hhl", {"hands": 1}, seed=seed).record() == m.record()


def test_HHL_1_explicit_deal_is_used_as_given():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    rec = m.record()["deals"][0]
    assert rec["hands"] == DRAW_HANDS and rec["stock"] == DRAW_STOCK
    for s in range(4):
        assert set(m.view(s)["hand"]) == set(DRAW_HANDS[s])


# ----- HHL-2 ---------------------------------------------------------------------------
@pytest.mark.parametrize("hands,stock,opener,opening,other", [
    pytest.param(DRAW_HANDS, DRAW_STOCK, 0, "0-0", "6-6", id="HHL-2-0-0-dealt"),
    pytest.param(DEAD_HANDS, DEAD_STOCK, 1, "2-2", "5-4", id="HHL-2-0-0-and-1-1-in-stock"),
    pytest.param(
        [["1-1", "5-1", "6-1", "6-6", "5-5", "6-5"], DRAW_HANDS[1][1:] + ["0-0"],
         DRAW_HANDS[2], DRAW_HANDS[3]], DRAW_STOCK, 1, "0-0", "2-1", id="HHL-2-0-0-at-seat-1"),
])
def test_HHL_2_lowest_double_opens(hands, stock, opener, opening, other):
    m = hhl(hands, stock)
    assert m.to_move == opener
    assert legal_strs(m) == [opening]
    assert m.view(opener)["legal_moves"] == [opening]
    e = assert_refused(m, opener, other, "MUST_OPEN_WITH")
    assert opening in e.message
    events = m.play(opener, opening)
    assert turn_records(events)[0] == {"seat": opener, "play": opening}
    assert m.view(None)["spinner"] == opening


def test_HHL_2_every_hand_is_opened_by_the_lowest_double_not_the_previous_winner():
    m = hhl(DRAW_HANDS, DRAW_STOCK, {"hands": 2}, more=[{"hands": DEAD_HANDS, "stock": DEAD_STOCK}])
    events = play_script(m, DRAW_SCRIPT)
    assert of_kind(events, "deal_over")[0].info["winners"] == [3]
    start = of_kind(events, "deal_start")[0]
    assert start.info == {"deal": 1, "leader": 1}
    assert m.to_move == 1 and legal_strs(m) == ["2-2"]


# ----- HHL-3 ---------------------------------------------------------------------------
def test_HHL_3_spinner_has_four_open_arms_at_its_number():
    m = hhl(BLOCK_HANDS, BLOCK_STOCK)
    m.play(0, "0-0")
    v = m.view(None)
    assert v["spinner"] == "0-0"
    assert {a: (x["end"], x["closed"]) for a, x in v["arms"].items()} == {
        "left": (0, False), "right": (0, False), "up": (0, False), "down": (0, False)}
    # seat 1 holds 1-0, 3-0, 6-0: each may go on any of the four arms
    assert legal_strs(m) == sorted(f"{t} {a}" for t in ("1-0", "3-0", "6-0")
                                   for a in ("left", "right", "up", "down"))


def test_HHL_3_arms_open_in_any_order():
    m = hhl(BLOCK_HANDS, BLOCK_STOCK)
    events = play_script(m, [(0, "0-0"), (1, "6-0 down"), (2, "6-5 down"), (3, "5-3 down")])
    arms = m.view(None)["arms"]
    assert [x["tile"] for x in arms["down"]["tiles"]] == ["6-0", "6-5", "5-3"]
    assert {a: x["end"] for a, x in arms.items()} == {"left": 0, "right": 0, "up": 0, "down": 3}
    # seat 0 (2-2 4-4 6-6 6-4 5-5) fits neither 0 nor 3: it draws 5-0, which fits
    assert turn_records(events)[-1] == {"seat": 0, "draw": ["5-0"]}
    assert legal_strs(m) == ["5-0 left", "5-0 right", "5-0 up"]


def test_HHL_3_layout_records_inner_and_outer_numbers():
    m = draw_match(4)  # 0-0; 1-0 left; 2-0 right; 6-1 left
    arms = m.view(None)["arms"]
    assert arms["left"]["tiles"] == [{"tile": "1-0", "inner": 0, "outer": 1},
                                     {"tile": "6-1", "inner": 1, "outer": 6}]
    assert arms["right"]["tiles"] == [{"tile": "2-0", "inner": 0, "outer": 2}]
    assert arms["up"]["tiles"] == [] and arms["up"]["end"] == 0


# ----- HHL-4 ---------------------------------------------------------------------------
@pytest.mark.parametrize("upto,arm,end", [
    pytest.param(2, "left", 1, id="HHL-4-1-0-on-0-shows-1"),
    pytest.param(3, "right", 2, id="HHL-4-2-0-on-0-shows-2"),
    pytest.param(4, "left", 6, id="HHL-4-6-1-on-1-shows-6"),
    pytest.param(6, "left", 2, id="HHL-4-6-2-on-6-shows-2"),
    pytest.param(8, "left", 3, id="HHL-4-3-2-on-2-shows-3"),
])
def test_HHL_4_the_arm_end_becomes_the_other_number(upto, arm, end):
    m = draw_match(upto)
    assert m.view(None)["arms"][arm]["end"] == end


@pytest.mark.parametrize("upto,seat,move", [
    pytest.param(2, 3, "2-0 left", id="HHL-4-END_MISMATCH-0-on-1"),
    pytest.param(2, 3, "5-4 up", id="HHL-4-END_MISMATCH-no-number-matches"),
    pytest.param(4, 1, "2-1 left", id="HHL-4-END_MISMATCH-2-1-on-6"),
    pytest.param(4, 1, "2-2 left normal", id="HHL-4-END_MISMATCH-double"),
])
def test_HHL_4_END_MISMATCH(upto, seat, move):
    m = draw_match(upto)
    assert m.to_move == seat
    assert_refused(m, seat, move, "END_MISMATCH")


# ----- HHL-5 ---------------------------------------------------------------------------
def test_HHL_5_barricade_closes_the_arm_for_every_player():
    m = draw_match(4)  # L6 R2 U0 D0, seat 1 to move
    assert {"2-2 right normal", "2-2 right barricade"} <= set(legal_strs(m))
    m.play(1, "2-2 right barricade")
    right = m.view(None)["arms"]["right"]
    assert right["closed"] is True and right["end"] is None
    assert right["tiles"][-1] == {"tile": "2-2", "inner": 2, "outer": 2, "mode": "barricade"}
    # seat 2 holds 4-2, which would match the 2 the arm showed: the arm is closed
    assert not any(mv.endswith("right") for mv in legal_strs(m))
    assert_refused(m, 2, "4-2 right", "ARM_CLOSED")
    m.play(2, "6-2 left")
    assert_refused(m, 3, "3-0 right", "ARM_CLOSED")  # ... and for the next player too
    assert all("right" not in mv for mv in legal_strs(m))


def test_HHL_5_normal_double_keeps_the_arm_open_at_its_number():
    m = draw_match(8)  # L3 R(closed) U3 D0, seat 2 to move
    doubles = {"3-3 up normal", "3-3 up barricade", "3-3 left normal", "3-3 left barricade"}
    assert doubles <= set(legal_strs(m))
    m.play(2, "3-3 up normal")
    up = m.view(None)["arms"]["up"]
    assert up["closed"] is False and up["end"] == 3
    assert up["tiles"][-1] == {"tile": "3-3", "inner": 3, "outer": 3, "mode": "normal"}
    m.play(3, "4-0 down")
    assert {"5-3 up", "6-3 up", "3-1 up"} <= set(legal_strs(m))  # seat 1 may still use it


def test_HHL_5_a_double_needs_a_mode_and_a_non_double_has_none():
    m = draw_match(4)
    assert_refused(m, 1, "2-2 right", "MODE_REQUIRED")
    assert_refused(m, 1, "2-1 right normal", "MODE_NOT_ALLOWED")
    assert_refused(m, 1, "2-1 right barricade", "MODE_NOT_ALLOWED")


def test_HHL_5_the_spinner_is_never_a_barricade():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    assert legal_strs(m) == ["0-0"]  # no mode, no arm offered
    assert_refused(m, 0, "0-0 left barricade", "OPENING_HAS_NO_PLACE")
    assert_refused(m, 0, "0-0 up normal", "OPENING_HAS_NO_PLACE")
    with pytest.raises(MalformedInput):
        m.play(0, "0-0 barricade")  # "barricade" is not an arm
    m.play(0, "0-0")
    assert all(not a["closed"] for a in m.view(None)["arms"].values())


def test_HHL_5_barricade_on_each_arm_one_after_another():
    m = hhl(BLOCK_HANDS, BLOCK_STOCK)
    closed = []
    for seat, move in BLOCK_SCRIPT:
        if not m.over:
            arms = m.view(None)["arms"]
            assert [a for a, x in arms.items() if x["closed"]] == closed
        m.play(seat, move)
        if move.endswith("barricade"):
            closed.append(move.split()[1])
    assert closed == ["left", "right", "up", "down"]


# ----- HHL-6 ---------------------------------------------------------------------------
def test_HHL_6_draw_until_playable_then_must_play_it():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    events = m.play(0, "0-0")
    assert turn_records(events) == [
        {"seat": 0, "play": "0-0"},
        {"seat": 1, "draw": ["6-3", "5-3", "4-4", "1-0"]},  # one at a time, stop at 1-0
    ]
    assert m.to_move == 1
    assert legal_strs(m) == ["1-0 down", "1-0 left", "1-0 right", "1-0 up"]
    assert m.view(1)["drawn"] == "1-0"
    assert m.view(None)["stock"] == 0 and m.view(None)["counts"] == [5, 10, 6, 6]
    # any other tile is refused, even one just drawn
    assert_refused(m, 1, "6-3 left", "MUST_PLAY_DRAWN_TILE")
    assert_refused(m, 1, "2-1 left", "MUST_PLAY_DRAWN_TILE")
    m.play(1, "1-0 left")
    # undrawable tiles stay in the hand
    assert set(m.view(1)["hand"]) == {"1-1", "2-1", "3-1", "4-1", "2-2", "3-2", "6-3", "5-3", "4-4"}
    assert "drawn" not in m.view(1)


def test_HHL_6_only_the_drawer_sees_which_tiles_were_drawn():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    draw = of_kind(m.play(0, "0-0"), "draw")[0]
    assert draw.to_dict(1) == {"kind": "draw", "seat": 1, "count": 4,
                               "tiles": ["6-3", "5-3", "4-4", "1-0"]}
    for seat in (None, 0, 2, 3):
        assert draw.to_dict(seat) == {"kind": "draw", "seat": 1, "count": 4}
        v = m.view(seat)
        assert "drawn" not in v
        assert v["history"][-1] == {"kind": "draw", "seat": 1, "count": 4}
    assert m.view(1)["history"][-1]["tiles"] == ["6-3", "5-3", "4-4", "1-0"]


def test_HHL_6_pass_when_the_stock_is_empty():
    m = draw_match(1)
    events = m.play(1, "1-0 left")  # seat 2 has no 0 or 1 and nothing to draw
    assert turn_records(events) == [{"seat": 1, "play": "1-0", "at": "left"}, {"seat": 2, "pass": True}]
    assert m.to_move == 3
    assert m.view(2)["counts"][2] == 6
    events = play_script(m, DRAW_SCRIPT[2:7])
    assert turn_records(events)[-1] == {"seat": 0, "pass": True}
    assert m.to_move == 1


def test_HHL_6_the_playable_tile_is_the_last_one_in_the_stock():
    # Deal A with 1-0 and 2-0 swapped: seat 1 draws 6-3 5-3 4-4 and finally 2-0.
    hands = [DRAW_HANDS[0], DRAW_HANDS[1], DRAW_HANDS[2], ["1-0", "3-0", "4-0", "5-0", "6-0", "5-4"]]
    stock = ["6-3", "5-3", "4-4", "2-0"]
    m = hhl(hands, stock)
    events = m.play(0, "0-0")
    assert turn_records(events) == [{"seat": 0, "play": "0-0"},
                                    {"seat": 1, "draw": ["6-3", "5-3", "4-4", "2-0"]}]
    assert m.to_move == 1 and m.view(1)["drawn"] == "2-0"
    assert legal_strs(m) == ["2-0 down", "2-0 left", "2-0 right", "2-0 up"]


def test_HHL_6_whole_stock_drawn_without_a_fit_then_pass():
    hands = [DRAW_HANDS[0], DRAW_HANDS[1], DRAW_HANDS[2], ["1-0", "2-0", "3-0", "4-0", "5-0", "6-0"]]
    stock = ["6-3", "5-3", "4-4", "5-4"]
    m = hhl(hands, stock)
    events = m.play(0, "0-0")
    assert turn_records(events) == [
        {"seat": 0, "play": "0-0"},
        {"seat": 1, "draw": ["6-3", "5-3", "4-4", "5-4"]},
        {"seat": 1, "pass": True},
        {"seat": 2, "pass": True},
    ]
    assert m.to_move == 3 and m.view(None)["counts"] == [5, 10, 6, 6]
    assert "drawn" not in m.view(3)


# ----- HHL-7 ---------------------------------------------------------------------------
def test_HHL_7_domino_last_tile_wins_the_hand():
    m = draw_match(len(DRAW_SCRIPT) - 1)
    assert m.view(None)["counts"][3] == 1
    events = m.play(3, "5-0 down")
    assert [e.kind for e in events] == ["play", "deal_over", "match_over"]
    assert events[1].info == DRAW_RESULT
    assert m.over and m.to_move is None
    assert m.deals[0].result == DRAW_RESULT


def test_HHL_7_whole_domino_hand_events():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    events = play_script(m, DRAW_SCRIPT)
    passes = [r["seat"] for r in turn_records(events) if "pass" in r]
    assert passes == [2, 0, 0, 0, 1]
    assert m.result == {"totals": DRAW_RESULT["points"], "ranking": [[3], [2], [1], [0]]}


# ----- HHL-8 ---------------------------------------------------------------------------
@pytest.mark.parametrize("hands,stock,script,result,stock_left,draws", [
    pytest.param(BLOCK_HANDS, BLOCK_STOCK, BLOCK_SCRIPT, BLOCK_RESULT, 4, [],
                 id="HHL-8-all-four-arms-barricaded-co-winners"),
    pytest.param(DEAD_HANDS, DEAD_STOCK, DEAD_SCRIPT, DEAD_RESULT, 4, [],
                 id="HHL-8-open-arms-dead-stock-not-drawn"),
    pytest.param(EMPTY_HANDS, EMPTY_STOCK, EMPTY_SCRIPT, EMPTY_RESULT, 0,
                 [{"seat": 3, "draw": ["6-1", "4-2", "5-3", "6-2"]}],
                 id="HHL-8-open-arms-empty-stock"),
])
def test_HHL_8_blocked_hand(hands, stock, script, result, stock_left, draws):
    m = hhl(hands, stock)
    events = play_script(m, script[:-1])
    assert not m.over
    last = m.play(*script[-1])
    assert [e.kind for e in last] == ["play", "deal_over", "match_over"]  # ends at once
    assert last[1].info == result
    # nobody is made to draw a dead stock
    assert [r for r in turn_records(events + last) if "draw" in r] == draws
    assert m.view(None)["stock"] == stock_left


# ----- HHL-8, the two readings (rules option dead_stock; profile) -------------------------
# deal E (seed 97 of a greedy search): the ruling's winner loses by the letter. Ends after
# each play (left right up down): 0-0 by seat 3: 0 0 0 0; 4-0 up U4; 2-0 left L2; 6-4 up
# U6; 6-3 up U3; 5-3 up U5; 5-0 down D5; 2-1 left L1; 5-4 up U4; 5-2 down D2; 6-1 left L6;
# 4-4 up normal U4; 6-2 left L2; 4-2 left L4; 3-2 down D3; 4-3 left L3; 3-3 left normal L3;
# 3-1 left L1; 3-0 right R3; 4-1 left L4: L4 R3 U4 D3. Every tile with a 3 or a 4 is laid
# (3-0 3-1 3-2 3-3 4-3 5-3 6-3; 4-0 4-1 4-2 4-4 5-4 6-4): nothing in a hand or the stock
# (5-1 5-5 2-2 6-0, 26 pips) fits. Left: seat 0 6-6 = 12, seat 1 6-5 = 11, seat 2 1-1 = 2,
# seat 3 1-0 = 1.
#  ruling (stop): the hand ends at once. C = 26, P = 650 - 100 R: seat 3 wins with 1 pip.
#  letter (draw): seat 3, next after seat 2, cannot play: it draws the four (none fits)
#  and passes; seats 0, 1, 2 pass: four passes in a row, the stock empty. Seat 3 holds
#  1 + 26 = 27; C = 52, P = 1300 - 100 R: seat 2 wins, seat 3 comes last.
SWING_HANDS = [
    ["5-3", "4-2", "4-0", "5-2", "6-6", "3-1"],
    ["2-0", "3-0", "5-0", "3-2", "6-5", "6-1"],
    ["1-1", "4-1", "4-3", "4-4", "6-4", "2-1"],
    ["6-3", "5-4", "6-2", "0-0", "3-3", "1-0"],
]
SWING_STOCK = ["5-1", "5-5", "2-2", "6-0"]
SWING_SCRIPT = [
    (3, "0-0"), (0, "4-0 up"), (1, "2-0 left"), (2, "6-4 up"), (3, "6-3 up"), (0, "5-3 up"),
    (1, "5-0 down"), (2, "2-1 left"), (3, "5-4 up"), (0, "5-2 down"), (1, "6-1 left"),
    (2, "4-4 up normal"), (3, "6-2 left"), (0, "4-2 left"), (1, "3-2 down"),
    (2, "4-3 left"), (3, "3-3 left normal"), (0, "3-1 left"), (1, "3-0 right"),
    (2, "4-1 left"),
]
SWING_RESULT = {"end": "blocked", "winners": [3], "pips": [12, 11, 2, 1],
                "points": [-550, -450, 450, 550]}
SWING_LITERAL = {"end": "blocked", "winners": [2], "pips": [12, 11, 2, 27],
                 "points": [100, 200, 1100, -1400]}
PASSES_FROM = {s: [{"seat": (s + k) % 4, "pass": True} for k in range(4)] for s in range(4)}

# Deal C by the letter: seat 3 (after seat 2's 6-2) draws 1-1 0-0 5-3 4-4 (18 pips): 27 +
# 18 = 45; C = 29 + 15 + 25 + 45 = 114, P = 2850 - 100 R. Seat 1 still wins, by more.
DEAD_LITERAL = {"end": "blocked", "winners": [1], "pips": [29, 15, 25, 45],
                "points": [-50, 1350, 350, -1650]}
# HHL-8's readings over the same deals and plays: (deal, stock, script, the options, the
# turn records after the last play, the result).
READINGS = [
    pytest.param(SWING_HANDS, SWING_STOCK, SWING_SCRIPT, {}, [], SWING_RESULT,
                 id="HHL-8-ruling-stop-winner-seat-3"),
    pytest.param(SWING_HANDS, SWING_STOCK, SWING_SCRIPT, {"profile": "literal"},
                 [{"seat": 3, "draw": SWING_STOCK}, *PASSES_FROM[3]], SWING_LITERAL,
                 id="HHL-8-literal-draws-the-dead-stock-winner-seat-2"),
    pytest.param(DEAD_HANDS, DEAD_STOCK, DEAD_SCRIPT, {"dead_stock": "stop"}, [], DEAD_RESULT,
                 id="HHL-8-ruling-deal-C"),
    pytest.param(DEAD_HANDS, DEAD_STOCK, DEAD_SCRIPT, {"dead_stock": "draw"},
                 [{"seat": 3, "draw": DEAD_STOCK}, *PASSES_FROM[3]], DEAD_LITERAL,
                 id="HHL-8-literal-reading-alone-deal-C"),
    # a reading given on its own wins over the profile
    pytest.param(DEAD_HANDS, DEAD_STOCK, DEAD_SCRIPT, {"profile": "literal", "dead_stock": "stop"},
                 [], DEAD_RESULT, id="HHL-8-literal-profile-ruling-reading"),
    # Deal D: the stock is already empty (seat 3 drew it earlier, HHL-6): by the letter the
    # four passes are played out, and the result is the ruling's.
    pytest.param(EMPTY_HANDS, EMPTY_STOCK, EMPTY_SCRIPT, {"profile": "literal"},
                 PASSES_FROM[3], EMPTY_RESULT, id="HHL-8-literal-empty-stock-four-passes"),
    # Deal B: all four arms barricaded ends the hand at once by either reading; the stock
    # (4 tiles) stays undrawn.
    pytest.param(BLOCK_HANDS, BLOCK_STOCK, BLOCK_SCRIPT, {"profile": "literal"}, [],
                 BLOCK_RESULT, id="HHL-8-literal-four-barricades-end-at-once"),
]


@pytest.mark.parametrize("hands,stock,script,options,after,result", READINGS)
def test_HHL_8_readings(hands, stock, script, options, after, result):
    m = hhl(hands, stock, {"hands": 1, **options})
    play_script(m, script[:-1])
    assert not m.over
    last = m.play(*script[-1])
    assert [e.kind for e in last][-2:] == ["deal_over", "match_over"]
    assert turn_records(last)[1:] == after
    assert last[-2].info == result
    assert sum(result["points"]) == 0                                      # HHL-9
    if after and "draw" in after[0]:
        assert m.view(None)["stock"] == 0                                  # drawn to the end
    # the record names the options in force and replays under them (docs/records.md)
    rec = m.record()
    assert rec["options"]["dead_stock"] == ("draw" if after else m.options["dead_stock"])
    assert replay_record(rec).record() == rec


def test_HHL_8_the_literal_stock_draw_is_seen_as_any_draw():
    """By the letter the dead stock's tiles go to the drawer's hand (HHL-6: every seat
    sees the count, only the drawer the tiles), and they count in its R (HHL-9)."""
    m = hhl(SWING_HANDS, SWING_STOCK, {"hands": 2, "profile": "literal"})
    events = play_script(m, SWING_SCRIPT)
    draw = next(e for e in events if e.kind == "draw")
    assert draw.to_dict(None) == {"kind": "draw", "seat": 3, "count": 4}
    assert draw.to_dict(3)["tiles"] == SWING_STOCK
    assert "tiles" not in draw.to_dict(2)
    assert m.view(None)["totals"] == SWING_LITERAL["points"]


# ----- HHL-9 ---------------------------------------------------------------------------
@pytest.mark.parametrize("pips,points", [
    pytest.param([29, 23, 6, 0], [-1450, -850, 850, 1450], id="HHL-9-domino-deal-A"),
    pytest.param([32, 23, 23, 34], [-400, 500, 500, -600], id="HHL-9-blocked-deal-B"),
    pytest.param([17, 12, 0, 11], [-700, -200, 1000, -100], id="HHL-9-docs-domino-example"),
    pytest.param([8, 8, 21, 20], [625, 625, -675, -575], id="HHL-9-docs-blocked-C-not-multiple-of-4"),
])
def test_HHL_9_points_formula(pips, points):
    c = sum(pips)
    assert [25 * c - 100 * r for r in pips] == points
    assert sum(points) == 0


@pytest.mark.parametrize("hands,stock,script,result", [
    pytest.param(DRAW_HANDS, DRAW_STOCK, DRAW_SCRIPT, DRAW_RESULT, id="HHL-9-domino"),
    pytest.param(BLOCK_HANDS, BLOCK_STOCK, BLOCK_SCRIPT, BLOCK_RESULT, id="HHL-9-blocked"),
    pytest.param(DEAD_HANDS, DEAD_STOCK, DEAD_SCRIPT, DEAD_RESULT, id="HHL-9-stock-tiles-never-count"),
    pytest.param(EMPTY_HANDS, EMPTY_STOCK, EMPTY_SCRIPT, EMPTY_RESULT, id="HHL-9-below-zero"),
])
def test_HHL_9_points_sum_to_zero_and_ignore_the_stock(hands, stock, script, result):
    m = hhl(hands, stock)
    play_script(m, script)
    got = m.deals[0].result
    assert got == result
    assert sum(got["points"]) == 0
    assert got["points"] == [25 * sum(got["pips"]) - 100 * r for r in got["pips"]]
    assert m.result["totals"] == result["points"]


# ----- HHL-10 --------------------------------------------------------------------------
def two_hand_match(options):
    return hhl(DRAW_HANDS, DRAW_STOCK, options, more=[{"hands": BLOCK_HANDS, "stock": BLOCK_STOCK}])


def test_HHL_10_match_by_number_of_hands_accumulates_points():
    m = two_hand_match({"hands": 2})
    events = play_script(m, DRAW_SCRIPT)
    assert not m.over and of_kind(events, "deal_start")
    assert m.view(None)["totals"] == DRAW_RESULT["points"]
    events = play_script(m, BLOCK_SCRIPT)
    totals = [a + b for a, b in zip(DRAW_RESULT["points"], BLOCK_RESULT["points"], strict=True)]
    assert totals == [-1850, -350, 1350, 850]
    assert m.over
    assert m.result == {"totals": totals, "ranking": [[2], [3], [1], [0]]}
    assert of_kind(events, "match_over")[0].info == m.result
    assert [d["result"] for d in m.record()["deals"]] == [DRAW_RESULT, BLOCK_RESULT]
    assert m.view(0)["result"] == m.result
    assert_refused(m, 0, "6-6 left normal", "MATCH_OVER")


def test_HHL_10_equal_totals_share_a_place():
    m = hhl(BLOCK_HANDS, BLOCK_STOCK, {"hands": 1})
    play_script(m, BLOCK_SCRIPT)
    assert m.result == {"totals": [-400, 500, 500, -600], "ranking": [[1, 2], [0], [3]]}


def test_HHL_10_default_limit_is_60_minutes_and_hands_keep_coming():
    m = two_hand_match({})
    assert m.options == {"minutes": 60, "hands": None, "profile": "rulings", "dead_stock": "stop"}
    play_script(m, DRAW_SCRIPT)
    play_script(m, BLOCK_SCRIPT)
    assert not m.over  # no hand limit: a third hand is dealt from the seed
    assert len(m.deals) == 3 and m.to_move is not None


def test_HHL_10_time_up_finishes_the_hand_in_progress_then_ends():
    m = two_hand_match({})
    play_script(m, DRAW_SCRIPT[:5])
    m.time_up()
    assert not m.over and m.to_move == 2  # the hand goes on
    events = play_script(m, DRAW_SCRIPT[5:])
    assert [e.kind for e in events[-2:]] == ["deal_over", "match_over"]
    assert m.over and len(m.deals) == 1
    assert m.result == {"totals": DRAW_RESULT["points"], "ranking": [[3], [2], [1], [0]]}


def test_HHL_10_time_up_during_the_second_hand():
    m = two_hand_match({"minutes": 30})
    play_script(m, DRAW_SCRIPT)
    play_script(m, BLOCK_SCRIPT[:3])
    m.time_up()
    play_script(m, BLOCK_SCRIPT[3:])
    assert m.over and len(m.deals) == 2
    assert m.result["totals"] == [-1850, -350, 1350, 850]


def test_HHL_10_time_up_with_a_hand_limit_ends_early():
    m = two_hand_match({"hands": 5})
    play_script(m, DRAW_SCRIPT[:3])
    m.time_up()
    play_script(m, DRAW_SCRIPT[3:])
    assert m.over and len(m.deals) == 1


def test_HHL_moves_accept_text_dict_and_move_values():
    m = hhl(DRAW_HANDS, DRAW_STOCK)
    m.play(0, {"play": "0-0"})
    m.play(1, Move.parse("0-1 left"))
    m.play(3, {"play": "0-2", "at": "right"})
    m.play(0, "1-6 left")
    m.play(1, {"play": "2-2", "at": "right", "mode": "barricade"})
    assert turn_records(m.events)[-1] == {"seat": 1, "play": "2-2", "at": "right", "mode": "barricade"}


def test_HHL_views_show_own_hand_layout_counts_stock_scores_turn_and_history():
    m = draw_match(1)  # seat 1 has drawn 4 tiles and must play 1-0
    v = m.view(1)
    assert v["variant"] == "hhl" and v["seat"] == 1 and v["turn"] == 1 and v["deal_number"] == 0
    assert set(v["hand"]) == set(DRAW_HANDS[1]) | set(DRAW_STOCK)
    assert sorted(v["legal_moves"]) == ["1-0 down", "1-0 left", "1-0 right", "1-0 up"]
    assert v["drawn"] == "1-0"
    assert v["counts"] == [5, 10, 6, 6] and v["stock"] == 0 and v["totals"] == [0, 0, 0, 0]
    assert v["spinner"] == "0-0" and set(v["arms"]) == {"left", "right", "up", "down"}
    assert [h["kind"] for h in v["history"]] == ["deal_start", "play", "draw"]
    other = m.view(2)
    assert other["legal_moves"] == [] and "drawn" not in other
    assert set(other["hand"]) == set(DRAW_HANDS[2])
    spectator = m.view(None)
    assert "hand" not in spectator and "legal_moves" not in spectator and "drawn" not in spectator
    assert spectator["history"][0] == {"kind": "deal_start", "deal": 0, "leader": 0}
    assert {k: v[k] for k in ("counts", "stock", "arms", "turn", "totals")} == \
        {k: spectator[k] for k in ("counts", "stock", "arms", "turn", "totals")}
