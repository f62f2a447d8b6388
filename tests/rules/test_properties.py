"""Property tests over thousands of random, seeded games of both variants.

Every game is driven side by side with the independent reference model in rules_helpers
(RefHHL / RefDomengPosition), so each step checks, besides the invariants named below, that
the engine's legal moves, automatic draws/passes/stone payments and results agree with
the rulings. All randomness is seeded: the suite is deterministic. The games run under
each rules profile (``rulings``, the default, and ``literal``: HHL-8, DOM-8 and DOM-2 by the
letter, rules/options.py), and the reference model follows the match's options.

Invariants (the rulings of docs/rules.md):
  * all 28 tiles accounted for at every step, no duplicates;
  * HHL points sum to 0 every hand (HHL-9); Domeng table + held == 25 after every event
    (DOM-9), nobody below 0;
  * every hand and every match ends;
  * the legal-move list is never empty for the seat to move, empty for everyone else,
    and every listed move is accepted;
  * no view and no event shows a hidden tile (docs/rules.md, "Views");
  * every record replays (replay_record) to the identical result and record.
"""

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_helpers import (
    ALL_TILES,
    RefDomengPosition,
    RefHHL,
    RefStones,
    canon,
    places,
    tiles_mentioned,
    turn_records,
)

from engine_service.rules import Move, Tile, new_match, replay_record
from engine_service.rules.domeng import DomengPosition
from engine_service.rules.hhl import HHLPosition

MAX_STEPS = 20000  # far above any real match; reaching it means a match did not end
PROFILES = ["rulings", "literal"]


def ref_hhl(m, rec):
    return RefHHL(rec["hands"], rec["stock"], literal=m.options["dead_stock"] == "draw")


# ----- shared checks -----------------------------------------------------------------
def laid_tiles(v, variant) -> list[str]:
    """Tiles on the public layout, read from a (spectator's) view."""
    if variant == "hhl":
        out = [v["spinner"]] if v["spinner"] else []
        for arm in v["arms"].values():
            out += [x["tile"] for x in arm["tiles"]]
        return out
    return [x["tile"] for x in v["line"]]


def check_views_hidden(views, own_hands, laid):
    """No view of any seat or of the spectator (``views``: seat -> view) names a tile
    outside what that seat may know: its own hand (drawn tiles included) and the layout."""
    laid = set(laid)
    for seat, view in views.items():
        allowed = laid | (own_hands[seat] if seat is not None else set())
        seen = tiles_mentioned(view)
        assert seen <= allowed, f"seat {seat} view shows {sorted(seen - allowed)}"


def check_events_hidden(events, own_hands, laid, num_seats):
    """Each event as each seat (and the spectator) sees it names only tiles of that
    seat's own hand or the layout; a hand start shows a seat its own dealt tiles only."""
    laid = set(laid)
    for seat in [None, *range(num_seats)]:
        allowed = laid | (own_hands[seat] if seat is not None else set())
        for e in events:
            d = e.to_dict(seat)
            seen = tiles_mentioned(d)
            assert seen <= allowed, f"seat {seat} sees {sorted(seen - allowed)} in {d}"


def split_batch(events):
    """(events of the hand that was being played, the new hand's start or None)."""
    for i, e in enumerate(events):
        if e.kind == "deal_start":
            return events[:i], e
    return events, None


def check_deal_start(e, own_hands, num_seats):
    for s in range(num_seats):
        assert set(e.to_dict(s)["tiles"]) == own_hands[s]
    assert "tiles" not in e.to_dict(None)
    assert tiles_mentioned(e.to_dict(None)) == set()


def check_listed_moves_accepted(m, seat, legal):
    for mv in legal:
        c = copy.deepcopy(m)
        c.play(seat, mv)  # must not raise


def lookahead_positions(m, ref):
    """The two look-ahead copies bots use: ``m.position.fork()`` and ``from_view`` of the
    view of the seat to move, filled with the true hidden tiles."""
    view = m.view(m.to_move)
    hands = [[Tile.parse(t) for t in h] for h in ref.hands]
    if m.variant == "hhl":
        built = HHLPosition.from_view(view, hands, [Tile.parse(t) for t in ref.stock])
    else:
        built = DomengPosition.from_view(view, hands, [Tile.parse(t) for t in ref.sleeping])
    return [m.position.fork(), built]


def check_lookahead(m, positions, seat, mv, legal):
    """Each look-ahead copy offers the same moves and, played on, reports the same turn
    events as the real match; playing on a copy leaves the match untouched."""
    def state():
        return (len(m.events), json.dumps(m.view(None)),
                [m.view(s)["hand"] for s in range(m.num_seats)])
    before = state()
    outcomes = []
    for p in positions:
        assert sorted(str(x) for x in p.legal_moves()) == sorted(legal)
        p.play(seat, Move.parse(mv))
        outcomes.append(([e.to_record() for e in p.events], p.over, p.turn))
    assert state() == before
    return outcomes


def compare_lookahead(outcomes, events, m):
    real = turn_records(split_batch(events)[0])
    over = any(e.kind == "deal_over" for e in events)
    for got, p_over, p_turn in outcomes:
        assert got == real
        assert p_over == over
        if not over:
            assert p_turn == m.to_move


def check_engine_accounting(m):
    """The 28 tiles, read from the engine's own live state (cheaper than the views):
    the hands, the undrawn stock or the sleeping tiles, and the layout are disjoint and
    make up the full set."""
    hand = m.position
    parts = list(hand.hands)
    if m.variant == "hhl":
        parts.append(sum(1 << t for t in hand.stock[hand.stock_pos:]))
        laid = [t for arm in hand.layout for t, *_ in arm]
        if hand.ends is not None:
            laid.append(hand.opening)
    else:
        parts.append(sum(1 << t for t in hand.sleeping))
        laid = [t for t, *_ in hand.line]
    parts.append(sum(1 << t for t in laid))
    assert len(laid) == len(set(laid))
    total = 0
    for mask in parts:
        assert total & mask == 0, "a tile is in two places"
        total |= mask
    assert total == (1 << 28) - 1 and sum(mask.bit_count() for mask in parts) == 28


def check_replay(m):
    rec = m.record()
    again = replay_record(json.loads(json.dumps(rec)))
    assert again.record() == rec
    assert again.result == m.result
    assert again.over == m.over


# ----- HHL ----------------------------------------------------------------------------
def run_hhl(seed, options, choose_seed, *, views=True, try_all=False, time_up_at=None,
            lookahead=False):
    m = new_match("hhl", options, seed=seed)
    rng = random.Random(choose_seed)
    totals = [0] * 4
    hands_done = 0
    stop_after = options.get("hands")  # the hand after which the match must end
    rec = m.record()["deals"][0]
    ref = ref_hhl(m, rec)
    assert [len(h) for h in rec["hands"]] == [6] * 4 and len(rec["stock"]) == 4  # HHL-1
    assert m.to_move == ref.turn
    for step in range(MAX_STEPS):
        if m.over:
            break
        if time_up_at is not None and step == time_up_at:
            m.time_up()  # HHL-10: the hand in progress is finished, then the match ends
            stop_after = min(stop_after or 10**9, hands_done + 1)
        seat = m.to_move
        legal = [str(x) for x in m.legal_moves(seat)]
        assert legal, "a seat is to move but has no legal move"
        assert set(legal) == ref.legal() and len(legal) == len(set(legal))
        for other in range(4):
            if other != seat:
                assert m.legal_moves(other) == []
        if try_all:
            check_listed_moves_accepted(m, seat, legal)
        mv = rng.choice(legal)
        outcomes = check_lookahead(m, lookahead_positions(m, ref), seat, mv, legal) if lookahead else []
        events = m.play(seat, mv)
        compare_lookahead(outcomes, events, m)
        if not m.over:
            check_engine_accounting(m)
        expected = [{"seat": seat, **_move_dict(mv)}, *ref.play(seat, mv)]
        assert turn_records(events) == expected
        kinds = [e.kind for e in events]
        old, start = split_batch(events)
        if ref.over:
            result = ref.result()
            over = next(e for e in events if e.kind == "deal_over")
            assert over.info == result
            assert sum(result["points"]) == 0  # HHL-9
            for s in range(4):
                totals[s] += result["points"][s]
            hands_done += 1
            every = [t for h in ref.hands for t in h] + ref.stock + ref.laid
            assert sorted(every) == sorted(ALL_TILES)
            if views:
                check_events_hidden(old, ref.hands, ref.laid, 4)
            if m.over:
                assert kinds[-1] == "match_over" and start is None
                assert m.result == {"totals": totals, "ranking": places(totals, True)}
                assert hands_done == stop_after
                break
            assert hands_done != stop_after
            assert start is not None and kinds[-1] == "deal_start"
            rec = m.record()["deals"][-1]
            ref = ref_hhl(m, rec)
            assert m.to_move == ref.turn  # HHL-2: every hand opened by the lowest double
            assert start.info == {"deal": hands_done, "leader": ref.turn}
            if views:
                check_deal_start(start, ref.hands, 4)
                check_hhl_views(m, ref, [])
        else:
            assert "deal_over" not in kinds and start is None
            assert m.to_move == ref.turn
            if views:
                check_hhl_views(m, ref, events)
        assert m.view(None)["totals"] == totals
    assert m.over, "match did not end"
    check_replay(m)
    return m


def _move_dict(text):
    parts = text.split()
    d = {"play": canon(parts[0])}
    if len(parts) > 1:
        d["at"] = parts[1]
    if len(parts) > 2:
        d["mode"] = parts[2]
    return d


def check_hhl_views(m, ref, events):
    own = {s: set(ref.hands[s]) for s in range(4)}
    views = {s: m.view(s) for s in [None, 0, 1, 2, 3]}
    v = views[None]
    laid = laid_tiles(v, "hhl")
    assert sorted(laid) == sorted(ref.laid)
    assert v["stock"] == len(ref.stock)
    assert v["counts"] == [len(h) for h in ref.hands]
    every = [t for h in ref.hands for t in h] + ref.stock + laid
    assert sorted(every) == sorted(ALL_TILES), "the 28 tiles are not all accounted for"
    for s in range(4):
        vs = views[s]
        assert set(vs["hand"]) == own[s]
        assert sorted(vs["legal_moves"]) == sorted(ref.legal() if s == ref.turn else [])
        assert vs["turn"] == ref.turn
        # HHL-6: only the drawer is told which tile it drew and must play
        assert vs.get("drawn") == (ref.drawn if s == ref.turn else None)
    assert v.get("drawn") is None
    for arm, e in (ref.ends or {}).items():
        assert v["arms"][arm]["closed"] == (e is None)
        assert v["arms"][arm]["end"] == e
    check_views_hidden(views, own, laid)
    check_events_hidden(events, own, laid, 4)


def dead_stock_draws(m) -> int:
    """The hands of ``m`` that ended with a dead stock drawn (HHL-8 read literally): a
    draw, then four passes, the last turns of a blocked hand."""
    n = 0
    for d in m.record()["deals"]:
        turns = d["moves"]
        if (d.get("result", {}).get("end") == "blocked" and len(turns) >= 5
                and "draw" in turns[-5] and all("pass" in t for t in turns[-4:])):
            n += 1
    return n


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("block", range(4), ids=lambda b: f"seeds{b * 250}-{b * 250 + 249}")
def test_HHL_random_matches_agree_with_reference(block, profile):
    """1000 matches x 2 hands under each profile: legal moves, draws, passes, results and
    totals agree with the reference model at every step; points sum to 0; tiles
    accounted; records replay. By the letter, some hands end with the dead stock drawn."""
    dead = 0
    for seed in range(block * 250, (block + 1) * 250):
        m = run_hhl(seed, {"hands": 2, "profile": profile}, seed * 7 + 1, views=False)
        dead += dead_stock_draws(m)
    assert (dead > 0) == (profile == "literal")


@pytest.mark.parametrize("profile", PROFILES)
def test_HHL_random_matches_views_hide_every_hidden_tile(profile):
    """30 matches x 3 hands with every view (4 seats + spectator) and every event checked
    at every step, and every listed move tried on a copy for the first 8."""
    for seed in range(5000, 5030):
        run_hhl(seed, {"hands": 3, "profile": profile}, seed, try_all=seed < 5008)


@pytest.mark.parametrize("profile", PROFILES)
def test_HHL_10_random_time_limited_matches_end_after_the_hand_in_progress(profile):
    for seed in range(150):
        m = run_hhl(seed, {"profile": profile}, seed, views=False, time_up_at=30 + seed % 40)
        assert m.over
        assert m.options["minutes"] == 60 and m.options["hands"] is None


@settings(max_examples=100, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), chooser=st.integers(0, 2**32 - 1), hands=st.integers(1, 4),
       readings=st.fixed_dictionaries({}, optional={
           "profile": st.sampled_from(PROFILES), "dead_stock": st.sampled_from(["stop", "draw"])}))
def test_HHL_hypothesis_seeds_and_choices(seed, chooser, hands, readings):
    run_hhl(seed, {"hands": hands, **readings}, chooser, views=False)


# ----- Domeng ---------------------------------------------------------------------------
FIRST_LEADS = ("6-6", "5-5", "4-4", "3-3")


def run_domeng(seed, options, choose_seed, *, views=True, try_all=False, ledger_check=True,
               lookahead=False):
    m = new_match("domeng", options, seed=seed)
    rng = random.Random(choose_seed)
    opts = {"cycles": 1, "round_cap": 200, **options}
    stones = RefStones()
    camat = prev_winner = None
    cycles = []
    cycle_rounds = 0
    ledger = [25, [0] * 5]  # stones followed through the public events alone

    def new_round(first):
        rec = m.record()["deals"][-1]
        hands = rec["hands"]
        assert len(rec["sleeping"]) == 3 and all(len(h) == 5 for h in hands)  # DOM-1
        if first:  # DOM-2: that double, or by the letter (first_lead=any) any tile
            lead = next(d for d in FIRST_LEADS if any(d in h for h in hands))
            leader = next(s for s in range(5) if lead in hands[s])
            if m.options["first_lead"] == "any":
                lead = None
        else:  # DOM-3
            lead, leader = None, camat if camat is not None else prev_winner
        return RefDomengPosition(hands, rec["sleeping"], leader, lead, stones,
                                 paid_close=m.options["closing_pass"] == "paid")

    ref = new_round(True)
    assert m.to_move == ref.turn
    for _ in range(MAX_STEPS):
        if m.over:
            break
        seat = m.to_move
        legal = [str(x) for x in m.legal_moves(seat)]
        assert legal, "a seat is to move but has no legal move"
        assert set(legal) == ref.legal() and len(legal) == len(set(legal))
        for other in range(5):
            if other != seat:
                assert m.legal_moves(other) == []
        if try_all:
            check_listed_moves_accepted(m, seat, legal)
        mv = rng.choice(legal)
        outcomes = check_lookahead(m, lookahead_positions(m, ref), seat, mv, legal) if lookahead else []
        events = m.play(seat, mv)
        compare_lookahead(outcomes, events, m)
        if not m.over:
            check_engine_accounting(m)
        exp = ref.play(seat, mv)
        play_ev = events[0]
        assert play_ev.kind == "play" and play_ev.seat == seat and str(play_ev.move) == mv
        assert bool(play_ev.info and play_ev.info.get("mappakuling")) == exp[0]["mappakuling"]
        got_passes = [{**e.to_record(), **e.info} for e in events if e.kind == "pass"]
        assert got_passes == exp[1:]
        if ledger_check:
            apply_ledger(ledger, events, m)
        kinds = [e.kind for e in events]
        old, start = split_batch(events)
        if views:
            check_events_hidden(old, ref.hands, ref.line, 5)
        if ref.over:
            result = ref.settle()
            over = next(e for e in events if e.kind == "deal_over")
            assert over.info == result
            prev_winner = result["winner"]
            cycle_rounds += 1
            cycle = None
            if result["camat"] is not None:  # DOM-10
                camat = result["camat"]
                held = list(stones.held)
                rest = places(held, best_high=False)
                rest = [[s for s in g if s != camat] for g in rest]
                cycle = {"camat": camat, "held": held, "ranking": [[camat]] + [g for g in rest if g]}
            elif cycle_rounds >= opts["round_cap"]:  # DOM-11
                held = list(stones.held)
                cycle = {"camat": None, "held": held, "ranking": places(held, best_high=False)}
            if cycle is not None:
                cycle = {"cycle": len(cycles), **cycle, "rounds": cycle_rounds}
                cycles.append(cycle)
                got = next(e for e in events if e.kind == "cycle_over")
                assert got.info == cycle
                stones.table, stones.held = 25, [0] * 5
                cycle_rounds = 0
            else:
                assert "cycle_over" not in kinds
            if len(cycles) >= opts["cycles"]:
                titles = [sum(c["camat"] == s for c in cycles) for s in range(5)]
                totals = [sum(c["held"][s] for c in cycles) for s in range(5)]
                keys = [(-titles[s], totals[s]) for s in range(5)]
                ranking = [[s for s in range(5) if keys[s] == k] for k in sorted(set(keys))]
                assert m.over and kinds[-1] == "match_over"
                assert m.result == {"camat_titles": titles, "stones": totals,
                                    "ranking": ranking, "cycles": cycles}
                break
            assert kinds[-1] == "deal_start"
            ref = new_round(False)
            if views:
                check_deal_start(start, ref.hands, 5)
            assert events[-1].info == {"deal": len(m.deals) - 1, "leader": ref.turn,
                                       "cycle": len(cycles), "camat": camat}
        assert m.to_move == ref.turn
        v = m.view(None)
        assert v["table"] == stones.table and v["held"] == stones.held
        assert v["table"] + sum(v["held"]) == 25 and min(v["held"]) >= 0  # DOM-9
        if views:
            check_domeng_views(m, ref)
    assert m.over, "match did not end"
    check_replay(m)
    return m, cycles


def apply_ledger(ledger, events, m):
    """DOM-9 followed event by event: every payment moves stones that exist, from the
    table or a seat, and table + held stays 25 after each event. A cycle's end puts every
    stone back on the table, unless it ends the match: the final view shows the match as
    it ended."""
    for i, e in enumerate(events):
        moves = []
        if e.kind == "pass":
            moves = [(src, n, e.seat) for src, n in e.stones]
            assert sum(n for _, n, _ in moves) <= e.info["cost"]
        elif e.kind == "deal_over":
            moves = [(t["from"], t["count"], t["to"]) for t in e.info["transfers"]]
        elif e.kind == "cycle_over":
            assert ledger[0] + sum(ledger[1]) == 25
            if not (i + 1 < len(events) and events[i + 1].kind == "match_over"):
                ledger[0], ledger[1] = 25, [0] * 5
        for src, n, to in moves:
            assert n > 0
            if src == "table":
                assert ledger[0] >= n
                ledger[0] -= n
            else:
                assert ledger[1][src] >= n and src != to
                ledger[1][src] -= n
            ledger[1][to] += n
        assert ledger[0] + sum(ledger[1]) == 25 and ledger[0] >= 0 and min(ledger[1]) >= 0
        if e.kind == "deal_over":
            assert [e.info["table"], e.info["held"]] == ledger
    v = m.view(None)
    assert [v["table"], v["held"]] == ledger


def check_domeng_views(m, ref):
    own = {s: set(ref.hands[s]) for s in range(5)}
    views = {s: m.view(s) for s in [None, 0, 1, 2, 3, 4]}
    v = views[None]
    laid = laid_tiles(v, "domeng")
    assert sorted(laid) == sorted(ref.line)
    every = [t for h in ref.hands for t in h] + ref.sleeping + laid
    assert sorted(every) == sorted(ALL_TILES), "the 28 tiles are not all accounted for"
    assert v["counts"] == [len(h) for h in ref.hands]
    if ref.ends is not None:
        assert v["ends"] == {"left": ref.ends[0], "right": ref.ends[1]}
        line = v["line"]
        assert [line[0]["left"], line[-1]["right"]] == ref.ends
        for a, b in zip(line, line[1:], strict=False):
            assert a["right"] == b["left"]  # DOM-4: every joint matches
    for s in range(5):
        vs = views[s]
        assert set(vs["hand"]) == own[s]
        assert sorted(vs["legal_moves"]) == sorted(ref.legal() if s == ref.turn else [])
    check_views_hidden(views, own, laid)


def payment_shapes(m):
    seen = set()
    for e in m.events:
        if e.kind == "pass" and e.info["cost"]:
            if any(src != "table" for src, _ in e.stones):
                seen.add("paid by last mappano")
            if sum(n for _, n in e.stones) < e.info["cost"]:
                seen.add("waived")
        if e.kind == "deal_over":
            if e.info["camat"] is not None:
                seen.add("camat")
            if any(t["from"] != "table" for t in e.info["transfers"]):
                seen.add("settlement shortfall")
    return seen


def literal_shapes(m) -> set:
    """What the literal readings did in ``m``: a paid closing pass (DOM-8), a first lead
    that was not the double (DOM-2)."""
    seen = set()
    for d in m.record()["deals"]:
        r = d.get("result")
        if r and r["end"] == "blocked" and d["moves"][-1].get("stones"):
            seen.add("paid closing pass")
    first = m.record()["deals"][0]["moves"][0]["play"]
    if first not in FIRST_LEADS:
        seen.add("free first lead")
    return seen


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("block", range(4), ids=lambda b: f"seeds{b * 100}-{b * 100 + 99}")
def test_DOM_random_matches_agree_with_reference(block, profile):
    """400 one-cycle matches (about 3000 rounds) under each profile: legal moves, every
    pass and its stones, round results, CAMAT, cycle and match results agree with the
    reference model; the stones followed event by event always sum to 25 (DOM-9); records
    replay. The games reach the deep-cycle cases (pass paid by the LAST MAPPANO, waived
    shortfall, CAMAT), and by the letter the paid closing pass and the free first lead."""
    seen = set()
    for seed in range(block * 100, (block + 1) * 100):
        m, _ = run_domeng(seed, {"profile": profile}, seed * 13 + 5, views=False)
        seen |= payment_shapes(m) | literal_shapes(m)
    want = {"paid by last mappano", "waived", "camat", "settlement shortfall"}
    if profile == "literal":
        want |= {"paid closing pass", "free first lead"}
    assert seen == want


@pytest.mark.parametrize("profile", PROFILES)
def test_DOM_random_matches_views_hide_every_hidden_tile(profile):
    """8 one-cycle matches with every view (5 seats + spectator) and every event checked
    at every step, and every listed move tried on a copy for the first 5."""
    for seed in range(7000, 7008):
        run_domeng(seed, {"profile": profile}, seed, try_all=seed < 7005)


@pytest.mark.parametrize("profile", PROFILES)
def test_DOM_11_random_multi_cycle_and_capped_matches(profile):
    camats = capped = 0
    for seed in range(100):
        opts = {"cycles": 1 + seed % 3, "round_cap": 2 + seed % 9, "profile": profile}
        _, cycles = run_domeng(seed, opts, seed, views=False)
        camats += sum(c["camat"] is not None for c in cycles)
        capped += sum(c["camat"] is None for c in cycles)
    assert camats and capped  # both ways of ending a cycle were exercised


@settings(max_examples=80, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), chooser=st.integers(0, 2**32 - 1),
       cycles=st.integers(1, 3), cap=st.integers(1, 40),
       readings=st.fixed_dictionaries({}, optional={
           "profile": st.sampled_from(PROFILES), "closing_pass": st.sampled_from(["free", "paid"]),
           "first_lead": st.sampled_from(["double", "any"])}))
def test_DOM_hypothesis_seeds_and_choices(seed, chooser, cycles, cap, readings):
    run_domeng(seed, {"cycles": cycles, "round_cap": cap, **readings}, chooser, views=False)


@pytest.mark.parametrize("profile", PROFILES)
def test_HHL_lookahead_fork_and_from_view_follow_the_real_match(profile):
    for seed in range(300, 380):
        run_hhl(seed, {"hands": 2, "profile": profile}, seed, views=False, lookahead=True)


@pytest.mark.parametrize("profile", PROFILES)
def test_DOM_lookahead_fork_and_from_view_follow_the_real_match(profile):
    for seed in range(300, 325):
        run_domeng(seed, {"cycles": 1, "profile": profile}, seed, views=False, lookahead=True)
