"""The arena's two threads (room.py): the matchmaking one makes tables and adopts those
placed on its own engine at once, while the arena thread looks for matches placed here and
delivers seats. What both may do to the same match or seat happens once."""

from __future__ import annotations

import threading

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
