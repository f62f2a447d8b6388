"""Look-ahead positions: a view filled in with the true hidden tiles, then forked, plays
exactly like the live match. Search bots rely on this to play out guessed positions."""

import random

import pytest

from engine_service.rules import new_match
from engine_service.rules.domeng import DomengPosition
from engine_service.rules.hhl import HHLPosition
from engine_service.rules.tiles import tiles_of


@pytest.mark.parametrize("variant,cls", [("hhl", HHLPosition), ("domeng", DomengPosition)])
def test_position_from_view_with_true_tiles_plays_like_the_match(variant, cls):
    for seed in range(150):
        m = new_match(variant, {"hands": 3} if variant == "hhl" else {}, seed)
        rng = random.Random(seed)
        while not m.over:
            s, live = m.to_move, m.position
            hands = [tiles_of(h) for h in live.hands]
            rest = live.stock[live.stock_pos:] if variant == "hhl" else live.sleeping
            guess = cls.from_view(m.view(s), hands, rest)
            assert guess.legal_moves() == live.legal_moves()
            move = rng.choice(m.legal_moves(s))
            fork = guess.fork()
            fork.play(s, move)
            m.play(s, move)
            assert not guess.events, "a fork must not write into the position it came from"
            if live.over:
                assert fork.over and fork.end == live.end and fork.pips() == live.pips()
            else:
                assert (fork.hands, fork.ends, fork.turn) == (live.hands, live.ends, live.turn)
                if variant == "domeng":
                    assert (fork.stones.table, fork.stones.held) == (live.stones.table, live.stones.held)


def test_only_the_drawer_sees_the_tile_it_must_play():
    seen_private = 0
    for seed in range(200):
        m = new_match("hhl", {"hands": 1}, seed)
        rng = random.Random(seed)
        while not m.over:
            s = m.to_move
            if m.position.drawn is not None:
                assert m.view(s)["drawn"] == str(m.position.drawn)
                for other in [None, *(o for o in range(4) if o != s)]:
                    assert "drawn" not in m.view(other)
                seen_private += 1
            m.play(s, rng.choice(m.legal_moves(s)))
    assert seen_private > 50
