"""Analysis on request from a real engine on 127.0.0.1 (gRPC Analysis.Analyse): progress,
then the result; the second request answered from the store; a live match refused
(FAILED_PRECONDITION, MATCH_NOT_OVER: the analysis would leak its hidden tiles); bad
numbers INVALID_ARGUMENT naming the field; an engine without the analyser says so."""

import json

import grpc
import pytest

from analysis import analyse
from domino_cli.engine_cmd import analyser
from domino_proto.domino.v1 import analysis_pb2, analysis_pb2_grpc
from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from tests.engine.support import Served, refusal


def small_analyser():
    """The composition root's analyser, on one process and few worlds (a test's budget)."""
    def run(record, seats, worlds, progress):
        return analyse(record, seats=seats, worlds=worlds or 3, processes=1, progress=progress)
    return run


@pytest.fixture
def served(tmp_path):
    engine = Engine.open(str(tmp_path / "store.sqlite3"), analyser=small_analyser())
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=16)
    s = Served(engine, server, port)
    s.analysis = analysis_pb2_grpc.AnalysisStub(s.channel)
    yield s
    s.channel.close()
    server.stop(0).wait()
    engine.close()


def finished_match(served, variant="hhl", options=None):
    """A match played to its end with greedy's first-listed moves through the engine."""
    match_id, tokens = served.new_match(variant, options or {"hands": 1}, seed=4)
    while True:   # until no seat has a move: the match is over
        views = [served.view(match_id, t) for t in tokens]
        mine = [v for v in views if v.legal_moves]
        if not mine:
            break
        v = mine[0]
        served.submit(match_id, tokens[v.seat], v.version, move_id=v.legal_moves[0].id)
    return match_id, tokens


def test_progress_then_the_result_then_the_same_from_the_store(served):
    match_id, _ = finished_match(served)
    updates = list(served.analysis.Analyse(analysis_pb2.AnalyseRequest(
        match_id=match_id, seat=1, worlds=3), timeout=300))
    last = updates[-1]
    assert last.state == analysis_pb2.ANALYSIS_STATE_DONE and not last.kept
    # Progress is told as snapshots of the job (a reader slower than the job sees fewer):
    # never backwards, and whole at the end.
    dones = [u.done for u in updates if u.state == analysis_pb2.ANALYSIS_STATE_RUNNING]
    assert dones == sorted(dones) and all(d <= last.total for d in dones)
    assert last.done == last.total > 0
    doc = json.loads(last.analysis_json)
    assert doc["format"] == "domino-analysis/1" and [s["seat"] for s in doc["seats"]] == [1]
    # again: kept in the store, no work
    again = list(served.analysis.Analyse(analysis_pb2.AnalyseRequest(
        match_id=match_id, seat=1, worlds=3), timeout=60))
    assert len(again) == 1 and again[0].kept and json.loads(again[0].analysis_json) == doc


def test_a_live_match_is_refused(served):
    match_id, _ = served.new_match("hhl", {"hands": 1}, seed=4)
    with pytest.raises(grpc.RpcError) as e:
        list(served.analysis.Analyse(analysis_pb2.AnalyseRequest(match_id=match_id), timeout=30))
    code, r = refusal(e.value)
    assert code == grpc.StatusCode.FAILED_PRECONDITION and r.reason == "MATCH_NOT_OVER"


@pytest.mark.parametrize("field, request_args", [
    ("worlds", {"worlds": 5000}), ("seat", {"seat": 9})])
def test_bad_numbers_name_their_field(served, field, request_args):
    match_id, _ = finished_match(served)
    with pytest.raises(grpc.RpcError) as e:
        list(served.analysis.Analyse(analysis_pb2.AnalyseRequest(match_id=match_id,
                                                                 **request_args), timeout=30))
    code, r = refusal(e.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and r.field == field


def test_an_engine_without_the_analyser_says_so(tmp_path):
    engine = Engine.open(":memory:")
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=4)
    s = Served(engine, server, port)
    try:
        match_id, _ = finished_match(s)
        with pytest.raises(grpc.RpcError) as e:
            list(analysis_pb2_grpc.AnalysisStub(s.channel).Analyse(
                analysis_pb2.AnalyseRequest(match_id=match_id), timeout=30))
        code, r = refusal(e.value)
        assert code == grpc.StatusCode.FAILED_PRECONDITION and r.reason == "ANALYSIS_OFF"
    finally:
        s.channel.close()
        server.stop(0).wait()
        engine.close()


def test_the_composition_root_hands_the_engine_an_analyser():
    assert callable(analyser())
