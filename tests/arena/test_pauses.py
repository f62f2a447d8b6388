"""The timeouts rule of the matchmaker, in process: a bot whose last TIMEOUT_STREAK counted
matches each had timeouts is paused (its lobby told), and a new lobby clears it."""

import time

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from engine_service.core.storage.arena_sql import COUNTED
from tests.arena.support import LobbyStub, wait_until


def test_timeouts_in_three_matches_in_a_row_pause_the_bot_until_it_connects_again():
    engine = Engine(arenas=[spec.parse("hhl")])     # no residents: it is never seated
    engine.recover()
    try:
        bot, key = engine.arenas.register(OPEN_PRINCIPAL, "slow", "")
        stream = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", stream)
        mm = wait_until(lambda: engine.arenas.matchmakers.get("hhl"), 120, "the matchmaker")
        lineup = [[bot.bot_id, "v1"]] + [[f"other{i}", "v1"] for i in range(3)]
        made: list[str] = []

        def ended(timeouts: int) -> None:
            match_id = f"m{len(made)}"
            made.append(match_id)
            engine.arenas.store.add_matches("hhl", [(match_id, lineup, "", time.time(), 0,
                                                     0)])
            mm._leave([(match_id, {"lineup": lineup, "faults": [
                {"timeouts": timeouts}, {}, {}, {}]})], time.time(), COUNTED)

        def paused() -> str:
            return engine.arenas.store.present("hhl", 2.0)[0][3]

        ended(1)
        ended(0)          # a clean match breaks the streak
        ended(1)
        ended(1)
        assert paused() == ""
        ended(2)
        assert paused() == spec.TIMEOUTS
        wait_until(lambda: stream.pauses == [spec.TIMEOUTS], 120, "the lobby told")
        again = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", again)      # a new lobby clears the pause
        assert paused() == ""
        wait_until(lambda: stream.ended, 120, "the first lobby replaced")
        assert stream.ended[0].reason == "LOBBY_REPLACED"
    finally:
        engine.close()


def test_a_no_show_counts_from_when_the_bot_was_sent_its_seat():
    """The seat wait counts from the ArenaSeat (play.proto), not from the match's making:
    a lobby's engine that sends the seat seconds late (its arena thread behind, under load)
    does not make the bot late. The arena thread's own no-show rounds run on the real
    clock, so the sending is put far ahead of it (1,000 s after the making) and the test
    asks the host itself at chosen times."""
    from domino_cli.engine_cmd import residents

    makers = {k: v for k, v in residents().items() if k in ("random", "greedy", "heuristic")}
    engine = Engine(arenas=[spec.parse("hhl")], residents=makers)
    engine.recover()
    try:
        bot, key = engine.arenas.register(OPEN_PRINCIPAL, "late-told", "")
        stream = LobbyStub()
        engine.arenas.enlist(key, "v1", "hhl", stream)    # its seat stream never comes
        (_, match_id, seat, *_), = wait_until(lambda: stream.seats, 120, "a seat")
        store, host = engine.arenas.store, engine.arenas.host
        created = engine.get(match_id).row.created
        assert store.sent([match_id])[(match_id, seat)] >= created   # sent, and when
        told = created + 1000
        store._w("UPDATE arena_seats SET delivered = ? WHERE match_id = ? AND seat = ?",
                 (round(told * 1000), match_id, seat))
        wait = spec.SEAT_WAIT_S

        def paused() -> str:
            return store.present("hhl", 2.0)[0][3]

        host.no_shows(created + wait + 1)          # late from the making, not from the seat
        host.no_shows(told + wait - 1)
        assert paused() == "" and not engine.get(match_id).seats[seat].absent
        host.no_shows(told + wait + 1)             # late from the seat: a no-show
        assert paused() == spec.NO_SHOW and engine.get(match_id).seats[seat].absent
        wait_until(lambda: stream.pauses == [spec.NO_SHOW], 120, "the lobby told")
    finally:
        engine.close()
