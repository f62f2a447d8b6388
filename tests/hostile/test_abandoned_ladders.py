"""Ladders nobody plays, and ladders of a revoked key (docs/security.md, "Revoking a key";
docs/ladders.md, "Abandoned ladders").

The attack that worked: four ladders nobody played ran at 620 moves/s, a sixth of a core
and 5.7 GB of store a day, for weeks, and once their key was revoked CancelLadder refused
everyone. Here, on an engine that needs keys (each store): a ladder nobody plays pauses
after 3 matches that only the clock played and then starts nothing, until a bot enlists
and it resumes; revoking its key (`domino keys revoke`) cancels it at once, and an
operator cancels any ladder on the store (`domino ladder cancel --operator`). The
revoked key's other matches are left to end by themselves.
"""

from __future__ import annotations

import subprocess
import threading

import grpc
import pytest

from domino_cli.processes import DOMINO
from domino_proto.domino.v1 import engine_pb2, game_pb2, ladder_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from domino_wire.refusals import refusal_of
from tests.engine.support import refusal, wait_for
from tests.hostile.keyed import KeyedEngines, as_key, make_key

PAUSED, RUNNING = ladder_pb2.LADDER_STATUS_PAUSED, ladder_pb2.LADDER_STATUS_RUNNING
CANCELLED = ladder_pb2.LADDER_STATUS_CANCELLED


@pytest.fixture
def engine(durable_db, tmp_path):
    e = KeyedEngines(durable_db, str(tmp_path / "engines.log"))
    yield e
    e.close()


def abandoned_ladder(engine, key, **spec):
    request = ladder_pb2.CreateLadderRequest(
        variant=game_pb2.VARIANT_HHL, entrants=["a", "b"], matches=500, concurrency=4,
        clock_ms=100, seat_wait_s=1, options=game.options_pb("hhl", {"hands": 1}), **spec)
    created = engine.ladder(0).CreateLadder(request, timeout=5, metadata=as_key(key))
    return created.ladder.ladder_id, {p.entrant: p for p in created.pools}


def ladder(engine, ladder_id):
    return engine.ladder(0).GetLadder(ladder_pb2.GetLadderRequest(ladder_id=ladder_id), timeout=5)


def started(engine, ladder_id) -> int:
    return len(engine.ladder(0).ListLadderMatches(ladder_pb2.GetLadderRequest(
        ladder_id=ladder_id), timeout=5).matches)


def canary(engine, key) -> str:
    """A match of `key`'s that its clocks play, 100 ms a move: time passing, made visible."""
    stub = engine.engine(0)
    created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, bot_clock_ms=100, here=True,
        options=game.options_pb("hhl", {"hands": 50})), timeout=5, metadata=as_key(key))
    for s, secret in enumerate(created.claim_secrets):
        stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s,
                                                   claim_secret=secret), timeout=5)
    return created.match_id


def version(engine, match_id) -> int:
    """The match's version, asked of the engine that plays it. On PostgreSQL the canary is
    made on engine 0, but an engine whose heartbeat lapses (a loaded machine) has its
    matches taken over by the other, as a cluster should: each engine is asked in turn
    until one answers as the owner (the others refuse with NOT_OWNER)."""
    answers: list[int] = []

    def asked() -> bool:
        for stub in engine.engines:
            try:
                answers.append(stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                             timeout=5).summary.version)
                return True
            except grpc.RpcError as e:
                if getattr(refusal_of(e), "reason", None) != "NOT_OWNER":
                    raise
        return False
    wait_for(asked, timeout=30, what="an engine that plays the match")
    return answers[-1]


def enlist(engine, pool, stop: threading.Event):
    """A bot enlisting in `pool` (an EntrantPool) and playing nothing: the one thing that
    resumes a paused ladder."""
    channel = grpc.insecure_channel(engine.addresses[0])

    def messages():
        yield play_pb2.BotMessage(hello=play_pb2.Hello(pool=play_pb2.PoolEnlist(
            pool=pool.pool, capacity=1, secret=pool.enlist_secret)))
        stop.wait()
    try:
        for _ in play_pb2_grpc.PlayStub(channel).Connect(messages()):
            if stop.is_set():
                break
    except grpc.RpcError:
        pass
    channel.close()


def domino(*args):
    return subprocess.run([*DOMINO, *args], capture_output=True, text=True, timeout=60)


def test_an_abandoned_ladder_pauses_costs_nothing_and_resumes_when_a_bot_comes(engine, durable_db):
    alice = make_key(durable_db, "alice")
    ladder_id, pools = abandoned_ladder(engine, alice)
    wait_for(lambda: ladder(engine, ladder_id).status == PAUSED, timeout=90,
             what="the abandoned ladder to pause")
    wait_for(lambda: ladder(engine, ladder_id).matches_playing == 0, timeout=60,
             what="its last matches to end")
    info = ladder(engine, ladder_id)
    assert info.matches_counted >= 3 and not info.HasField("seed")   # paused: still running
    results = engine.ladder(0).ListLadderMatches(ladder_pb2.GetLadderRequest(
        ladder_id=ladder_id), timeout=5).matches
    assert all(m.result.unplayed for m in results if m.HasField("result"))
    # Paused, it starts nothing: while the clock plays 30 moves of another match (3 s, six
    # rounds of the director), no match of the ladder's is started.
    before, clock = started(engine, ladder_id), canary(engine, alice)
    mark = version(engine, clock)
    wait_for(lambda: version(engine, clock) >= mark + 30, timeout=60, what="30 clock moves")
    assert started(engine, ladder_id) == before and ladder(engine, ladder_id).status == PAUSED
    # A bot enlists: it resumes, and schedules again.
    stop = threading.Event()
    bot = threading.Thread(target=enlist, args=(engine, pools["a"], stop), daemon=True)
    bot.start()
    try:
        wait_for(lambda: started(engine, ladder_id) > before, timeout=30,
                 what="the resumed ladder to start a match")
        assert ladder(engine, ladder_id).status in (RUNNING, PAUSED)
    finally:
        stop.set()


def test_revoking_a_key_cancels_its_ladders_and_an_operator_cancels_any(engine, durable_db):
    alice, bob = make_key(durable_db, "alice"), make_key(durable_db, "bob")
    mine = [abandoned_ladder(engine, alice)[0] for _ in range(2)]
    theirs, _ = abandoned_ladder(engine, bob)
    clock = canary(engine, alice)
    get = ladder_pb2.GetLadderRequest(ladder_id=theirs)
    with pytest.raises(grpc.RpcError) as info:       # only bob, or an operator
        engine.ladder(0).CancelLadder(get, timeout=5, metadata=as_key(alice))
    assert refusal(info.value)[1].reason == "NOT_YOURS"

    revoked = domino("keys", "revoke", "alice", "--db", durable_db)
    assert revoked.returncode == 0, revoked.stderr
    assert sorted(revoked.stdout.split()) == sorted(
        [w for ladder_id in mine for w in ("ladder", ladder_id, "cancelled")])
    for ladder_id in mine:
        wait_for(lambda i=ladder_id: ladder(engine, i).status == CANCELLED, timeout=10,
                 what="the revoked key's ladder to stop")
        info = ladder(engine, ladder_id)
        assert "revoked" in info.error and info.matches_playing == 0 and info.HasField("seed")
    assert ladder(engine, theirs).status in (RUNNING, PAUSED)      # bob's goes on
    with pytest.raises(grpc.RpcError) as refused:    # the revoked key itself can do nothing
        engine.ladder(0).CancelLadder(get, timeout=5, metadata=as_key(alice))
    assert refusal(refused.value)[1].reason == "BAD_KEY"
    # Its live match is left to end by itself: its clocks go on.
    mark = version(engine, clock)
    wait_for(lambda: version(engine, clock) > mark + 2, timeout=30, what="the match's clock")

    operator = domino("ladder", "cancel", theirs, "--operator", "--db", durable_db)
    assert operator.returncode == 0 and "cancelled" in operator.stdout, operator.stderr
    wait_for(lambda: ladder(engine, theirs).status == CANCELLED, timeout=10,
             what="the operator's cancel to reach the ladder's engine")
    assert ladder(engine, theirs).error == "cancelled by an operator"
    again = domino("ladder", "cancel", theirs, "--operator", "--db", durable_db)
    assert again.returncode != 0 and "is cancelled" in again.stderr
