"""Safe on a network (docs/security.md): each finding a hostile client reproduced, as a test.

A real gRPC server on 127.0.0.1 in this process; each test sends what the hostile client
sent and checks the answer (INVALID_ARGUMENT naming the field, never UNKNOWN), that
nothing was stored, and that the engine goes on (its clocks run, its lobby lists).
"""

import json
import logging
import queue
import threading
import time

import grpc
import pytest

from domino_proto.domino.v1 import (
    common_pb2,
    engine_pb2,
    game_pb2,
    ladder_pb2,
    ladder_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from domino_wire import game
from engine_service.core import engine as engine_module
from engine_service.core.matches.referee import WAITING
from engine_service.rpc import play_session

from .support import refusal, wait_for

HHL = game_pb2.VARIANT_HHL


def refused(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return refusal(info.value)


def create(served, **fields):
    fields.setdefault("variant", HHL)
    return served.stub.CreateMatch(engine_pb2.CreateMatchRequest(**fields), timeout=5)


def malformed(served, field, **request):
    """CreateMatch(**request) is INVALID_ARGUMENT naming `field`, and stores nothing."""
    before = len(served.engine.store.unfinished())
    code, r = refused(lambda: create(served, **request))
    assert (code, r.reason, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                         field), r
    assert not r.HasField("version")       # a malformed request concerns no match
    assert len(served.engine.store.unfinished()) == before
    return r


def clocks_run(served):
    """A canary match whose seats nobody plays: its turn clock must move it."""
    match_id, _ = served.new_match("domeng", {}, seed=1, clock_ms=100)
    wait_for(lambda: served.summary(match_id).summary.version >= 2, timeout=10,
             what="the turn clock to play for an idle seat")


# ----- 1, 2, 5: numbers and texts out of bounds --------------------------------------------
def hhl_options(**options):
    return game_pb2.Options(hhl=game_pb2.HHLOptions(**options))


@pytest.mark.parametrize("options,field", [
    (hhl_options(minutes=1_000_000_000), "options.minutes"),                 # finding 1
    (hhl_options(minutes=0), "options.minutes"),
    (hhl_options(hands=2**31 - 1), "options.hands"),                         # finding 5
    (hhl_options(hands=0), "options.hands"),
    (hhl_options(hands=-3), "options.hands"),
    (game_pb2.Options(domeng=game_pb2.DomengOptions(cycles=1)), "options"),
])
def test_options_out_of_range_are_refused_naming_the_option_and_nothing_is_stored(
        served, options, field):
    r = malformed(served, field, options=options)
    assert len(r.message) < 300                              # the input is not echoed back
    clocks_run(served)


def tile(high, low):
    return game_pb2.Tile(high=high, low=low)


ALL = [tile(h, lo) for h in range(7) for lo in range(h + 1)]


def deal(hands, rest):
    return engine_pb2.Deal(hands=[engine_pb2.Hand(tiles=h) for h in hands], rest=rest)


@pytest.mark.parametrize("request_fields,field", [
    ({"bot_clock_ms": 2**62}, "bot_clock_ms"),                       # finding 1
    ({"bot_clock_ms": 50}, "bot_clock_ms"),
    ({"person_clock_ms": -1}, "person_clock_ms"),
    ({"person_clock_ms": 3_600_001}, "person_clock_ms"),
    ({"seed": -1}, "seed"),
    ({"variant": 0}, "variant"),
    ({"variant": 77}, "variant"),
    ({"seats": [engine_pb2.SeatSpec(kind=77)] * 4}, "seats[0].kind"),   # finding 6
    ({"seats": [engine_pb2.SeatSpec(name="n" * 1_000_000)] * 4}, "seats[0].name"),  # 5
    ({"seats": [engine_pb2.SeatSpec(name="bell\x07")] * 4}, "seats[0].name"),
    ({"seats": [engine_pb2.SeatSpec()] * 3}, "seats"),
    ({"seats": [engine_pb2.SeatSpec(pool="no-such-pool")] * 4}, "seats[0].pool"),
    ({"seats": [engine_pb2.SeatSpec(pool="ladder-abc/x")] * 4}, "seats[0].pool"),   # 7
    ({"seats": [engine_pb2.SeatSpec(pool="bad pool name")] * 4}, "seats[0].pool"),
    ({"deals": [engine_pb2.Deal()]}, "deals[0]"),
    ({"deals": [deal([ALL[:6]] * 4, ALL[:4])]}, "deals[0]"),              # tiles twice
    ({"deals": [deal([ALL[i:i + 6] for i in (0, 6, 12, 18)], [tile(9, 9)] * 4)]},
     "deals[0]"),
    ({"deals": [deal([ALL[:6]] * 4, ALL * 2)]}, "deals[0]"),           # too many tiles
    ({"deals": [engine_pb2.Deal()] * 1001}, "deals"),
])
def test_every_create_match_field_is_bounded(served, request_fields, field):
    malformed(served, field, options=game.options_pb("hhl", {"hands": 1}), **request_fields)


def test_the_lobby_cannot_be_poisoned(served):
    """Finding 5: after every refused CreateMatch above, ListMatches answers, and encodes."""
    for options in (hhl_options(hands=2**31 - 1), hhl_options(minutes=2**31 - 1)):
        refused(lambda o=options: create(served, options=o))
    refused(lambda: create(served, seats=[engine_pb2.SeatSpec(name="n" * 1_000_000)] * 4))
    served.new_match("hhl", {"hands": 1}, seed=3)
    listed = served.stub.ListMatches(engine_pb2.ListMatchesRequest(limit=1000), timeout=5)
    assert len(listed.matches) == 1 and listed.ByteSize() < 10_000
    code, r = refused(lambda: served.stub.ListMatches(engine_pb2.ListMatchesRequest(limit=5000),
                                                      timeout=5))
    assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "limit")
    code, r = refused(lambda: served.stub.ListMatches(engine_pb2.ListMatchesRequest(status=9),
                                                      timeout=5))
    assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "status")


def test_a_huge_match_id_is_a_malformed_request_not_resource_exhausted(served):
    """Finding 6: an 8 KB match id was echoed into the trailers (RESOURCE_EXHAUSTED)."""
    huge = "m" * 8192
    for call in (lambda: served.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=huge), timeout=5),
                 lambda: served.view(huge, "t"),
                 lambda: served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=huge),
                                               timeout=5),
                 lambda: served.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=huge),
                                               timeout=5)):
        code, r = refused(call)
        assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "match_id")
    code, r = refused(lambda: served.stub.GetMatch(engine_pb2.GetMatchRequest(match_id="m" * 60),
                                                   timeout=5))
    assert code == grpc.StatusCode.NOT_FOUND and len(r.message) < 200


def test_bytes_that_are_no_message_are_invalid_argument_not_unknown(served):
    """A client in any language can send a string field that is not UTF-8, or garbage."""
    for method in ("GetMatch", "GetView", "CreateMatch", "SubmitMove"):
        call = served.channel.unary_unary(f"/domino.v1.Engine/{method}",
                                          request_serializer=lambda b: b,
                                          response_deserializer=lambda b: b)
        for raw in (b"\x0a\x02\xff\xfe", b"\xff\xff\xff"):
            with pytest.raises(grpc.RpcError) as info:
                call(raw, timeout=5)
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, method


# ----- 3: the seed ----------------------------------------------------------------------
def test_the_seed_is_secret_until_the_match_is_over(served, caplog):
    assert "seed" not in engine_pb2.CreateMatchResponse.DESCRIPTOR.fields_by_name
    seed = 918_273_645_546_372
    with caplog.at_level(logging.DEBUG):
        match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=seed)
        referee = served.engine.get(match_id)
        while not referee.match.over:
            seat = referee.match.to_move
            view = served.view(match_id, tokens[seat])
            assert str(seed) not in str(view)
            served.submit(match_id, tokens[seat], view.version, move_id="0")
    assert str(seed) not in caplog.text
    assert str(seed) not in str(served.summary(match_id))
    record = json.loads(served.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id),
                                              timeout=5).record_json)
    assert record["seed"] == seed          # over: the record tells it


# ----- 6, 10: moves that are not moves ------------------------------------------------------
@pytest.fixture
def hhl(served):
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=3, clock_ms=60_000)
    seat = served.summary(match_id).summary.to_move
    return served, match_id, tokens, seat


@pytest.mark.parametrize("move,reason,field", [
    ({"move_id": "²"}, "UNKNOWN_MOVE_ID", "move_id"),           # isdigit() but no int()
    ({"move_id": "٣"}, "UNKNOWN_MOVE_ID", "move_id"),
    ({"move_id": "9" * 400}, "UNKNOWN_MOVE_ID", "move_id"),
    ({"move_text": "6-6" * 1000}, "MALFORMED_MOVE", "move_text"),
    ({"move_text": "\x00"}, "MALFORMED_MOVE", "move_text"),
])
def test_malformed_moves_are_invalid_argument(hhl, move, reason, field):
    served, match_id, tokens, seat = hhl
    code, r = refused(lambda: served.submit(match_id, tokens[seat], 0, **move))
    assert (code, r.reason, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, reason, field)
    assert r.legal_moves and len(r.message) < 200
    assert served.summary(match_id).summary.version == 0


def play_stream(served, hello):
    """A Play stream: (put, messages) — put(BotMessage) sends, messages() yields answers."""
    outbox = queue.SimpleQueue()
    outbox.put(play_pb2.BotMessage(hello=hello))
    stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None), timeout=30)
    return outbox, stream


def test_a_bad_move_id_on_a_play_stream_is_refused_and_the_stream_reads_on(hhl):
    """Finding 6: the stream's reader task died on "²" and the seat's next move was lost."""
    served, match_id, tokens, seat = hhl
    outbox, stream = play_stream(served, play_pb2.Hello(seat=play_pb2.SeatAuth(
        match_id=match_id, seat_token=tokens[seat])))
    turns, answers = 0, []
    for message in stream:
        kind = message.WhichOneof("body")
        if kind == "turn":
            turns += 1
            if turns == 1:
                outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(version=0, move_id="²")))
            else:
                outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(version=0, move_id="0")))
        elif kind == "answer":
            answers.append(message.answer)
            if message.answer.accepted:
                break
    outbox.put(None)
    assert [a.accepted for a in answers] == [False, True]
    assert answers[0].refusal.reason == "UNKNOWN_MOVE_ID" and turns == 2
    assert served.summary(match_id).summary.version >= 1


def test_a_wrong_match_id_on_a_seat_stream_gets_its_turn_again(hhl):
    """Finding 10: refused, but no TurnRequest followed, so the seat timed out."""
    served, match_id, tokens, seat = hhl
    outbox, stream = play_stream(served, play_pb2.Hello(seat=play_pb2.SeatAuth(
        match_id=match_id, seat_token=tokens[seat])))
    seen = []
    for message in stream:
        kind = message.WhichOneof("body")
        seen.append(kind)
        if kind == "turn" and seen.count("turn") == 1:
            outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                match_id="not-this-one", version=0, move_id="0")))
        elif kind == "turn":
            break
        elif kind == "answer":
            assert message.answer.refusal.reason == "UNKNOWN_MATCH"
    outbox.put(None)
    assert seen[-3:] == ["turn", "answer", "turn"]


# ----- 7: pools ---------------------------------------------------------------------------
def pool_hello(pool, name="b", secret=""):
    return play_pb2.Hello(pool=play_pb2.PoolEnlist(pool=pool, name=name, secret=secret))


def hello_refused(served, hello):
    outbox, stream = play_stream(served, hello)
    with pytest.raises(grpc.RpcError) as info:
        list(stream)
    outbox.put(None)
    return refusal(info.value)


def test_a_pool_hello_needs_the_pools_secret(served):
    secret = served.engine.pools.define("house-greedy")
    for hello in (pool_hello("house-greedy"), pool_hello("house-greedy", secret="guess"),
                  pool_hello("no-such-pool", secret=secret)):
        code, r = hello_refused(served, hello)
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_POOL_SECRET")
    assert secret not in served.engine.store.pool_hash("house-greedy")   # only a hash kept


def test_a_ladder_entrants_seats_are_only_for_its_own_secret(served):
    stub = ladder_pb2_grpc.LadderStub(served.channel)
    created = stub.CreateLadder(ladder_pb2.CreateLadderRequest(
        variant=HHL, entrants=["alice", "bob"], matches=1, options=game.options_pb("hhl", {"hands": 1})),
        timeout=5)
    key, secrets = created.ladder.key, {p.entrant: p.enlist_secret for p in created.pools}
    # Pool names are public (GET /ladders); bob's secret does not open alice's seats.
    code, r = hello_refused(served, pool_hello(key, "alice", secrets["bob"]))
    assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_POOL_SECRET")
    code, r = hello_refused(served, pool_hello(key, "alice"))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    info = stub.GetLadder(ladder_pb2.GetLadderRequest(ladder_id=created.ladder.ladder_id),
                          timeout=5)
    assert not info.HasField("seed")                 # secret while the ladder runs
    stub.CancelLadder(ladder_pb2.GetLadderRequest(ladder_id=created.ladder.ladder_id), timeout=5)


@pytest.mark.parametrize("hello,field", [
    (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="p" * 200)), "hello.pool.pool"),
    (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="a b")), "hello.pool.pool"),
    (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="p", name="n" * 41)), "hello.pool.name"),
    (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="p", capacity=10_000)), "hello.pool.capacity"),
    (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="p", capacity=-1)), "hello.pool.capacity"),
    (play_pb2.Hello(client="c" * 300, seat=play_pb2.SeatAuth(match_id="m")), "hello.client"),
    (play_pb2.Hello(seat=play_pb2.SeatAuth(match_id="m" * 100)), "match_id"),
    (play_pb2.Hello(seat=play_pb2.SeatAuth(match_id="m", seat_token="t" * 200)), "seat_token"),
])
def test_every_hello_field_is_bounded(served, hello, field):
    code, r = hello_refused(served, hello)
    assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, field)


# ----- 8: streams and spam -------------------------------------------------------------
def test_a_stream_that_sends_no_hello_is_closed(served, monkeypatch):
    monkeypatch.setattr(play_session, "HELLO_TIMEOUT_S", 0.3)
    outbox = queue.SimpleQueue()     # nothing is ever put: no Hello
    stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None), timeout=30)
    with pytest.raises(grpc.RpcError) as info:
        list(stream)
    outbox.put(None)
    code, r = refusal(info.value)
    # Ended by the engine's Hello timeout (0.3 s), not by the call's own deadline (30 s),
    # which would carry no refusal.
    assert (code, r.reason) == (grpc.StatusCode.DEADLINE_EXCEEDED, "HELLO_TIMEOUT")


def test_a_bot_spamming_refused_moves_is_charged_slowed_and_not_asked_again(hhl, monkeypatch):
    monkeypatch.setattr(play_session, "REFUSALS_PER_S", 5.0)    # a token every 0.2 s
    served, match_id, tokens, seat = hhl
    outbox, stream = play_stream(served, play_pb2.Hello(seat=play_pb2.SeatAuth(
        match_id=match_id, seat_token=tokens[seat])))
    turns, refusals, stamps = 0, 0, []
    bad = play_pb2.BotMessage(move=play_pb2.MoveChoice(version=0, move_text="banana"))
    reader_done = threading.Event()

    def read():
        nonlocal turns, refusals
        for message in stream:
            kind = message.WhichOneof("body")
            if kind == "turn":
                turns += 1
                outbox.put(bad)       # answer every TurnRequest with garbage, at once
            elif kind == "answer":
                refusals += 1
                stamps.append(time.monotonic())
                if refusals == play_session.SPAM_AFTER:
                    for _ in range(3):
                        outbox.put(bad)     # three more, unasked
                if refusals == play_session.SPAM_AFTER + 3:
                    break
        reader_done.set()

    threading.Thread(target=read, daemon=True).start()
    assert reader_done.wait(20)
    outbox.put(None)
    assert turns == play_session.SPAM_AFTER        # not asked again after the 4th refusal
    late = stamps[play_session.REFUSALS_BURST:]    # once the burst of refusals is spent
    assert all(b - a >= 0.15 for a, b in zip(late, late[1:], strict=False))   # slowed
    referee = served.engine.get(match_id)
    assert referee.faults[seat]["spam"] == 1
    assert referee.faults[seat]["illegal"] == play_session.SPAM_AFTER + 3
    assert referee.version == 0                  # nothing was played by the spam


# ----- 4: unbounded work and memory ---------------------------------------------------
def test_ladders_are_bounded_and_cancelled_by_their_creator(served):
    stub = ladder_pb2_grpc.LadderStub(served.channel)
    for fields, field in ((dict(matches=100_000), "matches"), (dict(concurrency=64), "concurrency"),
                          (dict(max_matches=20_000, until_separated=True), "max_matches"),
                          (dict(seat_wait_s=86_400), "seat_wait_s"),
                          (dict(entrants=[f"e{i}" for i in range(17)]), "entrants"),
                          (dict(format=9), "format")):
        request = {"variant": HHL, "entrants": ["ghost1", "ghost2"], "matches": 2, **fields}
        code, r = refused(lambda q=request: stub.CreateLadder(
            ladder_pb2.CreateLadderRequest(**q), timeout=5))
        assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, field)
    big = stub.CreateLadder(ladder_pb2.CreateLadderRequest(
        variant=HHL, entrants=["ghost1", "ghost2"], matches=10_000, concurrency=2,
        seed=2**63 - 1, options=game.options_pb("hhl", {"hands": 1})), timeout=5).ladder
    wait_for(lambda: served.engine.ladders.get(big.ladder_id).playing, what="its first matches")
    for referee_id in served.engine.ladders.get(big.ladder_id).playing:
        assert 0 <= served.engine.get(referee_id).row.seed < 2**63   # derived seeds stay in range
    done = stub.CancelLadder(ladder_pb2.GetLadderRequest(ladder_id=big.ladder_id), timeout=5)
    assert done.status == ladder_pb2.LADDER_STATUS_CANCELLED and done.seed == 2**63 - 1
    code, r = refused(lambda: stub.CancelLadder(ladder_pb2.GetLadderRequest(
        ladder_id=big.ladder_id), timeout=5))
    assert (code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "LADDER_OVER")
    d = served.engine.ladders.get(big.ladder_id)
    d._thread.join(5)
    assert not d.playing and not d._thread.is_alive()      # nothing more is scheduled


def test_a_ladder_cancelled_while_its_matches_wait_for_entrants_ends_them_by_the_clock(served):
    # No entrant ever enlists and the seat wait is long: the matches wait, uncounted, when the
    # ladder is cancelled; nothing watches them after that, so the engine plays them out
    # (a duplicate set's deal stays hidden until they end).
    engine = served.engine
    d, _ = engine.ladders.create({
        "variant": "hhl", "entrants": ["ghost1", "ghost2"], "matches": 4, "concurrency": 2,
        "options": {"hands": 1}, "clock_ms": 100, "seat_wait_s": 600})
    wait_for(lambda: len(d.playing) == 2, what="its first matches")
    ids = list(d.playing)
    assert {engine.get(i).status for i in ids} == {WAITING}
    d.cancel(engine.keys.principal(""))
    wait_for(lambda: all(engine.get(i).match.over for i in ids), timeout=120,
             what="the waiting matches to be played out")
    assert all(m["status"] == "voided" for m in d.matches() if m["match_id"] in ids)


def test_matches_are_capped_per_principal_and_for_the_engine(served):
    from engine_service.core.errors import EngineError
    from engine_service.core.security.keys import Principal, Quotas

    engine = served.engine
    tight = Principal("tight", Quotas(live_matches=2, matches_per_minute=3))
    for _ in range(2):
        engine.create_match("hhl", {"hands": 1}, principal=tight)
    with pytest.raises(EngineError) as info:
        engine.create_match("hhl", {"hands": 1}, principal=tight)
    assert info.value.reason == "QUOTA_EXCEEDED" and info.value.code == "RESOURCE_EXHAUSTED"
    hasty = Principal("hasty", Quotas(live_matches=100, matches_per_minute=3))
    for _ in range(3):
        engine.create_match("hhl", {"hands": 1}, principal=hasty)
    with pytest.raises(EngineError) as info:
        engine.create_match("hhl", {"hands": 1}, principal=hasty)
    assert "last minute" in info.value.message
    engine.max_live = len(engine._referees)
    code, r = refused(lambda: create(served, options=game.options_pb("hhl", {"hands": 1})))
    assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "ENGINE_FULL")


def test_a_finished_match_leaves_memory_and_is_served_from_the_store(served, monkeypatch):
    monkeypatch.setattr(engine_module, "FINISHED_KEPT", 2)
    engine = served.engine
    ids = []
    for seed in range(5):
        match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=seed)
        referee = engine.get(match_id)
        while not referee.match.over:
            referee.submit(referee.match.to_move, referee.version, move_id="0")
        ids.append(match_id)
    assert not engine._referees and list(engine._finished) == ids[-2:]
    listed = served.stub.ListMatches(engine_pb2.ListMatchesRequest(), timeout=5).matches
    assert [m.match_id for m in listed] == ids[::-1]
    assert all(m.status == common_pb2.MATCH_STATUS_OVER and m.version > 0 for m in listed)
    old = served.summary(ids[0])                 # replayed from the store on demand
    assert old.summary.status == common_pb2.MATCH_STATUS_OVER
    assert old.summary.version == listed[-1].version
    assert len(engine._finished) == 2
