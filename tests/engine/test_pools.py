"""Bot pools: bots enlist with Hello.pool and the engine seats them in matches that need a
bot, several at once, one after another."""

import json
import queue

import grpc
import pytest

from bots.fleet import play_pool
from bots.play import play
from bots.strategies import make_strategy
from domino_proto.domino.v1 import common_pb2, engine_pb2, game_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from plumbing import inbox

from .support import refusal, run_threads


def pool_match(served, pools, seed, tokens_for=()):
    """An HHL one-hand match whose seats come from `pools` ("" = claimed with a token)."""
    created = served.stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}), seed=seed,
        bot_clock_ms=20_000, seats=[engine_pb2.SeatSpec(pool=p) for p in pools]), timeout=5)
    tokens = {s: served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
        match_id=created.match_id, seat=s), timeout=5).seat_token for s in tokens_for}
    return created.match_id, tokens


def test_pool_bots_are_seated_in_several_matches_at_once_and_one_after_another(served):
    secret = served.engine.pools.define("p")
    match_ids = [pool_match(served, ["p"] * 4, seed=s)[0] for s in range(3)]
    for match_id in match_ids:
        summary = served.summary(match_id).summary
        assert summary.status == common_pb2.MATCH_STATUS_WAITING      # no bot yet
        assert [s.pool for s in summary.seats] == ["p"] * 4
    batches = []
    results = {}

    def bot(b):
        def run():
            results[b] = play_pool(served.address, "p", f"bot{b}", matches=3, capacity=2,
                                   secret=secret,
                                   make_bot=lambda match_id, seat: make_strategy("random", b),
                                   on_message=lambda m: batches.append(m))
        return run

    run_threads([bot(b) for b in range(4)])
    finals = {m: game.match_result(served.summary(m).summary.result) for m in match_ids}
    for b in range(4):   # one seat per match each: every bot played all three
        assert sorted(map(json.dumps, results[b])) == sorted(map(json.dumps, finals.values()))
    for m in batches:
        if m.WhichOneof("body") == "events":
            assert m.events.match_id in match_ids
    assert served.engine.pools.waiting("p") == 0
    for match_id in match_ids:  # the record names the pool bot in each seat
        record = json.loads(served.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id),
                                                  timeout=5).record_json)
        assert sorted(record["seats"]) == [f"bot{b}" for b in range(4)]


def test_pool_seats_and_token_seats_mix_and_a_pool_seat_cannot_be_claimed(served):
    secret = served.engine.pools.define("p")
    match_id, tokens = pool_match(served, ["p", "", "p", ""], seed=9, tokens_for=[1, 3])
    with pytest.raises(grpc.RpcError) as info:
        served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=match_id, seat=0))
    code, r = refusal(info.value)
    assert (code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "POOL_SEAT")
    out = {}
    run_threads([
        *(lambda b=b: out.__setitem__(b, play_pool(served.address, "p", f"b{b}",
                                                   secret=secret))
          for b in range(2)),
        *(lambda s=s: out.__setitem__(s + 10, play(served.address, match_id, tokens[s]))
          for s in (1, 3)),
    ])
    result = game.match_result(served.summary(match_id).summary.result)
    assert out[0] == out[1] == [result] and out[11] == out[13] == result


def test_a_pool_hello_is_answered_only_when_the_bot_is_seated_with_keepalives_until_then(
        served, monkeypatch):
    """What docs/bots.md tells pool bots: no Welcome while no match needs a bot, only
    Keepalives (version 0); the Welcome comes with the first seat."""
    monkeypatch.setattr(inbox, "KEEPALIVE_S", 0.1)
    secret = served.engine.pools.define("p")
    outbox = queue.SimpleQueue()
    outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(pool=play_pb2.PoolEnlist(
        pool="p", name="waiting", secret=secret), skip_events=True)))
    stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None), timeout=30)
    kinds, match_id = [], None
    for message in stream:
        kinds.append(message.WhichOneof("body"))
        if kinds[-1] == "keepalive":
            assert message.keepalive.version == 0
            if kinds.count("keepalive") == 3:   # the bot has waited: now a match needs it
                match_id = pool_match(served, ["p"] * 4, seed=1)[0]
        elif kinds[-1] == "welcome":
            assert message.welcome.match_id == match_id
            break
    outbox.put(None)
    stream.cancel()
    assert match_id is not None and kinds[-1] == "welcome"
    assert set(kinds[:-1]) == {"keepalive"} and len(kinds) >= 4
