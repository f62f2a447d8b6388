"""The arena's leaderboard answered from its cache (engine_service/core/arena/board_cache.py)
and its skill figures (skill.py), on a real engine in this process behind a real gRPC
server, played by a real `domino bot --arena` process: GETs within FRESH_S read no store;
a match this engine's matchmaker counts shows on the next GET all the same; the kept
analyses of the sampled matches reach the rows only through a refresh past FRESH_S, made
behind the GETs (none of them reads the store), and a REST GET shows the figures as the
OpenAPI document says."""

from __future__ import annotations

import threading

import pytest
from openapi_schema_validator import OAS31Validator

from analysis import analyse
from domino_cli.engine_cmd import residents
from engine_service.core.arena import board_cache, skill, spec
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from engine_service.rpc.server import start_server
from gateway import create_app
from tests.arena.support import arena_bot, wait_until

CHEAP = ("random", "greedy", "heuristic")   # three residents: one bot makes a table
READS = ("counted_after", "present", "bots")   # the ArenaStore reads a board is made of
GETTERS = ("MainThread", "leaderboard")   # the test's GETs and the cache's refreshes


def small_analyser(record, seats, worlds, progress):
    """The analysis the engine serves, in its own process (no pool of workers)."""
    return analyse(record, seats=seats, worlds=worlds, processes=1, progress=progress)


class Reads:
    """The calls of some methods of a real store object, with the thread that made each."""

    def __init__(self, monkeypatch, store, names):
        self.calls: list[tuple[str, str]] = []
        for name in names:
            monkeypatch.setattr(store, name, self._counted(name, getattr(store, name)))

    def _counted(self, name, real):
        def call(*args, **kw):
            self.calls.append((name, threading.current_thread().name))
            return real(*args, **kw)
        return call

    def by(self, thread: str) -> list[str]:
        """The calls made by the thread `thread` (or a pool's: thread_0, thread_1...)."""
        return [name for name, t in self.calls if t.rsplit("_", 1)[0] == thread or t == thread]


@pytest.fixture
def arena(monkeypatch):
    monkeypatch.setattr(skill, "ANALYSIS_WORLDS", 10)    # the figures' sample, cheaply
    # Both of the test's sampled matches analysed, however their analyses overlap (a real
    # arena keeps one at a time: a sampled match refused meanwhile is left out).
    monkeypatch.setattr(skill, "AT_ONCE", 2)
    makers = {k: v for k, v in residents().items() if k in CHEAP}
    engine = Engine(arenas=[spec.parse("hhl")], residents=makers, analyser=small_analyser)
    engine.recover()
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=32)
    try:
        yield engine, f"127.0.0.1:{port}"
    finally:
        server.stop(0).wait()
        engine.close()


def row(engine, name: str) -> dict | None:
    board = engine.arenas.leaderboard("hhl", all_versions=True)
    return next((r for r in board["rows"] if r["name"] == name), None)


def no_refresh_running(engine) -> bool:
    """No view is being built (each build holds its view's lock)."""
    return not any(lock.locked() for lock in engine.arenas.leaderboards._locks.values())


def finished(proc) -> None:
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err[-3000:]


@pytest.mark.timeout(300)
def test_gets_within_the_interval_read_no_store_and_the_figures_come_with_a_refresh(
        arena, monkeypatch):
    engine, address = arena
    _, key = engine.arenas.register(OPEN_PRINCIPAL, "cached", "")
    first = engine.arenas.leaderboard("hhl")
    engine.arenas.leaderboard("hhl", all_versions=True)
    assert {r["name"] for r in first["rows"]} == {f"house-{s}" for s in CHEAP}
    assert all(r["analysed"] == 0 and r["mean_loss"] is None and r["luck_share"] is None
               for r in first["rows"])

    # Within the interval: every GET is the cached answer, and no store is read for it.
    monkeypatch.setattr(board_cache, "FRESH_S", 3600.0)
    wait_until(lambda: no_refresh_running(engine), 60, "the first refreshes to end")
    arena_reads = Reads(monkeypatch, engine.arenas.store, READS)
    kept_reads = Reads(monkeypatch, engine.store, ("analysis",))
    for limit in [0, 1, 2, 0] * 50:
        again = engine.arenas.leaderboard("hhl", limit=limit)
        assert again["rows"] == (first["rows"][:limit] if limit else first["rows"])
    assert [arena_reads.by(t) + kept_reads.by(t) for t in GETTERS] == [[], []]

    # Two matches this engine's matchmaker counts: the next GETs show them at once, made
    # again from the board it folded them into (no store read, the interval not over).
    finished(arena_bot(address, key, matches=2))
    counted = wait_until(lambda: (r := row(engine, "cached")) and r["matches"] == 2 and r,
                         120, "cached's two counted matches")
    assert engine.arenas.leaderboard("hhl")["last_sequence"] == 2
    assert [r for t in GETTERS for r in arena_reads.by(t) if r != "bots"] == []

    # Both were in the sample (the first 5 of every line-up's bots): their analyses are
    # made and kept, but no GET reads them while the interval lasts.
    kept = type(engine.store).analysis    # the store's own, not counted as a GET's read
    params = engine.analyses.params([0, 1, 2, 3], skill.ANALYSIS_WORLDS)
    for match_id in [m[0] for m in engine.arenas.store.bot_matches(counted["bot_id"], 0, 10)]:
        wait_until(lambda m=match_id: kept(engine.store, m, params), 180,
                   f"the analysis of match {match_id}")
    assert row(engine, "cached")["analysed"] == 0
    assert [kept_reads.by(t) for t in GETTERS] == [[], []]

    # Past the interval a GET starts a refresh behind it; a later GET shows the figures.
    monkeypatch.setattr(board_cache, "FRESH_S", 0.0)
    with_figures = wait_until(lambda: (r := row(engine, "cached")) and r["analysed"] == 2 and r,
                              120, "the figures of cached's two analysed matches")
    assert with_figures["mean_loss"] >= 0 and 0 <= with_figures["luck_share"] <= 1
    assert arena_reads.by("MainThread") + kept_reads.by("MainThread") == []
    assert kept_reads.by("leaderboard")          # read by the refreshes, never by a GET
    for name in [f"house-{s}" for s in CHEAP]:    # in both matches, so in both analyses
        resident = row(engine, name)
        assert resident["analysed"] == 2 and resident["mean_loss"] is not None, resident

    # Through REST: the same figures, as the OpenAPI document says.
    app = create_app({"ENGINE_ADDRESS": address, "TESTING": True})
    try:
        client = app.test_client()
        answer = client.get("/api/v1/arenas/hhl/leaderboard?versions=all")
        assert answer.status_code == 200
        body = answer.get_json()
        doc = client.get("/api/v1/openapi.json").get_json()
        schema = doc["paths"]["/api/v1/arenas/{arena_id}/leaderboard"]["get"]["responses"][
            "200"]["content"]["application/json"]["schema"]
        OAS31Validator({**schema, "components": doc["components"]}).validate(body)
        (rest,) = [r for r in body["rows"] if r["name"] == "cached"]
        assert rest["analysed_matches"] == 2
        assert isinstance(rest["mean_loss"], float) and isinstance(rest["luck_share"], float)
    finally:
        app.extensions["engine"].close()


@pytest.mark.timeout(120)
def test_gets_queued_behind_one_another_share_one_making_of_the_rows(arena, monkeypatch):
    """A GET that waited its turn (behind others needing work) asks for an answer as new as
    its arrival, not as new as the moment its turn comes: one making of the rows then
    serves every GET queued while it was made, and at a thousand bots, with results folded
    several times a second, the queue no longer grows by one making per GET."""
    engine, _ = arena
    leaderboards = engine.arenas.leaderboards
    engine.arenas.leaderboard("hhl")       # built once (from the store)
    monkeypatch.setattr(board_cache, "FRESH_S", 3600.0)    # no refresh: only the rows
    wait_until(lambda: no_refresh_running(engine), 60, "the first refresh to end")
    made = []
    compose = engine.arenas.compose
    monkeypatch.setattr(engine.arenas, "compose", lambda *a, **kw: made.append(a) or
                        compose(*a, **kw))

    leaderboards.changed()                    # the rows must be made again for GETs from here
    asked = engine.arenas.leaderboard_asked("hhl")    # two GETs come now, one queued
    first = engine.arenas.leaderboard("hhl", asked=asked)
    assert len(made) == 1
    leaderboards.changed()                    # moved on again while the second waited
    second = engine.arenas.leaderboard("hhl", asked=asked)
    assert len(made) == 1 and second is first      # the making it waited for serves it
    third = engine.arenas.leaderboard("hhl")       # a GET come after the move: made again
    assert len(made) == 2 and third is not first
