"""The arena's two threads (room.py): the matchmaking one makes tables and adopts those
placed on its own engine at once, while the arena thread looks for matches placed here and
delivers seats. What both may do to the same match or seat happens once, and neither
runs its rounds without a pause."""

from __future__ import annotations

import threading

import pytest

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from tests.arena.support import LobbyStub, wait_until


def seated_engine():
    from domino_cli.engine_cmd import residents

    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    engine = Engine(arenas=[spec.parse("hhl")], residents=makers)
    engine.recover()
    _, key = engine.arenas.register(OPEN_PRINCIPAL, "seated", "")
    stream = LobbyStub()
    engine.arenas.enlist(key, "v1", "hhl", stream)     # its seat stream never comes
    (_, match_id, seat, *_), = wait_until(lambda: stream.seats, 120, "a seat")
    return engine, stream, match_id, seat


def test_a_match_adopted_by_both_threads_is_held_by_one_referee():
    """The arena thread's look may find a match the matchmaking thread made here before
    that thread adopts it: the second adoption keeps the first's referee (two referees
    once split a match's seats: its bots played one, the no-show clock the other)."""
    engine, _, match_id, _ = seated_engine()
    try:
        referee = engine.get(match_id)
        engine.arenas.host.adopt(match_id, 0, referee.row)
        engine.arenas.host.adopt(match_id, 0, None)
        assert engine.get(match_id) is referee
        assert engine.arenas.host.tracked[match_id].referee is referee
    finally:
        engine.close()


def test_a_table_made_here_is_held_while_the_arena_thread_writes_a_result():
    """The arena thread writes a result while the matchmaking thread adopts a table it has
    just made here: the adoption does not wait for the write's round trip. It did, behind
    the hosted matches' lock, a twelfth of that thread's time at a thousand bots."""
    from domino_cli.engine_cmd import residents
    from engine_service.core.arena.host import match_row

    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    # one short deal, a short turn clock and seat wait: the bot's no-show ends it quickly
    quick = {**spec.parse("hhl"), "options": {"hands": 1}, "clock_ms": 100, "seat_wait_s": 0.5}
    engine = Engine(arenas=[quick], residents=makers)
    engine.recover()
    store, host = engine.arenas.store, engine.arenas.host
    writing, written = threading.Event(), threading.Event()
    real = store.add_result

    def slow_write(*args):
        writing.set()
        written.wait(120)           # a round trip that lasts until the test is done
        return real(*args)
    store.add_result = slow_write
    try:
        _, key = engine.arenas.register(OPEN_PRINCIPAL, "absent", "")
        engine.arenas.enlist(key, "v1", "hhl", LobbyStub())
        wait_until(writing.is_set, 120, "the arena thread writing the match's result")
        seats = [{"bot_id": f"b{i}", "version": "v1", "resident": ""} for i in range(4)]
        row = match_row(quick, "made-here", 7, seats, [f"b{i}" for i in range(4)], 0, 0, 0.0)
        adopting = threading.Thread(target=host.adopt, args=("made-here", 0, row))
        adopting.start()
        adopting.join(60)
        assert not adopting.is_alive(), "the adoption waited for the result's write"
        assert not written.is_set() and "made-here" in host.tracked
    finally:
        written.set()
        engine.close()


def test_a_seat_is_sent_once_when_both_threads_deliver_at_once():
    engine, stream, match_id, seat = seated_engine()
    try:
        lobbies, store = engine.arenas.lobbies, engine.arenas.store
        for _ in range(20):
            # the seat not sent yet again (as after the lobby reconnects), and both threads
            # delivering at the same moment
            store._w("UPDATE arena_seats SET delivered = 0 WHERE match_id = ? AND seat = ?",
                     (match_id, seat))
            before = len(stream.seats)
            start = threading.Barrier(2)

            def deliver(start=start):
                start.wait(10)
                lobbies.deliver()
            threads = [threading.Thread(target=deliver) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            # the arena thread itself may have sent it in between: once, whoever did
            assert len(stream.seats) == before + 1, stream.seats[before:]
    finally:
        engine.close()


def test_a_lobbys_last_seat_ends_it_whichever_thread_delivers_it(monkeypatch, tmp_path):
    """A lobby asking for one match (ArenaEnlist.max_matches) ends with its seat. The seat
    counts are written with the seats, in one commit: the arena thread (or another engine)
    that delivers the seats as they commit reads the counts with them. Here it delivers
    at the worst moment, just before the counts are written: it finds nothing to send (the
    seats are not committed yet), and the matchmaker's own delivery, after the commit,
    sends the last seat and ends the lobby. On a file: the in-memory store's connections
    share one cache and read what is not committed yet."""
    from domino_cli.engine_cmd import residents
    from engine_service.core.storage.arena_sql import ArenaStore
    from engine_service.core.storage.factory import open_store

    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    engine = Engine(open_store(str(tmp_path / "arena.db")), arenas=[spec.parse("hhl")],
                    residents=makers)
    engine.recover()
    real = ArenaStore.count_seating

    def counted_after_a_delivery(store, bot_ids, arena):
        other = threading.Thread(target=engine.arenas.lobbies.deliver)
        other.start()
        other.join(30)
        return real(store, bot_ids, arena)
    monkeypatch.setattr(ArenaStore, "count_seating", counted_after_a_delivery)
    try:
        _, key = engine.arenas.register(OPEN_PRINCIPAL, "once", "")
        stream = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", stream, max_matches=1)
        wait_until(lambda: stream.seats, 120, "its seat")
        wait_until(lambda: stream.ended == [None], 120, "the lobby ended after its seat")
        assert len(stream.seats) == 1
    finally:
        engine.close()


def test_the_arena_thread_waits_for_its_next_poll_even_with_a_step_never_polled():
    """A lone engine (no cluster) never polls for placed matches (ADOPT): that step is not
    due, and the thread waits for the lobbies' next poll. Taken for due, it made the arena
    thread of every lone engine run its rounds without a pause, a core each."""
    from engine_service.core.arena.room import LEASE_CHECK_S, until_due
    from engine_service.core.arena.spec import ADOPT, LOBBIES

    assert until_due({LOBBIES: 100.2}, (ADOPT, LOBBIES), 100.0) == pytest.approx(0.2)
    assert until_due({}, (ADOPT, LOBBIES), 100.0) == LEASE_CHECK_S
    assert until_due({LOBBIES: 99.0, ADOPT: 101.0}, (ADOPT, LOBBIES), 100.0) == 0.0
