"""A seat stream that has come while its bot key is being checked is not taken for a
no-show: on an in-process engine, two registered bots seated together, one whose key's
check is held at a gate. The no-show look (Host.no_shows, given the time) leaves the
match alone while the check lasts; the check done, the bot plays its seat. The hold is
bounded: while any Hello's key is being checked (here an unknown key's), a seat is taken
once twice the seat wait has passed on its own clock, never later."""

from __future__ import annotations

import threading

import pytest

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from engine_service.core.errors import EngineError
from engine_service.core.security.keys import OPEN_PRINCIPAL
from engine_service.core.storage.factory import open_store
from tests.arena.support import LobbyStub, wait_until

WAIT_S = 600.0     # far past the test: only the looks the test makes can charge a seat


def gated(real, keys: set[str], gate: threading.Event):
    """`authenticate` that waits at `gate` for these keys (a check under load)."""
    def authenticate(bot_key, field):
        if bot_key in keys:
            assert gate.wait(60)
        return real(bot_key, field)
    return authenticate


def in_thread(call) -> threading.Thread:
    def run():
        try:
            call()
        except EngineError:     # the unknown key's refusal
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.timeout(120)
def test_a_seat_stream_being_checked_holds_its_match_from_no_shows_for_one_more_seat_wait(
        tmp_path, monkeypatch):
    from domino_cli.engine_cmd import residents

    makers = {k: v for k, v in residents().items() if k in ("random", "greedy")}
    arena = {**spec.parse("hhl"), "seat_wait_s": WAIT_S}
    engine = Engine(open_store(str(tmp_path / "arena.db")), arenas=[arena], residents=makers)
    engine.recover()
    try:
        room, host = engine.arenas, engine.arenas.host
        (_, key_a), (_, key_b) = (room.register(OPEN_PRINCIPAL, n, "") for n in ("a", "b"))
        lobby_a, lobby_b = LobbyStub(), LobbyStub()
        room.enlist(key_a, "v1", "hhl", lobby_a)
        room.enlist(key_b, "v1", "hhl", lobby_b)
        wait_until(lambda: lobby_a.seats and lobby_b.seats, 60, "both bots seated")
        (_, match_a, seat_a, *_), (_, match_b, seat_b, *_) = lobby_a.seats[0], lobby_b.seats[0]
        assert match_a == match_b, "the two bots were seated apart"
        hosted = wait_until(lambda: host.tracked.get(match_a), 30, "the match tracked here")
        referee = hosted.referee
        # Each seat's no-show clock runs from when its lobby was sent it, as the store says.
        sent = wait_until(lambda: (s := room.store.sent([match_a])) and len(s) == 2 and s, 30,
                          "both seats marked sent")
        clock = {seat: max(referee.row.created, sent[(match_a, seat)])
                 for seat in (seat_a, seat_b)}     # each seat's own no-show clock
        gate = threading.Event()
        monkeypatch.setattr(room.accounts, "authenticate",
                            gated(room.accounts.authenticate, {key_a, "dbk_unknown"}, gate))

        # a's stream came; its key is being checked, past the seat wait: nobody is charged
        checking = in_thread(lambda: room.seat_stream(match_a, key_a))
        wait_until(lambda: hosted.checking == 1, 30, "a's check under way")
        host.no_shows(max(clock.values()) + WAIT_S + 1)     # late, and within the hold
        assert sorted(referee.unfilled_pool_seats()) == sorted([seat_a, seat_b])
        gate.set()
        checking.join(30)
        assert referee.unfilled_pool_seats() == [seat_b]     # a plays its seat
        assert lobby_a.pauses == []

        # Bounded: another check (an unknown key's) holds b's seat for one more seat wait
        # on b's own clock, no longer; b, which never came, is charged then.
        gate.clear()
        bogus = in_thread(lambda: room.seat_stream(match_a, "dbk_unknown"))
        wait_until(lambda: hosted.checking == 1, 30, "the unknown key's check under way")
        host.no_shows(clock[seat_b] + 2 * WAIT_S - 1)
        assert referee.unfilled_pool_seats() == [seat_b]
        host.no_shows(clock[seat_b] + 2 * WAIT_S + 1)
        assert referee.unfilled_pool_seats() == []
        assert referee.faults[seat_b]["no_show"] == 1 and referee.faults[seat_a]["no_show"] == 0
        gate.set()
        bogus.join(30)
        assert hosted.checking == 0
    finally:
        engine.close()
