"""CreateMatch from a record prefix over gRPC: strict refusals naming the field, a fork
played to its end by bots, and a forked match recovered after a restart."""

import json

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, game_pb2
from engine_service.core.engine import Engine
from engine_service.rules import replay_record
from engine_service.rules.fork import MAX_RECORD_BYTES
from tests.bots_runner.support import replays
from tests.engine.conftest import serve
from tests.engine.support import finish, refusal, start_bot
from tests.fork.fork_support import plays, recorded


@pytest.fixture(scope="module")
def record():
    return recorded("hhl", seed=7)


@pytest.fixture
def served():
    yield from serve()


def fork_request(record, at, **fields):
    text = record if isinstance(record, str) else json.dumps(record)
    return engine_pb2.CreateMatchRequest(fork=engine_pb2.ForkFrom(record_json=text, at=at),
                                         **fields)


def test_a_fork_played_to_its_end_by_bots_keeps_the_prefix_and_replays(served, record, tmp_path):
    n = 9
    created = served.stub.CreateMatch(fork_request(record, n, bot_clock_ms=5000), timeout=10)
    assert created.summary.version == n     # the prefix plays are its first accepted moves
    tokens = [served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id,
                                                                seat=s), timeout=5).seat_token
              for s in range(created.num_seats)]
    strategies = ("greedy", "random", "heuristic", "greedy")   # `domino bot` processes
    finish([start_bot(served.address, created.match_id, s, t, "--strategy", strategies[s])
            for s, t in enumerate(tokens)])
    new = json.loads(served.stub.GetRecord(engine_pb2.GetRecordRequest(
        match_id=created.match_id), timeout=5).record_json)
    assert plays(new)[:n] == plays(record)[:n] and "result" in new
    assert new["deals"][0]["hands"] == record["deals"][0]["hands"]
    assert new["deals"][0]["stock"] == record["deals"][0]["stock"]
    assert new["seed"] != record["seed"]   # its own seed, secret until it was over
    replay_record(new)
    replays(new, tmp_path)


@pytest.mark.parametrize("make, field, says", [
    (lambda r: fork_request(r, 10_000), "fork.at", "must be 0.."),
    (lambda r: fork_request(r, -1), "fork.at", "must be 0.."),
    (lambda r: fork_request("{oops", 1), "fork.record_json", "not JSON"),
    (lambda r: fork_request("[" * 5000, 1), "fork.record_json", "nested too deep"),
    (lambda r: fork_request({**r, "format": "x"}, 1), "fork.record_json", "format"),
    (lambda r: fork_request({**r, "result": {"totals": [0, 0, 0, 0]}}, 1), "fork.record_json",
     "rules refuse"),
    (lambda r: fork_request(" " * (MAX_RECORD_BYTES + 1), 1), "fork.record_json",
     f"at most {MAX_RECORD_BYTES} bytes"),
    (lambda r: fork_request(r, 1, variant=game_pb2.VARIANT_DOMENG), "variant", "hhl match"),
    (lambda r: fork_request(r, 1, deals=[engine_pb2.Deal()]), "fork", "give neither"),
])
def test_a_bad_fork_is_invalid_argument_naming_the_field(served, record, make, field, says):
    before = len(served.engine.list_matches())
    with pytest.raises(grpc.RpcError) as e:
        served.stub.CreateMatch(make(record), timeout=10)
    code, r = refusal(e.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and r.reason == "MALFORMED_REQUEST"
    assert r.field == field and says in r.message, r.message
    assert len(served.engine.list_matches()) == before   # nothing stored


def test_a_forked_match_is_recovered_after_a_restart(durable_db, record, tmp_path):
    n = len(plays(record)) - 3
    engine = Engine.open(durable_db)
    referee = engine.create_match("", fork=(json.dumps(record), n))
    match_id = referee.id
    tokens = [engine.claim_seat(match_id, s) for s in range(4)]
    for _ in range(2):   # two moves of new play, logged as usual
        seat = referee.match.to_move
        engine.submit(match_id, tokens[seat], referee.version, move_id="0")
    version, view = referee.version, referee.match.view(None)
    engine.close()

    engine = Engine.open(durable_db)
    try:
        assert match_id in engine.recover()
        again = engine.get(match_id)
        assert (again.version, again.match.view(None)) == (version, view)
        while not again.match.over:
            seat = again.match.to_move
            engine.submit(match_id, tokens[seat], again.version, move_id="0")
        new = engine.record(match_id)
    finally:
        engine.close()
    assert plays(new)[:n] == plays(record)[:n]
    replay_record(new)
    replays(new, tmp_path)
