"""Bots follow a match to its owner engine: two engines on one PostgreSQL store, a match
made on engine A, and bots told only of engine B (and of an address where nothing
answers): B refuses with NOT_OWNER naming A, and the Node bot and the Python runner
(`domino bot`) go there and finish the match."""

import json
import shutil
import socket
import subprocess

import pytest

from domino_cli.processes import metrics_port_of
from domino_proto.domino.v1 import engine_pb2
from domino_wire import game
from tests.metrics_support import Scrape

from .support import (
    VARIANTS,
    Client,
    domino_bot,
    ensure_node_modules,
    node_bot,
    replays,
    start_engine,
)


@pytest.fixture
def two_engines(tmp_path, pg_dsn):
    """Engines A and B on one database, each advertised at the port it picked; B serves
    metrics on a port it picked too."""
    procs, clients = [], []
    for name in ("a", "b"):
        extra = ("--metrics-port", "0") if name == "b" else ()
        proc, bound = start_engine(pg_dsn, 0, tmp_path / f"engine-{name}.log", extra=extra)
        procs.append(proc)
        clients.append(Client(bound))
    metrics_port = metrics_port_of(procs[1].ready_line)
    yield clients[0], clients[1], f"http://127.0.0.1:{metrics_port}/metrics"
    for c in clients:
        c.close()
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(15)


def new_match_on(client, variant, options, seed):
    """A match made on this very engine (`here`), its seats claimed there."""
    created = client.stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=VARIANTS[variant], options=game.options_pb(variant, options), seed=seed,
        bot_clock_ms=20_000, here=True), timeout=10)
    return created.match_id, {s: client.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
        match_id=created.match_id, seat=s), timeout=10).seat_token
        for s in range(created.num_seats)}


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_bot_and_python_runner_are_sent_to_the_owner_and_finish(two_engines, tmp_path):
    ensure_node_modules()
    a, b, metrics = two_engines
    match_id, tokens = new_match_on(a, "hhl", {"hands": 1}, seed=23)
    # Nothing listens there: skipped for the next. The port stays bound (never listening)
    # for the test, so no other process can start listening on it meanwhile.
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    nobody = f"127.0.0.1:{held.getsockname()[1]}"
    node = node_bot(f"{nobody},{b.address}", "--verbose", "--match", match_id, "--seat", "0",
                    env={"DOMINO_SEAT_TOKEN": tokens[0]})
    others = [x for s in (1, 2, 3) for x in ("--seat", str(s), f"--seat-token={tokens[s]}")]
    python = domino_bot(f"{b.address},{a.address}", "--match", match_id, *others)
    said = []
    for p in (node, python):
        try:
            out, err = p.communicate(timeout=90)
        except subprocess.TimeoutExpired:
            node.kill()
            python.kill()
            raise
        assert p.returncode == 0, err[-3000:]
        said.append((out, err))
    record = a.record(match_id)
    lines = [json.loads(line) for out, _ in said for line in out.splitlines() if line.strip()]
    assert lines[0] == {"match_id": match_id, "seat": 0, "result": record["result"]}
    assert all(line["result"] == record["result"] for line in lines)
    assert f"match owned by {a.address}, not {b.address}" in said[0][1]
    replays(record, tmp_path)
    # B sent them all there: the Node bot's stream and each of the runner's three.
    assert Scrape(metrics).get("domino_engine_refusals_total", reason="NOT_OWNER") >= 4
    assert a.summary(match_id).seats[0].timeouts_in_a_row == 0
    held.close()
