"""`domino record MATCH_ID`: a finished match's record from a running engine, exactly as
GetRecord gives it, on stdout or in a file; every mistake one line on stderr (exit 2 for a
wrong command line, 1 for a failure). A real engine, the real command."""

import json

import pytest

from domino_proto.domino.v1 import engine_pb2

from .support import assert_one_line_failure, dead_port, run

OVER = 3


def play_to_the_end(client, match_id, tokens):
    """Every seat plays its first legal move until the match is over."""
    for _ in range(2000):
        summary = client.summary(match_id).summary
        if summary.status == OVER:
            return
        client.submit(match_id, tokens[summary.to_move], summary.version, move_id="0")
    raise AssertionError("the match did not end")


@pytest.fixture(scope="module")
def finished(engine):
    match_id, tokens = engine.client.new_match("hhl", {"hands": 1}, seed=5, clock_ms=60_000)
    play_to_the_end(engine.client, match_id, tokens)
    record_json = engine.client.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id),
                                               timeout=5).record_json
    return match_id, record_json


def test_the_record_of_a_finished_match_is_the_engines(engine, finished):
    match_id, record_json = finished
    p = run("record", match_id, "--engine", engine.address)
    assert p.stdout == record_json + "\n" and p.stderr == ""
    record = json.loads(p.stdout)
    assert record == json.loads(record_json)
    assert record["format"] == "domino-record/1" and record["variant"] == "hhl"


def test_out_writes_the_record_to_a_file_that_replays(engine, finished, tmp_path):
    match_id, record_json = finished
    out = tmp_path / "m.json"
    p = run("record", match_id, "--engine", engine.address, "--out", str(out))
    assert p.stdout == "" and p.stderr == ""
    assert json.loads(out.read_text()) == json.loads(record_json)
    assert not list(tmp_path.glob("*.part"))
    run("replay", str(out))     # what the record is for: it re-checks move by move


def test_an_unknown_match_is_a_failure_in_one_line(engine):
    p = run("record", "nosuchmatch", "--engine", engine.address, check=False)
    assert_one_line_failure(p, "record", "the engine refused: UNKNOWN_MATCH")
    assert p.returncode == 1 and p.stdout == ""


def test_a_live_match_has_no_record_yet(engine):
    match_id, _ = engine.client.new_match("hhl", {"hands": 1}, seed=6, clock_ms=60_000)
    p = run("record", match_id, "--engine", engine.address, check=False)
    assert_one_line_failure(p, "record", "the engine refused: MATCH_NOT_OVER")
    assert p.returncode == 1 and p.stdout == ""


def test_an_unreachable_engine_is_a_failure_in_one_line():
    dead = dead_port()
    p = run("record", "m", "--engine", f"127.0.0.1:{dead}", check=False)
    assert_one_line_failure(p, "record", f"cannot reach the engine at 127.0.0.1:{dead}",
                            "domino engine", "--engine")
    assert p.returncode == 1


def test_a_file_it_cannot_write_is_a_failure_and_leaves_nothing(engine, finished, tmp_path):
    match_id, _ = finished
    out = tmp_path / "no-such-folder" / "m.json"
    p = run("record", match_id, "--engine", engine.address, "--out", str(out), check=False)
    assert_one_line_failure(p, "record", f"cannot write {out}", "No such file")
    assert p.returncode == 1 and not out.parent.exists()


@pytest.mark.parametrize("args, needle", [
    ([], "the following arguments are required: MATCH_ID"),
    (["x" * 65], "MATCH_ID: is at most 64 characters"),
    (["m", "--out"], "--out: expected one argument"),
    (["m", "--engine"], "--engine: expected one argument"),
])
def test_a_wrong_command_line_exits_2_in_one_line(args, needle):
    p = run("record", *args, check=False)
    assert_one_line_failure(p, "record", needle)
    assert p.returncode == 2 and p.stdout == ""
