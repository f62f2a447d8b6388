"""Text notation of tiles and moves, and what counts as malformed input.

Tiles are written high-low ("6-4"); "4-6" is the same tile. Moves: "0-0" (an opening),
"3-1 left", "4-4 up barricade"; dict form {"play": "3-1", "at": "left", "mode": ...}.
"""

import json

import pytest
from rules_helpers import ALL_TILES, hhl, snapshot

from engine_service.rules import (
    ARMS,
    BARRICADE,
    ENDS,
    NORMAL,
    TILES,
    MalformedInput,
    Move,
    Tile,
    coerce_move,
    new_match,
)


# ----- tiles ---------------------------------------------------------------------------
def test_the_set_has_28_tiles_written_high_low():
    assert len(TILES) == 28
    assert sorted(str(t) for t in TILES) == sorted(ALL_TILES)
    assert len(set(TILES)) == 28


@pytest.mark.parametrize("text", ALL_TILES)
def test_tile_parse_str_round_trip(text):
    t = Tile.parse(text)
    assert str(t) == text
    assert Tile.parse(str(t)) is t
    hi, lo = (int(x) for x in text.split("-"))
    assert Tile.parse(f"{lo}-{hi}") == t  # "4-6" == "6-4"
    assert t.pips == hi + lo
    assert t.is_double == (hi == lo)
    assert Tile.of(lo, hi) == t and Tile.of(hi, lo) == t
    assert repr(t) == f"Tile({text!r})"
    assert eval(repr(t), {"Tile": Tile}) is t          # the repr pastes back
    assert Tile(text) is t and Tile(int(t)) is t        # validated, interned construction
    assert not hasattr(t, "hi") and not hasattr(t, "lo")


@pytest.mark.parametrize("bad", [99, -1, 28, 2.0, None, True, "9-9", "", [1]])
def test_a_tile_is_built_from_a_valid_index_or_text_only(bad):
    with pytest.raises(MalformedInput):
        Tile(bad)


@pytest.mark.parametrize("text,canonical", [
    ("4-6", "6-4"), ("6-4", "6-4"), ("0-6", "6-0"), ("[4|6]", "6-4"), ("[6|4]", "6-4"),
    (" 6-4 ", "6-4"), ("1-1", "1-1"), ("0-0", "0-0"), ("3 - 5", "5-3"),
])
def test_tile_parse_accepts_either_order_and_brackets(text, canonical):
    assert str(Tile.parse(text)) == canonical


def test_tile_4_6_equals_6_4_everywhere():
    assert Tile.parse("4-6") == Tile.parse("6-4")
    assert Move.parse("4-6 left") == Move.parse("6-4 left")
    assert str(Move.parse("4-6 left")) == "6-4 left"
    assert Move.from_dict({"play": "4-6", "at": "up"}).to_dict() == {"play": "6-4", "at": "up"}


def test_tile_pickles_and_deep_copies_as_itself():
    import copy
    import pickle
    for t in TILES:
        assert pickle.loads(pickle.dumps(t)) is t
        assert copy.deepcopy(t) is t


@pytest.mark.parametrize("bad", [
    "7-1", "6-7", "-1-2", "6-", "-4", "6", "64", "6-4-2", "", "  ", "x-y", "six-four",
    "6_4", "6–4", "06-4", "[6|4|2]", "6.4", None, 64, 6.4, ["6", "4"], ("6", "4"), True,
])
def test_tile_parse_malformed(bad):
    with pytest.raises(MalformedInput):
        Tile.parse(bad)


@pytest.mark.parametrize("bad", ["²-1", "6-①"])
def test_tile_parse_non_ascii_digit_is_malformed(bad):
    with pytest.raises(MalformedInput):
        Tile.parse(bad)


def test_tile_of_out_of_range():
    for a, b in [(7, 0), (-1, 2), (3, 9)]:
        with pytest.raises(MalformedInput):
            Tile.of(a, b)


# ----- moves ---------------------------------------------------------------------------
MOVE_TEXTS = (
    ["0-0", "6-6", "5-2"]
    + [f"3-1 {a}" for a in ARMS]
    + [f"4-4 {a} {mode}" for a in ARMS for mode in (NORMAL, BARRICADE)]
    + [f"6-0 {e}" for e in ENDS]
)


@pytest.mark.parametrize("text", MOVE_TEXTS)
def test_move_parse_str_dict_round_trip(text):
    mv = Move.parse(text)
    assert str(mv) == text
    assert Move.parse(str(mv)) == mv
    d = mv.to_dict()
    parts = text.split()
    assert d == {"play": parts[0], **({"at": parts[1]} if len(parts) > 1 else {}),
                 **({"mode": parts[2]} if len(parts) > 2 else {})}
    assert Move.from_dict(d) == mv
    assert Move.from_dict(json.loads(json.dumps(d))) == mv
    assert coerce_move(text) == coerce_move(d) == coerce_move(mv) == mv
    assert Move.parse(mv) is mv


def test_move_fields():
    mv = Move.parse("4-4 up barricade")
    assert (mv.tile, mv.at, mv.mode) == (Tile.parse("4-4"), "up", "barricade")
    mv = Move.parse("2-5 right")
    assert (str(mv.tile), mv.at, mv.mode) == ("5-2", "right", None)
    assert Move.parse("0-0") == (Tile.parse("0-0"), None, None)
    assert Move.parse("  3-1   left ") == Move.parse("3-1 left")


def test_move_from_dict_accepts_a_seat_field():
    assert Move.from_dict({"seat": 2, "play": "3-1", "at": "left"}) == Move.parse("3-1 left")


@pytest.mark.parametrize("bad", [
    "", "   ", "left", "3-1 middle", "3-1 Left", "4-4 up closed", "4-4 up normal extra",
    "3-1 left normal barricade", "7-7 left", None, 31, ["3-1", "left"],
])
def test_move_parse_malformed(bad):
    with pytest.raises(MalformedInput):
        Move.parse(bad)


@pytest.mark.parametrize("bad", [
    {}, {"at": "left"}, {"play": "3-1", "at": "middle"}, {"play": "3-1", "mode": "open"},
    {"play": "3-1", "at": "left", "extra": 1}, {"play": 31}, {"play": "3-1", "at": 0},
    "3-1 left", ["3-1", "left"], None,
])
def test_move_from_dict_malformed(bad):
    with pytest.raises(MalformedInput):
        Move.from_dict(bad)


# ----- malformed input to a match changes nothing ------------------------------------------
HANDS = [
    ["0-0", "5-1", "6-1", "6-6", "5-5", "6-5"],
    ["1-1", "2-1", "3-1", "4-1", "2-2", "3-2"],
    ["3-3", "4-3", "4-2", "6-2", "5-2", "6-4"],
    ["2-0", "3-0", "4-0", "5-0", "6-0", "5-4"],
]
STOCK = ["6-3", "5-3", "4-4", "1-0"]


@pytest.mark.parametrize("bad", [
    "7-0", "0-0 middle", "0-0 left sideways", {"play": "0-0", "foo": 1}, {"at": "left"}, "",
    None, 0, ("0-0",),
])
def test_malformed_move_in_play_changes_nothing(bad):
    m = hhl(HANDS, STOCK)
    before = snapshot(m)
    with pytest.raises(MalformedInput):
        m.play(0, bad)
    assert snapshot(m) == before


@pytest.mark.parametrize("bad", ["6-6 up", "6-6 down", "6-6 up normal", "6-6 down barricade"])
def test_DOM_4_unknown_arm_up_down_in_domeng_is_malformed(bad):
    m = new_match("domeng", {}, seed=5)
    seat = m.to_move
    m.play(seat, m.legal_moves(seat)[0])
    before = snapshot(m)
    with pytest.raises(MalformedInput):
        m.play(m.to_move, bad)
    assert snapshot(m) == before


@pytest.mark.parametrize("seat", [4, -1, 5, 100, "0", 1.0, None, True])
def test_play_with_seat_out_of_range_is_malformed(seat):
    m = hhl(HANDS, STOCK)
    before = snapshot(m)
    with pytest.raises(MalformedInput):
        m.play(seat, "0-0")
    assert snapshot(m) == before


@pytest.mark.parametrize("variant,seat", [("hhl", 4), ("hhl", -1), ("domeng", 5), ("domeng", "1"),
                                          ("hhl", 2.0), ("domeng", [0])])
def test_view_seat_out_of_range_is_malformed(variant, seat):
    m = new_match(variant, {}, seed=1)
    with pytest.raises(MalformedInput):
        m.view(seat)


@pytest.mark.parametrize("variant", [None, "", "HHL", "dominoes", "domeng ", 1])
def test_unknown_variant(variant):
    with pytest.raises(MalformedInput):
        new_match(variant, {}, seed=0)


@pytest.mark.parametrize("variant,options", [
    ("hhl", {"cycles": 1}), ("hhl", {"hand": 1}), ("domeng", {"hands": 1}),
    ("domeng", {"minutes": 5}), ("hhl", {"hands": 0}), ("hhl", {"hands": -1}),
    ("hhl", {"hands": "3"}), ("hhl", {"hands": True}), ("hhl", {"hands": 2.5}),
    ("domeng", {"cycles": 0}), ("domeng", {"round_cap": 0}), ("domeng", {"cycles": "1"}),
    ("hhl", ["hands", 1]), ("domeng", "cycles=1"),
])
def test_unknown_or_bad_options(variant, options):
    with pytest.raises(MalformedInput):
        new_match(variant, options, seed=0)


@pytest.mark.parametrize("seed", ["1", 1.5, None, True, [1]])
def test_bad_seed(seed):
    with pytest.raises(MalformedInput):
        new_match("hhl", {"hands": 1}, seed=seed)


def _hhl_deal(**change):
    d = {"hands": [list(h) for h in HANDS], "stock": list(STOCK)}
    d.update(change)
    return d


@pytest.mark.parametrize("deal", [
    pytest.param(_hhl_deal(stock=["6-3", "5-3", "4-4", "4-4"]), id="duplicate-missing"),
    pytest.param(_hhl_deal(stock=["6-3", "5-3", "4-4"]), id="stock-short"),
    pytest.param(_hhl_deal(stock=["6-3", "5-3", "4-4", "1-0", "1-0"]), id="stock-long"),
    pytest.param(_hhl_deal(stock=[]), id="stock-empty"),
    pytest.param({"hands": [list(h) for h in HANDS]}, id="stock-missing"),
    pytest.param(_hhl_deal(hands=[HANDS[0][:5], HANDS[1], HANDS[2], HANDS[3]],
                           stock=STOCK + [HANDS[0][5]]), id="hand-of-5-stock-of-5"),
    pytest.param(_hhl_deal(hands=[HANDS[0] + ["6-3"], HANDS[1], HANDS[2], HANDS[3]],
                           stock=STOCK[1:]), id="hand-of-7"),
    pytest.param(_hhl_deal(hands=HANDS[:3]), id="three-hands"),
    pytest.param(_hhl_deal(hands=HANDS + [[]]), id="five-hands"),
    pytest.param(_hhl_deal(hands=[["7-7"] + HANDS[0][1:]] + HANDS[1:]), id="bad-tile-text"),
    pytest.param(_hhl_deal(hands="all"), id="hands-not-a-list"),
    pytest.param(_hhl_deal(stock="6-3 5-3 4-4 1-0"), id="stock-not-a-list"),
    pytest.param({"stock": STOCK}, id="hands-missing"),
    pytest.param([HANDS, STOCK], id="deal-not-an-object"),
])
def test_HHL_1_bad_deals_are_malformed(deal):
    with pytest.raises(MalformedInput):
        new_match("hhl", {"hands": 1}, deals=[deal])


D_HANDS = [
    ["3-2", "6-6", "5-1", "6-3", "6-4"],
    ["2-0", "4-0", "5-2", "5-4", "4-4"],
    ["2-2", "0-0", "4-2", "5-0", "6-5"],
    ["3-0", "1-1", "4-3", "3-3", "5-5"],
    ["5-3", "2-1", "4-1", "1-0", "6-1"],
]
D_SLEEP = ["3-1", "6-0", "6-2"]


@pytest.mark.parametrize("deal", [
    pytest.param({"hands": D_HANDS, "sleeping": ["3-1", "6-0"]}, id="two-sleep"),
    pytest.param({"hands": D_HANDS, "sleeping": D_SLEEP + ["6-0"]}, id="four-sleep-duplicate"),
    pytest.param({"hands": D_HANDS, "stock": D_SLEEP}, id="stock-instead-of-sleeping"),
    pytest.param({"hands": D_HANDS[:4], "sleeping": D_SLEEP}, id="four-hands"),
    pytest.param({"hands": [D_HANDS[0] + ["3-1"]] + D_HANDS[1:], "sleeping": D_SLEEP[1:]},
                 id="hand-of-6"),
    pytest.param({"hands": [D_HANDS[0][:4]] + D_HANDS[1:], "sleeping": D_SLEEP + ["6-4"]},
                 id="hand-of-4"),
    pytest.param({"hands": [h + [] for h in D_HANDS[:4]] + [["5-3", "2-1", "4-1", "1-0", "1-0"]],
                  "sleeping": D_SLEEP}, id="duplicate-in-hand"),
    pytest.param({"hands": HANDS, "stock": STOCK}, id="an-hhl-deal"),
])
def test_DOM_1_bad_deals_are_malformed(deal):
    with pytest.raises(MalformedInput):
        new_match("domeng", {}, deals=[deal])


def test_deals_must_be_a_list():
    with pytest.raises(MalformedInput):
        new_match("hhl", {"hands": 1}, deals={"hands": HANDS, "stock": STOCK})
    with pytest.raises(MalformedInput):
        new_match("domeng", {}, deals="none")


def test_a_bad_later_deal_is_refused_up_front():
    good = {"hands": HANDS, "stock": STOCK}
    with pytest.raises(MalformedInput):
        new_match("hhl", {"hands": 2}, deals=[good, {"hands": HANDS, "stock": STOCK[:3]}])


def test_deal_tiles_accept_either_order_and_are_canonical_in_the_record():
    hands = [[t[::-1] for t in h] for h in HANDS]  # "5-1" -> "1-5"
    m = new_match("hhl", {"hands": 1}, deals=[{"hands": hands, "stock": STOCK}])
    assert m.record()["deals"][0]["hands"] == HANDS
