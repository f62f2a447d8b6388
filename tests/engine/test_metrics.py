"""`domino engine --metrics-port`: a real engine process, real bot processes, and its
/metrics scraped: the counters say what happened (docs/cluster.md, "Metrics")."""

import time

import grpc
import pytest

from domino_cli.processes import metrics_port_of
from engine_service.core.storage.factory import is_dsn, open_store
from tests.metrics_support import Scrape

from .support import Client, finish, refusal, start_bot, start_engine, wait_for


@pytest.fixture
def metered(tmp_path, durable_db):
    """An engine process with /metrics on a port of 127.0.0.1: (client, metrics url, db)."""
    proc, bound = start_engine(durable_db, 0, str(tmp_path / "engine.log"),
                               extra=("--metrics-port", "0"))
    port = metrics_port_of(proc.ready_line)
    client = Client(bound)
    yield client, f"http://127.0.0.1:{port}/metrics", durable_db
    client.channel.close()
    proc.terminate()
    proc.wait(60)


def wait_over(client, match_id, timeout=60):
    deadline = time.monotonic() + timeout
    while (summary := client.summary(match_id).summary).status != 3:   # MATCH_STATUS_OVER
        assert time.monotonic() < deadline, f"match {match_id} did not end"
        time.sleep(0.05)
    return summary


def test_the_counters_match_a_played_match_a_refusal_and_the_turn_clock(metered):
    client, url, db = metered
    before = Scrape(url)
    assert before.get("domino_engine_live_matches") == 0
    assert before.get("domino_engine_moves_accepted_total", variant="hhl") == 0
    assert before.get("domino_engine_move_pace") == 0      # an idle engine is not paced

    # A match played to the end by bot processes, after one deliberately stale move.
    # A clock no bot process misses, however slow they are to start: its moves are the seats'.
    match_id, tokens = client.new_match("hhl", {"hands": 1}, seed=5, clock_ms=600_000)
    assert Scrape(url).get("domino_engine_live_matches") == 1
    with pytest.raises(grpc.RpcError) as refused:
        client.submit(match_id, tokens[0], version=7, move_id="0")
    assert refusal(refused.value)[1].reason == "STALE_VERSION"
    finish([start_bot(client.address, match_id, s, t) for s, t in enumerate(tokens)])
    played = wait_over(client, match_id).version

    # A match nobody plays: the turn clock (100 ms) plays every move.
    idle_id, _ = client.new_match("hhl", {"hands": 1}, seed=6, clock_ms=100)
    idle = wait_over(client, idle_id).version

    store = open_store(db)
    try:
        causes = [m.cause for m in store.moves(match_id)]
        idle_causes = [m.cause for m in store.moves(idle_id)]
    finally:
        store.close()
    assert len(causes) == played and set(causes) == {"seat"}
    assert len(idle_causes) == idle and "timeout" in idle_causes

    # A seat's move latency is counted just after its move is published (on PostgreSQL on
    # a thread of its own, beside this scrape): wait for the last one.
    wait_for(lambda: Scrape(url).get("domino_engine_move_latency_seconds_count") >= played,
             what="the last move's latency counted")
    after = Scrape(url)
    assert after.content_type.startswith("text/plain")
    assert after.get("domino_engine_moves_accepted_total", variant="hhl") == played + idle
    assert after.get("domino_engine_moves_accepted_total", variant="domeng") == 0
    # Only the seats' own moves have a latency from MoveChoice to commit.
    assert after.get("domino_engine_move_latency_seconds_count") == played
    assert 0 < after.get("domino_engine_move_latency_seconds_sum") < played
    assert after.get("domino_engine_timeouts_total", variant="hhl") == idle_causes.count("timeout")
    assert after.get("domino_engine_refusals_total", reason="STALE_VERSION") == 1
    assert after.total("domino_engine_refusals_total") == 1
    store_label = "postgresql" if is_dsn(db) else "sqlite"
    assert after.get("domino_engine_store_commit_seconds_count", store=store_label) == \
        played + idle
    assert after.get("domino_engine_live_matches") == 0
    assert after.get("domino_engine_owner_changes_total", kind="match") == 0


@pytest.mark.parametrize("value, says", [("70000", "wants a port 0..65535"),
                                         ("-1", "wants a port"), ("x", "wants a port")])
def test_a_bad_metrics_port_is_refused_where_it_is_typed(value, says):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "domino_cli", "engine", "--db", ":memory:",
                           "--port", "0", "--metrics-port", value],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and says in done.stderr


def test_a_metrics_port_in_use_fails_the_start_with_one_line(tmp_path):
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        with pytest.raises(SystemExit, match="the port is in use"):
            start_engine(":memory:", 0, str(tmp_path / "engine.log"),
                         extra=("--metrics-port", str(held.getsockname()[1])))
