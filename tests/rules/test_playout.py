"""The playout interface (engine_service/rules/playout.py) plays exactly like the Match API.

Thousands of random hands and rounds, rules options included (HHL hands and minutes;
Domeng cycles and round_cap, which reach the empty table, the LAST MAPPANO paying, the
CAMAT leading): two playouts follow every deal in lockstep with the match, one taken from
the live position at the deal's start and one built from the view of the seat to move at
a random point, with the true hidden tiles. At every step they list the same legal moves
in the same order and have the same seat to move; playing the same index ends the deal
the same way, with the same result (HHL-9 points; Domeng: settle_round's settlement).
Every test runs under each rules profile (rulings, literal: rules/options.py), and the
lockstep one also with each reading on its own: a playout plays the match's readings
(HHL-8's dead stock drawn, DOM-8's paid closing pass, DOM-2's free first lead), whether
taken from the position or built from a view, and a copy keeps them.
"""

import random

import pytest

from engine_service.rules import new_match
from engine_service.rules.domeng import DomengPlayout, DomengPosition
from engine_service.rules.hhl import HHLPlayout, HHLPosition
from engine_service.rules.playout import from_view, playout_of
from engine_service.rules.tiles import tiles_of

HHL_OPTIONS = [{"hands": 5}, {"hands": 1}, {}]  # {}: 60 minutes, cut by time_up()
DOMENG_OPTIONS = [{}, {"cycles": 3, "round_cap": 4}, {"cycles": 2, "round_cap": 1}, {"round_cap": 30}]
PROFILES = ["rulings", "literal"]
# Each reading on its own, beside the profiles (and one against its profile).
READINGS = {"hhl": [{"dead_stock": "draw"}, {"profile": "literal", "dead_stock": "stop"}],
            "domeng": [{"closing_pass": "paid"}, {"first_lead": "any"},
                       {"profile": "literal", "closing_pass": "free"}]}


def true_world(m):
    """Every seat's tiles and the hidden rest (the stock left, in order, or the sleeping)."""
    live = m.position
    hands = [tiles_of(h) for h in live.hands]
    rest = live.stock[live.stock_pos:] if m.variant == "hhl" else list(live.sleeping)
    return hands, rest


def deal_result(m, deal_index):
    r = m.deals[deal_index].result
    return r["points"] if m.variant == "hhl" else r


def literal_turns(m, d) -> set:
    """What the literal readings did in deal d of m (seen in its record)."""
    entry = m.record()["deals"][d]
    turns, seen = entry["moves"], set()
    if entry["result"]["end"] == "blocked" and len(turns) >= 5 and "draw" in turns[-5] \
            and all("pass" in t for t in turns[-4:]):
        seen.add("dead stock drawn")                                          # HHL-8
    if m.variant == "domeng":
        if entry["result"]["end"] == "blocked" and turns[-1].get("stones"):
            seen.add("closing pass paid")                                     # DOM-8
        if d == 0 and turns[0]["play"] not in ("6-6", "5-5", "4-4", "3-3"):
            seen.add("free first lead")                                       # DOM-2
    return seen


def follow(m, rng, deals_seen):
    """Play ``m`` to its end with random moves, two playouts in lockstep with every deal."""
    stop_at = rng.randrange(30, 400) if m.variant == "hhl" and m.options["minutes"] else None
    steps = 0
    while not m.over:
        d = len(m.deals) - 1
        followers = [m.position.playout()]
        view_at = rng.randrange(0, 12)
        while len(m.deals) - 1 == d and not m.over:
            if steps == stop_at:
                m.time_up()  # HHL-10: the hand in progress is finished, then the match ends
            seat = m.to_move
            if view_at == 0:
                hands, rest = true_world(m)
                built = from_view(m.view(seat), hands, rest)
                followers.append(built)
            view_at -= 1
            legal = m.legal_moves(seat)
            for p in followers:
                assert p.turn == seat and not p.over
                assert p.legal() == tuple(legal)
            k = rng.randrange(len(legal))
            twin = followers[0].copy()
            for p in followers:
                p.apply(k)
            m.play(seat, legal[k])
            steps += 1
            assert twin.legal() == tuple(legal), "a copy is left as it was"
        state = m.deals[d].state
        for p in followers:
            assert p.over and p.turn is None
            assert (p.end, p.winner_seat, p.pips()) == (state.end, state.winner_seat, state.pips())
            assert p.result() == deal_result(m, d)
        deals_seen[m.variant] += 1
        deals_seen["literal"] |= literal_turns(m, d)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_playouts_play_like_the_match_api(variant, profile):
    seen = {"hhl": 0, "domeng": 0, "literal": set()}
    options = HHL_OPTIONS if variant == "hhl" else DOMENG_OPTIONS
    for seed in range(400 if variant == "hhl" else 300):
        rng = random.Random(seed)
        opts = {**options[seed % len(options)], "profile": profile}
        follow(new_match(variant, opts, seed), rng, seen)
    assert seen[variant] >= 1500  # hands or rounds, each followed move by move
    want = ({"dead stock drawn"} if variant == "hhl" else {"closing pass paid", "free first lead"})
    assert seen["literal"] == (want if profile == "literal" else set())


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_playouts_play_each_reading_on_its_own(variant):
    seen = {"hhl": 0, "domeng": 0, "literal": set()}
    readings = READINGS[variant]
    for seed in range(120):
        rng = random.Random(seed)
        base = {"hands": 3} if variant == "hhl" else {"round_cap": 6}
        follow(new_match(variant, {**base, **readings[seed % len(readings)]}, seed), rng, seen)
    assert seen["literal"] == ({"dead stock drawn"} if variant == "hhl"
                               else {"closing pass paid", "free first lead"})


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_a_playout_from_a_view_is_the_positions_own(variant, profile):
    """from_view builds what Position.from_view(...).playout() builds, without the layout."""
    position = HHLPosition if variant == "hhl" else DomengPosition
    checked = 0
    for seed in range(60):
        m = new_match(variant, {"hands": 2, "profile": profile} if variant == "hhl"
                      else {"round_cap": 3, "profile": profile}, seed)
        rng = random.Random(seed)
        while not m.over:
            seat = m.to_move
            view = m.view(seat)
            hands, rest = true_world(m)
            a = from_view(view, hands, rest)
            b = position.from_view(view, hands, rest).playout()
            c = m.position.playout()
            for p in (a, b):
                assert state_of(p) == state_of(c)
            checked += 1
            m.play(seat, rng.choice(m.legal_moves(seat)))
    assert checked > 500


def state_of(p):
    """What decides the rest of the deal: the HHL stock still to draw (not the drawn part
    and its place), and the Domeng forced lead only before the lead."""
    keys = [k for k in type(p).__slots__ if k not in ("_legal", "_result", "stones", "stock", "stock_pos")]
    out = {k: getattr(p, k) for k in keys}
    if isinstance(p, DomengPlayout):
        out["stones"] = (p.stones.table, p.stones.held)
        if p.ends is not None:
            del out["lead_tile"]
    else:
        out["stock"] = p.stock[p.stock_pos:]
    return out


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_lay_is_apply_of_the_same_move(variant, profile):
    from engine_service.rules.moves import ARMS, BARRICADE, ENDS

    places = ARMS if variant == "hhl" else ENDS
    for seed in range(40):
        m = new_match(variant, {"hands": 1, "profile": profile} if variant == "hhl"
                      else {"round_cap": 1, "profile": profile}, seed)
        p = m.position.playout()
        rng = random.Random(seed)
        while not p.over:
            legal = p.legal()
            k = rng.randrange(len(legal))
            t, at, mode = legal[k]
            q = p.copy()
            p.apply(k)
            if at is None and variant == "hhl":
                continue  # the opening double has no place: apply only
            place = None if at is None else places.index(at)
            if variant == "hhl":
                q.lay(q.turn, t, place, mode == BARRICADE)
            else:
                q.lay(q.turn, t, place)
            assert state_of(q) == state_of(p)


def test_playout_of_takes_a_position_or_copies_a_playout():
    m = new_match("domeng", {}, 4)
    p = playout_of(m.position)
    assert isinstance(p, DomengPlayout) and playout_of(p) is not p
    assert isinstance(playout_of(new_match("hhl", {"hands": 1}, 4).position), HHLPlayout)


@pytest.mark.parametrize("variant,options,attrs", [
    ("hhl", {"hands": 1}, {"draw_dead": False}),
    ("hhl", {"hands": 1, "profile": "literal"}, {"draw_dead": True}),
    ("domeng", {}, {"paid_close": False, "lead_tile": 27}),
    ("domeng", {"profile": "literal"}, {"paid_close": True, "lead_tile": None}),
    ("domeng", {"first_lead": "any"}, {"paid_close": False, "lead_tile": None}),
])
def test_every_playout_carries_the_match_readings(variant, options, attrs):
    """The profile travels with the playout, however it is made: from the live position,
    from a view (whose options tell it), by a copy, and playout_of; search and the oracle
    then follow the match's rules without knowing about profiles (rules/playout.py)."""
    m = new_match(variant, options, 5)
    hands, rest = true_world(m)
    if variant == "domeng":   # the seed's deal: make 6-6 (tile 27) the first lead
        assert any(27 in h for h in hands)
    made = [m.position.playout(), from_view(m.view(m.to_move), hands, rest)]
    made += [p.copy() for p in made] + [playout_of(m.position), playout_of(made[0])]
    for p in made:
        assert {k: getattr(p, k) for k in attrs} == attrs
