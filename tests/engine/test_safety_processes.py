"""Safe on a network (docs/security.md), as an operator meets it: real `domino engine`
processes, their start-up failures, API keys and quotas from the command line, end to end."""

import json
import socket
import sqlite3
import subprocess
import sys

import grpc
import pytest

from domino_proto.domino.v1 import (
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    ladder_pb2,
    ladder_pb2_grpc,
)
from domino_wire import game

from .support import refusal, start_engine

DOMINO = [sys.executable, "-m", "domino_cli"]


def domino(*args, timeout=60, **kwargs):
    return subprocess.run([*DOMINO, *args], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def one_line_failure(done, *words):
    """A start-up failure as users see it: exit 1, one line, no traceback."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = [line for line in done.stderr.splitlines() if line.strip() and " INFO " not in line]
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def stub_at(port):
    return engine_pb2_grpc.EngineStub(grpc.insecure_channel(f"127.0.0.1:{port}"))


def test_an_engine_on_a_port_in_use_says_so_and_exits(tmp_path):
    """Finding 9: gRPC's SO_REUSEPORT let a second engine share the port."""
    first, port = start_engine(tmp_path / "a.sqlite3")
    try:
        done = domino("engine", "--port", str(port), "--db", str(tmp_path / "b.sqlite3"))
        one_line_failure(done, f"127.0.0.1:{port}", "in use")
        with socket.socket() as s:            # a port held by something else entirely
            s.bind(("127.0.0.1", 0))
            s.listen()
            other = s.getsockname()[1]
            done = domino("engine", "--port", str(other), "--db", str(tmp_path / "c.sqlite3"))
            one_line_failure(done, "in use")
            done = domino("serve", "--port", "0", "--engine-port", str(other), "--bots", "",
                          "--db", str(tmp_path / "d.sqlite3"))
            assert done.returncode != 0 and "Traceback" not in done.stderr
            assert "in use" in done.stderr
    finally:
        first.terminate()
        first.wait(60)


def played_store(path):
    """A store with finished matches and one unfinished match of many moves."""
    proc, port = start_engine(path)
    stub = stub_at(port)
    ids = []
    for seed in range(3):
        created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 3}), seed=seed), timeout=5)
        tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s),
                                 timeout=5).seat_token for s in range(4)]
        ids.append((created.match_id, tokens))
    for match_id, tokens in ids:
        for _ in range(60):
            s = stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), timeout=5).summary
            if s.status == common_pb2.MATCH_STATUS_OVER:
                break
            stub.SubmitMove(engine_pb2.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[s.to_move], expected_version=s.version,
                move_id="0"), timeout=5)
    proc.kill()
    proc.wait(60)
    return [m for m, _ in ids]


def test_a_damaged_store_is_named_with_its_damaged_match_and_what_to_do(tmp_path):
    db = tmp_path / "engine.sqlite3"
    ids = played_store(db)
    with sqlite3.connect(db) as c:               # fold the WAL in, find a page of moves
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = [r[0] for r in c.execute(
            "SELECT pageno FROM dbstat WHERE name = 'moves' AND pagetype = 'leaf'")]
        page_size = c.execute("PRAGMA page_size").fetchone()[0]
    assert pages
    with open(db, "r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * page_size + 8)
        f.write(b"\xde\xad\xbe\xef" * 64)
    done = domino("engine", "--port", "0", "--db", str(db))
    line = one_line_failure(done, str(db), "damaged", "backup")
    assert any(m in line for m in ids), line


def test_a_file_that_is_no_store_is_named(tmp_path):
    db = tmp_path / "notes.txt"
    db.write_text("this is not a database\n" * 100)
    one_line_failure(domino("engine", "--port", "0", "--db", str(db)), str(db))


def test_a_refused_poison_is_not_stored_and_the_engine_starts_again(tmp_path):
    """Finding 2: the match was stored before the options were refused, and recovery then
    died on it at every start."""
    db = tmp_path / "engine.sqlite3"
    proc, port = start_engine(db)
    try:
        with pytest.raises(grpc.RpcError) as info:
            stub_at(port).CreateMatch(engine_pb2.CreateMatchRequest(
                variant=game_pb2.VARIANT_HHL,
                options=game.options_pb("hhl", {"minutes": 2**31 - 1})),
                timeout=5)
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        proc.kill()
        proc.wait(60)
    proc, port = start_engine(db, port)          # starts, on the same store
    try:
        listed = stub_at(port).ListMatches(engine_pb2.ListMatchesRequest(), timeout=5)
        assert list(listed.matches) == []
    finally:
        proc.terminate()
        proc.wait(60)


def key_metadata(key):
    return (("authorization", f"Bearer {key}"),)


def test_keys_quotas_and_cancel_end_to_end(tmp_path):
    db = tmp_path / "engine.sqlite3"
    made = domino("keys", "create", "alice", "--quota", "live_matches=1,ladders=1", "--db",
                  str(db))
    assert made.returncode == 0, made.stderr
    alice = made.stdout.strip()
    bob = domino("keys", "create", "bob", "--db", str(db)).stdout.strip()
    assert alice.startswith("dk_") and alice not in (tmp_path / "engine.sqlite3").read_bytes().decode(
        "latin-1")
    again = domino("keys", "create", "alice", "--db", str(db))
    assert again.returncode != 0 and "exists" in again.stderr
    proc, port = start_engine(db, extra=("--keys",))
    try:
        stub = stub_at(port)
        request = engine_pb2.CreateMatchRequest(variant=game_pb2.VARIANT_HHL,
                                                options=game.options_pb("hhl", {"hands": 1}))
        for metadata, reason in (((), "NO_KEY"), (key_metadata("dk_guess"), "BAD_KEY")):
            with pytest.raises(grpc.RpcError) as info:
                stub.CreateMatch(request, timeout=5, metadata=metadata)
            code, r = refusal(info.value)
            assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, reason)
        stub.CreateMatch(request, timeout=5, metadata=key_metadata(alice))
        with pytest.raises(grpc.RpcError) as info:      # alice's quota: one live match
            stub.CreateMatch(request, timeout=5, metadata=key_metadata(alice))
        code, r = refusal(info.value)
        assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED")
        stub.CreateMatch(request, timeout=5, metadata=key_metadata(bob))   # bob has his own

        ladders = ladder_pb2_grpc.LadderStub(grpc.insecure_channel(f"127.0.0.1:{port}"))
        ladder = ladders.CreateLadder(ladder_pb2.CreateLadderRequest(
            variant=game_pb2.VARIANT_HHL, entrants=["a", "b"], matches=5,
            options=game.options_pb("hhl", {"hands": 1})), timeout=5, metadata=key_metadata(alice)).ladder
        assert ladder.created_by == "alice"
        get = ladder_pb2.GetLadderRequest(ladder_id=ladder.ladder_id)
        with pytest.raises(grpc.RpcError) as info:      # only its creator may cancel it
            ladders.CancelLadder(get, timeout=5, metadata=key_metadata(bob))
        assert refusal(info.value)[1].reason == "NOT_YOURS"
        done = domino("ladder", "cancel", ladder.ladder_id, "--engine", f"127.0.0.1:{port}",
                      env={"DOMINO_API_KEY": alice, "PATH": ""})
        assert done.returncode == 0 and "cancelled" in done.stdout, done.stderr

        assert domino("keys", "revoke", "bob", "--db", str(db)).returncode == 0
        with pytest.raises(grpc.RpcError) as info:      # a revoked key stops at once
            stub.CreateMatch(request, timeout=5, metadata=key_metadata(bob))
        assert refusal(info.value)[1].reason == "BAD_KEY"
        listed = [json.loads(line) for line in
                  domino("keys", "list", "--db", str(db)).stdout.splitlines()]
        assert [(k["name"], k["revoked"]) for k in listed] == [("alice", False), ("bob", True)]
        assert not any(alice in json.dumps(k) for k in listed)
        log = (tmp_path / "engine.sqlite3").with_suffix(".log")
        assert not log.exists() or alice not in log.read_text()
    finally:
        proc.terminate()
        proc.wait(60)


def test_an_engine_on_another_address_needs_keys_unless_told_open(tmp_path):
    proc, port = start_engine(tmp_path / "x.sqlite3", extra=("--keys",))
    try:
        with pytest.raises(grpc.RpcError) as info:
            stub_at(port).CreateMatch(engine_pb2.CreateMatchRequest(
                variant=game_pb2.VARIANT_HHL), timeout=5)
        assert refusal(info.value)[1].reason == "NO_KEY"
    finally:
        proc.terminate()
        proc.wait(60)
    from domino_cli.engine_cmd import is_loopback, open_mode

    class Args:
        def __init__(self, host, open_=False, keys=False):
            self.host, self.open, self.keys = host, open_, keys
    assert open_mode(Args("127.0.0.1")) and open_mode(Args("::1")) and open_mode(Args("localhost"))
    assert not open_mode(Args("0.0.0.0")) and not open_mode(Args("192.168.1.5"))
    assert open_mode(Args("0.0.0.0", open_=True)) and not open_mode(Args("127.0.0.1", keys=True))
    assert is_loopback("127.0.0.7") and not is_loopback("example.com")


def test_rest_creating_needs_a_key_when_the_engine_does(tmp_path):
    from gateway import create_app

    db = tmp_path / "engine.sqlite3"
    key = domino("keys", "create", "web", "--db", str(db)).stdout.strip()
    proc, port = start_engine(db, extra=("--keys",))
    try:
        body = {"variant": "hhl", "options": {"hands": 1}}
        plain = create_app({"ENGINE_ADDRESS": f"127.0.0.1:{port}", "API_KEY": ""}).test_client()
        r = plain.post("/api/v1/matches", json=body)
        assert (r.status_code, r.get_json()["reason"]) == (401, "NO_KEY")
        r = plain.post("/api/v1/matches", json=body, headers={"Authorization": "Bearer dk_no"})
        assert (r.status_code, r.get_json()["reason"]) == (401, "BAD_KEY")
        r = plain.post("/api/v1/matches", json=body, headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 201 and "seed" not in r.get_json()
        lobby = create_app({"ENGINE_ADDRESS": f"127.0.0.1:{port}", "API_KEY": key}).test_client()
        assert lobby.post("/api/v1/matches", json=body).status_code == 201  # the gateway's own
        assert plain.get("/api/v1/matches").status_code == 200              # reading is public
    finally:
        proc.terminate()
        proc.wait(60)
