"""Ladders run by the engine with real bot processes, as `domino ladder run` users see them."""

import json
import os
import subprocess
import sys
import threading
import time

import grpc
import pytest

from domino_proto.domino.v1 import (
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    ladder_pb2,
    ladder_pb2_grpc,
    play_pb2,
    play_pb2_grpc,
)
from domino_wire import game
from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from tests.bots_runner.conftest import EngineProcess

# Whole ladders of bot processes: minutes on a loaded machine.
pytestmark = pytest.mark.timeout(600)

DOMINO = [sys.executable, "-m", "domino_cli"]


def ladder_run(*args, timeout=240):
    p = subprocess.run([*DOMINO, "ladder", "run", *args, "--json"], capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def ladder_stub(address):
    return ladder_pb2_grpc.LadderStub(grpc.insecure_channel(address))


def test_small_ladder_end_to_end_with_real_bot_processes():
    s = ladder_run("--variant", "hhl", "--bots", "random,greedy,heuristic", "--matches", "6",
                   "--option", "hands=1", "--seed", "4", "--concurrency", "3")
    assert s["matches"] == 6 and s["voided"] == 0
    rows = s["entries"]
    assert sorted(r["entrant"] for r in rows) == ["greedy", "heuristic", "random"]
    assert [r["place"] for r in rows] == [1, 2, 3]
    assert all(r["matches"] >= 4 for r in rows)  # 3 entrants share 4 seats
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores, reverse=True)  # ordered by mu - 3 sigma
    assert all(r["faults"] == {"timeouts": 0, "illegal": 0, "disconnects": 0, "crashes": 0,
                               "spam": 0} for r in rows)


def test_until_separated_separates_greedy_from_random_in_hhl_and_stops():
    s = ladder_run("--variant", "hhl", "--bots", "random,greedy", "--until-separated", "--max-matches", "300",
                   "--option", "hands=2", "--seed", "1", "--concurrency", "4")
    assert s["separated"] and s["matches"] < 300
    assert [r["entrant"] for r in s["entries"]] == ["greedy", "random"]
    assert s["entries"][0]["separated_from_next"]


@pytest.fixture
def engine(tmp_path, durable_db):
    """A ladder engine on each store in turn: ladder rows, their matches, their results."""
    e = EngineProcess(tmp_path, durable_db)
    yield e
    e.stop()


def test_duplicate_format_plays_each_deal_in_every_rotation(engine):
    ladder_run("--variant", "hhl", "--bots", "random,greedy,heuristic,search", "--format", "duplicate",
               "--matches", "8", "--option", "hands=1", "--seed", "3", "--engine", engine.address)
    stub = ladder_stub(engine.address)
    (info,) = stub.ListLadders(ladder_pb2.ListLaddersRequest(), timeout=5).ladders
    matches = stub.ListLadderMatches(ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id), timeout=5).matches
    assert sorted(m.index for m in matches) == list(range(8))
    engine_stub = engine.client.stub
    sets = {}
    for m in matches:
        record = json.loads(engine_stub.GetRecord(engine_pb2.GetRecordRequest(match_id=m.match_id),
                                                  timeout=5).record_json)
        sets.setdefault(m.set, []).append((list(m.lineup), record["deals"][0]["hands"], record["seats"]))
    assert len(sets) == 2
    for plays in sets.values():
        assert len(plays) == 4
        assert all(p[1] == plays[0][1] for p in plays)  # one deal per set
        base = plays[0][0]
        rotations = sorted(tuple(base[r:] + base[:r]) for r in range(4))
        assert sorted(tuple(p[0]) for p in plays) == rotations
        for lineup, _, names in plays:
            assert names == lineup  # the record names the entrant in each seat


def test_engine_restart_mid_ladder_counts_every_match_once(engine):
    proc = subprocess.Popen([*DOMINO, "ladder", "run", "--variant", "hhl", "--bots", "random,greedy",
                             "--matches", "10", "--option", "hands=3", "--seed", "5", "--concurrency", "2",
                             "--engine", engine.address, "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stub = ladder_stub(engine.address)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ladders = stub.ListLadders(ladder_pb2.ListLaddersRequest(), timeout=5).ladders
        if ladders and ladders[0].matches_counted >= 3:
            break
        time.sleep(0.1)
    assert ladders[0].matches_counted >= 3
    engine.kill()
    engine.restart()
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err[-3000:]
    standings = json.loads(out)
    assert standings["matches"] == 10
    stub = ladder_stub(engine.address)
    matches = stub.ListLadderMatches(ladder_pb2.GetLadderRequest(ladder_id=ladders[0].ladder_id),
                                     timeout=5).matches
    counted = [m.index for m in matches if m.status == ladder_pb2.LADDER_MATCH_STATUS_COUNTED]
    assert sorted(counted) == list(range(10))  # every slot counted, none twice
    assert sum(r["matches"] for r in standings["entries"]) == 20  # 2 entrants in each match


def hung_bot(address, pool, name, secret, stop):
    """Enlists, takes seats, never answers a turn: the clocks play for it."""
    channel = grpc.insecure_channel(address)
    stub = play_pb2_grpc.PlayStub(channel)

    def requests():
        yield play_pb2.BotMessage(hello=play_pb2.Hello(pool=play_pb2.PoolEnlist(
            pool=pool, name=name, capacity=4, secret=secret)))
        stop.wait()

    try:
        for _ in stub.Connect(requests()):
            if stop.is_set():
                break
    except grpc.RpcError:
        pass
    channel.close()


def test_a_hung_bot_and_a_missing_bot_are_charged_and_the_ladder_goes_on():
    engine = Engine()
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=64)
    address = f"127.0.0.1:{port}"
    stop = threading.Event()
    try:
        stub = ladder_stub(address)
        created = stub.CreateLadder(ladder_pb2.CreateLadderRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}), seed=2, matches=3,
            # The clock and the wait for a seat are what the greedy bot process must answer
            # and enlist within on a loaded machine (its start takes seconds there): the
            # sleeper is charged a timeout per turn, the ghost a no-show.
            entrants=["greedy", "sleeper", "ghost"], concurrency=3, clock_ms=3000, seat_wait_s=10),
            timeout=5)
        info, enlist = created.ladder, {p.entrant: p.enlist_secret for p in created.pools}
        bots = subprocess.Popen([*DOMINO, "bot", "--engine", address, "--strategy", "greedy",
                                 "--pool", f"{info.key}/greedy", "--name", "greedy", "--bots", "2",
                                 "--capacity", "3", "--matches", "0"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "DOMINO_POOL_SECRET": enlist["greedy"]})
        sleeper = threading.Thread(target=hung_bot, args=(address, info.key, "sleeper",
                                                          enlist["sleeper"], stop), daemon=True)
        sleeper.start()
        deadline = time.monotonic() + 120
        while stub.GetLadder(ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id),
                             timeout=5).status != ladder_pb2.LADDER_STATUS_DONE:
            assert time.monotonic() < deadline, "the ladder did not finish"
            time.sleep(0.2)
        s = stub.GetStandings(ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id), timeout=5)
        faults = {r.entrant: r.faults for r in s.entries}
        assert s.matches == 3
        assert faults["sleeper"].timeouts > 0  # it enlisted (pool key + its name) but never answered
        assert faults["ghost"].crashes >= 1  # it never came: a no-show
        assert faults["greedy"].timeouts == 0 and faults["greedy"].crashes == 0
        assert faults["greedy"].illegal == 0
    finally:
        stop.set()
        bots.terminate()
        bots.wait(60)
        server.stop(0)
        engine.close()


def test_a_voided_match_is_played_again_and_counted_once():
    engine = Engine()
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=64)
    address = f"127.0.0.1:{port}"
    d, enlist = engine.ladders.create({"variant": "hhl", "entrants": ["a", "b"], "matches": 3,
                                       "concurrency": 1, "options": {"hands": 1}, "seed": 3})
    bots = [subprocess.Popen([*DOMINO, "bot", "--engine", address, "--strategy", "random",
                              "--pool", f"{d.spec['key']}/{name}", "--bots", "2", "--matches", "0",
                              "--delay", "0.05"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, "DOMINO_POOL_SECRET": enlist[name]})
            for name in ("a", "b")]
    try:
        deadline = time.monotonic() + 60
        while not d.playing:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        first = next(iter(d.playing))
        d.void(first, "test: the engine broke this match")
        while d.status != "done":
            assert time.monotonic() < deadline + 60, "the ladder did not finish"
            time.sleep(0.1)
        ms = d.matches()
        assert [m["status"] for m in ms].count("voided") == 1
        voided = next(m for m in ms if m["status"] == "voided")
        replayed = [m for m in ms if m["index"] == voided["index"] and m["status"] == "counted"]
        assert len(replayed) == 1  # the slot was played again
        s = d.standings()
        assert s["matches"] == 3 and s["voided"] == 1
    finally:
        for b in bots:
            b.terminate()
            b.wait(60)
        server.stop(0)
        engine.close()


def test_a_ladder_with_profile_literal_plays_literal_matches_of_its_default_length():
    """--option profile=literal alone: the ladder's default length (director.DEFAULT_OPTIONS)
    stays, and every match plays the literal readings; the records say so."""
    engine = Engine()
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=32)
    address = f"127.0.0.1:{port}"
    try:
        s = ladder_run("--variant", "domeng", "--bots", "random,greedy", "--matches", "2",
                       "--option", "profile=literal", "--seed", "6", "--engine", address)
        assert s["matches"] == 2 and s["voided"] == 0
        stub = ladder_stub(address)
        (info,) = stub.ListLadders(ladder_pb2.ListLaddersRequest(), timeout=5).ladders
        assert game.options(info.options)["profile"] == "literal"
        matches = stub.ListLadderMatches(ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id),
                                         timeout=5).matches
        assert len(matches) == 2
        for m in matches:
            record = json.loads(_record(address, m.match_id))
            assert record["options"] == {"cycles": 1, "round_cap": 200, "profile": "literal",
                                         "closing_pass": "paid", "first_lead": "any"}
    finally:
        server.stop(0)
        engine.close()


def _record(address: str, match_id: str) -> str:
    stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
    return stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id), timeout=5).record_json
