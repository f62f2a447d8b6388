"""A match resumed at a deal's start (rules/resume.py) is the match replayed to there.

resume.py sets the Match classes' own fields; these tests play a resumed match and the
replayed one side by side, with the same moves, to their ends, for both games: the same
views for every seat and a spectator, the same legal moves, the same events, the same
result. A change of those fields in match.py, hhl.py or domeng.py fails here.
"""

import random

import pytest

from bots.arena import play_match
from bots.strategies import make_strategy
from engine_service import rules
from engine_service.rules import fork as forks
from engine_service.rules.resume import DEAL_CHARS, pack_deals, unpack_deal
from engine_service.rules.tiles import TILES

CASES = [("hhl", {"hands": 4}, 3), ("hhl", {"hands": 2, "minutes": 30}, 8),
         ("domeng", {"cycles": 2}, 5), ("domeng", {"cycles": 3, "round_cap": 3}, 6)]


def record_of(variant, options, seed):
    bots = [make_strategy("random", seed * 10 + s) for s in range(rules.NUM_SEATS[variant])]
    return play_match(variant, options, seed, bots).record()


def cut(record, deals):
    """The record of the same match stopped in deal `deals - 1` (no result): a fork of it
    deals the later deals from its own seed."""
    out = {k: v for k, v in record.items() if k != "result"}
    kept = [dict(d) for d in record["deals"][:deals]]
    last = {k: v for k, v in kept[-1].items() if k != "result"}
    plays = [i for i, e in enumerate(last["moves"]) if "play" in e]
    last["moves"] = last["moves"][:plays[len(plays) // 2]]
    out["deals"] = kept[:-1] + [last]
    return out


def play_side_by_side(a, b, rnd):
    while True:
        assert forks.same_position(a, b)
        assert a.legal_moves(a.to_move) == b.legal_moves(b.to_move)
        assert len(a.deals) == len(b.deals)
        if b.over:
            break
        move = rnd.choice(b.legal_moves(b.to_move))
        assert a.play(a.to_move, move) == b.play(b.to_move, move)
    assert a.result == b.result


@pytest.mark.parametrize("variant, options, seed", CASES)
@pytest.mark.parametrize("whole", [True, False], ids=["finished", "stopped"])
def test_a_resumed_fork_plays_on_as_the_replayed_one(variant, options, seed, whole):
    record = record_of(variant, options, seed)
    if not whole:
        record = cut(record, max(2, len(record["deals"]) // 2))
    fork0 = rules.fork_of(record, 0)
    last = fork0.last_at
    rnd = random.Random(seed)
    for at in sorted({0, 1, last, *rnd.sample(range(last + 1), 6)}):
        fork = rules.fork_of(record, at)
        start = rules.fork_start(fork, seed + 1)
        lean = start._replace(carry=start.carry and {k: v for k, v in start.carry.items()
                                                     if k != "rng"})
        for begun in (start, lean):     # the carried generator, and the one found again
            play_side_by_side(rules.resumed(fork.variant, fork.options, seed + 1, begun),
                              rules.new_fork(fork, seed + 1), random.Random(at))


def test_a_fork_starts_at_its_deal_with_that_deals_plays_only():
    record = record_of("hhl", {"hands": 4}, 3)
    per_deal = [sum("play" in e for e in d["moves"]) for d in record["deals"]]
    at = per_deal[0] + per_deal[1] + 2
    start = rules.fork_start(rules.fork_of(record, at), 11)
    assert start.deal == 2 and len(start.plays) == 2
    assert len(start.deals) == DEAL_CHARS * (len(record["deals"]) - 2)
    assert rules.fork_start(rules.fork_of(record, 0), 11).carry is None


def test_packed_deals_round_trip():
    rnd = random.Random(4)
    for _ in range(500):
        tiles = list(TILES)
        rnd.shuffle(tiles)
        deal = ([tiles[s * 5:(s + 1) * 5] for s in range(5)], tiles[25:])
        text = pack_deals([deal, deal])
        assert len(text) == 2 * DEAL_CHARS and '"' not in text and "\\" not in text
        assert unpack_deal(text, 1, 5, 5) == deal


def test_a_record_too_long_to_fork_is_refused_before_it_is_replayed():
    record = {"format": rules.RECORD_FORMAT, "variant": "hhl",
              "deals": [{"moves": [{"seat": 0, "play": "0-0"}]}] * (forks.MAX_FORK_DEALS + 1)}
    with pytest.raises(rules.MalformedInput, match="at most 1000 deals"):
        rules.fork_of(record, 0)
    record["deals"] = [{"moves": [{"seat": 0, "play": "0-0"}] * (forks.MAX_FORK_PLAYS + 1)}]
    with pytest.raises(rules.MalformedInput, match="at most 20000 plays"):
        rules.fork_of(record, 0)
