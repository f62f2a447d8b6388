"""A registered bot's standby stream (Hello.arena_standby) against a real engine on each
store: the matchmaker's seats reach it with no seat stream opened, one reconnected gets
its match in play back, a second one replaces the first, a rotated key or a retired bot
ends it, and bad Hellos are refused naming the field."""

from __future__ import annotations

import queue
import threading
import time

import grpc
import pytest

from domino_proto.domino.v1 import arena_pb2, play_pb2
from tests.arena.support import first_message, wait_until
from tests.arena.test_arena_engine import _drain, domino, engine
from tests.engine.support import refusal

pytestmark = pytest.mark.timeout(240)


class Standby:
    """A standby stream driven by hand: what the engine sends is kept in order; `play`
    answers each TurnRequest with its first legal move."""

    def __init__(self, client, bot_key: str, arena: str = "hhl"):
        self._out: queue.Queue = queue.Queue()
        self._out.put(play_pb2.BotMessage(hello=play_pb2.Hello(
            arena_standby=play_pb2.ArenaStandby(bot_key=bot_key, arena=arena),
            skip_events=True)))
        self.messages: queue.Queue = queue.Queue()
        self.error: grpc.RpcError | None = None
        self.call = client.play.Connect(iter(self._out.get, None), timeout=200)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for message in self.call:
                self.messages.put(message)
        except grpc.RpcError as e:
            self.error = e
        self.messages.put(None)

    def next(self, timeout: float = 60):
        message = self.messages.get(timeout=timeout)
        assert message is not None, f"the stream ended: {self.error}"
        return message

    def next_of(self, kind: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(deadline - time.monotonic(), 0.01))
            if message.WhichOneof("body") == kind:
                return message

    def play(self, match_id: str, timeout: float = 120):
        """Answer every turn of `match_id` until its MatchOver, which is returned."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(deadline - time.monotonic(), 0.01))
            kind = message.WhichOneof("body")
            if kind == "turn" and message.turn.state.match_id == match_id:
                state = message.turn.state
                self._out.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                    match_id=match_id, version=state.version,
                    move_id=state.legal_moves[0].id)))
            elif kind == "match_over" and message.match_over.match_id == match_id:
                return message.match_over

    def ended(self, timeout: float = 30):
        """The status that ended the stream."""
        deadline = time.monotonic() + timeout
        while self.messages.get(timeout=max(deadline - time.monotonic(), 0.01)) is not None:
            pass
        return refusal(self.error)

    def close(self):
        self.call.cancel()


def seat_of(lobby, timeout: float = 60):
    """The next ArenaSeat a lobby is sent."""
    deadline = time.monotonic() + timeout
    for message in lobby:
        if message.WhichOneof("body") == "arena_seat":
            return message.arena_seat
        assert time.monotonic() < deadline


def test_the_standby_stream_plays_the_seats_no_seat_stream_is_opened(durable_db):
    with engine(durable_db, "--arena", "hhl") as (client, _, _port):
        key = client.register("standing").bot_key
        standby = Standby(client, key)
        standby.next_of("keepalive")    # standing by before the lobby: seated as it is made
        lobby = client.lobby(key)
        assert first_message(lobby).WhichOneof("body") == "arena_welcome"
        seat = seat_of(lobby)
        welcome = standby.next_of("welcome").welcome
        assert (welcome.match_id, welcome.seat) == (seat.match_id, seat.seat)
        over = standby.play(seat.match_id)
        assert over.match_id == seat.match_id
        # Played by the bot itself: no no-show, no pause, and the result counted.
        row = wait_until(lambda: (r := client.row("standing")) and r.matches >= 1 and r,
                         what="the match counted")
        assert row.faults.crashes == 0 and row.faults.timeouts == 0
        # The next seat comes the same way, and the bot is playing it already.
        following = seat_of(lobby)
        assert standby.next_of("welcome").welcome.match_id == following.match_id
        standby.close()
        lobby.cancel()


def test_a_standby_stream_connected_again_gets_its_match_in_play_back(durable_db):
    with engine(durable_db, "--arena", "hhl") as (client, _, _port):
        key = client.register("returning").bot_key
        first = Standby(client, key)
        lobby = client.lobby(key)
        seat = seat_of(lobby)
        assert first.next_of("welcome").welcome.match_id == seat.match_id
        first.close()
        again = Standby(client, key)
        welcome = again.next_of("welcome").welcome
        assert (welcome.match_id, welcome.seat) == (seat.match_id, seat.seat)
        assert again.next_of("snapshot").snapshot.state.match_id == seat.match_id
        assert again.play(seat.match_id).match_id == seat.match_id
        again.close()
        lobby.cancel()


def test_standby_refusals_replacement_rotation_and_retirement(durable_db):
    with engine(durable_db, "--keys", "--arena", "hhl") as (client, _, _port):
        owner = domino("keys", "create", "owner", "--db", durable_db).stdout.strip()
        assert owner
        key = client.register("standby", owner).bot_key
        for bot_key, arena, want in (
                ("dbk_nothing", "hhl", (grpc.StatusCode.UNAUTHENTICATED, "BAD_BOT_KEY", "")),
                (key, "nowhere", (grpc.StatusCode.NOT_FOUND, "UNKNOWN_ARENA", "")),
                (key, "", (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                           "hello.arena_standby.arena")),
                ("", "hhl", (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                             "hello.arena_standby.bot_key")),
                ("x" * 129, "hhl", (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                    "hello.arena_standby.bot_key"))):
            code, r = Standby(client, bot_key, arena).ended()
            assert (code, r.reason, r.field if want[2] else "") == want, (bot_key[:8], arena)
        # A second standby of the same bot and arena here replaces the first (each waits
        # for the first to stand by: its Keepalive; two Hellos at once may go either way).
        first = Standby(client, key)
        first.next_of("keepalive")
        second = Standby(client, key)
        second.next_of("keepalive")
        code, r = first.ended()
        assert (code, r.reason) == (grpc.StatusCode.ABORTED, "STANDBY_REPLACED")
        # A rotated key ends it; the old key is refused at once.
        new = client.call("RotateBotKey", arena_pb2.RotateBotKeyRequest(name="standby"), owner)
        code, r = second.ended()
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BAD_BOT_KEY")
        code, r = Standby(client, key).ended()
        assert r.reason == "BAD_BOT_KEY"
        # A retired bot's ends too.
        third = Standby(client, new.bot_key)
        third.next_of("keepalive")
        lobby = client.lobby(new.bot_key)
        assert first_message(lobby).WhichOneof("body") == "arena_welcome"
        client.call("RetireBot", arena_pb2.RetireBotRequest(name="standby"), owner)
        code, r = third.ended()
        assert (code, r.reason) == (grpc.StatusCode.UNAUTHENTICATED, "BOT_RETIRED")
        code, r = refusal(_drain(lobby)[-1])
        assert r.reason == "BOT_RETIRED"


def test_a_standby_stream_that_comes_after_the_seat_is_made_is_handed_it(durable_db):
    with engine(durable_db, "--arena", "hhl") as (client, _, _port):
        key = client.register("late").bot_key
        lobby = client.lobby(key)
        seat = seat_of(lobby)       # made with no standby stream here: the seat waits
        standby = Standby(client, key)
        welcome = standby.next_of("welcome").welcome
        assert (welcome.match_id, welcome.seat) == (seat.match_id, seat.seat)
        assert standby.play(seat.match_id).match_id == seat.match_id
        row = wait_until(lambda: (r := client.row("late")) and r.matches >= 1 and r,
                         what="the match counted")
        assert row.faults.crashes == 0
        standby.close()
        lobby.cancel()
