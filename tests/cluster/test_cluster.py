"""Several engines on one PostgreSQL store (docs/cluster.md), as real processes on 127.0.0.1:
routing, failover after kill -9, the SIGSTOP fence, a ladder's failover, a rolling restart.
The long kill loop (10 kills, with failover times) is in `make bench` (benchmarks/cluster_bench.py);
this file runs a short one."""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import time

import grpc
import pytest

from domino_cli.processes import DOMINO
from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, ladder_pb2
from domino_wire.refusals import refusal_of
from tests.cluster.support import (
    LEASE_S,
    kill_loop,
    new_match,
    over,
    record_of,
    start_bots,
    versions,
)
from tests.engine.support import finish
from tests.engine.test_processes import uninterrupted

# Engines, PostgreSQL and bot processes, kills and failovers: minutes on a loaded machine.
pytestmark = pytest.mark.timeout(600)

HHL = {"hands": 2}


def replays(record: dict, tmp_path) -> None:
    path = tmp_path / f"record-{record['seed']}.json"
    path.write_text(json.dumps(record))
    done = subprocess.run([sys.executable, "-m", "domino_cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "record OK" in done.stdout, done.stdout + done.stderr


def test_members_routing_and_placement(cluster):
    c = cluster(3)
    members = c.members(via=1)
    assert sorted(e.address for e in members if e.live) == sorted(c.addresses.split(","))
    assert [e.address for e in members if e.this_engine] == [c.address(1)]
    with contextlib.closing(c.router(0)) as router:
        made = [new_match(router, "hhl", HHL, seed=s)[0] for s in range(9)]
    # Every one was made through engine 0, and placed by load: on more than one engine.
    owners = [c.owner_of(m) for m in made]
    assert None not in owners and len(set(owners)) >= 2, owners
    # Any engine answers for any match: one that does not own it names the owner.
    match_id = made[0]
    other = (owners[0] + 1) % 3
    with grpc.insecure_channel(c.address(other)) as channel:
        with pytest.raises(grpc.RpcError) as refused:
            engine_pb2_grpc.EngineStub(channel).GetMatch(
                engine_pb2.GetMatchRequest(match_id=match_id), timeout=5)
    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
    refusal = refusal_of(refused.value)
    assert refusal.reason == "NOT_OWNER" and refusal.owner == c.address(owners[0])


def test_matches_made_on_each_engine_are_played_by_bots_on_another(cluster, tmp_path):
    c = cluster(3)
    matches = []
    for i in range(3):
        with contextlib.closing(c.router(i)) as router:
            match_id, tokens = new_match(router, "hhl", HHL, seed=60 + i, here=True)
        assert c.owner_of(match_id) == i
        matches.append((match_id, tokens, 60 + i))
    # Each match's bots know only the next engine's address: they are sent to the owner.
    bots = [b for i, (m, t, _) in enumerate(matches) for b in start_bots(c.address((i + 1) % 3), m, t)]
    finish(bots, timeout=120)
    with contextlib.closing(c.router()) as router:
        for match_id, _, seed in matches:
            record = record_of(router, match_id)
            assert record == uninterrupted("hhl", HHL, seed)
            replays(record, tmp_path)


def test_rest_through_a_gateway_that_knows_one_engine(cluster):
    from gateway.app import create_app
    from tests.engine.support import run_threads
    from tests.gateway.gateway_support import RestPlayer

    c = cluster(2)
    with contextlib.closing(c.router(0)) as router:
        match_id, _ = new_match(router, "hhl", {"hands": 1}, seed=7, here=True)   # seats taken
        for s in range(3):   # busy engine 0, so that a REST match is placed on engine 1
            new_match(router, "hhl", {"hands": 1}, seed=s, here=True)
    app = create_app({"ENGINE_ADDRESS": c.address(0), "HOUSE_STRATEGIES": []})
    client = app.test_client()
    r = client.post("/api/v1/matches", json={"variant": "hhl", "seed": 3,
                                              "options": {"hands": 1}})
    assert r.status_code == 201, r.get_json()
    rest_match = r.get_json()["match_id"]
    assert c.owner_of(rest_match) == 1        # placed by load, on the engine it does not know
    players = [RestPlayer(client, rest_match, s) for s in range(4)]
    run_threads([p.play_to_end for p in players])
    over = client.get(f"/api/v1/matches/{rest_match}").get_json()
    assert over["status"] == "over"
    assert client.get(f"/api/v1/matches/{match_id}").get_json()["match_id"] == match_id
    engines = client.get("/api/v1/engines")
    assert engines.status_code == 200, engines.get_json()
    assert sorted(e["address"] for e in engines.get_json()["engines"] if e["live"]) == \
        sorted(c.addresses.split(","))


def test_kill_9_of_owners_at_random_moments_loses_no_move(cluster, tmp_path):
    c = cluster(3)
    rng = random.Random(15)
    with contextlib.closing(c.router()) as router:
        matches = [(*new_match(router, "hhl", HHL, seed=70 + i), 70 + i) for i in range(3)]
        bots = [b for m, t, _ in matches for b in start_bots(c.addresses, m, t)]
        ids = [m for m, _, _ in matches]
        # Each failover's time is a figure of `make bench` (cluster); here, that they happen.
        times = kill_loop(c, router, ids, kills=2, rng=rng)
        assert len(times) >= 1, times
        finish(bots, timeout=180)
        for match_id, _, seed in matches:
            record = record_of(router, match_id)
            assert record == uninterrupted("hhl", HHL, seed)   # as if never interrupted
            replays(record, tmp_path)
            # The log has each version once, from 1 up: nothing lost, nothing twice.
            count, top = c.sql("SELECT count(*), max(version) FROM moves WHERE match_id = %s",
                               (match_id,))[0]
            assert count == top == versions(router, [match_id])[match_id]


def test_a_paused_owner_finds_its_writes_refused_and_drops_the_match(cluster):
    c = cluster(2)
    with contextlib.closing(c.router()) as router:
        with contextlib.closing(c.router(0)) as first:
            match_id, tokens = new_match(first, "hhl", HHL, seed=80, here=True)
        epoch = c.epoch_of(match_id)
        bots = start_bots(c.addresses, match_id, tokens, delay=0.05)
        deadline = time.monotonic() + 30
        while versions(router, [match_id])[match_id] < 8:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        c.pause(0)
        try:
            deadline = time.monotonic() + LEASE_S + 10
            while c.owner_of(match_id) != 1:      # engine 1 takes it once the lease is out
                assert time.monotonic() < deadline, "the paused engine's match was not taken"
                time.sleep(0.05)
            assert c.epoch_of(match_id) > epoch
            taken_at = versions(router, [match_id])[match_id]
        finally:
            c.resume(0)
        # Resumed, engine 0 still believes it owns the match until a write or its next
        # heartbeat tells it otherwise; then it refers clients to engine 1.
        deadline = time.monotonic() + 10
        while True:
            with grpc.insecure_channel(c.address(0)) as channel:
                try:
                    engine_pb2_grpc.EngineStub(channel).GetView(engine_pb2.GetViewRequest(
                        match_id=match_id, seat_token=tokens[0]), timeout=5)
                except grpc.RpcError as e:
                    refusal = refusal_of(e)
                    if refusal is not None and refusal.reason == "NOT_OWNER":
                        assert refusal.owner == c.address(1)
                        break
            assert time.monotonic() < deadline, "the resumed engine kept the match"
            time.sleep(0.05)
        finish(bots, timeout=120)
        assert versions(router, [match_id])[match_id] > taken_at
        assert record_of(router, match_id) == uninterrupted("hhl", HHL, 80)
        count, top = c.sql("SELECT count(*), max(version) FROM moves WHERE match_id = %s",
                           (match_id,))[0]
        assert count == top   # never split: one row per version


def test_a_ladder_fails_over_with_its_director(cluster):
    c = cluster(2)
    proc = subprocess.Popen([*DOMINO, "ladder", "run", "--variant", "hhl", "--bots", "random,greedy",
                             "--matches", "6", "--option", "hands=2", "--seed", "5",
                             "--concurrency", "2", "--engine", c.addresses, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            rows = c.sql("SELECT l.id, e.address FROM ladders l JOIN engines e ON e.id = l.owner")
            counted = c.sql("SELECT count(*) FROM ladder_results")[0][0]
            if rows and counted >= 2:
                break
            assert time.monotonic() < deadline, "the ladder did not start"
            time.sleep(0.1)
        ladder_id, owner_address = rows[0]
        owner = c.addresses.split(",").index(owner_address)
        c.kill(owner)          # the director's engine: the other takes the ladder
        deadline = time.monotonic() + 30
        while c.sql("SELECT e.address FROM ladders l JOIN engines e ON e.id = l.owner "
                    "WHERE l.id = %s", (ladder_id,)) != [(c.address(1 - owner),)]:
            assert time.monotonic() < deadline, "no engine took the ladder over"
            time.sleep(0.1)
        out, err = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    standings = json.loads(out)
    assert standings["matches"] == 6
    with contextlib.closing(c.router(1 - owner)) as router:
        matches = router.call("ListLadderMatches", ladder_pb2.GetLadderRequest(
            ladder_id=ladder_id), about=ladder_id, service="Ladder").matches
    counted = ladder_pb2.LADDER_MATCH_STATUS_COUNTED
    assert sorted(m.index for m in matches if m.status == counted) == list(range(6))


def test_a_rolling_restart_loses_no_match(cluster, tmp_path):
    c = cluster(3)
    with contextlib.closing(c.router()) as router:
        matches = [(*new_match(router, "hhl", HHL, seed=90 + i), 90 + i) for i in range(3)]
        bots = [b for m, t, _ in matches for b in start_bots(c.addresses, m, t, delay=0.03)]
        for i in range(3):
            # Each engine is drained while the matches are being played: after some moves.
            before = versions(router, [m for m, _, _ in matches])
            deadline = time.monotonic() + 60
            while not all(v > before[m] + 2 or over(router, m) for m, v in
                          versions(router, list(before)).items()):
                assert time.monotonic() < deadline, "the matches do not move"
                time.sleep(0.05)
            assert c.drain(i) == 0          # SIGTERM: hands its matches over, exits 0
            c.restart(i)
            c.wait_members(3)
        finish(bots, timeout=180)
        for match_id, _, seed in matches:
            assert record_of(router, match_id) == uninterrupted("hhl", HHL, seed)


def test_domino_serve_runs_several_engines_on_one_database(pg_dsn):
    """`domino serve --engines 2`: two engines, the gateway and house bots on them all; a
    match made over REST with house bots is played to its end. On SQLite it says why not."""
    import re
    import signal
    import urllib.request

    refused = subprocess.run([*DOMINO, "serve", "--engines", "2", "--db", "x.sqlite3"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "PostgreSQL" in refused.stderr, refused.stderr
    p = subprocess.Popen([*DOMINO, "serve", "--engines", "2", "--db", pg_dsn, "--port", "0",
                          "--engine-port", "0", "--bots", "random"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = p.stdout.readline()
        url = re.search(r"(http://\S+/)", line).group(1)
        deadline = time.monotonic() + 20
        while True:
            engines = json.loads(urllib.request.urlopen(url + "api/v1/engines").read())["engines"]
            if sum(e["live"] for e in engines) == 2:
                break
            assert time.monotonic() < deadline, engines
            time.sleep(0.2)
        body = json.dumps({"variant": "hhl", "options": {"hands": 1},
                           "seats": [{"kind": "bot", "strategy": "random"}] * 4}).encode()
        made = json.loads(urllib.request.urlopen(urllib.request.Request(
            url + "api/v1/matches", body, {"Content-Type": "application/json"})).read())
        deadline = time.monotonic() + 60
        while json.loads(urllib.request.urlopen(
                url + f"api/v1/matches/{made['match_id']}").read())["status"] != "over":
            assert time.monotonic() < deadline, "the house bots did not finish the match"
            time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        assert p.wait(30) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
