"""Real processes: `domino engine` and `domino bot` on 127.0.0.1, full matches, and a
kill -9 of the engine in the middle of a match."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bots.strategies import make_strategy
from domino_proto.domino.v1 import engine_pb2
from engine_service import rules

from .support import Client, finish, start_bot, start_engine


@pytest.fixture
def engine_process(tmp_path, durable_db):
    """`domino engine` on each store in turn (a SQLite file, a PostgreSQL database)."""
    procs = []

    def start(port=0):
        proc, bound = start_engine(durable_db, port, str(tmp_path / "engine.log"))
        procs.append(proc)
        return proc, bound
    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(60)


def record_of(client, match_id):
    return json.loads(client.stub.GetRecord(
        engine_pb2.GetRecordRequest(match_id=match_id), timeout=10).record_json)


def uninterrupted(variant, options, seed):
    """The same match played in-process, every seat greedy (`domino bot`'s default strategy,
    deterministic)."""
    m = rules.new_match(variant, options, seed=seed)
    greedy = make_strategy("greedy")
    while not m.over:
        m.play(m.to_move, greedy.choose(m.view(m.to_move), m.legal_moves(m.to_move)))
    return m.record()


@pytest.mark.parametrize("variant, options", [("hhl", {"hands": 2}), ("domeng", {})])
def test_bot_processes_play_a_full_match_and_the_record_replays(engine_process, tmp_path,
                                                                variant, options):
    proc, port = engine_process()
    client = Client(port)
    match_id, tokens = client.new_match(variant, options, seed=31, clock_ms=20_000)
    bots = [start_bot(client.address, match_id, s, t, "--strategy", "random", "--seed", str(s))
            for s, t in enumerate(tokens)]
    outputs = [json.loads(line) for line in finish(bots)]
    record = record_of(client, match_id)
    assert all(o["result"] == record["result"] for o in outputs)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    replay = subprocess.run([sys.executable, "-m", "domino_cli", "replay", str(path)],
                            capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    assert "record OK" in replay.stdout
    log = (tmp_path / "engine.log").read_text()
    assert f"match {match_id} started" in log and f"match {match_id} over" in log
    assert not any(t in log for t in tokens), "a seat token was logged"


def test_kill_9_mid_match_loses_nothing_and_the_match_finishes_as_if_uninterrupted(
        engine_process):
    proc, port = engine_process()
    client = Client(port)
    options, seed = {"hands": 2}, 41
    match_id, tokens = client.new_match("hhl", options, seed=seed, clock_ms=20_000)
    bots = [start_bot(client.address, match_id, s, t, "--delay", "0.03")
            for s, t in enumerate(tokens)]
    deadline = time.monotonic() + 30
    while (version := client.summary(match_id).summary.version) < 12:
        assert time.monotonic() < deadline, "the bots did not start playing"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(60)
    client.channel.close()

    proc, _ = engine_process(port)          # same store, same port: the bots reconnect
    client = Client(port)
    restored = client.summary(match_id).summary
    assert restored.version >= version      # every acknowledged move survived
    assert restored.status == 2             # killed mid-match: still live
    finish(bots)
    assert record_of(client, match_id) == uninterrupted("hhl", options, seed)
