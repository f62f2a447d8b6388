"""Turn clocks: a hung, a disconnecting and a garbage-sending bot never stall a match.

The engine runs on a manual clock (plumbing.alarms.ManualAlarms): a turn
clock runs out only when a test moves the clock, so nothing here sleeps, and every
timeout falls exactly where the test says.
"""

import queue
import threading

import grpc
import pytest

from bots.play import play
from bots.strategy_adapter import FirstLegal
from domino_proto.domino.v1 import engine_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from engine_service.core.errors import EngineError, Reason

from .support import clock_plays_for, run_threads, wait_for

CLOCK_MS = 150
first_legal = FirstLegal()


def watch_events(served, match_id, into, ready=None):
    """A spectator collecting every event; `ready` is set once it is subscribed."""
    def run():
        for message in served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id),
                                         timeout=60):
            if message.WhichOneof("body") == "snapshot" and ready is not None:
                ready.set()
            if message.WhichOneof("body") == "events":
                into.extend(game.event(e) for e in message.events.events)
    return run


def bots(served, match_id, tokens, seats):
    return [lambda s=s: play(served.address, match_id, tokens[s], first_legal) for s in seats]


def test_a_hung_seat_times_out_three_times_then_is_played_at_once(served_manual):
    served = served_manual
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=2, clock_ms=CLOCK_MS)
    referee = served.engine.get(match_id)
    seen, clocks, watching = [], [], threading.Event()

    def hung_seat_0():
        # Seat 0 never connects: each time it is its turn, its clock runs out.
        assert watching.wait(30)
        while not referee.match.over and not referee.seats[0].absent:
            clock_plays_for(served, match_id, 0)
            clocks.append(referee.version)

    run_threads([watch_events(served, match_id, seen, watching), hung_seat_0,
                 *bots(served, match_id, tokens, [1, 2, 3])])
    timeouts = [e for e in seen if e["kind"] == "timeout"]
    assert [e["seat"] for e in timeouts] == [0, 0, 0]
    assert [e["timeouts_in_a_row"] for e in timeouts] == [1, 2, 3]
    assert [e for e in seen if e["kind"] == "absent"] == [{"kind": "absent", "seat": 0}]
    assert seen[-1]["kind"] == "match_over"
    assert len(clocks) == 3          # three clocks, not one per remaining turn of seat 0
    summary = served.summary(match_id).summary
    assert summary.seats[0].absent and summary.status == 3


def test_the_default_move_is_the_first_legal_move_and_an_absent_holder_can_return(served_manual):
    served = served_manual
    match_id, tokens = served.new_match("domeng", {}, seed=4, clock_ms=CLOCK_MS)
    referee = served.engine.get(match_id)
    mover = referee.match.to_move
    first = served.view(match_id, tokens[mover]).legal_moves[0].text
    clock_plays_for(served, match_id, mover)
    # Nobody played: the clock played the first legal move and said so.
    turn = referee.history[0]
    assert (turn.seat, turn.move_text) == (mover, first)
    assert turn.accepted.events[0].to_dict() == {"kind": "timeout", "seat": mover,
                                                 "move": first, "timeouts_in_a_row": 1}
    # Nobody plays: the mover goes absent first; its holder comes back while the match
    # is live, and then it has three fresh timeouts before it is absent again.
    seen, watching = [], threading.Event()
    watcher = threading.Thread(target=watch_events(served, match_id, seen, watching),
                               daemon=True)
    watcher.start()
    assert watching.wait(30)
    while not referee.seats[mover].absent:
        clock_plays_for(served, match_id, referee.match.to_move)
    served.view(match_id, tokens[mover])          # the holder comes back with its token
    while not referee.match.over:
        clock_plays_for(served, match_id, referee.match.to_move)
    watcher.join(30)
    assert served.summary(match_id).summary.status == 3
    mine = [(e["kind"], e.get("timeouts_in_a_row")) for e in seen
            if e.get("seat") == mover and e["kind"] in ("timeout", "absent", "returned")]
    back = mine.index(("returned", None))
    assert mine[back - 1] == ("absent", None)
    assert mine[back + 1:back + 5] == [("timeout", 1), ("timeout", 2), ("timeout", 3),
                                       ("absent", None)]


def test_a_bot_that_disconnects_and_comes_back_gets_a_snapshot_and_its_turn(served_manual):
    served = served_manual     # the clock never runs out here: no seat is played for
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=6, clock_ms=5_000)
    seat = served.summary(match_id).summary.to_move
    answered = []

    def flaky():
        # First connection: take one turn, then drop the stream without answering.
        outbox = queue.SimpleQueue()
        outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(
            seat=play_pb2.SeatAuth(match_id=match_id, seat_token=tokens[seat]))))
        stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None))
        kinds = []
        for message in stream:
            kinds.append(message.WhichOneof("body"))
            if kinds[-1] == "turn":
                break
        stream.cancel()
        answered.append(kinds)
        # Second connection: the runner finishes the match from a fresh snapshot.
        answered.append(play(served.address, match_id, tokens[seat], first_legal))

    others = [s for s in range(4) if s != seat]
    run_threads([flaky, *bots(served, match_id, tokens, others)])
    assert answered[0][:3] == ["welcome", "snapshot", "turn"]
    assert answered[1] == served.engine.get(match_id).match.result
    summary = served.summary(match_id).summary
    assert not any(s.absent or s.timeouts_in_a_row for s in summary.seats)


def test_a_bot_sending_garbage_is_refused_each_time_and_the_clock_plays_for_it(served_manual):
    served = served_manual
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=8, clock_ms=CLOCK_MS)
    referee = served.engine.get(match_id)
    refusals = []           # (version, reason)
    done = threading.Event()

    def garbage():
        outbox = queue.SimpleQueue()
        outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(
            seat=play_pb2.SeatAuth(match_id=match_id, seat_token=tokens[0]))))
        stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None),
                                                                timeout=30)
        answered = set()
        for message in stream:
            kind = message.WhichOneof("body")
            if kind == "turn" and message.turn.state.version not in answered:
                version = message.turn.state.version
                answered.add(version)     # garbage once per turn; the refusals re-ask it
                for bad in (play_pb2.MoveChoice(match_id=match_id, version=version,
                                                move_text="banana"),
                            play_pb2.MoveChoice(match_id=match_id, version=version + 7,
                                                move_id="0"),
                            play_pb2.MoveChoice(match_id=match_id, version=version,
                                                move_id="x")):
                    outbox.put(play_pb2.BotMessage(move=bad))
            elif kind == "answer":
                refusals.append((message.answer.submitted_version,
                                 message.answer.refusal.reason))
            elif kind == "match_over":
                done.set()
        outbox.put(None)

    def its_clock():
        while not referee.match.over and not referee.seats[0].absent:
            wait_for(lambda: referee.match.over or sum(
                v == referee.version for v, _ in refusals) >= 2, what="the garbage")
            clock_plays_for(served, match_id, 0)

    run_threads([garbage, its_clock, *bots(served, match_id, tokens, [1, 2, 3])])
    assert done.is_set()
    assert {"MALFORMED_MOVE", "STALE_VERSION", "UNKNOWN_MOVE_ID"} <= {r for _, r in refusals}
    assert served.summary(match_id).summary.status == 3


def test_a_bad_hello_ends_the_stream_with_its_code(served):
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=1, clock_ms=60_000)
    stub = play_pb2_grpc.PlayStub(served.channel)
    cases = [
        (play_pb2.Hello(seat=play_pb2.SeatAuth(match_id=match_id, seat_token="bad")),
         grpc.StatusCode.UNAUTHENTICATED),
        (play_pb2.Hello(seat=play_pb2.SeatAuth(match_id="nope", seat_token=tokens[0])),
         grpc.StatusCode.NOT_FOUND),
        (play_pb2.Hello(pool=play_pb2.PoolEnlist(pool="", name="n")),
         grpc.StatusCode.INVALID_ARGUMENT),
        (play_pb2.Hello(), grpc.StatusCode.INVALID_ARGUMENT),
    ]
    for hello, code in cases:
        stream = stub.Connect(iter([play_pb2.BotMessage(hello=hello)]), timeout=10)
        try:
            list(stream)
            raise AssertionError("the stream should have been refused")
        except grpc.RpcError as e:
            assert e.code() == code


def test_an_abandoned_match_is_played_at_the_pace_of_its_clocks_not_at_once(served_manual):
    """Every seat absent: playing them at once would spin through an hour-long HHL match
    (hand after hand until its time limit) inside one clock callback, holding the match's
    lock and the one clock thread."""
    served = served_manual
    match_id, _ = served.new_match("hhl", {}, seed=5, clock_ms=CLOCK_MS)   # 60 minutes
    referee = served.engine.get(match_id)
    while not all(s.absent for s in referee.seats):
        clock_plays_for(served, match_id, referee.match.to_move)
    for _ in range(5):                       # now one move per turn clock, no more
        version = referee.version
        served.alarms.advance(CLOCK_MS / 1000)
        assert referee.version == version + 1
    assert not referee.match.over
    kinds = [e.kind for t in referee.history for e in t.accepted.events]
    assert kinds.count("absent") == 4        # said once per seat


def test_a_late_answer_to_a_turn_the_clock_played_is_charged_once_as_its_timeout(served_manual):
    served = served_manual
    match_id, _ = served.new_match("hhl", {"hands": 1}, seed=2, clock_ms=CLOCK_MS)
    referee = served.engine.get(match_id)
    wait_for(lambda: referee.seat_view(referee.match.to_move).deadline > 0,
             what="the first turn's clock armed")
    seat, version = referee.match.to_move, referee.version
    clock_plays_for(served, match_id, seat)
    assert referee.seats[seat].timeouts_in_a_row == 1
    # The answer the bot sent too late: refused, and not charged again as illegal.
    with pytest.raises(EngineError) as late:
        referee.submit(seat, version, move_id="0")
    assert late.value.reason == Reason.STALE_VERSION
    assert referee.faults[seat]["illegal"] == 0
    # A version the clock never played for this seat is the seat's own mistake: charged.
    with pytest.raises(EngineError) as wrong:
        referee.submit(seat, referee.version + 5, move_id="0")
    assert wrong.value.reason == Reason.STALE_VERSION
    assert referee.faults[seat]["illegal"] == 1
