"""The timeouts rule of the matchmaker, in process: a bot whose last TIMEOUT_STREAK counted
matches each had timeouts is paused (its lobby told), and a new lobby clears it."""

import time

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from engine_service.core.security.keys import OPEN_PRINCIPAL
from tests.arena.support import wait_until


class Stream:
    def __init__(self):
        self.pauses, self.seats, self.ended = [], [], []

    def seated(self, *seat):
        self.seats.append(seat)

    def paused(self, reason, message):
        self.pauses.append(reason)

    def end(self, error):
        self.ended.append(error)

    def finish(self):
        self.ended.append(None)


def test_timeouts_in_three_matches_in_a_row_pause_the_bot_until_it_connects_again():
    engine = Engine(arenas=[spec.parse("hhl")])     # no residents: it is never seated
    engine.recover()
    try:
        bot, key = engine.arenas.register(OPEN_PRINCIPAL, "slow", "")
        stream = Stream()
        engine.arenas.enlist(key, "v1", "hhl", stream)
        mm = wait_until(lambda: engine.arenas.matchmakers.get("hhl"), 10, "the matchmaker")
        lineup = [[bot.bot_id, "v1"]] + [[f"other{i}", "v1"] for i in range(3)]

        def ended(timeouts: int) -> None:
            mm._freed("m", time.time(), {"lineup": lineup, "faults": [
                {"timeouts": timeouts}, {}, {}, {}]})

        def paused() -> str:
            return engine.arenas.store.present("hhl", 2.0)[0][3]

        ended(1)
        ended(0)          # a clean match breaks the streak
        ended(1)
        ended(1)
        assert paused() == ""
        ended(2)
        assert paused() == spec.TIMEOUTS
        wait_until(lambda: stream.pauses == [spec.TIMEOUTS], 10, "the lobby told")
        again = Stream()
        engine.arenas.enlist(key, "v1", "hhl", again)      # a new lobby clears the pause
        assert paused() == ""
        wait_until(lambda: stream.ended, 10, "the first lobby replaced")
        assert stream.ended[0].reason == "LOBBY_REPLACED"
    finally:
        engine.close()
