"""Every kind of "no" over gRPC: its status code, its reason, and nothing changed."""

import pathlib
import queue

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from domino_proto.domino.v1 import engine_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from domino_wire.tiles import tiles_pb
from engine_service.core.errors import WITH_LEGAL_MOVES, EngineError, Reason
from engine_service.rules import errors as rules_errors

from .support import refusal


def state_of(served, match_id, tokens):
    """Everything a refusal must leave unchanged: version, public view, every seat's view."""
    s = served.summary(match_id)
    return (s.summary.version, s.view.SerializeToString(),
            [served.view(match_id, t).view.SerializeToString() for t in tokens])


@pytest.fixture
def hhl(served):
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=3, clock_ms=60_000)
    return served, match_id, tokens


def mover(served, match_id, tokens):
    """(seat, token, SeatState) of the seat to move."""
    seat = served.summary(match_id).summary.to_move
    return seat, tokens[seat], served.view(match_id, tokens[seat])


def refused(call):
    with pytest.raises(grpc.RpcError) as info:
        call()
    return refusal(info.value)


def test_an_accepted_move_bumps_the_version_and_answers_with_events(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    assert state.version == 0 and state.legal_moves
    answer = served.submit(match_id, token, 0, move_id=state.legal_moves[0].id)
    assert answer.version == 1
    assert answer.move_text == state.legal_moves[0].text
    assert [e.WhichOneof("body") for e in answer.events][0] == "play"
    assert answer.events[0].play.move == state.legal_moves[0].move
    assert served.summary(match_id).summary.version == 1


def test_resubmitting_an_accepted_move_is_answered_as_accepted_not_applied_twice(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    first = served.submit(match_id, token, 0, move_text=state.legal_moves[0].text)
    again = served.submit(match_id, token, 0, move_text=state.legal_moves[0].text)
    by_id = served.submit(match_id, token, 0, move_id=state.legal_moves[0].id)
    assert first == again
    assert by_id.version == 1
    assert served.summary(match_id).summary.version == 1


def test_stale_version_is_aborted(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    served.submit(match_id, token, 0, move_id="0")
    seat, token, state = mover(served, match_id, tokens)
    before = state_of(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, token, 0, move_id="0"))
    assert (code, r.reason, r.version) == (grpc.StatusCode.ABORTED, "STALE_VERSION", 1)
    assert state_of(served, match_id, tokens) == before


def test_wrong_turn_is_a_failed_precondition_with_the_legal_moves(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    other = (seat + 1) % 4
    before = state_of(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, tokens[other], 0,
                                            move_text=state.legal_moves[0].text))
    assert (code, r.reason, r.version) == (grpc.StatusCode.FAILED_PRECONDITION,
                                           "NOT_YOUR_TURN", 0)
    code, r = refused(lambda: served.submit(match_id, tokens[other], 0, move_id="0"))
    assert (code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert state_of(served, match_id, tokens) == before


def test_illegal_move_names_the_rule_and_lists_the_legal_moves(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    hand = served.view(match_id, token)
    held = set(game.view(hand.view)["hand"])
    missing = next(t for t in ("0-0", "1-1", "2-2", "3-3", "6-6", "5-5") if t not in held)
    before = state_of(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, token, 0, move_text=missing))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert r.reason in ("TILE_NOT_IN_HAND", "MUST_OPEN_WITH")
    assert [m.text for m in r.legal_moves] == [m.text for m in state.legal_moves]
    assert state_of(served, match_id, tokens) == before


def test_wrong_token_is_unauthenticated(hhl):
    served, match_id, tokens = hhl
    before = state_of(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, "not-a-token", 0, move_id="0"))
    assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
    code, r = refused(lambda: served.submit(match_id, "", 0, move_id="0"))
    assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "NO_TOKEN")
    other_id, other_tokens = served.new_match("hhl", {"hands": 1}, seed=4)
    code, r = refused(lambda: served.submit(match_id, other_tokens[0], 0, move_id="0"))
    assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN")
    assert "not-a-token" not in r.message
    assert state_of(served, match_id, tokens) == before


def test_unknown_match_is_not_found(hhl):
    served, match_id, tokens = hhl
    code, r = refused(lambda: served.submit("nope", tokens[0], 0, move_id="0"))
    assert (code, r.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")
    code, r = refused(lambda: served.summary("nope"))
    assert (code, r.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")


@pytest.mark.parametrize("text", ["7-1 left", "3-1 sideways", "banana", "3-1 left up down",
                                  "4-4 up sometimes"])
def test_malformed_move_is_invalid_argument(hhl, text):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    before = state_of(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, token, 0, move_text=text))
    assert (code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE")
    assert state_of(served, match_id, tokens) == before


def test_unknown_move_id_and_missing_move_are_invalid_argument(hhl):
    served, match_id, tokens = hhl
    seat, token, state = mover(served, match_id, tokens)
    code, r = refused(lambda: served.submit(match_id, token, 0, move_id="99"))
    assert (code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_MOVE_ID")
    assert r.legal_moves
    code, r = refused(lambda: served.submit(match_id, token, 0))
    assert (code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE")
    assert served.summary(match_id).summary.version == 0


def test_a_seat_is_claimed_once(hhl):
    served, match_id, tokens = hhl
    code, r = refused(lambda: served.stub.ClaimSeat(
        engine_pb2.ClaimSeatRequest(match_id=match_id, seat=1)))
    assert (code, r.reason) == (grpc.StatusCode.ALREADY_EXISTS, "SEAT_TAKEN")
    code, r = refused(lambda: served.stub.ClaimSeat(
        engine_pb2.ClaimSeatRequest(match_id=match_id, seat=4)))
    assert (code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT")


def test_the_record_is_refused_until_the_match_is_over(hhl):
    served, match_id, tokens = hhl
    code, r = refused(lambda: served.stub.GetRecord(
        engine_pb2.GetRecordRequest(match_id=match_id)))
    assert (code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_NOT_OVER")


@pytest.mark.parametrize("request_fields, reason", [
    ({"variant": 0}, "MALFORMED_REQUEST"),
    ({"variant": 1, "options": game.options_pb("domeng", {"cycles": 1})}, "MALFORMED_REQUEST"),
    ({"variant": 1, "options": game.options_pb("hhl", {"hands": 0})}, "MALFORMED_REQUEST"),
    ({"variant": 2, "deals": [engine_pb2.Deal()]}, "MALFORMED_REQUEST"),
])
def test_malformed_create_is_invalid_argument(served, request_fields, reason):
    code, r = refused(lambda: served.stub.CreateMatch(
        engine_pb2.CreateMatchRequest(**request_fields)))
    assert (code, r.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)


def test_health_and_reflection_are_on(served):
    health = health_pb2_grpc.HealthStub(served.channel)
    for service in ("", "domino.v1.Engine", "domino.v1.Play"):
        answer = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
    stub = reflection_pb2_grpc.ServerReflectionStub(served.channel)
    answers = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
        list_services="")]), timeout=5)
    names = {s.name for a in answers for s in a.list_services_response.service}
    assert {"domino.v1.Engine", "domino.v1.Play", "grpc.health.v1.Health"} <= names


# ----- which refusals carry the legal moves ------------------------------------------------
# A scripted HHL deal (the rules tests' deal A): seat 0 opens 0-0; seat 1 holds no 0 and
# draws the whole stock, then must play the drawn 1-0; at version 4 seat 1 is to move with
# 2-2 (a double: normal or barricade) and 2-1 among its tiles.
DRAW_HANDS = [["0-0", "5-1", "6-1", "6-6", "5-5", "6-5"], ["1-1", "2-1", "3-1", "4-1", "2-2", "3-2"],
              ["3-3", "4-3", "4-2", "6-2", "5-2", "6-4"], ["2-0", "3-0", "4-0", "5-0", "6-0", "5-4"]]
DRAW_STOCK = ["6-3", "5-3", "4-4", "1-0"]
DRAW_SCRIPT = [(0, "0-0"), (1, "1-0 left"), (3, "2-0 right"), (0, "6-1 left"),
               (1, "2-2 right barricade"), (2, "6-2 left"), (3, "3-0 up"), (1, "3-2 left"),
               (2, "3-3 up normal"), (3, "4-0 down"), (1, "4-4 down normal"), (2, "6-4 down"),
               (3, "6-0 down"), (1, "5-3 up"), (2, "4-3 left"), (3, "5-4 left"),
               (0, "5-5 up barricade"), (2, "5-2 left"), (3, "5-0 down")]
END = len(DRAW_SCRIPT)

# (moves of the script played first, the seat that tries, its move, the version it names,
# the reason): every refusal of a move, during the seat's turn and outside it.
MOVE_REFUSALS = [
    pytest.param(4, 0, {"move_text": "5-1 left"}, 4, "NOT_YOUR_TURN", id="NOT_YOUR_TURN-text"),
    pytest.param(4, 0, {"move_id": "0"}, 4, "NOT_YOUR_TURN", id="NOT_YOUR_TURN-id"),
    pytest.param(4, 1, {"move_text": "6-6 left normal"}, 4, "TILE_NOT_IN_HAND", id="TILE_NOT_IN_HAND"),
    pytest.param(2, 3, {"move_text": "2-0 left"}, 2, "END_MISMATCH", id="END_MISMATCH"),
    pytest.param(5, 2, {"move_text": "4-2 right"}, 5, "ARM_CLOSED", id="ARM_CLOSED"),
    pytest.param(1, 1, {"move_text": "6-3 left"}, 1, "MUST_PLAY_DRAWN_TILE", id="MUST_PLAY_DRAWN_TILE"),
    pytest.param(0, 0, {"move_text": "6-6"}, 0, "MUST_OPEN_WITH", id="MUST_OPEN_WITH"),
    pytest.param(0, 0, {"move_text": "0-0 left"}, 0, "OPENING_HAS_NO_PLACE", id="OPENING_HAS_NO_PLACE"),
    pytest.param(4, 1, {"move_text": "2-1"}, 4, "PLACE_REQUIRED", id="PLACE_REQUIRED"),
    pytest.param(4, 1, {"move_text": "2-2 right"}, 4, "MODE_REQUIRED", id="MODE_REQUIRED"),
    pytest.param(4, 1, {"move_text": "2-1 right normal"}, 4, "MODE_NOT_ALLOWED", id="MODE_NOT_ALLOWED"),
    pytest.param(END, 0, {"move_text": "5-1 left"}, END, "MATCH_OVER", id="MATCH_OVER-text"),
    pytest.param(END, 0, {"move_id": "0"}, END, "MATCH_OVER", id="MATCH_OVER-id"),
    pytest.param(4, 1, {"move_text": "banana"}, 4, "MALFORMED_MOVE", id="MALFORMED_MOVE"),
    pytest.param(4, 1, {"move_text": "6-6" * 20}, 4, "MALFORMED_MOVE", id="MALFORMED_MOVE-long"),
    pytest.param(4, 1, {}, 4, "MALFORMED_MOVE", id="MALFORMED_MOVE-no-move"),
    pytest.param(4, 0, {"move_text": "banana"}, 4, "MALFORMED_MOVE", id="MALFORMED_MOVE-not-its-turn"),
    pytest.param(4, 1, {"move_id": "99"}, 4, "UNKNOWN_MOVE_ID", id="UNKNOWN_MOVE_ID"),
    pytest.param(4, 1, {"move_text": "2-1 left"}, 3, "STALE_VERSION", id="STALE_VERSION-older"),
    pytest.param(4, 1, {"move_text": "2-1 left"}, 5, "STALE_VERSION", id="STALE_VERSION-newer"),
]


def scripted(served, upto: int):
    """The scripted match with its first `upto` moves played: (match_id, tokens)."""
    deal = engine_pb2.Deal(hands=[engine_pb2.Hand(tiles=tiles_pb(h)) for h in DRAW_HANDS],
                           rest=tiles_pb(DRAW_STOCK))
    created = served.stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=1, options=game.options_pb("hhl", {"hands": 1}), deals=[deal], seed=1,
        bot_clock_ms=60_000), timeout=5)
    tokens = [served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
        match_id=created.match_id, seat=s), timeout=5).seat_token for s in range(4)]
    for version, (seat, move) in enumerate(DRAW_SCRIPT[:upto]):
        served.submit(created.match_id, tokens[seat], version, move_text=move)
    return created.match_id, tokens


def pairs(legal_moves) -> list[tuple[str, str]]:
    return [(m.id, m.text) for m in legal_moves]


def test_only_the_refusals_of_a_move_in_turn_may_carry_legal_moves():
    """The engine cannot even build another kind: a refusal that is not of a move made
    during the seat's turn with legal moves is a bug, refused where it is made."""
    assert WITH_LEGAL_MOVES == ({Reason.MALFORMED_MOVE, Reason.UNKNOWN_MOVE_ID}
                                | set(rules_errors.REASONS)) - {"NOT_YOUR_TURN", "MATCH_OVER"}
    for reason in Reason:
        if reason in WITH_LEGAL_MOVES:
            EngineError(reason, "x", 0, [("0", "0-0")], field="move_text")
        else:
            with pytest.raises(ValueError, match="carries no legal moves"):
                EngineError(reason, "x", 0, [("0", "0-0")], field="f")


def test_the_proto_and_the_docs_name_the_refusals_that_carry_legal_moves():
    root = pathlib.Path(__file__).resolve().parents[2]
    proto = (root / "proto" / "domino" / "v1" / "common.proto").read_text()
    comment = proto.split("message Refusal {")[1].split("repeated LegalMove legal_moves")[0]
    protocol = (root / "docs" / "protocol.md").read_text()
    rule = protocol.split("**Which refusals carry the legal moves.**")[1].split("\n\n")[0]
    for reason in WITH_LEGAL_MOVES:
        assert reason in comment and reason in rule.split("Every other refusal")[0], reason
    for reason in ("NOT_YOUR_TURN", "MATCH_OVER", "STALE_VERSION"):
        assert reason in comment.split("Empty for")[1] and reason in rule.split(
            "Every other refusal")[1], reason


@pytest.mark.parametrize("upto, seat, move, version, reason", MOVE_REFUSALS)
def test_a_refused_move_carries_the_legal_moves_exactly_when_it_was_made_in_turn(
        served, upto, seat, move, version, reason):
    match_id, tokens = scripted(served, upto)
    now = served.view(match_id, tokens[seat])
    before = state_of(served, match_id, tokens)
    _, r = refused(lambda: served.submit(match_id, tokens[seat], version, **move))
    assert r.reason == reason and r.version == upto
    if reason in WITH_LEGAL_MOVES:
        # the seat's moves at this version: empty only when it is not its turn
        assert pairs(r.legal_moves) == pairs(now.legal_moves)
        assert bool(r.legal_moves) == (now.to_move == seat)
    else:
        assert list(r.legal_moves) == []
    assert state_of(served, match_id, tokens) == before


@pytest.mark.parametrize("call", ["bad-token", "no-token", "unknown-match", "seat-taken",
                                  "bad-seat", "record-too-early", "bad-create"])
def test_a_refusal_that_is_not_of_a_move_carries_no_legal_moves(served, call):
    match_id, tokens = scripted(served, 4)
    seat_to_move = served.summary(match_id).summary.to_move
    calls = {
        "bad-token": lambda: served.submit(match_id, "not-a-token", 4, move_id="0"),
        "no-token": lambda: served.submit(match_id, "", 4, move_id="0"),
        "unknown-match": lambda: served.submit("nosuch", tokens[seat_to_move], 4, move_id="0"),
        "seat-taken": lambda: served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=match_id, seat=seat_to_move)),
        "bad-seat": lambda: served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=match_id, seat=9)),
        "record-too-early": lambda: served.stub.GetRecord(engine_pb2.GetRecordRequest(
            match_id=match_id)),
        "bad-create": lambda: served.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=1, bot_clock_ms=5)),
    }
    _, r = refused(calls[call])
    assert r.reason and list(r.legal_moves) == []


def test_the_play_stream_carries_the_same_legal_moves_in_its_answers(served):
    """On the stream a refusal comes in a MoveAnswer: the same rule, and a MoveChoice with
    no move at all is MALFORMED_MOVE with the legal moves, as on SubmitMove."""
    match_id, tokens = scripted(served, 4)      # seat 1 to move at version 4
    tries = [({}, 4, "MALFORMED_MOVE"), ({"move_text": "banana"}, 4, "MALFORMED_MOVE"),
             ({"move_id": "99"}, 4, "UNKNOWN_MOVE_ID"), ({"move_text": "2-2 right"}, 4,
                                                         "MODE_REQUIRED"),
             ({"move_text": "2-1 left"}, 3, "STALE_VERSION")]
    outbox = queue.SimpleQueue()
    outbox.put(play_pb2.BotMessage(hello=play_pb2.Hello(seat=play_pb2.SeatAuth(
        match_id=match_id, seat_token=tokens[1]), skip_events=True)))
    stream = play_pb2_grpc.PlayStub(served.channel).Connect(iter(outbox.get, None), timeout=30)
    legal, answers = None, []
    for message in stream:
        kind = message.WhichOneof("body")
        if kind == "turn" and legal is None:
            legal = pairs(message.turn.state.legal_moves)
            for move, version, _ in tries:
                outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(version=version,
                                                                        **move)))
        elif kind == "answer":
            answers.append(message.answer)
            if len(answers) == len(tries):
                break
    outbox.put(None)
    stream.cancel()
    assert legal
    assert [a.refusal.reason for a in answers] == [reason for _, _, reason in tries]
    for answer in answers:
        expected = [] if answer.refusal.reason == "STALE_VERSION" else legal
        assert pairs(answer.refusal.legal_moves) == expected, answer.refusal.reason
