"""One Play stream: the matches a bot connection plays and the messages it is sent, in order.

A seat stream (Hello.seat, or Hello.arena_seat for a registered bot's arena seat) plays
one match and ends with it; an arena lobby (Hello.arena) is arena_lobby.py's. A pool
stream (Hello.pool) is seated by the engine's pools in any number of matches, one after
another or several at once, and lasts until the bot goes away; so is an arena standby
stream (Hello.arena_standby), in a pool of its bot's own (core/arena/standbys.py). Either
way all outgoing messages come from one inbox: match updates, answers to the bot's moves
(from the stream's reader task) and new seats (from the pools), so they leave in one
ordered stream (streams.serve_inbox). A bot whose Hello sets skip_events gets no
EventBatch: its stream is woken only for its turns, its answers and the ends of its
matches; with skip_accepted only refused moves are answered.

Play streams run as coroutines on the server's event loop (server.py), not one thread
each: a move travels from one bot's stream to the next seat's stream without a thread
hand-off. The match work itself (rules, store, publish) runs inline on the loop; it takes
about 0.1 ms. Updates from other threads (the turn clock, Engine.SubmitMove calls, the
pools) reach the loop through the stream's Inbox.

A stream that sends no Hello within HELLO_TIMEOUT_S is ended. Every refused move costs
the stream a token of its refusal bucket (REFUSALS_BURST, REFUSALS_PER_S): once the bucket
is empty, the bot's next message is read only when a token is back, so a bot refused
again and again gets at most REFUSALS_PER_S refusals a second, whatever it sends; what it
sends meanwhile waits in the network's flow control (a window of 64 KB: server.py turns
off gRPC's window growth), not in the engine. A bot whose moves are refused SPAM_AFTER
times in a row at one version is charged a fault (Faults.spam) and is not asked again at
that version. A bot that stops reading is dropped once PLAY_BEHIND messages wait for it
(SLOW_READER, streams.py) (docs/security.md). A move refused because the store is away
(STORE_UNAVAILABLE) is no fault of the bot's: it is not counted, and its TurnRequest is
sent again when the store answers (TurnAgain), not at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from grpc._cython import cygrpc

from domino_proto.domino.v1 import play_pb2
from domino_wire.names import VARIANT
from plumbing.inbox import CLOSED, Inbox

from ..core import metrics
from ..core.engine import Engine
from ..core.errors import EngineError, Reason
from ..core.matches.referee import Referee, SeatView
from ..core.matches.updates import Moved, Subscriber, TurnAgain, Update
from ..core.security import limits
from ..rules.errors import shown
from . import codec
from .arena_lobby import LobbySession
from .moves import Mover
from .streams import enlist_shielded, send_all, serve_inbox

# What grpc.aio raises in a stream's reader when the server stops under it (grpcio names
# it only in its Cython module).
ServerStopped = cygrpc._ServerStoppedError

log = logging.getLogger(__name__)

HELLO_TIMEOUT_S = 5.0
PLAY_BEHIND = 1024      # messages a bot may leave unread before its stream is dropped
SPAM_AFTER = 4          # refusals in a row at one version: a spam fault, not asked again
REFUSALS_BURST = 4      # refused moves a stream may have at once ...
REFUSALS_PER_S = 1.0    # ... and a second, after that


@dataclass
class Seated:
    """A match this stream plays."""
    referee: Referee
    seat: int
    sub: Subscriber
    asked: int = -1    # the version of the last TurnRequest sent, so each is sent once
    refused_at: int = -1   # the version of the latest refusals in a row
    refusals: int = 0      # how many in a row at that version
    store_refused_at: int = -1   # the version of a move refused with the store away


@dataclass(frozen=True)
class Join:
    referee: Referee
    seat: int


@dataclass
class Answer:
    """The answer to one MoveChoice; queued before the move is played when the bot wants
    every answer, so it leaves ahead of the next seat's TurnRequest."""
    match_id: str = ""
    message: play_pb2.MoveAnswer | None = None   # None: nothing to send (skip_accepted)
    ask_again: str = ""    # after a refusal: the match whose TurnRequest is sent again


def out(**body) -> play_pb2.EngineMessage:
    return play_pb2.EngineMessage(**body)


class PlaySession:
    """Made on the server's event loop, one per Connect call."""

    def __init__(self, engine: Engine, mover: Mover):
        self.engine, self.mover = engine, mover
        # Bounded: a bot that stops reading is dropped (SLOW_READER, streams.py), and its
        # seats are played by their clocks, as for any bot gone away.
        self.inbox = Inbox(limit=PLAY_BEHIND, on_overflow=asyncio.current_task().cancel)
        self.seated: dict[str, Seated] = {}
        self.pool = ""          # set for a pool stream and a standby stream
        self.standby = False    # an arena standby stream (core/arena/standbys.py)
        self.single = ""        # the match of a seat stream
        self.capacity = 1
        self.name = ""          # a pool bot's public name
        self.events = True      # send EventBatch messages (Hello.skip_events turns them off)
        self.accepted = True    # answer accepted moves too (Hello.skip_accepted turns it off)
        self._tokens = float(REFUSALS_BURST)   # the refusal bucket ...
        self._tokens_at = time.monotonic()     # ... as of then

    @property
    def done(self) -> bool:
        """A seat stream ends with its match; a pool stream when the bot goes away."""
        return not self.pool and not self.seated

    # ----- the pools' side (PoolBot) -----------------------------------------------------
    def seat_in(self, referee: Referee, seat: int) -> None:
        self.inbox.put(Join(referee, seat))

    def close(self) -> None:
        self.inbox.put(CLOSED)

    def end(self, error: EngineError) -> None:
        """End the stream with `error`'s status (a standby stream replaced, its key
        rotated, its bot retired); from any thread."""
        self.inbox.put(error)

    # ----- the stream ---------------------------------------------------------------------
    async def run(self, request_iterator, write) -> None:
        """Play the stream: read the Hello, then send every EngineMessage with `write`
        (a coroutine) until the stream ends. Raises EngineError for a bad Hello."""
        reader = None
        try:
            hello = await self._hello(request_iterator)
            if hello is None:
                return
            self.events = not hello.skip_events
            self.accepted = not hello.skip_accepted
            auth = hello.WhichOneof("auth")
            if auth == "arena":     # a registered bot's lobby: a conversation of its own
                await LobbySession(self.engine).run(hello.arena, request_iterator, write)
                return
            if auth in ("seat", "arena_seat"):
                if auth == "seat":
                    referee, seat = self.engine.seat(hello.seat.match_id, hello.seat.seat_token)
                else:   # the bot key stands for the seat token (core/arena/host.py)
                    referee, seat = await asyncio.to_thread(
                        self.engine.arenas.seat_stream, hello.arena_seat.match_id,
                        hello.arena_seat.bot_key)
                log.info("bot %r plays match %s seat %d", hello.client, referee.id, seat)
                self.single = referee.id
                await send_all(self._join(referee, seat), write)
                if self.done:
                    return          # the match was already over
            elif auth == "arena_standby":
                # Its bot's seats here, however many: the matchmaker seats a bot in one
                # match of an arena at a time, and its key was checked.
                self.capacity = limits.CAPACITY_MAX
                self.pool = await self._stand_by(hello.arena_standby)
                self.standby = True
                # At once, ahead of any seat: a bot may wait for it before its lobby, so
                # that its first seat finds it standing by.
                await write(self.keepalive())
                log.info("bot %r stands by in arena %r", hello.client, hello.arena_standby.arena)
            else:
                self.capacity = max(hello.pool.capacity, 1)
                self.name = hello.pool.name
                self.engine.pools.enlist(hello.pool.pool, self, hello.pool.secret)
                self.pool = hello.pool.pool
                log.info("bot %r enlisted in pool %r as %r", hello.client, self.pool,
                         hello.pool.name)
            reader = asyncio.create_task(self._read_moves(request_iterator))
            await serve_inbox(self.inbox, self, write)
        finally:
            self.inbox.close()
            if reader is not None:
                reader.cancel()
            if self.standby:
                self.engine.arenas.standbys.leave(self.pool, self)
            elif self.pool:
                self.engine.pools.leave(self.pool, self)
            for seated in self.seated.values():
                seated.referee.unsubscribe(seated.sub)
                seated.referee.note_disconnect(seated.seat)

    async def _stand_by(self, standby: play_pb2.ArenaStandby) -> str:
        """Enlist this stream as its bot's standby; a bot that goes away meanwhile is let
        go once enlisted, so that no pool keeps a stream that ended."""
        arenas = self.engine.arenas
        return await enlist_shielded(
            lambda: arenas.standby(standby.bot_key, standby.arena, self),
            lambda pool: arenas.standbys.leave(pool, self))

    @staticmethod
    async def _hello(request_iterator):
        try:
            first = await asyncio.wait_for(anext(request_iterator, None), HELLO_TIMEOUT_S)
        except ServerStopped:
            return None     # the engine stops before the Hello came: the stream just ends
        except TimeoutError:
            raise EngineError(Reason.HELLO_TIMEOUT, f"no Hello within {HELLO_TIMEOUT_S:.0f} "
                              "s of connecting") from None
        if first is None or first.WhichOneof("body") != "hello":   # (or undecodable)
            raise EngineError(Reason.MALFORMED_REQUEST, "the first message must be a Hello",
                              field="hello")
        hello = first.hello
        auth = hello.WhichOneof("auth")
        if auth is None:
            raise EngineError(Reason.MALFORMED_REQUEST, "Hello needs a seat (match id + "
                              "token), a pool, an arena lobby, an arena seat or an "
                              "arena standby",
                              field="hello.auth")
        limits.text(hello.client, "hello.client", limits.CLIENT_MAX)
        if auth == "pool":
            p = hello.pool
            limits.text(p.pool, "hello.pool.pool", limits.POOL_MAX, required=True,
                        pattern=limits.POOL_NAME)
            limits.text(p.name, "hello.pool.name", limits.NAME_MAX)
            limits.integer(p.capacity, "hello.pool.capacity", 1, limits.CAPACITY_MAX,
                           zero_ok=True)
            limits.text(p.secret, "hello.pool.secret", limits.TOKEN_MAX)
        return hello

    def handle(self, item):
        if isinstance(item, Join):
            yield from self._join(item.referee, item.seat)
        elif isinstance(item, Update):
            seated = self.seated.get(item.match_id)
            if seated is None:
                return
            if self.events:
                yield codec.events_message(item, seated.seat, play_pb2.EngineMessage)
            if item.over:
                yield out(match_over=codec.match_over(seated.referee))
                self._leave(seated)
            elif item.to_move == seated.seat:
                yield from self._turn(seated)
        elif isinstance(item, Moved):
            # Another engine plays the match now: a seat stream ends with it (its bot
            # reconnects and is sent there); a pool stream just stops playing it.
            if self.seated.pop(item.match_id, None) is not None and self.pool:
                self.engine.pools.done(self.pool, self, item.match_id)
        elif isinstance(item, TurnAgain):
            seated = self.seated.get(item.match_id)
            if seated is not None and seated.store_refused_at == item.version:
                seated.store_refused_at = -1
                yield from self._turn(seated, again=True)
        elif isinstance(item, Answer):
            if item.message is None:
                return
            yield out(answer=item.message)
            seated = self.seated.get(item.ask_again)
            if seated is not None:
                yield from self._turn(seated, again=True)   # a refused bot gets its turn again

    def _join(self, referee: Referee, seat: int):
        sub, view = referee.subscribe(seat, self.inbox, self.events)
        seated = Seated(referee, seat, sub)
        self.seated[referee.id] = seated
        yield out(welcome=play_pb2.Welcome(match_id=referee.id, seat=seat,
                                           num_seats=len(referee.seats),
                                           variant=VARIANT.number(referee.row.variant)))
        yield out(snapshot=codec.snapshot(referee, view))
        if referee.match.over:
            yield out(match_over=codec.match_over(referee))
            self._leave(seated)
        else:
            yield from self._turn(seated, view)

    def _leave(self, seated: Seated) -> None:
        seated.referee.unsubscribe(seated.sub)
        del self.seated[seated.referee.id]
        if self.pool:
            self.engine.pools.done(self.pool, self, seated.referee.id)

    def _turn(self, seated: Seated, view: SeatView | None = None, again: bool = False):
        view = view or seated.referee.seat_view(seated.seat)
        if view.legal_moves and (view.version > seated.asked or again):
            seated.asked = view.version
            yield codec.turn_request(seated.referee.id, view)

    def keepalive(self):
        seated = self.seated.get(self.single)
        return out(keepalive=codec.keepalive(seated.referee.version if seated else 0))

    # ----- the bot's side -----------------------------------------------------------------
    async def _read_moves(self, request_iterator) -> None:
        """Runs beside the sending loop; each answer goes through the inbox. A bot that
        wants every answer hears of its move before the next seat is asked to move (its
        answer is queued first); refusals of a skip_accepted bot follow the move's update.
        The loop ends when the bot half-closes the stream; the task is cancelled when the
        stream ends."""
        try:
            async for message in request_iterator:
                wait = self._refusal_wait()
                if wait:
                    await asyncio.sleep(wait)
                answer = Answer()
                place = None
                if self.accepted:
                    # The answer's place in the stream, ahead of the move's update: the
                    # stream waits there until the move is played and the answer filled in.
                    place = asyncio.get_running_loop().create_future()
                    self.inbox.put(place)
                try:
                    await self._answer(message, answer)
                finally:
                    if place is not None and not place.done():   # (done: the stream ended)
                        place.set_result(answer)
                if not self.accepted and answer.message is not None:
                    self.inbox.put(answer)
        except asyncio.CancelledError:
            raise
        except ServerStopped:
            # The server is shutting down (an engine stopping, drained or restarted): the
            # stream ends with it, which is no failure; the bot reconnects.
            self.inbox.put(CLOSED)
        except Exception:   # never silent: this stream ends, the clocks cover its seats
            log.exception("Play stream of matches %s: reading the bot's messages failed",
                          ", ".join(self.seated) or "(none)")
            self.inbox.put(CLOSED)

    async def _answer(self, message, answer: Answer) -> None:
        """Play the bot's move and fill in `answer` (left empty for an accepted move
        when the bot asked for refusals only)."""
        received = time.perf_counter()
        decoded = message.WhichOneof("body") is not None
        choice = message.move if decoded else play_pb2.MoveChoice()
        answer.match_id = match_id = choice.match_id or self.single
        # A seat stream plays one match: whatever went wrong, that is the turn to ask again.
        seated = self.seated.get(self.single or match_id)
        try:
            if not decoded:
                raise EngineError(Reason.MALFORMED_REQUEST, "the message is not a valid "
                                  "BotMessage", field="body")
            if message.WhichOneof("body") != "move":
                raise EngineError(Reason.MALFORMED_REQUEST, "only MoveChoice may follow Hello",
                                  field="body")
            if match_id not in self.seated:
                raise EngineError(Reason.UNKNOWN_MATCH, f"this stream plays no match "
                                  f"{shown(match_id)}", field="move.match_id")
            accepted = await self.mover.play(received, seated.referee.submit, seated.seat,
                                             choice.version, choice.move_id, choice.move_text)
            seated.refusals = 0
            if self.accepted:
                answer.message = codec.answer(match_id, choice.version, accepted)
        except EngineError as err:
            metrics.refused(err.reason)
            if err.reason != Reason.STORE_UNAVAILABLE:   # the store away is no bot's doing
                self._tokens -= 1
            answer.message = codec.answer(match_id, choice.version, err=err)
            if seated is not None and err.reason == Reason.STORE_UNAVAILABLE:
                seated.store_refused_at = seated.referee.version   # asked when it is back
            elif seated is not None and self._counts_refusal(seated, err.version):
                answer.ask_again = seated.referee.id
        except Exception:   # a bug: logged; this move is refused, the stream goes on
            log.exception("match %s: a MoveChoice failed", match_id)
            self._tokens -= 1
            err = EngineError(Reason.INTERNAL, "internal error; the engine logged it")
            metrics.refused(err.reason)
            answer.message = codec.answer(match_id, choice.version, err=err)
            if seated is not None and self._counts_refusal(seated, seated.referee.version):
                answer.ask_again = seated.referee.id

    def _refusal_wait(self) -> float:
        """Seconds until the refusal bucket holds a token again (0: it holds one)."""
        now = time.monotonic()
        self._tokens = min(REFUSALS_BURST, self._tokens + (now - self._tokens_at) * REFUSALS_PER_S)
        self._tokens_at = now
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / REFUSALS_PER_S

    def _counts_refusal(self, seated: Seated, version: int) -> bool:
        """Count a refusal of the seat's move at `version`; False once they come too many
        in a row (the bot is not asked again at that version)."""
        if seated.refused_at != version:
            seated.refused_at, seated.refusals = version, 0
        seated.refusals += 1
        if seated.refusals < SPAM_AFTER:
            return True
        if seated.refusals == SPAM_AFTER:
            seated.referee.charge_spam(seated.seat)
            log.warning("match %s seat %d: %d refused moves in a row at version %d; not "
                        "asked again", seated.referee.id, seated.seat, SPAM_AFTER, version)
        return False
