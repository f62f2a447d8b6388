"""Every kind of "no" over gRPC: its status code, its reason, and nothing changed."""

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from domino_proto.domino.v1 import engine_pb2
from domino_wire import game

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
