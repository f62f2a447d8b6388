"""A PostgreSQL outage under a real engine and real bots (docs/cluster.md, "What each
failure does"): the server stopped (pg_ctl stop: connections refused), and frozen
(SIGSTOP of every process of it: a network black hole, nothing refused, nothing answered).

While it is away: gRPC health says NOT_SERVING; what the engine has in memory still
answers (GetView, GetMatch, a Watch snapshot; a seat's view through the gateway); a move
is refused at once with STORE_UNAVAILABLE (REST: 503); a read that needs the store (a
record not in memory, the lobby's finished matches) is UNAVAILABLE / STORE_UNAVAILABLE,
never INTERNAL. When it is back:
SERVING again, the bots finish the match, and its log holds versions 1..N once each and
replays to the record the engine serves. Nothing here times anything: `python -m
benchmarks outage` gives the figures.
"""

from __future__ import annotations

import http.client
import json

import grpc
import pytest

from domino_proto.domino.v1 import common_pb2, engine_pb2
from tests.engine.support import finish, refusal, wait_for
from tests.hostile.outage_support import MODES, NOT_SERVING, SERVING, OutageRig
from tests.pg_server import why_not


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    reason = why_not()
    if reason:
        pytest.skip(reason)
    from tests.gateway.gateway_support import LiveGateway

    made = OutageRig(str(tmp_path_factory.mktemp("outage") / "engine.log"))
    made.gateway = LiveGateway(f"127.0.0.1:{made.port}", ["random"])
    yield made
    made.gateway.close()
    made.close()


def rest(rig, method: str, path: str, token: str, body: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", rig.gateway.port, timeout=10)
    try:
        conn.request(method, f"/api/v1{path}", body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json",
                              "Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def refused_for_the_store(answer) -> None:
    assert isinstance(answer, grpc.RpcError), answer
    code, why = refusal(answer)
    assert (code, why.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE"), why


@pytest.mark.parametrize("mode", MODES)
def test_a_store_outage_freezes_nothing_and_loses_no_move(rig, mode):
    match_id, tokens, bots = rig.new_match()
    try:
        wait_for(lambda: rig.version(match_id) >= 4, timeout=60, what="the bots' first moves")
        rig.away(mode)
        try:
            rig.wait_health(NOT_SERVING)
            seen = rig.client.view(match_id, tokens[0])          # from memory
            assert seen.match_id == match_id
            summary = rig.client.summary(match_id)
            assert summary.summary.match_id == match_id
            assert rig.watch_snapshot(match_id).snapshot.summary.match_id == match_id
            refused_for_the_store(rig.move_of_seat_to_move(match_id, tokens))
            status, view = rest(rig, "GET", f"/matches/{match_id}/view", tokens[0])
            assert status == 200, view
            to_move = summary.summary.to_move
            status, body = rest(rig, "POST", f"/matches/{match_id}/moves", tokens[to_move],
                                {"version": view["version"], "move_id": "0"})
            assert (status, body["reason"]) == (503, "STORE_UNAVAILABLE"), body
            for answer in rig.reads_needing_the_store():
                refused_for_the_store(answer)
            assert rig.health() == NOT_SERVING        # all along: the store is still away
        finally:
            rig.back(mode)
        rig.wait_health(SERVING)
        finish(bots, timeout=180)                     # each bot played to the match's end
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
    final = rig.client.summary(match_id).summary
    assert final.status == common_pb2.MATCH_STATUS_OVER
    assert rig.logged_versions(match_id) == list(range(1, final.version + 1))
    record = json.loads(rig.client.stub.GetRecord(
        engine_pb2.GetRecordRequest(match_id=match_id), timeout=10).record_json)
    replayed = rig.replayed(match_id)
    assert replayed.version == final.version
    assert json.loads(json.dumps(replayed.record())) == record   # the log replays to it
    with open(rig.log_path) as log:
        assert "Traceback" not in log.read()


def test_the_outage_benchmark_runs_and_finds_nothing_lost():
    """`python -m benchmarks outage`, smoke-sized: every line it promises, and nothing lost
    or logged twice in either outage."""
    reason = why_not()
    if reason:
        pytest.skip(reason)
    from benchmarks import outage_bench

    lines = outage_bench.run(smoke=True)
    for mode in MODES:
        ours = [line for line in lines if line.startswith(f"{mode}: ")]
        assert len(ours) == 3, lines
        assert "to NOT_SERVING" in ours[0] and "GetView p50" in ours[1], lines
        assert "answers other than" not in ours[1], lines
        assert "never" not in ours[0] + ours[2] and "NOT finished" not in ours[2], lines
        assert ours[2].endswith(": 0 lost, 0 twice"), lines
