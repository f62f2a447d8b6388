"""Domeng scenarios from fixed deals, one or more per ruling DOM-1..DOM-11.

The short first-round scenarios (FIRST CAPPU kinds, every MANGUNO case) are fixed deals
with fixed move lists. Every expected number in them (passes and their cost, pips,
winner, CUCUQ, MATTIKKENG, stones) was derived by hand from the deal and the moves
following the rulings of docs/rules.md; the derivation is in the comments. Deep-cycle cases
(the table short of stones, CAMAT) come from seeded random matches: the tests check each
payment against the ruling's formula from the stones just before it, and that every case
was really reached.
"""

import copy
import functools
import random
from typing import NamedTuple

import pytest
from rules_helpers import assert_refused, domeng, legal_strs, of_kind, play_script, turn_records

from engine_service.rules import MalformedInput, new_match, replay_record


class Round(NamedTuple):
    hands: list
    sleeping: list
    moves: list
    passes: list  # (seat, cost) of every pass, in order; cost 2 = PASSEBUNGE, 0 = closing
    result: dict


def R(end, kind, winner, cucuq, manguno, mattikkeng, pips, to, count, table, held):
    return {"end": end, "kind": kind, "winner": winner, "cucuq": cucuq, "manguno": manguno,
            "mattikkeng": mattikkeng, "pips": pips,
            "transfers": [{"to": to, "count": count, "from": "table"}],
            "table": table, "held": held, "camat": None}


# Seat 0 leads 6-6 and lays its fifth tile 6-3 on the right (ends 4|6 -> 4|3): a plain
# FIRST CAPPU. Seat 1 never lays a tile: four PASSEBUNGE (2 each). CUCUQ = (0-1) mod 5 = 4.
# Passes: 1:2 | 1:2 2:1 | 1:2 2:1 3:1 | 1:2 2:1 | 4:1 -> seat1 8, seat2 3, seat3 1,
# seat4 1 = 13, table 12; CUCUQ +1 -> table 11. Left: seat1 2-0 4-0 5-2 4-4 5-4 = 30,
# seat2 0-0 5-0 2-2 4-2 = 15, seat3 3-0 3-3 = 9, seat4 1-0 5-3 = 9.
PLAIN = Round(
    hands=[
        ["3-2", "6-6", "5-1", "6-3", "6-4"],
        ["2-0", "4-0", "5-2", "5-4", "4-4"],
        ["2-2", "0-0", "4-2", "5-0", "6-5"],
        ["3-0", "1-1", "4-3", "3-3", "5-5"],
        ["5-3", "2-1", "4-1", "1-0", "6-1"],
    ],
    sleeping=["3-1", "6-0", "6-2"],
    moves=[
        (0, "6-6"), (2, "6-5 right"), (3, "5-5 right"), (4, "6-1 left"), (0, "5-1 right"),
        (3, "1-1 right"), (4, "4-1 right"), (0, "6-4 right"), (4, "2-1 left"),
        (0, "3-2 left"), (3, "4-3 left"), (0, "6-3 right"),
    ],
    passes=[(1, 2), (1, 2), (2, 1), (1, 2), (2, 1), (3, 1), (1, 2), (2, 1), (4, 1)],
    result=R("cappu", "plain", 0, 4, None, [], [0, 30, 15, 9, 9], 4, 1, 11, [0, 8, 3, 1, 2]),
)

# Seat 1 lays its last tile 6-2 on the left end 2 (ends 2|6 -> 6|6): a MAPPAKULING by a
# non-double, CEKI. CUCUQ seat 0 receives 3. Seat 1 plays twice in a row (6-3 left: the
# four others pass, and seat 1 can still play, so no block). Passes: 2:2 0:2 4:1 |
# 2:1 3:1 4:1 0:1 | 2:1 | 4:1 0:1 = 12, table 13; CUCUQ +3 -> 10.
CEKI = Round(
    hands=[
        ["5-5", "3-1", "4-3", "1-0", "5-3"],
        ["6-6", "6-3", "6-5", "6-2", "2-1"],
        ["3-2", "2-2", "4-0", "4-1", "2-0"],
        ["3-3", "4-4", "6-4", "0-0", "5-2"],
        ["4-2", "1-1", "5-1", "3-0", "5-0"],
    ],
    sleeping=["5-4", "6-0", "6-1"],
    moves=[
        (1, "6-6"), (3, "6-4 left"), (4, "4-2 left"), (1, "2-1 left"), (2, "4-1 left"),
        (3, "4-4 left"), (0, "4-3 left"), (1, "6-3 left"), (1, "6-5 left"), (3, "5-2 left"),
        (1, "6-2 left"),
    ],
    passes=[(2, 2), (0, 2), (4, 1), (2, 1), (3, 1), (4, 1), (0, 1), (2, 1), (4, 1), (0, 1)],
    result=R("cappu", "ceki", 1, 0, None, [], [23, 0, 15, 6, 16], 0, 3, 10, [7, 0, 4, 1, 3]),
)

# Seat 4 lays its last tile, the double 3-3, on ends 3|3: a MAPPAKULING by a double, POLLO.
# CUCUQ seat 3 receives 5. Passes: 1:2 | 1:2 | 1:2 2:1 | 0:1 1:2 2:1 3:1 = 12, table 13;
# CUCUQ +5 -> 8.
POLLO = Round(
    hands=[
        ["4-3", "5-5", "4-1", "6-4", "3-0"],
        ["0-0", "5-1", "2-1", "5-2", "2-2"],
        ["4-4", "2-0", "1-1", "3-2", "6-1"],
        ["6-3", "6-5", "4-0", "5-4", "5-0"],
        ["3-1", "6-6", "5-3", "3-3", "4-2"],
    ],
    sleeping=["6-0", "6-2", "1-0"],
    moves=[
        (4, "6-6"), (0, "6-4 left"), (2, "6-1 right"), (3, "4-0 left"), (4, "3-1 right"),
        (0, "3-0 left"), (2, "3-2 left"), (3, "6-3 right"), (4, "4-2 left"),
        (0, "4-3 left"), (3, "6-5 right"), (4, "5-3 right"), (4, "3-3 right"),
    ],
    passes=[(1, 2), (1, 2), (1, 2), (2, 1), (0, 1), (1, 2), (2, 1), (3, 1)],
    result=R("cappu", "pollo", 4, 3, None, [], [15, 20, 12, 14, 0], 3, 5, 8, [1, 8, 2, 6, 0]),
)

# Seat 3 lays 6-0 on the left (ends 0|6 -> 6|6); all seven 6-tiles are on the line or
# asleep (6-4, 6-2): seats 4, 0, 1, 2 pass, seat 3 cannot play: MANGUNO with 1-1 3-2 = 7.
# Others: 33, 14, 13, 23 -- none <= 7: no MATTIKKENG, seat 3 wins, CUCUQ seat 2 gets 1.
# Seats 4 and 0 never lay a tile: three PASSEBUNGE each (every one counts).
# Passes: 4:2 0:2 | 4:2 0:2 | 4:2 0:2 1:1 2:1 3:0 = 14, table 11; CUCUQ +1 -> 10.
NO_MATT = Round(
    hands=[
        ["5-4", "2-1", "4-1", "3-3", "5-5"],
        ["6-3", "4-4", "0-0", "5-1", "6-1"],
        ["4-3", "1-0", "2-0", "2-2", "5-3"],
        ["6-0", "3-2", "1-1", "6-5", "6-6"],
        ["3-0", "5-0", "3-1", "5-2", "4-0"],
    ],
    sleeping=["6-4", "6-2", "4-2"],
    moves=[
        (3, "6-6"), (1, "6-3 left"), (2, "5-3 left"), (3, "6-5 left"), (1, "6-1 left"),
        (2, "1-0 left"), (3, "6-0 left"),
    ],
    passes=[(4, 2), (0, 2), (4, 2), (0, 2), (4, 2), (0, 2), (1, 1), (2, 1), (3, 0)],
    result=R("blocked", None, 3, 2, 3, [], [33, 14, 13, 7, 23], 2, 1, 10, [6, 1, 2, 0, 6]),
)

# MANGUNO seat 4 (3-1 2-2 5-2 = 15) after 6-4 right (ends 6|6). Others: 21, 26, 18, 13:
# only seat 3 (13 < 15) is MATTIKKENG and it is lower: seat 3 wins, seat 4 receives 5.
# Passes: 1:2 | 0:1 1:2 2:1 3:1 4:0 = 7, table 18; MANGUNO +5 -> 13.
ONE_LOWER = Round(
    hands=[
        ["5-0", "6-3", "5-1", "4-3", "3-0"],
        ["4-2", "1-1", "5-3", "0-0", "5-5"],
        ["5-4", "6-6", "4-4", "1-0", "6-1"],
        ["2-1", "4-0", "6-2", "4-1", "3-3"],
        ["2-2", "5-2", "3-2", "6-4", "3-1"],
    ],
    sleeping=["6-5", "6-0", "2-0"],
    moves=[
        (2, "6-6"), (3, "6-2 left"), (4, "3-2 left"), (0, "6-3 left"), (2, "6-1 right"),
        (3, "4-1 right"), (4, "6-4 right"),
    ],
    passes=[(1, 2), (0, 1), (1, 2), (2, 1), (3, 1), (4, 0)],
    result=R("blocked", None, 3, None, 4, [3], [21, 26, 18, 13, 15], 4, 5, 13, [1, 4, 1, 1, 5]),
)

# MANGUNO seat 0 (1-0 3-0 4-3 = 11). Others: 18, 28, 11, 15: only seat 3, with 11 = 11,
# is MATTIKKENG: seat 3 wins, the MANGUNO receives only 1.
# Passes: 2:2 | 2:2 | 1:1 2:2 3:1 4:1 0:0 = 9, table 16; MANGUNO +1 -> 15.
ONE_EQUAL = Round(
    hands=[
        ["3-0", "4-3", "6-1", "1-0", "6-4"],
        ["3-2", "5-4", "2-2", "6-6", "6-0"],
        ["5-3", "4-2", "4-0", "0-0", "5-5"],
        ["4-1", "5-1", "1-1", "2-1", "6-2"],
        ["2-0", "4-4", "3-3", "5-0", "3-1"],
    ],
    sleeping=["6-5", "5-2", "6-3"],
    moves=[
        (1, "6-6"), (3, "6-2 left"), (4, "2-0 left"), (0, "6-1 right"), (1, "6-0 left"),
        (3, "4-1 right"), (4, "4-4 right"), (0, "6-4 right"),
    ],
    passes=[(2, 2), (2, 2), (1, 1), (2, 2), (3, 1), (4, 1), (0, 0)],
    result=R("blocked", None, 3, None, 0, [3], [11, 18, 28, 11, 15], 0, 1, 15, [1, 1, 6, 1, 1]),
)

# MANGUNO seat 1 (4-1 3-2 4-4 = 18). Others: 10, 15, 32, 20: seats 0 (10) and 2 (15) are
# MATTIKKENG. Seat 2 is reached first clockwise, but seat 0 has the fewest pips: seat 0
# wins; two MATTIKKENG, so the MANGUNO receives 1.
# Passes: 3:2 | 2:1 3:2 | 2:1 3:2 4:1 0:1 1:0 = 10, table 15; MANGUNO +1 -> 14.
TWO_FEWEST = Round(
    hands=[
        ["2-0", "5-0", "2-1", "1-1", "3-1"],
        ["4-4", "6-0", "3-2", "6-3", "4-1"],
        ["6-6", "0-0", "1-0", "5-3", "5-1"],
        ["5-5", "5-2", "3-3", "3-0", "4-2"],
        ["6-2", "6-1", "4-3", "5-4", "4-0"],
    ],
    sleeping=["6-5", "2-2", "6-4"],
    moves=[
        (2, "6-6"), (4, "6-2 right"), (0, "2-0 right"), (1, "6-0 right"), (4, "6-1 right"),
        (0, "3-1 right"), (1, "6-3 right"),
    ],
    passes=[(3, 2), (2, 1), (3, 2), (2, 1), (3, 2), (4, 1), (0, 1), (1, 0)],
    result=R("blocked", None, 0, None, 1, [0, 2], [10, 18, 15, 32, 20], 1, 1, 14, [1, 1, 2, 6, 1]),
)

# MANGUNO seat 1 (1-0 2-2 5-5 = 15). Others: 12, 12, 25, 22: seats 0 and 2 are MATTIKKENG
# with 12 each. Clockwise from seat 1 the first is seat 2 (not seat 0, the lower number):
# seat 2 wins; the MANGUNO receives 1.
# Passes: 4:2 | 3:1 | 2:1 3:1 4:1 0:1 1:0 = 7, table 18; MANGUNO +1 -> 17.
TWO_TIE = Round(
    hands=[
        ["3-0", "2-1", "5-2", "0-0", "5-4"],
        ["5-5", "6-2", "1-0", "2-2", "6-0"],
        ["5-1", "4-0", "6-1", "6-6", "2-0"],
        ["5-0", "4-2", "5-3", "6-5", "3-3"],
        ["3-2", "1-1", "4-4", "4-3", "3-1"],
    ],
    sleeping=["4-1", "6-4", "6-3"],
    moves=[
        (2, "6-6"), (3, "6-5 right"), (0, "5-2 right"), (1, "6-2 right"), (2, "6-1 right"),
        (4, "3-1 right"), (0, "3-0 right"), (1, "6-0 right"),
    ],
    passes=[(4, 2), (3, 1), (2, 1), (3, 1), (4, 1), (0, 1), (1, 0)],
    result=R("blocked", None, 2, None, 1, [0, 2], [12, 15, 12, 25, 22], 1, 1, 17, [1, 1, 1, 2, 3]),
)

# MANGUNO seat 2 (3-0 4-4 5-5 = 21). Others: 23, 17, 21, 15: seats 1, 3 (equal) and 4 are
# MATTIKKENG; seat 4 has the fewest and wins; the MANGUNO receives 1.
# Passes: 3:1 4:1 0:1 1:1 2:0 = 4, table 21; MANGUNO +1 -> 20.
THREE_MATT = Round(
    hands=[
        ["6-1", "3-1", "4-2", "3-3", "4-3"],
        ["4-0", "1-0", "5-3", "6-6", "5-0"],
        ["3-0", "6-2", "5-5", "6-0", "4-4"],
        ["5-2", "3-2", "0-0", "4-1", "5-4"],
        ["5-1", "2-1", "6-3", "2-0", "2-2"],
    ],
    sleeping=["1-1", "6-5", "6-4"],
    moves=[
        (1, "6-6"), (2, "6-2 right"), (3, "3-2 right"), (4, "6-3 right"), (0, "6-1 right"),
        (1, "1-0 right"), (2, "6-0 right"),
    ],
    passes=[(3, 1), (4, 1), (0, 1), (1, 1), (2, 0)],
    result=R("blocked", None, 4, None, 2, [1, 3, 4], [23, 17, 21, 21, 15], 2, 1, 20, [1, 1, 1, 1, 1]),
)

# The PASSEBUNGE / PASS worked example of docs/rules.md, as a full deal.
DOC = Round(
    hands=[
        ["4-4", "0-0", "1-1", "2-1", "5-4"],
        ["6-6", "4-3", "6-0", "2-0", "5-1"],
        ["5-5", "5-2", "4-2", "2-2", "5-0"],
        ["6-4", "3-0", "3-3", "6-3", "4-1"],
        ["6-1", "6-5", "6-2", "5-3", "3-2"],
    ],
    sleeping=["1-0", "3-1", "4-0"],
    moves=[(1, "6-6"), (3, "6-4 right"), (4, "6-1 left"), (0, "4-4 right"), (1, "4-3 right"),
           (3, "3-0 right")],
    passes=[(2, 2), (2, 2), (4, 1)],
    result=None,
)

ROUNDS = {
    "DOM-7-plain-cucuq-wraps-to-seat-4": PLAIN,
    "DOM-7-CEKI": CEKI,
    "DOM-7-POLLO": POLLO,
    "DOM-8-no-MATTIKKENG": NO_MATT,
    "DOM-8-one-lower-MATTIKKENG-gets-5": ONE_LOWER,
    "DOM-8-one-equal-MATTIKKENG-gets-1": ONE_EQUAL,
    "DOM-8-two-MATTIKKENG-fewest-pips-wins": TWO_FEWEST,
    "DOM-8-two-MATTIKKENG-tie-first-clockwise": TWO_TIE,
    "DOM-8-three-MATTIKKENG": THREE_MATT,
}


def start(rnd, options=None, more=()):
    return domeng(rnd.hands, rnd.sleeping, options, more)


def pass_list(events):
    return [(e.seat, e.info["cost"]) for e in events if e.kind == "pass"]


# ----- DOM-1 ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 3, 99, 2**33])
def test_DOM_1_five_tiles_to_each_of_five_seats_three_sleep(seed):
    m = new_match("domeng", {}, seed=seed)
    rec = m.record()["deals"][0]
    assert [len(h) for h in rec["hands"]] == [5] * 5 and len(rec["sleeping"]) == 3
    assert len({*rec["sleeping"], *(t for h in rec["hands"] for t in h)}) == 28
    v = m.view(None)
    assert v["counts"] == [5] * 5
    assert "sleeping" not in v and "stock" not in v
    for s in range(5):
        assert set(m.view(s)["hand"]) == set(rec["hands"][s])


def test_DOM_1_sleeping_tiles_unused_and_unseen_for_the_whole_round():
    m = start(PLAIN)
    for seat, move in PLAIN.moves[:-1]:
        for viewer in [None, *range(5)]:
            text = str(m.view(viewer))
            assert not any(f"'{t}'" in text for t in PLAIN.sleeping)
        m.play(seat, move)
    assert all(t not in str(m.view(None)["line"]) for t in PLAIN.sleeping)
    assert m.record()["deals"][0]["sleeping"] == PLAIN.sleeping  # the record keeps them


# ----- DOM-2 ---------------------------------------------------------------------------
def swap(rnd, a, b):
    """The round's deal with tiles a and b exchanged (wherever they are)."""
    def sw(t):
        return b if t == a else a if t == b else t
    return [[sw(t) for t in h] for h in rnd.hands], [sw(t) for t in rnd.sleeping]


@pytest.mark.parametrize("swaps,leader,lead,other", [
    pytest.param([], 0, "6-6", "6-4", id="DOM-2-6-6-leads"),
    pytest.param([("6-6", "3-1")], 3, "5-5", "3-3", id="DOM-2-6-6-sleeps-5-5-leads"),
    pytest.param([("6-6", "3-1"), ("5-5", "6-2")], 1, "4-4", "2-0", id="DOM-2-4-4-leads"),
    pytest.param([("6-6", "3-1"), ("5-5", "6-2"), ("4-4", "6-0")], 3, "3-3", "1-1",
                 id="DOM-2-3-3-leads"),
])
def test_DOM_2_first_round_lead(swaps, leader, lead, other):
    hands, sleeping = PLAIN.hands, PLAIN.sleeping
    for a, b in swaps:
        hands, sleeping = swap(Round(hands, sleeping, [], [], None), a, b)
    m = domeng(hands, sleeping)
    assert m.to_move == leader
    assert legal_strs(m) == [lead]
    e = assert_refused(m, leader, other, "MUST_OPEN_WITH")
    assert lead in e.message
    m.play(leader, lead)
    v = m.view(None)["line"]
    assert v == [{"tile": lead, "left": int(lead[0]), "right": int(lead[0])}]


# ----- DOM-3 ---------------------------------------------------------------------------
def rotate(rnd, k):
    """The same round with every seat s moved to (s + k) mod 5."""
    hands = [rnd.hands[(s - k) % 5] for s in range(5)]
    return hands, [((s + k) % 5, mv) for s, mv in rnd.moves]


def test_DOM_3_later_round_led_by_previous_winner_with_any_tile():
    hands2, _ = rotate(TWO_TIE, 1)  # seat 3 (the winner of NO_MATT) holds 6-6 and 4 more
    m = start(NO_MATT, {"cycles": 1}, more=[{"hands": hands2, "sleeping": TWO_TIE.sleeping}])
    events = play_script(m, NO_MATT.moves)
    assert of_kind(events, "deal_start")[0].info == {"deal": 1, "leader": 3, "cycle": 0, "camat": None}
    assert m.to_move == 3
    assert legal_strs(m) == sorted(hands2[3])  # any tile may lead
    for tile in hands2[3]:
        c = copy.deepcopy(m)
        c.play(3, tile)
        hi, lo = int(tile[0]), int(tile[2])
        assert c.view(None)["ends"] == {"left": hi, "right": lo}  # high number on the left


def test_DOM_3_a_lead_tile_is_written_without_an_end():
    hands2, _ = rotate(TWO_TIE, 1)
    m = start(NO_MATT, more=[{"hands": hands2, "sleeping": TWO_TIE.sleeping}])
    play_script(m, NO_MATT.moves)
    assert_refused(m, 3, "5-1 left", "OPENING_HAS_NO_PLACE")
    assert_refused(m, 3, "1-1", "TILE_NOT_IN_HAND")


# ----- DOM-4 ---------------------------------------------------------------------------
def test_DOM_4_line_matching_and_doubles_crosswise():
    m = start(PLAIN)
    m.play(0, "6-6")
    assert m.view(None)["ends"] == {"left": 6, "right": 6}
    # both ends show 6: a tile that fits may go on either end, both moves offered
    assert legal_strs(m) == ["6-5 left", "6-5 right"]
    m.play(2, "6-5 right")
    assert m.view(None)["ends"] == {"left": 6, "right": 5}
    assert_refused(m, 3, "5-5 left", "END_MISMATCH")  # 5-5 does not match the left 6
    assert_refused(m, 3, "5-5", "PLACE_REQUIRED")
    assert_refused(m, 3, "5-5 right normal", "MODE_NOT_ALLOWED")  # no modes in Domeng
    m.play(3, "5-5 right")  # a double lies crosswise: the end keeps its number
    v = m.view(None)
    assert v["ends"] == {"left": 6, "right": 5}
    assert v["line"] == [{"tile": "6-6", "left": 6, "right": 6},
                         {"tile": "6-5", "left": 6, "right": 5},
                         {"tile": "5-5", "left": 5, "right": 5}]
    m.play(4, "6-1 left")
    v = m.view(None)
    assert v["line"][0] == {"tile": "6-1", "left": 1, "right": 6}
    assert v["ends"] == {"left": 1, "right": 5}


def test_DOM_4_no_drawing_and_unknown_arm_is_malformed():
    m = start(PLAIN)
    m.play(0, "6-6")
    for bad in ("6-5 up", "6-5 down"):
        with pytest.raises(MalformedInput):
            m.play(2, bad)
    assert "stock" not in m.view(2)


# ----- DOM-5 ---------------------------------------------------------------------------
def test_DOM_5_PASSEBUNGE_costs_2_and_counts_every_time_PASS_costs_1():
    m = start(DOC)
    events = m.play(1, "6-6")  # seat 2 has no 6 and laid nothing: PASSEBUNGE
    assert turn_records(events) == [
        {"seat": 1, "play": "6-6"},
        {"seat": 2, "pass": True, "stones": [{"from": "table", "count": 2}]},
    ]
    p = of_kind(events, "pass")[0]
    assert p.info == {"cost": 2, "passebunge": True}
    assert p.to_dict(None) == {"kind": "pass", "seat": 2, "cost": 2, "passebunge": True,
                               "stones": [{"from": "table", "count": 2}]}
    v = m.view(None)
    assert (v["table"], v["held"]) == (23, [0, 0, 2, 0, 0])
    events = play_script(m, DOC.moves[1:5])  # ... 4-3 right: seat 2 again has nothing
    assert [(e.seat, e.info) for e in of_kind(events, "pass")] == [
        (2, {"cost": 2, "passebunge": True})]
    v = m.view(None)
    assert (v["table"], v["held"]) == (21, [0, 0, 4, 0, 0])
    events = m.play(3, "3-0 right")  # seat 4 has laid 6-1 already: a plain PASS
    assert [(e.seat, e.info, e.stones) for e in of_kind(events, "pass")] == [
        (4, {"cost": 1, "passebunge": False}, (("table", 1),))]
    v = m.view(None)
    assert (v["table"], v["held"]) == (20, [0, 0, 4, 0, 1])
    assert m.to_move == 0


@pytest.mark.parametrize("rnd", list(ROUNDS.values()), ids=list(ROUNDS))
def test_DOM_5_every_pass_and_its_cost(rnd):
    m = start(rnd)
    events = play_script(m, rnd.moves)
    assert pass_list(events) == rnd.passes
    laid = set()
    it = iter(events)
    for e in it:
        if e.kind == "play":
            laid.add(e.seat)
        if e.kind == "pass":
            cost = e.info["cost"]
            assert e.info["passebunge"] == (cost == 2) == (e.seat not in laid)
            # the table is full enough in a first round: every stone comes from it
            assert e.stones == ((("table", cost),) if cost else ())


# ----- DOM-6 ---------------------------------------------------------------------------
@pytest.mark.parametrize("rnd,index,flag", [
    pytest.param(PLAIN, 0, False, id="DOM-6-the-lead-6-6-never"),
    pytest.param(PLAIN, 2, False, id="DOM-6-double-5-5-on-6-5-not"),
    pytest.param(PLAIN, 4, True, id="DOM-6-non-double-5-1-makes-1-1"),
    pytest.param(PLAIN, 5, True, id="DOM-6-double-1-1-on-1-1"),
    pytest.param(PLAIN, 6, False, id="DOM-6-4-1-breaks-it"),
    pytest.param(NO_MATT, 3, True, id="DOM-6-6-5-left-makes-6-6"),
    pytest.param(POLLO, 5, True, id="DOM-6-3-0-makes-3-3"),
    pytest.param(POLLO, 11, True, id="DOM-6-5-3-makes-3-3"),
    pytest.param(POLLO, 12, True, id="DOM-6-double-3-3-on-3-3"),
    pytest.param(CEKI, 5, False, id="DOM-6-double-4-4-on-4-6-not"),
])
def test_DOM_6_MAPPAKULING_flag(rnd, index, flag):
    m = start(rnd)
    play_script(m, rnd.moves[:index])
    seat, move = rnd.moves[index]
    events = m.play(seat, move)
    play = events[0]
    assert play.kind == "play"
    assert bool(play.info and play.info.get("mappakuling")) is flag
    d = play.to_dict(None)
    assert d.get("mappakuling", False) is flag
    if index > 0 and not of_kind(events, "deal_over"):  # a lead shows equal ends: never one
        ends = m.view(None)["ends"]
        assert (ends["left"] == ends["right"]) is flag


# ----- DOM-7 and DOM-8: the round results ------------------------------------------
@pytest.mark.parametrize("rnd", list(ROUNDS.values()), ids=list(ROUNDS))
def test_DOM_7_8_round_result(rnd):
    m = start(rnd, {"cycles": 1})
    events = play_script(m, rnd.moves[:-1])
    assert not of_kind(events, "deal_over")
    last = m.play(*rnd.moves[-1])
    over = of_kind(last, "deal_over")
    assert len(over) == 1
    assert over[0].info == rnd.result
    r = rnd.result
    # independent checks of the ruling's arithmetic
    assert r["table"] + sum(r["held"]) == 25
    if r["end"] == "cappu":
        assert r["pips"][r["winner"]] == 0 and r["cucuq"] == (r["winner"] - 1) % 5
    else:
        x = r["manguno"]
        assert r["mattikkeng"] == [s for s in range(5) if s != x and r["pips"][s] <= r["pips"][x]]
        closing = [e for e in last if e.kind == "pass"][-1]
        assert (closing.seat, closing.info["cost"], closing.stones) == (x, 0, ())
    assert m.view(None)["table"] == r["table"] and m.view(None)["held"] == r["held"]
    assert m.deals[0].result == r


@pytest.mark.parametrize("rnd", [PLAIN, CEKI, POLLO], ids=["DOM-7-plain", "DOM-7-CEKI", "DOM-7-POLLO"])
def test_DOM_7_round_ends_at_once_on_first_cappu(rnd):
    m = start(rnd, {"cycles": 1})
    play_script(m, rnd.moves[:-1])
    events = m.play(*rnd.moves[-1])
    assert [e.kind for e in events][:2] == ["play", "deal_over"]
    assert not of_kind(events, "pass")


def test_DOM_8_MANGUNO_continues_when_it_can_still_play():
    # CEKI: after seat 1's 6-3 left the four others pass, but seat 1 holds 6-5: not blocked
    m = start(CEKI)
    play_script(m, CEKI.moves[:7])
    events = m.play(1, "6-3 left")
    assert pass_list(events) == [(2, 1), (3, 1), (4, 1), (0, 1)]
    assert m.to_move == 1 and not of_kind(events, "deal_over")


# ----- DOM-9 ---------------------------------------------------------------------------
@pytest.mark.parametrize("rnd", list(ROUNDS.values()), ids=list(ROUNDS))
def test_DOM_9_stones_conserved_after_every_move(rnd):
    m = start(rnd)
    for seat, move in rnd.moves:
        m.play(seat, move)
        v = m.view(None)
        assert v["table"] + sum(v["held"]) == 25 and min(v["held"]) >= 0


# ----- deep-cycle cases from seeded random matches ----------------------------------
class Fact(NamedTuple):
    seed: int
    event: object
    table: int  # stones on the table just before the event
    held: list  # held just before the event
    mover: int  # the seat whose play caused this batch: the LAST MAPPANO
    laid: frozenset  # seats that had laid a tile in this round before the event
    hand: int


@functools.lru_cache(maxsize=1)
def deep_facts(seeds=range(40), cycles=2):
    facts = []
    for seed in seeds:
        m = new_match("domeng", {"cycles": cycles}, seed=seed)
        rng = random.Random(seed)
        laid = set()
        while not m.over:
            seat = m.to_move
            v = m.view(None)
            table, held = v["table"], list(v["held"])
            events = m.play(seat, rng.choice(sorted(str(x) for x in m.legal_moves(seat))))
            for e in events:
                facts.append(Fact(seed, e, table, list(held), seat, frozenset(laid), len(m.deals)))
                if e.kind == "play":
                    laid.add(e.seat)
                elif e.kind == "pass":
                    for src, n in e.stones:
                        if src == "table":
                            table -= n
                        else:
                            held[src] -= n
                        held[e.seat] += n
                elif e.kind == "deal_over":
                    table, held = e.info["table"], list(e.info["held"])
                elif e.kind == "cycle_over":
                    table, held = 25, [0] * 5
                elif e.kind == "deal_start":
                    laid = set()
    return facts


def owed_payment(table, held, count, payer):
    """DOM-9: the table first, then the payer's holdings, the rest waived."""
    a = min(count, table)
    b = min(count - a, held[payer])
    return tuple(x for x in (("table", a), (payer, b)) if x[1])


def pass_facts():
    return [f for f in deep_facts() if f.event.kind == "pass" and f.event.info["cost"]]


def test_DOM_5_9_every_pass_paid_from_table_then_last_mappano():
    facts = pass_facts()
    assert len(facts) > 500
    for f in facts:
        e = f.event
        passebunge = e.seat not in f.laid
        cost = 2 if passebunge else 1
        assert e.info == {"cost": cost, "passebunge": passebunge}
        assert e.stones == owed_payment(f.table, f.held, cost, f.mover)


def test_DOM_5_9_table_short_the_last_mappano_pays_the_rest():
    split = [f for f in pass_facts() if 0 < f.table < f.event.info["cost"]
             and f.held[f.mover] >= f.event.info["cost"] - f.table]
    assert split, "no pass found where the table covers only part"
    for f in split:
        e = f.event
        assert e.stones == (("table", f.table), (f.mover, e.info["cost"] - f.table))
    empty = [f for f in pass_facts() if f.table == 0 and f.held[f.mover] >= f.event.info["cost"]]
    assert empty
    for f in empty:
        assert f.event.stones == ((f.mover, f.event.info["cost"]),)


def test_DOM_9_payer_short_gives_all_it_holds_rest_waived():
    short = [f for f in pass_facts() if f.table + f.held[f.mover] < f.event.info["cost"]]
    assert short, "no pass found where table and LAST MAPPANO together are short"
    for f in short:
        got = owed_payment(f.table, f.held, f.event.info["cost"], f.mover)
        assert f.event.stones == got
        assert sum(n for _, n in got) == f.table + f.held[f.mover] < f.event.info["cost"]
    assert any(f.table == 0 and f.held[f.mover] == 0 and f.event.stones == () for f in short)


def settle_facts():
    return [f for f in deep_facts() if f.event.kind == "deal_over"]


def expected_settlement(f):
    r = f.event.info
    p = r["pips"]
    if r["end"] == "cappu":
        x = r["winner"]
        owed = {"plain": 1, "ceki": 3, "pollo": 5}[r["kind"]]
        to, payer = (x - 1) % 5, x
    else:
        x = r["manguno"]
        matt = [s for s in range(5) if s != x and p[s] <= p[x]]
        assert r["mattikkeng"] == matt
        if not matt:
            assert r["winner"] == x
            owed, to, payer = 1, (x - 1) % 5, x
        else:
            best = min(p[s] for s in matt)
            winner = next((x + k) % 5 for k in range(1, 5) if (x + k) % 5 in matt and p[(x + k) % 5] == best)
            assert r["winner"] == winner
            owed = 1 if len(matt) > 1 or p[winner] == p[x] else 5
            to, payer = x, winner
    moved = owed_payment(f.table, f.held, owed, payer)
    return to, payer, owed, [{"to": to, "count": n, "from": src} for src, n in moved]


def test_DOM_7_8_9_every_settlement_paid_from_table_then_the_named_payer():
    facts = settle_facts()
    assert len(facts) > 100
    for f in facts:
        to, payer, owed, transfers = expected_settlement(f)
        assert f.event.info["transfers"] == transfers


@pytest.mark.parametrize("case", ["cappu", "blocked-no-mattikkeng", "blocked-mattikkeng"],
                         ids=["DOM-7-CUCUQ-shortfall-paid-by-FIRST-CAPPU",
                              "DOM-8-CUCUQ-shortfall-paid-by-MANGUNO",
                              "DOM-8-MANGUNO-shortfall-paid-by-winning-MATTIKKENG"])
def test_DOM_7_8_settlement_shortfall_paid_by_the_named_payer(case):
    found = []
    for f in settle_facts():
        r = f.event.info
        kind = "cappu" if r["end"] == "cappu" else (
            "blocked-mattikkeng" if r["mattikkeng"] else "blocked-no-mattikkeng")
        to, payer, owed, transfers = expected_settlement(f)
        if kind == case and f.table < owed and any(t["from"] == payer for t in transfers):
            found.append(f)
            assert r["transfers"] == transfers
            paid_by_payer = sum(t["count"] for t in transfers if t["from"] == payer)
            assert paid_by_payer == min(owed - f.table, f.held[payer]) > 0
            assert r["held"][payer] == f.held[payer] - paid_by_payer
    assert found, f"no {case} settlement with a shortfall was reached"


# ----- DOM-10 --------------------------------------------------------------------------
def test_DOM_10_CAMAT_named_when_table_empty_and_first_cappu_holds_none():
    named = [f for f in settle_facts() if f.event.info["camat"] is not None]
    assert named
    for f in named:
        r = f.event.info
        assert r["end"] == "cappu" and r["camat"] == r["winner"]
        assert r["table"] == 0 and r["held"][r["winner"]] == 0
    # every settlement that meets the condition names a CAMAT
    for f in settle_facts():
        r = f.event.info
        meets = r["end"] == "cappu" and r["table"] == 0 and r["held"][r["winner"]] == 0
        assert (r["camat"] is not None) == meets


def test_DOM_10_CAMAT_ends_the_cycle_stones_return_and_CAMAT_leads_any_tile():
    facts = deep_facts()
    checked = 0
    for i, f in enumerate(facts):
        if f.event.kind != "deal_over" or f.event.info["camat"] is None:
            continue
        camat = f.event.info["camat"]
        held = f.event.info["held"]
        cyc = facts[i + 1].event
        assert cyc.kind == "cycle_over"
        others = sorted({held[s] for s in range(5) if s != camat})
        ranking = [[camat]] + [[s for s in range(5) if s != camat and held[s] == h] for h in others]
        assert cyc.info["camat"] == camat and cyc.info["held"] == held
        assert cyc.info["ranking"] == ranking
        nxt = facts[i + 2].event
        if nxt.kind == "deal_start":
            assert nxt.info["leader"] == camat and nxt.info["camat"] == camat
            checked += 1
    assert checked


def test_DOM_10_CAMAT_leads_every_round_until_another_is_named():
    named = 0
    for seed in range(12):
        m = new_match("domeng", {"cycles": 3}, seed=seed)
        rng = random.Random(seed)
        camat = None
        while not m.over:
            events = m.play(m.to_move, rng.choice(sorted(str(x) for x in m.legal_moves(m.to_move))))
            for e in events:
                if e.kind == "deal_over" and e.info["camat"] is not None:
                    camat = e.info["camat"]
                if e.kind == "deal_start" and camat is not None:
                    assert e.info["leader"] == camat
                    hand = m.view(camat)["hand"]
                    assert sorted(m.view(camat)["legal_moves"]) == sorted(hand)  # any tile
            if not m.over:
                v = m.view(None)
                assert v["camat"] == camat
                if of_kind(events, "cycle_over"):  # all 25 stones back on the table
                    assert (v["table"], v["held"], v["round_in_cycle"]) == (25, [0] * 5, 0)
                    named += 1
    assert named


def test_DOM_10_CAMAT_named_when_the_cucuq_payment_is_waived():
    waived = [f for f in settle_facts() if f.event.info["camat"] is not None
              and f.event.info["transfers"] == []]
    assert waived, "no CAMAT with a waived CUCUQ payment reached"
    for f in waived:
        assert f.table == 0 and f.held[f.event.info["winner"]] == 0


def test_DOM_10_blocked_round_never_names_CAMAT():
    blocked = [f for f in settle_facts() if f.event.info["end"] == "blocked"]
    assert blocked
    assert all(f.event.info["camat"] is None for f in blocked)
    tempting = [f for f in blocked if f.event.info["table"] == 0
                and f.event.info["held"][f.event.info["winner"]] == 0]
    assert tempting, "no blocked round with an empty table and a winner holding none"


# ----- DOM-11 --------------------------------------------------------------------------
def test_DOM_11_round_cap_ends_a_cycle_without_CAMAT():
    hands2, moves2 = rotate(TWO_TIE, 1)
    m = start(NO_MATT, {"cycles": 2, "round_cap": 1},
              more=[{"hands": hands2, "sleeping": TWO_TIE.sleeping}])
    events = play_script(m, NO_MATT.moves)
    cyc = of_kind(events, "cycle_over")
    assert len(cyc) == 1
    # held [6, 1, 2, 0, 6]: seat 3 (0) first, then 1, 2, and seats 0 and 4 share a place
    assert cyc[0].info == {"cycle": 0, "camat": None, "held": [6, 1, 2, 0, 6], "rounds": 1,
                           "ranking": [[3], [1], [2], [0, 4]]}
    start_ev = of_kind(events, "deal_start")[0]
    assert start_ev.info == {"deal": 1, "leader": 3, "cycle": 1, "camat": None}
    v = m.view(None)
    assert v["table"] == 25 and v["held"] == [0] * 5  # stones back on the table
    # the second cycle: TWO_TIE turned one seat clockwise (seat 3 leads 6-6 by choice)
    events = play_script(m, moves2)
    over = of_kind(events, "deal_over")[0].info
    assert (over["manguno"], over["mattikkeng"], over["winner"]) == (2, [1, 3], 3)
    assert over["held"] == [3, 1, 1, 1, 2]
    cyc = of_kind(events, "cycle_over")[0].info
    assert cyc == {"cycle": 1, "camat": None, "held": [3, 1, 1, 1, 2], "rounds": 1,
                   "ranking": [[1, 2, 3], [4], [0]]}
    assert m.over
    # titles all 0; stones over the cycles: [9, 2, 3, 1, 8]
    assert m.result["camat_titles"] == [0] * 5
    assert m.result["stones"] == [9, 2, 3, 1, 8]
    assert m.result["ranking"] == [[3], [1], [2], [4], [0]]
    assert m.result["cycles"] == [c.info for c in of_kind(m.events, "cycle_over")]


def test_DOM_11_cycles_option_counts_cycles_and_default_is_one():
    # every option filled in: the limits, and the rulings' readings (rules/options.py)
    assert new_match("domeng", {}, seed=1).options == {
        "cycles": 1, "round_cap": 200,
        "profile": "rulings", "closing_pass": "free", "first_lead": "double"}
    for cycles in (1, 2, 3):
        m = new_match("domeng", {"cycles": cycles}, seed=cycles)
        rng = random.Random(cycles)
        while not m.over:
            m.play(m.to_move, rng.choice(sorted(str(x) for x in m.legal_moves(m.to_move))))
        assert len(m.result["cycles"]) == cycles
        assert len(of_kind(m.events, "cycle_over")) == cycles


def test_DOM_11_match_ranks_by_titles_then_stones():
    checked = 0
    for seed in range(30):
        m = new_match("domeng", {"cycles": 3, "round_cap": 6}, seed=seed)
        rng = random.Random(seed)
        while not m.over:
            m.play(m.to_move, rng.choice(sorted(str(x) for x in m.legal_moves(m.to_move))))
        cycles = m.result["cycles"]
        titles = [sum(c["camat"] == s for c in cycles) for s in range(5)]
        stones = [sum(c["held"][s] for c in cycles) for s in range(5)]
        assert m.result["camat_titles"] == titles and m.result["stones"] == stones
        flat = [s for place in m.result["ranking"] for s in place]
        assert sorted(flat) == list(range(5))
        for a, b in zip(flat, flat[1:], strict=False):
            assert (-titles[a], stones[a]) <= (-titles[b], stones[b])
        for place in m.result["ranking"]:
            assert len({(titles[s], stones[s]) for s in place}) == 1
        checked += any(titles) and any(c["camat"] is None for c in cycles)
    assert checked  # some match mixed CAMAT cycles and capped cycles


def test_DOM_10_a_sitting_CAMAT_can_be_named_again():
    camat, again = None, 0
    for f in deep_facts():
        if f.event.kind == "deal_start" and f.event.info["deal"] == 0:
            camat = None  # a new match
        if f.event.kind == "deal_over" and f.event.info["camat"] is not None:
            if f.event.info["camat"] == camat:
                again += 1
            camat = f.event.info["camat"]
    assert again


def test_DOM_views_show_own_hand_line_counts_stones_turn_and_history():
    m = start(PLAIN)
    play_script(m, PLAIN.moves[:2])  # 6-6 (seat 1 PASSEBUNGE), 6-5 right
    v = m.view(3)
    assert v["variant"] == "domeng" and v["turn"] == 3 and v["seat"] == 3
    assert set(v["hand"]) == set(PLAIN.hands[3])
    assert sorted(v["legal_moves"]) == ["5-5 right"]
    assert v["counts"] == [4, 5, 4, 5, 5]
    assert (v["table"], v["held"]) == (23, [0, 2, 0, 0, 0])
    assert v["ends"] == {"left": 6, "right": 5} and v["last_mappano"] == 2
    assert [h["kind"] for h in v["history"]] == ["deal_start", "play", "pass", "play"]
    spectator = m.view(None)
    assert "hand" not in spectator and "legal_moves" not in spectator
    assert spectator["history"][2] == {"kind": "pass", "seat": 1, "cost": 2, "passebunge": True,
                                       "stones": [{"from": "table", "count": 2}]}
    assert m.view(0)["legal_moves"] == []


# ----- deep-cycle cases, fully scripted ------------------------------------------------
# Rounds chain: each later round is one of the rounds above turned (rotate) so that the
# seat holding its 6-6 is the previous round's winner, who may lead any tile (DOM-3) and
# leads 6-6. The same moves stay legal and the same seats pass; only the stones differ,
# because the table is low. Every number below is worked out by hand in the comments.
def chain(*rounds, options=None):
    deals, scripts, prev = [], [], None
    for rnd in rounds:
        k = 0 if prev is None else (prev - rnd.moves[0][0]) % 5
        hands, moves = rotate(rnd, k)
        deals.append({"hands": hands, "sleeping": rnd.sleeping})
        scripts.append(moves)
        prev = (rnd.result["winner"] + k) % 5
    m = new_match("domeng", options or {"cycles": 1}, deals=deals)
    return m, scripts


def pass_stones(events):
    return [(e.seat, e.info["cost"], [(src, n) for src, n in e.stones])
            for e in events if e.kind == "pass"]


def test_DOM_5_9_10_PLAIN_twice_table_runs_dry_payer_pays_then_waived_then_CAMAT():
    m, (r1, r2) = chain(PLAIN, PLAIN)
    play_script(m, r1)  # table 11, held [0, 8, 3, 1, 2]; seat 0 won and leads again
    assert (m.view(None)["table"], m.view(None)["held"]) == (11, [0, 8, 3, 1, 2])
    events = play_script(m, r2)
    # seat 0 is the LAST MAPPANO for the first eight passes and holds nothing; seat 3
    # (4-3 left) for the ninth and holds 2.
    assert pass_stones(events) == [
        (1, 2, [("table", 2)]), (1, 2, [("table", 2)]), (2, 1, [("table", 1)]),
        (1, 2, [("table", 2)]), (2, 1, [("table", 1)]), (3, 1, [("table", 1)]),
        (1, 2, [("table", 2)]),  # the table is now empty
        (2, 1, []),  # LAST MAPPANO seat 0 holds 0: waived (DOM-9)
        (4, 1, [(3, 1)]),  # LAST MAPPANO seat 3 pays out of its own stones (DOM-5)
    ]
    result = of_kind(events, "deal_over")[0].info
    # plain FIRST CAPPU seat 0; CUCUQ seat 4 is owed 1: table 0, seat 0 holds 0: waived.
    # Table 0 and the FIRST CAPPU holds 0: CAMAT (DOM-10).
    assert result == {"end": "cappu", "kind": "plain", "winner": 0, "cucuq": 4, "manguno": None,
                      "mattikkeng": [], "pips": [0, 30, 15, 9, 9], "transfers": [],
                      "table": 0, "held": [0, 16, 5, 1, 3], "camat": 0}
    cycle = of_kind(events, "cycle_over")[0].info
    assert cycle == {"cycle": 0, "camat": 0, "held": [0, 16, 5, 1, 3], "rounds": 2,
                     "ranking": [[0], [3], [4], [2], [1]]}
    assert m.over and m.result["camat_titles"] == [1, 0, 0, 0, 0]
    assert m.result["stones"] == [0, 16, 5, 1, 3]
    assert m.result["ranking"] == [[0], [3], [4], [2], [1]]


def test_DOM_9_10_blocked_round_with_empty_table_partial_pass_and_no_CAMAT():
    m, (r1, r2) = chain(PLAIN, NO_MATT)
    play_script(m, r1)
    events = play_script(m, r2)  # NO_MATT turned two seats: seat 0 leads and is MANGUNO
    assert pass_stones(events) == [
        (1, 2, [("table", 2)]), (2, 2, [("table", 2)]), (1, 2, [("table", 2)]),
        (2, 2, [("table", 2)]), (1, 2, [("table", 2)]),
        (2, 2, [("table", 1)]),  # owed 2: the table's last 1, seat 0 holds 0, 1 waived
        (3, 1, []), (4, 1, []),  # nothing left to pay with
        (0, 0, []),  # the MANGUNO's closing pass costs nothing
    ]
    result = of_kind(events, "deal_over")[0].info
    # MANGUNO seat 0 (7 pips) has no MATTIKKENG: it wins, CUCUQ seat 4 is owed 1, waived.
    # The table is empty and the winner holds 0, but a blocked round names no CAMAT.
    assert result == {"end": "blocked", "kind": None, "winner": 0, "cucuq": 4, "manguno": 0,
                      "mattikkeng": [], "pips": [7, 23, 33, 14, 13], "transfers": [],
                      "table": 0, "held": [0, 14, 8, 1, 2], "camat": None}
    assert not of_kind(events, "cycle_over") and not m.over
    assert of_kind(events, "deal_start")[0].info["leader"] == 0


def test_DOM_7_9_10_CUCUQ_shortfall_paid_by_FIRST_CAPPU_which_becomes_CAMAT():
    m, (r1, r2) = chain(ONE_LOWER, PLAIN)
    play_script(m, r1)  # table 13, held [1, 4, 1, 1, 5]; seat 3 won
    events = play_script(m, r2)  # PLAIN turned three seats: seat 3 leads and goes out
    assert pass_stones(events) == [
        (4, 2, [("table", 2)]), (4, 2, [("table", 2)]), (0, 1, [("table", 1)]),
        (4, 2, [("table", 2)]), (0, 1, [("table", 1)]), (1, 1, [("table", 1)]),
        (4, 2, [("table", 2)]), (0, 1, [("table", 1)]), (2, 1, [("table", 1)]),
    ]
    result = of_kind(events, "deal_over")[0].info
    # CUCUQ seat 2 is owed 1, the table is empty: FIRST CAPPU seat 3 gives its only stone,
    # then holds 0 with the table at 0: CAMAT.
    assert result == {"end": "cappu", "kind": "plain", "winner": 3, "cucuq": 2, "manguno": None,
                      "mattikkeng": [], "pips": [15, 9, 9, 0, 30],
                      "transfers": [{"to": 2, "count": 1, "from": 3}],
                      "table": 0, "held": [4, 5, 3, 0, 13], "camat": 3}
    assert of_kind(events, "cycle_over")[0].info["ranking"] == [[3], [2], [0], [1], [4]]


def test_DOM_8_9_CUCUQ_shortfall_paid_by_MANGUNO_and_still_no_CAMAT():
    m, (r1, r2) = chain(TWO_FEWEST, NO_MATT)
    play_script(m, r1)  # table 14, held [1, 1, 2, 6, 1]; seat 0 won
    events = play_script(m, r2)
    assert pass_stones(events) == [
        (1, 2, [("table", 2)]), (2, 2, [("table", 2)]), (1, 2, [("table", 2)]),
        (2, 2, [("table", 2)]), (1, 2, [("table", 2)]), (2, 2, [("table", 2)]),
        (3, 1, [("table", 1)]), (4, 1, [("table", 1)]), (0, 0, []),
    ]
    result = of_kind(events, "deal_over")[0].info
    # no MATTIKKENG: CUCUQ seat 4 is owed 1, the table is empty, the MANGUNO seat 0 pays
    # its only stone; it then holds 0 with the table at 0, but a blocked round: no CAMAT.
    assert result == {"end": "blocked", "kind": None, "winner": 0, "cucuq": 4, "manguno": 0,
                      "mattikkeng": [], "pips": [7, 23, 33, 14, 13],
                      "transfers": [{"to": 4, "count": 1, "from": 0}],
                      "table": 0, "held": [0, 7, 8, 7, 3], "camat": None}


def test_DOM_8_9_MANGUNO_stones_short_on_table_paid_by_winning_MATTIKKENG():
    m, (r1, r2) = chain(PLAIN, ONE_LOWER)
    play_script(m, r1)  # table 11, held [0, 8, 3, 1, 2]
    events = play_script(m, r2)  # ONE_LOWER turned three seats: MANGUNO seat 2
    assert pass_stones(events) == [
        (4, 2, [("table", 2)]), (3, 1, [("table", 1)]), (4, 2, [("table", 2)]),
        (0, 1, [("table", 1)]), (1, 1, [("table", 1)]), (2, 0, []),
    ]
    result = of_kind(events, "deal_over")[0].info
    # MANGUNO seat 2 (15) has one lower MATTIKKENG, seat 1 (13): owed 5, the table has 4,
    # the winning MATTIKKENG seat 1 gives the fifth.
    assert result == {"end": "blocked", "kind": None, "winner": 1, "cucuq": None, "manguno": 2,
                      "mattikkeng": [1], "pips": [18, 13, 15, 21, 26],
                      "transfers": [{"to": 2, "count": 4, "from": "table"},
                                    {"to": 2, "count": 1, "from": 1}],
                      "table": 0, "held": [1, 8, 8, 2, 6], "camat": None}


def test_DOM_5_9_10_pass_split_between_table_and_LAST_MAPPANO_over_three_rounds():
    m, (r1, r2, r3) = chain(PLAIN, ONE_EQUAL, PLAIN)
    play_script(m, r1)  # table 11, held [0, 8, 3, 1, 2]
    events = play_script(m, r2)  # ONE_EQUAL turned back one seat: MANGUNO seat 4
    assert of_kind(events, "deal_over")[0].info == {
        "end": "blocked", "kind": None, "winner": 2, "cucuq": None, "manguno": 4,
        "mattikkeng": [2], "pips": [18, 28, 11, 15, 11],
        "transfers": [{"to": 4, "count": 1, "from": "table"}],
        "table": 1, "held": [1, 14, 4, 2, 3], "camat": None}
    events = play_script(m, r3)  # PLAIN turned two seats: seat 2 leads and goes out
    assert pass_stones(events) == [
        (3, 2, [("table", 1), (2, 1)]),  # the table's last stone + 1 from LAST MAPPANO 2
        (3, 2, [(2, 2)]),
        (4, 1, [(2, 1)]),  # seat 2 gives its last stone
        (3, 2, []), (4, 1, []), (0, 1, []), (3, 2, []), (4, 1, []),  # waived
        (1, 1, [(0, 1)]),  # LAST MAPPANO is now seat 0 (4-3 left), which holds 1
    ]
    result = of_kind(events, "deal_over")[0].info
    assert result == {"end": "cappu", "kind": "plain", "winner": 2, "cucuq": 1, "manguno": None,
                      "mattikkeng": [], "pips": [9, 9, 0, 30, 15], "transfers": [],
                      "table": 0, "held": [0, 15, 0, 6, 4], "camat": 2}
    assert of_kind(events, "cycle_over")[0].info == {
        "cycle": 0, "camat": 2, "held": [0, 15, 0, 6, 4], "rounds": 3,
        "ranking": [[2], [0], [4], [3], [1]]}


def test_DOM_3_10_CAMAT_leads_the_next_cycle_with_any_tile_and_stones_return():
    m, (r1, r2) = chain(PLAIN, PLAIN, options={"cycles": 2})
    play_script(m, r1)
    events = play_script(m, r2)
    assert [e.kind for e in events[-3:]] == ["deal_over", "cycle_over", "deal_start"]
    assert events[-1].info == {"deal": 2, "leader": 0, "cycle": 1, "camat": 0}
    v = m.view(0)
    assert (v["table"], v["held"], v["camat"], v["cycle"]) == (25, [0] * 5, 0, 1)
    assert m.to_move == 0 and sorted(v["legal_moves"]) == sorted(v["hand"])  # any tile
    assert len(v["hand"]) == 5


def test_the_final_view_shows_the_match_as_it_ended():
    """After the last cycle the stones stay where they were (DOM-10 returns them to the
    table only for a next cycle): the view, a spectator's and each seat's, agrees with the
    result, and names the cycle that was played, not one that never starts."""
    for seed in range(20):
        m = new_match("domeng", {"cycles": 1}, seed)
        rng = random.Random(seed)
        while not m.over:
            m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
        last = m.result["cycles"][-1]
        for seat in (None, 0, 3):
            v = m.view(seat)
            assert v["held"] == last["held"] == m.result["stones"]
            assert v["table"] == 25 - sum(last["held"])
            assert v["cycle"] == 0 and v["over"]


# ----- DOM-8 and DOM-2, the two readings (rules options closing_pass, first_lead; profile) ---
# DOM-8 read literally (closing_pass=paid): the MANGUNO's closing pass is a PASS and pays
# 1 stone (DOM-5; never 2: the MANGUNO has laid a tile, so it is no PASSEBUNGE), before the
# round is settled. Every other payment is the ruling's.
#  NO_MATT: the passes leave the table 11; the closing pass takes 1 (table 10, seat 3 holds
#   1); no MATTIKKENG, CUCUQ seat 2 +1: table 9, held [6, 1, 2, 1, 6].
#  ONE_LOWER: table 18 after the passes; closing 17, seat 4 holds 1; the MANGUNO +5: 12,
#   held [1, 4, 1, 1, 6].
#  ONE_EQUAL: table 16; closing 15, seat 0 holds 1; the MANGUNO +1: 14, held [2, 1, 6, 1, 1].
PAID_CLOSE = [
    pytest.param(NO_MATT, R("blocked", None, 3, 2, 3, [], [33, 14, 13, 7, 23], 2, 1, 9,
                            [6, 1, 2, 1, 6]), id="DOM-8-literal-no-MATTIKKENG"),
    pytest.param(ONE_LOWER, R("blocked", None, 3, None, 4, [3], [21, 26, 18, 13, 15], 4, 5, 12,
                              [1, 4, 1, 1, 6]), id="DOM-8-literal-one-lower-MATTIKKENG"),
    pytest.param(ONE_EQUAL, R("blocked", None, 3, None, 0, [3], [11, 18, 28, 11, 15], 0, 1, 14,
                              [2, 1, 6, 1, 1]), id="DOM-8-literal-one-equal-MATTIKKENG"),
]


@pytest.mark.parametrize("options", [{"profile": "literal"}, {"closing_pass": "paid"}],
                         ids=["profile", "reading"])
@pytest.mark.parametrize("rnd,result", PAID_CLOSE)
def test_DOM_8_literal_closing_pass_pays_one_stone(rnd, result, options):
    m = start(rnd, {"cycles": 1, **options})
    events = play_script(m, rnd.moves)
    x = result["manguno"]
    assert pass_list(events) == [*rnd.passes[:-1], (x, 1)]
    closing = [e for e in events if e.kind == "pass"][-1]
    assert closing.seat == x and closing.stones == (("table", 1),)
    assert closing.info == {"cost": 1, "passebunge": False}
    assert of_kind(events, "deal_over")[0].info == result
    # the ruling's result, but for the one stone the closing pass moved
    ruling = rnd.result
    assert (result["table"], result["held"][x]) == (ruling["table"] - 1, ruling["held"][x] + 1)


@pytest.mark.parametrize("rnd", [r for r in ROUNDS.values() if r.result["end"] == "blocked"])
def test_DOM_8_a_reading_on_its_own_wins_over_the_profile(rnd):
    m = start(rnd, {"cycles": 1, "profile": "literal", "closing_pass": "free"})
    events = play_script(m, rnd.moves)
    assert pass_list(events) == rnd.passes and of_kind(events, "deal_over")[0].info == rnd.result


def test_DOM_8_9_literal_closing_pass_with_the_table_empty_moves_nothing():
    """The second round of chain(PLAIN, NO_MATT) (test above: the table runs dry) read
    literally: the MANGUNO, seat 0, is owed 1 for its closing pass; the table has none and
    the LAST MAPPANO who would give the rest is seat 0 itself: nothing moves (DOM-9), and
    the round settles as the ruling's."""
    m, (r1, r2) = chain(PLAIN, NO_MATT, options={"cycles": 1, "profile": "literal"})
    play_script(m, r1)
    events = play_script(m, r2)
    assert pass_stones(events)[-1] == (0, 1, [])
    result = of_kind(events, "deal_over")[0].info
    assert (result["table"], result["held"]) == (0, [0, 14, 8, 1, 2])


# DOM-2 read literally (first_lead=any): deal F (seed 2761 of a search). Seat 4 holds 6-6,
# so it leads the first round either way; by the ruling it must lay 6-6, by the letter any
# of its tiles. Here it leads 4-3 (ends 4|3). 5-3 right (4|5); 5-4 left (5|5); seats 2 and 3
# have no 5 and have laid nothing: PASSEBUNGE 2 each; 6-5 left (6|5); 6-2 left (2|5); 5-2
# left (5|5); seats 2, 3 PASSEBUNGE again; 5-5 left (5|5); seats 0 and 1 (no 5) pass, 1
# each; seats 2, 3 PASSEBUNGE; seat 4 (1-1 6-6) cannot play: the seven 5-tiles are laid or
# asleep (5-1, 5-0): blocked, seat 4 the MANGUNO. The passes: six PASSEBUNGE (seats 2 and
# 3, three each: 6 stones each) and two PASSes (seats 0 and 1, 1 each): 14, table 11.
# Pips: seat 0 3-0 3-2 2-2 = 12; seat 1 4-2 4-1 6-0 = 17; seat 2 37; seat 3 14; seat 4 1-1
# 6-6 = 14. MATTIKKENG: seats 0 (12) and 3 (14 = 14); two, so the MANGUNO receives 1; the
# fewest pips win: seat 0.
#  first_lead=any alone: the closing pass is free: table 10, held [1, 1, 6, 6, 1].
#  profile=literal: the closing pass pays 1 too (DOM-8): table 9, held [1, 1, 6, 6, 2].
LEAD_ANY_HANDS = [
    ["3-0", "3-2", "2-2", "5-3", "6-2"],
    ["4-2", "5-4", "5-2", "4-1", "6-0"],
    ["6-4", "4-0", "3-3", "4-4", "6-3"],
    ["6-1", "2-0", "3-1", "1-0", "0-0"],
    ["1-1", "5-5", "4-3", "6-5", "6-6"],
]
LEAD_ANY_SLEEPING = ["2-1", "5-1", "5-0"]
LEAD_ANY_MOVES = [(4, "4-3"), (0, "5-3 right"), (1, "5-4 left"), (4, "6-5 left"),
                  (0, "6-2 left"), (1, "5-2 left"), (4, "5-5 left")]
LEAD_ANY_PASSES = [(2, 2), (3, 2), (2, 2), (3, 2), (0, 1), (1, 1), (2, 2), (3, 2)]


def lead_any_result(table, held):
    return {"end": "blocked", "kind": None, "winner": 0, "cucuq": None, "manguno": 4,
            "mattikkeng": [0, 3], "pips": [12, 17, 37, 14, 14],
            "transfers": [{"to": 4, "count": 1, "from": "table"}], "table": table,
            "held": held, "camat": None}


@pytest.mark.parametrize("options,closing,result", [
    pytest.param({"first_lead": "any"}, 0, lead_any_result(10, [1, 1, 6, 6, 1]),
                 id="DOM-2-literal-alone"),
    pytest.param({"profile": "literal"}, 1, lead_any_result(9, [1, 1, 6, 6, 2]),
                 id="DOM-2-and-DOM-8-literal"),
])
def test_DOM_2_literal_first_leader_leads_any_tile(options, closing, result):
    m = domeng(LEAD_ANY_HANDS, LEAD_ANY_SLEEPING, {"cycles": 1, **options})
    assert m.to_move == 4                                 # the holder of 6-6 starts
    assert legal_strs(m) == sorted(LEAD_ANY_HANDS[4])    # with any tile of its hand
    events = play_script(m, LEAD_ANY_MOVES)
    assert pass_list(events) == [*LEAD_ANY_PASSES, (4, closing)]
    assert of_kind(events, "deal_over")[0].info == result
    rec = m.record()
    assert rec["options"]["first_lead"] == "any"
    assert replay_record(rec).record() == rec           # the record replays by its options


def test_DOM_2_ruling_on_the_same_deal_refuses_that_lead():
    m = domeng(LEAD_ANY_HANDS, LEAD_ANY_SLEEPING, {"cycles": 1, "profile": "rulings"})
    assert m.to_move == 4 and legal_strs(m) == ["6-6"]
    assert_refused(m, 4, "4-3", "MUST_OPEN_WITH")
    # and a reading on its own wins over the profile
    m = domeng(LEAD_ANY_HANDS, LEAD_ANY_SLEEPING, {"profile": "literal", "first_lead": "double"})
    assert legal_strs(m) == ["6-6"]


@pytest.mark.parametrize("swaps,leader", [
    pytest.param([("6-6", "3-1")], 3, id="DOM-2-literal-6-6-sleeps-5-5-holder-leads-any"),
    pytest.param([("6-6", "3-1"), ("5-5", "6-2")], 1, id="DOM-2-literal-4-4-holder-leads-any"),
])
def test_DOM_2_literal_the_double_still_names_the_leader(swaps, leader):
    """The literal reading changes what the leader lays, never who leads (the swaps of
    test_DOM_2_first_round_lead, on PLAIN's deal)."""
    hands, sleeping = PLAIN.hands, PLAIN.sleeping
    for a, b in swaps:
        hands, sleeping = swap(Round(hands, sleeping, [], [], None), a, b)
    m = domeng(hands, sleeping, {"first_lead": "any"})
    assert m.to_move == leader and legal_strs(m) == sorted(hands[leader])


def test_DOM_2_literal_later_rounds_are_DOM_3s():
    """After the first round the lead is DOM-3's under either reading: the winner leads any
    tile (the second round of test_DOM_3_later_round_led_by_previous_winner_with_any_tile)."""
    hands2, _ = rotate(TWO_TIE, 1)
    m = start(NO_MATT, {"cycles": 1, "profile": "literal"},
              more=[{"hands": hands2, "sleeping": TWO_TIE.sleeping}])
    m.play(3, "6-6")                                      # the leader may still lay its double
    play_script(m, NO_MATT.moves[1:])
    assert m.to_move == 3 and legal_strs(m) == sorted(hands2[3])
