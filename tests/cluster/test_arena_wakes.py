"""The arena's wake-ups across engines (core/arena/room.py, storage/arena_sql.py PG_WAKES,
storage/listener.py), with real engine processes and bots on a real PostgreSQL.

With the arena's polls an hour apart (DOMINO_ARENA_POLL_MS), only the database's
notifications can carry a bot from engine to engine within a test's timeout: its lobby
connected on one engine wakes the matchmaker on the other, the match made there wakes the
engine it is placed on and the one holding the lobby, and its result written there wakes
the matchmaker again. They still do after the server has stopped and started again, or
frozen and thawed. And with every notification lost, the polls alone carry it all."""

from __future__ import annotations

import contextlib
import json

import grpc
import psycopg
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.core.arena.spec import POLL_ENV
from tests.arena.support import ArenaClient, arena_bot, wait_until
from tests.cluster.support import EngineCluster, new_match

NO_POLLS = str(3_600_000)    # an hour: longer than any test runs
SLACK = 2                    # cluster/membership.py: placement's margin


def holder(c: EngineCluster) -> int | None:
    """The index of the engine holding the hhl arena's lease (None: none yet)."""
    rows = c.sql("SELECT e.address FROM arenas a JOIN engines e ON e.id = a.owner "
                 "WHERE a.id = 'hhl' AND e.heartbeat > now() - interval '2 seconds'")
    addresses = [c.address(i) for i in range(len(c.ports))]
    return addresses.index(rows[0][0]) if rows and rows[0][0] in addresses else None


def engine_id(c: EngineCluster, i: int) -> str:
    return c.sql("SELECT id FROM engines WHERE address = %s", (c.address(i),))[0][0]


def counted(c: EngineCluster) -> list[tuple[str, str]]:
    """(match id, the engine it was placed on) of the counted arena matches."""
    return c.sql("SELECT r.match_id, m.engine FROM arena_results r JOIN arena_matches m ON "
                 "m.match_id = r.match_id WHERE r.seq IS NOT NULL ORDER BY r.seq")


def live(c: EngineCluster, i: int) -> int:
    """The unfinished matches engine `i` owns (what its heartbeats report)."""
    return c.sql("SELECT count(*) FROM matches WHERE owner = %s AND status != 'over'",
                 (engine_id(c, i),))[0][0]


def across(c: EngineCluster) -> tuple[int, int]:
    """(the matchmaker's engine, the other), the matchmaker's made the busier by more than
    placement's margin, so that placement sends the arena's matches to the other: the
    lobby, the match and its result there, the matchmaker here. Counted against the
    other's load: after an outage the lease may have moved to the engine that was not
    the busier, and the same number of matches more left both alike."""
    mm, = wait_until(lambda: (h := holder(c)) is not None and (h,), 60, "a matchmaker")
    with contextlib.closing(c.router(mm)) as router:
        while live(c, mm) < live(c, 1 - mm) + SLACK + 2:
            new_match(router, "hhl", {"hands": 1}, 1, here=True)
    return mm, 1 - mm


def play(c: EngineCluster, at: int, name: str, matches: int) -> list[tuple[str, str]]:
    """A registered bot whose lobby is on engine `at` plays `matches` arena matches; the
    counted matches then."""
    client = ArenaClient(c.address(at))
    try:
        key = client.register(name).bot_key
    finally:
        client.close()
    before = len(counted(c))
    bot = arena_bot(c.address(at), key, "--give-up", "0", "--delay", "0.005",
                    matches=matches)
    try:
        out, err = bot.communicate(timeout=150)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait(10)
    assert bot.returncode == 0, err[-3000:]
    assert "error" not in json.loads(out.strip().splitlines()[-1])
    # its last match is counted once its result is: the matchmaker is woken for it too
    return wait_until(lambda: len(found := counted(c)) >= before + matches and found, 60,
                      f"{matches} more counted matches")


def test_a_result_written_on_one_engine_wakes_the_matchmaker_on_the_other(
        cluster, monkeypatch):
    monkeypatch.setenv(POLL_ENV, NO_POLLS)
    c = cluster(2, extra=("--arena", "hhl"))
    _, other = across(c)
    found = play(c, other, "woken", matches=2)
    # The first match was counted before the bot could be seated again (a bot is free once
    # its match is counted): the result written on the other engine woke the matchmaker.
    assert {engine for _, engine in found} == {engine_id(c, other)}


def test_with_every_wake_up_lost_the_polls_carry_the_arena(cluster):
    c = cluster(2, extra=("--arena", "hhl"))
    _, other = across(c)
    # The database tells no one any more: every notification is lost.
    with psycopg.connect(c.dsn, autocommit=True) as conn:
        for table, trigger in (("arena_results", "domino_arena_result"),
                               ("arena_presence", "domino_arena_lobby"),
                               ("matches", "domino_arena_made")):
            conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
    assert not c.sql("SELECT tgname FROM pg_trigger WHERE tgname IN ('domino_arena_result', "
                     "'domino_arena_lobby', 'domino_arena_made') AND tgenabled != 'D'")
    found = play(c, other, "polled", matches=3)
    assert {engine for _, engine in found} == {engine_id(c, other)}


def health(address: str):
    with grpc.insecure_channel(address) as channel:
        try:
            return health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=1).status
        except grpc.RpcError:
            return None


@pytest.mark.parametrize("mode", ("stopped", "frozen"))
def test_the_wake_ups_are_heard_again_after_the_server_was_away(
        own_pg_server, tmp_path, monkeypatch, mode):
    monkeypatch.setenv(POLL_ENV, NO_POLLS)
    log_path = tmp_path / "engines.log"
    c = EngineCluster(own_pg_server.database(), 2, str(log_path), ("--arena", "hhl"))
    try:
        _, other = across(c)
        play(c, other, "before", matches=1)
        own_pg_server.halt() if mode == "stopped" else own_pg_server.freeze()
        try:
            for i in range(2):
                wait_until(lambda i=i: health(c.address(i)) == health_pb2.HealthCheckResponse
                           .NOT_SERVING, 60, "the engines to see the store away")
        finally:
            own_pg_server.start() if mode == "stopped" else own_pg_server.thaw()
        for i in range(2):
            wait_until(lambda i=i: health(c.address(i)) == health_pb2.HealthCheckResponse
                       .SERVING, 60, "the engines to see the store back")
        if mode == "stopped":
            # each listener's connection broke with the server, and each was opened again
            wait_until(lambda: log_path.read_text().count("heard again") >= 2, 60,
                       "both listeners to listen again")
        # Each engine's lobbies count again once it beats again (polls would have waited
        # for that; a wake-up before it is spent). The lease may have moved meanwhile:
        # across the engines as they are now.
        c.wait_members(2, timeout=60)
        _, other = across(c)
        found = play(c, other, "after", matches=2)
        assert {engine for _, engine in found[-2:]} == {engine_id(c, other)}
        assert all(p.poll() is None for p in c.procs)
        assert "handling one failed" not in log_path.read_text()
    finally:
        c.close()
