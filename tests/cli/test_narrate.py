"""`domino demo` and `domino replay` in words: every event kind and result reads as a plain
English sentence, the Domeng words in capitals."""

import pytest

from bots.arena import play_match
from bots.strategies import make_strategy
from domino_cli.narrate import describe, describe_result

PASS_FROM_MAPPANO = {"kind": "pass", "seat": 1, "stones": [{"from": 0, "count": 1}], "cost": 1,
                     "passebunge": False}


@pytest.mark.parametrize("event,variant,sentence", [
    ({"kind": "play", "seat": 3, "play": "2-0", "at": "up"}, "hhl", "seat 3 plays 2-0 on the up arm"),
    ({"kind": "play", "seat": 3, "play": "5-5", "at": "down", "mode": "barricade"}, "hhl",
     "seat 3 plays 5-5 on the down arm as a barricade"),
    ({"kind": "play", "seat": 0, "play": "3-1", "at": "left"}, "domeng",
     "seat 0 plays 3-1 on the left end"),
    ({"kind": "play", "seat": 0, "play": "3-1", "at": "right", "mappakuling": True}, "domeng",
     "seat 0 plays 3-1 on the right end, a MAPPAKULING"),
    ({"kind": "play", "seat": 2, "play": "6-6"}, "hhl", "seat 2 plays 6-6 to open"),
    ({"kind": "draw", "seat": 1, "count": 1}, "hhl", "seat 1 draws a tile from the stock"),
    ({"kind": "draw", "seat": 1, "count": 2, "tiles": ["3-1", "5-5"]}, "hhl",
     "seat 1 draws 2 tiles from the stock: 3-1 5-5"),
    ({"kind": "pass", "seat": 1}, "hhl", "seat 1 cannot play and passes"),
    (PASS_FROM_MAPPANO, "domeng", "seat 1 PASS: takes 1 STONE from seat 0"),
    ({"kind": "pass", "seat": 2, "stones": [{"from": "table", "count": 1}, {"from": 4, "count": 1}],
      "cost": 2, "passebunge": True}, "domeng",
     "seat 2 PASSEBUNGE: takes 2 STONES — 1 from the table and 1 from seat 4"),
    ({"kind": "pass", "seat": 2, "stones": [], "cost": 1, "passebunge": False}, "domeng",
     "seat 2 PASS: is due 1 STONE, but there are none left to give"),
    ({"kind": "pass", "seat": 4, "stones": [], "cost": 0, "passebunge": False}, "domeng",
     "seat 4 cannot play either, so the round is blocked: seat 4 is the MANGUNO"),
    ({"kind": "deal_start", "deal": 0, "leader": 2}, "hhl", "-- hand 1 is dealt; seat 2 leads"),
    ({"kind": "deal_start", "deal": 3, "leader": 1, "cycle": 0, "camat": 1}, "domeng",
     "-- round 4 is dealt; seat 1 (the CAMAT) leads"),
    ({"kind": "timeout", "seat": 2, "move": "6-4 left", "timeouts_in_a_row": 1}, "hhl",
     "seat 2's clock ran out; the engine played 6-4 left for it (1 in a row)"),
    ({"kind": "returned", "seat": 2}, "hhl", "seat 2 is back"),
    ({"kind": "time_up"}, "hhl", "time is up: the hand being played is the last"),
    ({"kind": "cycle_over", "result": {"cycle": 0, "camat": None, "held": [5, 5, 5, 5, 5],
                                       "rounds": 200}}, "domeng",
     "== cycle 1 ends after 200 rounds: no CAMAT (the round cap ended it); STONES held 5, 5, 5, 5, 5"),
    ({"kind": "match_over", "result": {"totals": [100, -100, 0, 0], "ranking": [[0], [2, 3], [1]]}},
     "hhl", "== match over: 1st seat 0, 2nd seats 2 and 3, 4th seat 1; totals +100, -100, +0, +0"),
])
def test_each_event_is_a_sentence(event, variant, sentence):
    assert describe(event, variant) == sentence


@pytest.mark.parametrize("result,sentence", [
    ({"end": "domino", "winners": [2], "pips": [11, 12, 0, 8], "points": [-325, -425, 775, -25]},
     "seat 2 lays its last tile: domino. Pips left 11, 12, 0, 8; points -325, -425, +775, -25"),
    ({"end": "blocked", "winners": [1, 3], "pips": [9, 4, 8, 4], "points": [-275, 225, -175, 225]},
     "blocked; the fewest pips win: seats 1 and 3. Pips left 9, 4, 8, 4; points -275, +225, -175, +225"),
    ({"end": "cappu", "kind": "pollo", "winner": 0, "cucuq": 4, "manguno": None, "mattikkeng": [],
      "transfers": [{"to": 4, "count": 5, "from": 0}], "table": 0, "held": [0, 2, 4, 7, 12],
      "camat": 0},
     "seat 0 is FIRST CAPPU with a POLLO; its CUCUQ is seat 4. Seat 4 takes 5 STONES from seat 0; "
     "the table holds 0 STONES, the seats 0, 2, 4, 7, 12; seat 0 is named CAMAT"),
    ({"end": "blocked", "kind": None, "winner": 2, "cucuq": None, "manguno": 4, "mattikkeng": [2],
      "transfers": [{"to": 4, "count": 5, "from": "table"}], "table": 8, "held": [2, 4, 2, 2, 7],
      "camat": None},
     "blocked: seat 4 is the MANGUNO, MATTIKKENG seat 2; seat 2 wins the round. Seat 4 takes 5 "
     "STONES from the table; the table holds 8 STONES, the seats 2, 4, 2, 2, 7"),
])
def test_each_result_is_a_sentence(result, sentence):
    assert describe_result(result) == sentence


@pytest.mark.parametrize("variant,seats", [("hhl", 4), ("domeng", 5)])
def test_no_event_of_a_played_match_falls_back_to_its_raw_form(variant, seats):
    """Every kind a real match produces has its sentence (the fallback prints the dict)."""
    options = {"hands": 6} if variant == "hhl" else {"cycles": 2}
    for seed in range(3):
        m = play_match(variant, options, seed, [make_strategy("random", seed + s) for s in range(seats)])
        for e in m.events:
            text = describe(e.to_dict(None), variant)
            assert not text.startswith("{") and "[" not in text, text
