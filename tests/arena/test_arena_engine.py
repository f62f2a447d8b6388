"""The arena against real `domino engine` processes on each store: accounts and keys, a
registered bot process that plays alone with the residents and shows on the leaderboard,
seat rotation and no repeated line-up end to end, and ratings that equal a recomputation
from the results after a restart."""

from __future__ import annotations

import contextlib
import json
import math
import signal
import subprocess
import sys
import threading

import grpc
import pytest

from domino_proto.domino.v1 import arena_pb2, engine_pb2, engine_pb2_grpc, game_pb2
from ladders.leaderboard import Board
from tests.arena.support import ArenaClient, arena_bot, first_message, wait_until
from tests.engine.support import refusal, start_engine


def domino(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os
    return subprocess.run([sys.executable, "-m", "domino_cli", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


@contextlib.contextmanager
def engine(db, *extra: str, log_path=None):
    proc, port = start_engine(db, extra=extra, log_path=log_path)
    client = ArenaClient(f"127.0.0.1:{port}")
    try:
        yield client, proc, port
    finally:
        client.close()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)


def refused(call, *args, **kw):
    with pytest.raises(grpc.RpcError) as e:
        call(*args, **kw)
    return refusal(e.value)


def finished(proc: subprocess.Popen, timeout: float = 120) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


# ----- accounts and keys --------------------------------------------------------------------
def test_bot_keys_registration_rotation_retirement_and_refusals(durable_db, tmp_path):
    alice = domino("keys", "create", "alice", "--quota", "bots=2", "--db", durable_db
                   ).stdout.strip()
    bob = domino("keys", "create", "bob", "--db", durable_db).stdout.strip()
    with engine(durable_db, "--keys", "--arena", "hhl") as (client, _, port):
        # Registering needs an operator key; a bot key is none.
        code, r = refused(client.register, "nokey")
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "NO_KEY")
        made = client.register("alpha", alice, "first")
        key = made.bot_key
        assert key.startswith("dbk_") and made.bot.owner == "alice" and not made.bot.retired
        code, r = refused(client.register, "beta", key)
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_KEY")
        engine_stub = engine_pb2_grpc.EngineStub(client.channel)
        code, r = refused(engine_stub.CreateMatch, engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL), metadata=(("authorization", f"Bearer {key}"),))
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_KEY")
        # Names: bounded, unique, never reused; the residents' prefix is theirs.
        for bad in ("", "x" * 41, "has space", "house-greedy"):
            code, r = refused(client.register, bad, alice)
            assert (code, r.reason, r.field) == (grpc.StatusCode.INVALID_ARGUMENT,
                                                 "MALFORMED_REQUEST", "name"), bad
        code, r = refused(client.register, "ok", alice, "\x07")
        assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "description")
        code, r = refused(client.register, "alpha", bob)
        assert (code, r.reason) == (grpc.StatusCode.ALREADY_EXISTS, "BOT_NAME_TAKEN")
        client.register("gamma", alice)
        code, r = refused(client.register, "delta", alice)     # bots=2
        assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "QUOTA_EXCEEDED")
        # The key opens a lobby; an unknown one is refused with its reason.
        lobby = client.lobby(key)
        assert first_message(lobby).WhichOneof("body") == "arena_welcome"
        code, r = refusal(first_message(client.lobby("dbk_nothing")))
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_BOT_KEY")
        code, r = refusal(first_message(client.lobby(key, arena="nowhere")))
        assert (code, r.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_ARENA")
        code, r = refusal(first_message(client.lobby(key, version="")))
        assert (code, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "hello.arena.version")
        # Only the owner rotates; the old key is refused at once, the open lobby ends.
        code, r = refused(client.call, "RotateBotKey", arena_pb2.RotateBotKeyRequest(
            name="alpha"), bob)
        assert (code, r.reason) == (grpc.StatusCode.PERMISSION_DENIED, "NOT_YOURS")
        new = client.call("RotateBotKey", arena_pb2.RotateBotKeyRequest(name="alpha"), alice)
        assert new.bot_key != key
        ended = [m for m in _drain(lobby)]
        code, r = refusal(ended[-1])
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_BOT_KEY")
        code, r = refusal(first_message(client.lobby(key)))
        assert r.reason == "BAD_BOT_KEY"
        # A second lobby of the same bot and arena replaces the first.
        first = client.lobby(new.bot_key)
        assert first_message(first).WhichOneof("body") == "arena_welcome"
        second = client.lobby(new.bot_key, version="v2")
        assert first_message(second).WhichOneof("body") == "arena_welcome"
        code, r = refusal(_drain(first)[-1])
        assert (code, r.reason) == (grpc.StatusCode.ABORTED, "LOBBY_REPLACED")
        # Retired: its lobbies end, it cannot connect, its row stays, marked.
        code, r = refused(client.call, "RetireBot", arena_pb2.RetireBotRequest(name="alpha"), bob)
        assert r.reason == "NOT_YOURS"
        gone = client.call("RetireBot", arena_pb2.RetireBotRequest(name="alpha"), alice)
        assert gone.retired and gone.retired_unix_s > 0
        code, r = refusal(_drain(second)[-1])
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BOT_RETIRED")
        code, r = refusal(first_message(client.lobby(new.bot_key)))
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BOT_RETIRED")
        profile = client.call("GetBot", arena_pb2.GetBotRequest(name="alpha"))
        assert profile.bot.retired and profile.bot.owner == "alice"
        code, r = refused(client.call, "GetBot", arena_pb2.GetBotRequest(name="nobody"))
        assert (code, r.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_BOT")
        # Nothing answered ever carried a key's hash, and no second answer the key itself.
        assert key not in str(profile) and new.bot_key not in str(profile)


def _drain(call) -> list:
    """Every message of a stream, then the error that ended it (if any)."""
    out = []
    try:
        for m in call:
            out.append(m)
    except grpc.RpcError as e:
        out.append(e)
    return out


# ----- a bot alone, end to end --------------------------------------------------------------
def test_a_registered_bot_process_alone_plays_the_residents_and_shows_on_the_leaderboard(
        store_db, tmp_path):
    with engine(store_db, "--arena", "hhl", log_path=tmp_path / "engine.log") as (client, _, port):
        made = client.register("solo")
        bot = arena_bot(f"127.0.0.1:{port}", made.bot_key, matches=4)
        entry = finished(bot)
        assert entry["name"] == "solo" and len(entry["matches"]) == 4 and not entry["pauses"]
        row = wait_until(lambda: (r := client.row("solo")) and r.matches == 4 and r, 120,
                         "solo's four counted matches")
        assert row.provisional and row.version == "v1" and not row.resident
        wait_until(lambda: not client.row("solo").online, 120, "solo gone from the lobby")
        assert math.isfinite(row.mean)
        board = client.board()
        residents = [r for r in board.rows if r.resident]
        assert {r.name for r in residents} == {"house-random", "house-greedy", "house-heuristic",
                                               "house-search", "house-expert"}
        assert all(r.online for r in residents)
        matches = list(reversed(client.matches("solo")))
        assert [m.status for m in matches] == [arena_pb2.ARENA_MATCH_STATUS_COUNTED] * 4
        for m in matches:
            names = [e.name for e in m.lineup]
            assert "solo" in names and sum(e.resident for e in m.lineup) == 3
            assert sum(f.crashes for f in m.result.faults) == 0
        # Seat positions rotate, and consecutive line-ups differ (5 candidates, 4 seats).
        seats = [[e.name for e in m.lineup].index("solo") for m in matches]
        assert len(set(seats)) > 1, seats
        lineups = [frozenset(e.name for e in m.lineup) for m in matches]
        assert all(a != b for a, b in zip(lineups, lineups[1:], strict=False)), lineups
        history = client.call("GetRatingHistory", arena_pb2.GetRatingHistoryRequest(
            arena_id="hhl", name="solo"))
        assert len(history.points) == 4 and history.version == "v1"
        assert (history.points[-1].mu, history.points[-1].sigma) == (row.mu, row.sigma)
        # Every arena match is an ordinary match: its record is public once it is over.
        record = engine_pb2_grpc.EngineStub(client.channel).GetRecord(
            engine_pb2.GetRecordRequest(match_id=matches[0].match_id), timeout=10)
        assert "solo" in record.record_json


# ----- ratings after a restart ---------------------------------------------------------------
def recomputed(client: ArenaClient, name: str, variant: str = "hhl") -> dict:
    """The ratings recomputed here from the counted results the engine lists."""
    results = []
    for m in client.matches(name):
        if m.status != arena_pb2.ARENA_MATCH_STATUS_COUNTED:
            continue
        r = m.result
        results.append({"sequence": r.sequence, "lineup": [[e.bot_id, e.version]
                                                           for e in r.lineup],
                        "scores": list(r.scores), "titles": list(r.titles), "deals": r.deals,
                        "faults": [{"timeouts": f.timeouts} for f in r.faults],
                        "ended": r.ended_unix_s})
    board = Board.of(variant, results)
    return {k: (e.mu, e.sigma, e.matches) for k, e in board.entries.items()}


def test_ratings_after_a_restart_equal_a_recomputation_from_the_results(durable_db, tmp_path):
    log = tmp_path / "engine.log"
    with engine(durable_db, "--arena", "domeng", log_path=log) as (client, _, port):
        made = client.register("steady")
        finished(arena_bot(f"127.0.0.1:{port}", made.bot_key, arena="domeng", matches=3))
        wait_until(lambda: (r := client.row("steady", "domeng")) and r.matches == 3, 120)
        before = {(r.bot_id, r.version): (r.mu, r.sigma, r.matches)
                  for r in client.board("domeng", all_versions=True).rows if r.matches}
    with engine(durable_db, "--arena", "domeng", log_path=log) as (client, _, port):
        after = {(r.bot_id, r.version): (r.mu, r.sigma, r.matches)
                 for r in client.board("domeng", all_versions=True).rows if r.matches}
        assert after == before
        assert recomputed(client, "steady", "domeng") == after
        # and the arena goes on from there: one more match, counted once, in sequence.
        # (on a seat stream per match, the way with no standby stream)
        finished(arena_bot(f"127.0.0.1:{port}", made.bot_key, "--no-standby", arena="domeng",
                           matches=1, version="v2"))
        wait_until(lambda: client.row("steady", "domeng", "v2"), 120)
        board = client.board("domeng", all_versions=True)
        assert board.matches == 4 and board.last_sequence == 4
        assert recomputed(client, "steady", "domeng") == {
            (r.bot_id, r.version): (r.mu, r.sigma, r.matches) for r in board.rows if r.matches}
        latest = [r for r in client.board("domeng").rows if r.name == "steady"]
        assert [r.version for r in latest] == ["v2"]     # the latest version by default


# ----- no-shows and duplicate sets ----------------------------------------------------------
def test_a_bot_that_never_comes_to_its_seat_is_played_charged_and_paused(tmp_path):
    with engine(":memory:", "--arena", "domeng", log_path=tmp_path / "engine.log") as (
            client, _, port):
        made = client.register("absent")
        lobby = client.lobby(made.bot_key, arena="domeng")
        messages = iter(lobby)
        assert next(messages).WhichOneof("body") == "arena_welcome"
        seat = next(m for m in messages if m.WhichOneof("body") == "arena_seat").arena_seat
        # No seat stream: after the seat wait the clock plays it, and the lobby is paused.
        paused = next(m for m in messages if m.WhichOneof("body") == "arena_paused")
        assert paused.arena_paused.reason == "no_show"
        row = wait_until(lambda: (r := client.row("absent", "domeng")) and r.matches and r, 120,
                         "the match played without the bot")
        assert row.faults.crashes == 1
        (m,) = client.matches("absent")
        assert m.match_id == seat.match_id and m.status == arena_pb2.ARENA_MATCH_STATUS_COUNTED
        assert m.result.faults[seat.seat].crashes == 1
        profile = client.call("GetBot", arena_pb2.GetBotRequest(name="absent"))
        (v,) = profile.versions
        assert v.online and v.paused == "no_show" and not v.free
        lobby.cancel()


def spy_on_the_set(client, stub, stop: threading.Event, seen: dict) -> None:
    """What a spy learns while one bot's duplicate set plays: it asks for the record of
    every counted match of the bot again and again. Each record it is given, it notes with
    the bot's matches listed right after (none may be in play then, nor made later)."""
    try:
        _spy(client, stub, stop, seen)
    except BaseException as e:   # told to the test, which asserts there was none
        seen["failed"] = repr(e)


def _spy(client, stub, stop: threading.Event, seen: dict) -> None:
    while not stop.is_set():
        for m in client.matches("dup"):
            if m.status != arena_pb2.ARENA_MATCH_STATUS_COUNTED or m.match_id in seen:
                continue
            try:
                stub.GetRecord(engine_pb2.GetRecordRequest(match_id=m.match_id), timeout=10)
            except grpc.RpcError as e:
                seen["refused"] += refusal(e)[1].reason == "DEAL_IN_PLAY"
                continue
            seen[m.match_id] = [(n.match_id, n.status) for n in client.matches("dup")]


def test_a_duplicate_arena_plays_each_deal_once_per_rotation_of_the_seats(tmp_path):
    with engine(":memory:", "--arena", "hhl:duplicate", log_path=tmp_path / "engine.log") as (
            client, _, port):
        made = client.register("dup")
        stub = engine_pb2_grpc.EngineStub(client.channel)
        stop, seen = threading.Event(), {"refused": 0}
        spy = threading.Thread(target=spy_on_the_set, args=(client, stub, stop, seen))
        spy.start()
        try:
            finished(arena_bot(f"127.0.0.1:{port}", made.bot_key, arena="hhl-duplicate",
                               matches=4))
        finally:
            stop.set()
            spy.join(60)
        # While a rotation was to come, the spy was refused; a record it was given came
        # when every match of the set was over, and no rotation was made after it.
        assert "failed" not in seen, seen["failed"]
        assert seen.pop("refused") > 0
        final = {m.match_id for m in client.matches("dup")}
        for listed in seen.values():
            assert all(status == arena_pb2.ARENA_MATCH_STATUS_COUNTED for _, status in listed)
            assert {match_id for match_id, _ in listed} == final
        wait_until(lambda: (r := client.row("dup", "hhl-duplicate")) and r.matches == 4, 120)
        matches = list(reversed(client.matches("dup")))
        assert {m.result.set for m in matches} == {matches[0].result.set}
        assert [m.result.rotation for m in matches] == [0, 1, 2, 3]
        base = [e.bot_id for e in matches[0].lineup]
        for r, m in enumerate(matches):
            assert [e.bot_id for e in m.lineup] == base[r:] + base[:r]
        records = [json.loads(stub.GetRecord(engine_pb2.GetRecordRequest(
            match_id=m.match_id), timeout=10).record_json) for m in matches]
        assert len({r["seed"] for r in records}) == 1        # one deal for the whole set
