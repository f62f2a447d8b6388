"""The rules core's fast paths give exactly what the plain way gives.

* every deal's shuffle draws the same numbers as ``random.Random.shuffle``;
* the table-driven legal moves are those of a plain walk over the tiles, in its order;
* ``play`` of a move from the kept legal list (the fast path) leaves the same state and
  events as the checked way; the list is dropped by every change, and mutating the copy
  a caller got never lets an illegal move through.
"""

import copy
import random

import pytest

from engine_service.rules import IllegalMove, MalformedInput, new_match
from engine_service.rules.domeng import DomengPosition
from engine_service.rules.hhl import CLOSED
from engine_service.rules.match import shuffled_tiles
from engine_service.rules.moves import _MOVES, DOUBLE_PLACE, OPEN, PLACE
from engine_service.rules.tiles import FITS, IS_DOUBLE, TILES, tiles_of


def test_every_deal_is_shuffled_as_random_shuffle_would():
    for seed in range(2000):
        a, b = random.Random(seed), random.Random(seed)
        for _ in range(3):
            tiles = list(TILES)
            a.shuffle(tiles)
            assert shuffled_tiles(b) == tiles
        assert a.getstate() == b.getstate()


def plain_legal(p) -> list:
    """The legal moves by a walk over the tiles, as the rules core listed them before it
    had tables."""
    if p.over:
        return []
    if isinstance(p, DomengPosition):
        hand = p.hands[p.turn]
        if p.ends is None:
            return [OPEN[p.lead_tile]] if p.lead_tile is not None else [OPEN[t] for t in tiles_of(hand)]
        return [PLACE[t][i] for i in (0, 1) for t in tiles_of(hand & FITS[p.ends[i]])]
    if p.ends is None:
        return [OPEN[p.opening]]
    cand = p.hands[p.turn] if p.drawn is None else 1 << p.drawn
    out = []
    for i, v in enumerate(p.ends):
        if v != CLOSED:
            for t in tiles_of(cand & FITS[v]):
                out.extend(DOUBLE_PLACE[t][i] if IS_DOUBLE[t] else [PLACE[t][i]])
    return out


def state_of(p):
    keys = [k for k in type(p).__slots__ if k not in ("events", "_legal", "stones")]
    s = {k: copy.deepcopy(getattr(p, k)) for k in keys}
    if isinstance(p, DomengPosition):
        s["stones"] = (p.stones.table, list(p.stones.held))
    return s, [e.to_record() for e in p.events]


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_table_legal_moves_and_the_fast_path_match_the_plain_way(variant):
    seen = 0
    for seed in range(120):
        m = new_match(variant, {"hands": 2} if variant == "hhl" else {"round_cap": 3}, seed)
        rng = random.Random(seed)
        while not m.over:
            p, seat = m.position, m.to_move
            legal = m.legal_moves(seat)
            assert legal == plain_legal(p)
            assert p.legal_moves() == legal and p.legal_moves() is not p.legal_moves()
            for move in legal:
                fast, slow = p.fork(), p.fork()
                slow._legal = None  # no kept list: every check runs
                fast.play(seat, move)
                slow.play(seat, move)
                assert fast._legal is None  # a change drops the list
                assert state_of(fast) == state_of(slow)
                seen += 1
            m.play(seat, rng.choice(legal))
    assert seen > 2000


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_a_mutated_legal_list_lets_nothing_illegal_through(variant):
    m = new_match(variant, {"hands": 1} if variant == "hhl" else {"round_cap": 1}, 3)
    rng = random.Random(3)
    refused = 0
    while not m.over:
        seat = m.to_move
        legal = m.legal_moves(seat)
        kept = list(legal)
        illegal = [mv for mv in _MOVES.values() if mv not in kept]
        legal += illegal  # the caller's list is the caller's
        legal.clear()
        for mv in illegal[:20]:
            with pytest.raises((IllegalMove, MalformedInput)):
                copy.deepcopy(m).play(seat, mv)
            refused += 1
        assert m.legal_moves(seat) == kept
        m.play(seat, rng.choice(kept))
    assert refused > 50


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_shared_events_are_the_events_built_field_by_field(variant):
    """Plain plays, HHL passes and table-paid Domeng passes are built once and shared
    (events.plain_event): each is the very Event its fields make, so views, records and
    replays read them as before (tests/rules/test_records.py replays them too)."""
    from engine_service.rules import Event, replay_record

    shared = 0
    for seed in range(30):
        m = new_match(variant, {"hands": 2} if variant == "hhl" else {"round_cap": 4}, seed)
        rng = random.Random(seed)
        while not m.over:
            seat = m.to_move
            for e in m.play(seat, rng.choice(m.legal_moves(seat))):
                assert type(e) is Event
                assert e == Event(e.kind, e.seat, e.move, e.tiles, e.stones, e.info)
        again = replay_record(m.record())
        assert again.events == m.events
        ids = [id(e) for e in m.events]
        shared += len(ids) - len(set(ids))
    assert shared > 40  # the same play by the same seat, in another hand or match
