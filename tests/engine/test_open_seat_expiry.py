"""A waiting match's open seats expire: OPEN_SEAT_EXPIRY_S after its creation the engine
claims every seat nobody claimed and plays it as absent, so that the match leaves the
lobby's "Open seats" (docs/protocol.md). On a manual clock."""

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2
from engine_service.core.matches.referee import OPEN_SEAT_EXPIRY_S


def claim(served, match_id, seat):
    return served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=match_id, seat=seat),
                                 timeout=5).seat_token


def test_open_seats_are_taken_by_the_engine_after_the_expiry(served_manual):
    served = served_manual
    match_id, _ = served.new_match("hhl", {"hands": 1}, seed=3, clock_ms=1000, claim=False)
    claim(served, match_id, 0)                       # one person came; three seats stay open
    referee = served.engine.get(match_id)
    served.alarms.advance(OPEN_SEAT_EXPIRY_S - 1)
    assert referee.status == "waiting"
    assert [s.claimed for s in referee.seats] == [True, False, False, False]
    assert match_id in [m["match_id"] for m in served.engine.list_matches("waiting")]

    served.alarms.advance(1)
    assert referee.status == "live"
    assert [s.claimed for s in referee.seats] == [True] * 4
    assert [s.absent for s in referee.seats] == [False, True, True, True]
    assert match_id not in [m["match_id"] for m in served.engine.list_matches("waiting")]
    with pytest.raises(grpc.RpcError) as refused:       # nobody gets an expired seat's token
        claim(served, match_id, 1)
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS   # SEAT_TAKEN


def test_a_match_whose_seats_are_all_claimed_in_time_is_left_alone(served_manual):
    served = served_manual
    match_id, _ = served.new_match("hhl", {"hands": 1}, seed=3, clock_ms=10**6, claim=False)
    for seat in range(4):
        claim(served, match_id, seat)
    referee = served.engine.get(match_id)
    assert OPEN_SEAT_EXPIRY_S not in served.alarms.pending()   # no longer armed
    served.alarms.advance(OPEN_SEAT_EXPIRY_S + 1)
    assert referee.status == "live"
    assert not any(s.absent for s in referee.seats)
