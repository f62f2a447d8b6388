"""The house fills a table only once its seed has waited for other bots: a lone bot's first
table, on an in-process engine, is made no sooner than RESIDENTS_AFTER_S after it became
free (and the matchmaker wakes for it then: no poll of its own is due before)."""

from __future__ import annotations

import sqlite3
import time

from engine_service.core.arena import spec
from engine_service.core.arena.spec import RESIDENTS_AFTER_S
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from engine_service.core.storage.factory import open_store
from tests.arena.support import LobbyStub, wait_until


def test_a_lone_bot_is_seated_with_the_house_only_after_it_waited_for_other_bots(
        tmp_path, monkeypatch):
    from domino_cli.engine_cmd import residents

    # Polls far longer than the test: only the matchmaker's own wake-ups can seat the bot.
    monkeypatch.setenv(spec.POLL_ENV, str(600_000))
    path = str(tmp_path / "arena.db")
    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    engine = Engine(open_store(path), arenas=[spec.parse("hhl")], residents=makers)
    engine.recover()
    try:
        _, key = engine.arenas.register(OPEN_PRINCIPAL, "solo", "")
        stream = LobbyStub()
        free_from = time.time()     # the lobby's free_since is no earlier than this
        engine.arenas.enlist(key, "v1", "hhl", stream)
        seat = wait_until(lambda: stream.seats and stream.seats[0], 60, "solo's first seat")
    finally:
        engine.close()
    db = sqlite3.connect(path)
    created, lineup = db.execute("SELECT created, lineup FROM arena_matches WHERE match_id = ?",
                                 (seat[1],)).fetchone()
    db.close()
    assert lineup.count("\"house\"") == 3, lineup     # solo and three residents
    assert created - free_from >= RESIDENTS_AFTER_S
