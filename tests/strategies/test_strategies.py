"""The strategies' choices in hand-made positions, and full matches played legally.

Positions are scripted: a chosen deal (new_match(..., deals=[...])) and the plays that
lead to the position; draws and passes follow from the rules.
"""

import json

import pytest

from bots.arena import play_match
from bots.strategies import STRATEGIES, make_strategy
from bots.strategies.expert import Expert
from bots.strategies.heuristic import Heuristic
from bots.strategies.oracle import Oracle
from bots.strategies.search import Search, _greedy_choice, greedy_pick, run_greedy_domeng, run_greedy_hhl
from engine_service.rules import knowledge, new_match, replay_record
from engine_service.rules.domeng import settle_round
from engine_service.rules.moves import ARMS, Move

# Domeng, first round. Seat 2 is left with 2-1 and 3-2; the ends are 3 and 1, and every
# tile that shows 3 or 2 is on the table or in seat 2's hand. 2-1 on the right makes the
# ends 3 and 2: the other four must pass, and 3-2 then goes out as a MAPPAKULING, a CEKI
# (DOM-6, DOM-7). Greedy lays the heavier 3-2 first and leaves ends 2 and 1, which the
# others can still play on.
CEKI_DEAL = {
    "hands": [["5-0", "4-3", "4-2", "4-0", "6-6"], ["2-2", "6-3", "3-3", "6-4", "4-4"],
              ["3-2", "2-1", "1-0", "5-2", "6-0"], ["5-5", "2-0", "5-3", "5-1", "3-0"],
              ["6-2", "4-1", "0-0", "1-1", "3-1"]],
    "sleeping": ["6-1", "6-5", "5-4"],
}
CEKI_PLAYS = ["6-6", "6-3 right", "6-0 left", "2-0 left", "3-1 right", "4-2 left", "6-4 left", "1-0 right",
              "3-0 right", "6-2 left", "4-3 right", "2-2 left", "5-2 left", "5-3 left", "4-1 right",
              "3-3 left"]

# HHL. Seat 1 holds 3-1, 5-5 and 6-6 and can lay only 5-5, on the up arm (ends: left 0,
# right 4, up 5, down 0). Seat 0 drew and holds nothing for 0 or 4 (HHL-6): the 5 arm is
# the only one it can use. Seat 1 has no other tile showing 5, so closing that arm with a
# barricade (HHL-5) costs it nothing.
BARRICADE_DEAL = {
    "hands": [["2-1", "2-0", "4-4", "1-1", "3-3", "3-2"], ["5-5", "3-1", "0-0", "6-1", "6-6", "5-1"],
              ["3-0", "6-4", "4-1", "5-0", "5-2", "5-3"], ["4-2", "4-0", "1-0", "6-2", "4-3", "2-2"]],
    "stock": ["6-5", "6-3", "6-0", "5-4"],
}
BARRICADE_PLAYS = ["0-0", "5-0 right", "4-0 up", "2-0 down", "5-1 right", "4-1 right", "6-2 down",
                   "4-4 right normal", "6-1 down", "6-4 up", "1-0 down", "6-5 up"]


def scripted(variant, deal, plays, options=None):
    options = options or ({"hands": 1} if variant == "hhl" else {"round_cap": 1})
    m = new_match(variant, options, 0, deals=[deal])
    for text in plays:
        m.play(m.to_move, Move.parse(text))
    return m


def plain_view(m, seat):
    """The seat's view as a bot over the wire gets it: plain JSON, no way back to the match."""
    return json.loads(json.dumps(m.view(seat)))


@pytest.mark.parametrize("bot", [Heuristic(0), Search(0, iterations=200), Expert(0, ms=None)],
                         ids=["heuristic", "search", "expert"])
def test_a_forced_ceki_finish_is_taken(bot):
    m = scripted("domeng", CEKI_DEAL, CEKI_PLAYS)
    assert m.to_move == 2 and sorted(m.view(2)["hand"]) == ["2-1", "3-2"]
    legal = m.legal_moves(2)
    assert len(legal) == 2  # 2-1 right, 3-2 left
    move = bot.choose(plain_view(m, 2), legal)
    assert str(move) == "2-1 right"
    greedy = make_strategy("greedy")
    while m.to_move is not None and not m.deals[0].result:
        s = m.to_move
        m.play(s, (bot if s == 2 else greedy).choose(plain_view(m, s), m.legal_moves(s)))
    result = m.deals[0].result
    assert (result["end"], result["kind"], result["winner"], result["cucuq"]) == ("cappu", "ceki", 2, 1)


def test_the_heuristic_barricades_the_only_arm_an_opponent_can_use():
    m = scripted("hhl", BARRICADE_DEAL, BARRICADE_PLAYS)
    view = plain_view(m, 1)
    assert m.to_move == 1 and sorted(view["hand"]) == ["3-1", "5-5", "6-6"]
    legal = m.legal_moves(1)
    assert sorted(map(str, legal)) == ["5-5 up barricade", "5-5 up normal"]
    voids = knowledge.from_view(view).voids(0)
    assert [v for v in (0, 4, 5) if voids >> v & 1] == [0, 4]  # seat 0 may still hold a 5
    assert str(Heuristic(0).choose(view, legal)) == "5-5 up barricade"
    assert str(make_strategy("greedy").choose(view, legal)) == "5-5 up normal"  # greedy never does


def test_one_legal_move_is_answered_without_searching():
    m = new_match("hhl", {"hands": 1}, 3)
    bot = Search(0, ms=10_000)
    assert bot.choose(plain_view(m, m.to_move), m.legal_moves(m.to_move)) is not None
    assert bot.samples == 0


def test_search_respects_its_time_budget(monkeypatch):
    """On a clock of its own (a real one measures the machine's load, not the bot: the
    time per move is benchmarks/bots_bench.py's): each reading is 4 ms after the last, so
    a sample costs 8 ms, and a bot of 50 ms stops before the sample that would overrun."""
    import types

    from bots.strategies import search

    clock = types.SimpleNamespace(now=0.0)

    def perf_counter():
        clock.now += 0.004
        return clock.now
    monkeypatch.setattr(search, "time", types.SimpleNamespace(perf_counter=perf_counter))
    m = scripted("hhl", BARRICADE_DEAL, BARRICADE_PLAYS[:6])
    s = m.to_move
    bot = Search(0, ms=50)
    bot.choose(plain_view(m, s), m.legal_moves(s))
    assert clock.now <= 0.050 and bot.samples >= 3


def _reshuffled_twin(m, seat, rng):
    """The same match replayed from a deal in which the tiles ``seat`` cannot see (other
    hands' unplayed tiles, the stock) are dealt anew; doubles below the spinner stay in
    the stock so the same seat opens (HHL-2)."""
    deal, plays = m.deals[0], [e for e in m.position.events if e.kind == "play"]
    played = {e.move.tile for e in plays}
    spinner = plays[0].move.tile
    hidden = [t for s, h in enumerate(deal.hands) if s != seat for t in h if t not in played]
    hidden += [t for t in deal.rest if t.is_double is False or t > spinner]
    rng.shuffle(hidden)
    hands, it = [], iter(hidden)
    for s, h in enumerate(deal.hands):
        hands.append([str(t) for t in h] if s == seat else
                     [str(t) if t in played else str(next(it)) for t in h])
    stock = [str(t) if (t.is_double and t < spinner) else str(next(it)) for t in deal.rest]
    twin = new_match("hhl", {"hands": 1}, 0, deals=[{"hands": hands, "stock": stock}])
    for e in plays:
        twin.play(e.seat, e.move)
    return twin


def test_the_search_reads_only_the_view():
    """Two deals that differ only in tiles seat 0 cannot see give it the same view; the
    search, seeded alike, must then choose alike."""
    import random

    rng, checked = random.Random(1), 0
    for seed in range(40):
        m = new_match("hhl", {"hands": 1}, seed)
        greedy = make_strategy("greedy")
        while not m.over and not any(e.kind == "draw" for e in m.position.events):
            s = m.to_move
            if s == 0 and len(m.legal_moves(0)) > 1 and m.position.ends is not None:
                twin = _reshuffled_twin(m, 0, rng)
                view, twin_view = plain_view(m, 0), plain_view(twin, 0)
                assert view == twin_view
                assert [h.bit_count() for h in twin.position.hands] == view["counts"]
                a = Search(7, iterations=30).choose(view, m.legal_moves(0))
                b = Search(7, iterations=30).choose(twin_view, twin.legal_moves(0))
                assert a == b
                checked += 1
                break
            m.play(s, greedy.choose(None, m.legal_moves(s)))
    assert checked >= 10


def test_the_oracle_needs_the_match():
    m = new_match("hhl", {"hands": 1}, 1)
    m.play(m.to_move, m.legal_moves(m.to_move)[0])
    while len(m.legal_moves(m.to_move)) < 2:
        m.play(m.to_move, m.legal_moves(m.to_move)[0])
    with pytest.raises(RuntimeError, match="in-process"):
        Oracle(0).choose(plain_view(m, m.to_move), m.legal_moves(m.to_move))


def test_the_fast_playout_policy_is_greedy():
    """_greedy_choice (bit masks) picks exactly what greedy_pick picks from the move list."""
    import random

    for variant in ("hhl", "domeng"):
        for seed in range(40):
            m = new_match(variant, {"hands": 1} if variant == "hhl" else {"round_cap": 1}, seed)
            rng = random.Random(seed)
            while not m.over:
                s, st = m.to_move, m.position
                legal = m.legal_moves(s)
                if st.ends is not None:
                    cand = st.hands[s] if getattr(st, "drawn", None) is None else 1 << st.drawn
                    pick = greedy_pick(legal)
                    assert _greedy_choice(st.ends, cand) == (pick.tile, ARMS.index(pick.at))
                m.play(s, rng.choice(legal))


def _small(name, seed):
    if name == "search":
        return Search(seed, iterations=8)
    if name in ("expert", "ceiling"):
        return STRATEGIES[name](seed, units=2_000, worlds=8, exact_nodes=400, all_worlds=24,
                                ms=None)
    return make_strategy(name, seed)


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 3}), ("domeng", {})])
@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_strategy_finishes_matches_legally(name, variant, options):
    seats = 4 if variant == "hhl" else 5
    for k in range(2):
        bots = [_small(name if s % 2 == k else "greedy", s) for s in range(seats)]
        m = play_match(variant, options, 11 + k, bots)
        assert m.over
        again = replay_record(m.record())  # every move re-checked by the rules
        assert again.result == m.result


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_fast_playouts_end_like_the_engine(variant):
    """run_greedy_* (bit masks) finish a position exactly as the engine does when every
    seat plays greedy: same end, same pips, same stones."""
    import random

    greedy = make_strategy("greedy")
    checked = 0
    for seed in range(60):
        m = new_match(variant, {"hands": 1} if variant == "hhl" else {"round_cap": 1}, seed)
        rng = random.Random(seed)
        while not m.over:
            st, s = m.position, m.to_move
            if st.ends is not None:
                ref, fast = st.fork(), st.fork()
                while not ref.over:
                    ref.play(ref.turn, greedy.choose(None, ref.legal_moves()))
                if variant == "hhl":
                    assert run_greedy_hhl(fast) == ref.pips()
                else:
                    run_greedy_domeng(fast)
                    assert (fast.end, fast.kind, fast.winner_seat, fast.pips()) == \
                        (ref.end, ref.kind, ref.winner_seat, ref.pips())
                    assert settle_round(fast) == settle_round(ref)
                checked += 1
            m.play(s, rng.choice(m.legal_moves(s)))
    assert checked > 300
