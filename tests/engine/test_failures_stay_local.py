"""No thread or task dies silently (docs/security.md): a failure injected into the turn
clock, a Play stream's reader, a ladder director and the pool dispatcher is logged with
its match or ladder, fails only that one, and every other match goes on."""

import logging
import queue

from domino_proto.domino.v1 import game_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from engine_service.core.ladders import director as ladder_director
from engine_service.core.matches.referee import RETRY_S

from .support import clock_plays_for, wait_for


def test_a_failing_turn_clock_callback_holds_up_only_its_match_and_is_retried(
        served_manual, caplog, monkeypatch):
    served = served_manual
    broken_id, _ = served.new_match("hhl", {"hands": 1}, seed=1, clock_ms=100)
    other_id, _ = served.new_match("hhl", {"hands": 1}, seed=2, clock_ms=100)
    broken, other = served.engine.get(broken_id), served.engine.get(other_id)
    play_for, failures = broken._play_for, []

    def fails_once(seat, version):
        if not failures:
            failures.append(version)
            raise RuntimeError("injected: the store went away")
        return play_for(seat, version)

    monkeypatch.setattr(broken, "_play_for", fails_once)
    with caplog.at_level(logging.ERROR):
        served.alarms.advance(0.1)          # both clocks run out; one callback fails
    assert failures == [0] and broken.version == 0
    assert other.version == 1              # the other match went on
    assert f"match {broken_id}" in caplog.text and "injected" in caplog.text
    served.alarms.advance(RETRY_S)          # and the failed one is tried again
    assert broken.version == 1
    clock_plays_for(served, other_id, other.match.to_move)   # the clock thread lives on


def test_a_failing_move_on_one_stream_is_refused_and_both_streams_go_on(served, caplog,
                                                                        monkeypatch):
    a_id, a_tokens = served.new_match("hhl", {"hands": 1}, seed=3, clock_ms=60_000)
    b_id, b_tokens = served.new_match("hhl", {"hands": 1}, seed=4, clock_ms=60_000)
    a, b = served.engine.get(a_id), served.engine.get(b_id)
    submit, calls = a.submit, []

    def fails_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("injected bug")
        return submit(*args, **kwargs)

    monkeypatch.setattr(a, "submit", fails_once)

    def stream(match_id, token):
        outbox = queue.SimpleQueue()
        outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(seat=play_pb2.SeatAuth(
            match_id=match_id, seat_token=token), skip_events=True)))
        return outbox, play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None),
                                                                       timeout=20)

    answers = []
    with caplog.at_level(logging.ERROR):
        for referee, tokens in ((a, a_tokens), (b, b_tokens)):
            outbox, messages = stream(referee.id, tokens[referee.match.to_move])
            for message in messages:
                kind = message.WhichOneof("body")
                if kind == "turn":
                    outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                        version=message.turn.state.version, move_id="0")))
                elif kind == "answer":
                    answers.append((referee.id, message.answer.accepted,
                                    message.answer.refusal.reason))
                    if message.answer.accepted:
                        break
                elif referee.version >= 1:
                    break
            outbox.put(None)
    # a: the injected failure is refused as INTERNAL, the bot is asked again, its retry stands
    assert answers[0] == (a_id, False, "INTERNAL")
    assert a.version >= 1 and b.version >= 1
    assert f"match {a_id}" in caplog.text and "injected bug" in caplog.text


def test_a_failing_ladder_director_fails_its_ladder_only(served, caplog, monkeypatch):
    monkeypatch.setattr(ladder_director, "POLL_S", 0.02)
    spec = {"variant": "hhl", "entrants": ["x", "y"], "matches": 2, "options": {"hands": 1}}
    broken, _ = served.engine.ladders.create(dict(spec))
    other, _ = served.engine.ladders.create(dict(spec))

    def step():
        raise RuntimeError("injected director bug")

    monkeypatch.setattr(broken, "_step", step)
    with caplog.at_level(logging.ERROR):
        wait_for(lambda: broken.status == ladder_director.FAILED, what="the ladder to fail")
    assert "injected director bug" in broken.error
    assert f"ladder {broken.id}" in caplog.text
    assert other.status == ladder_director.RUNNING and other._thread.is_alive()
    assert broken.info()["seed"] is not None      # over: its seed may be told now


def test_a_match_that_cannot_be_seated_does_not_stop_the_pool(served, caplog, monkeypatch):
    secret = served.engine.pools.define("p")
    from domino_proto.domino.v1 import engine_pb2

    def pool_match(seed):
        created = served.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}), seed=seed,
            seats=[engine_pb2.SeatSpec(pool="p")] + [engine_pb2.SeatSpec()] * 3), timeout=5)
        return served.engine.get(created.match_id)

    broken, fine = pool_match(1), pool_match(2)

    def claim(*args, **kwargs):
        raise RuntimeError("injected: cannot claim")

    monkeypatch.setattr(broken, "claim", claim)
    outbox = queue.SimpleQueue()
    outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(pool=play_pb2.PoolEnlist(
        pool="p", name="bot", capacity=4, secret=secret))))
    stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None), timeout=20)
    welcomed = []
    with caplog.at_level(logging.ERROR):
        for message in stream:
            if message.WhichOneof("body") == "welcome":
                welcomed.append(message.welcome.match_id)
                break
    outbox.put(None)
    assert welcomed == [fine.id]
    assert f"match {broken.id}" in caplog.text and "injected" in caplog.text
