"""Arena mode: a registered bot's lobby stream, its standby streams, and a seat Runner per
ArenaSeat that no standby stream plays.

``ArenaBot(address, bot_key, version, arena, make_bot).run()`` opens the lobby
(Hello.arena, play.proto) and, unless `standby=False`, a standby stream with every engine
of the cluster (Hello.arena_standby: a PoolFleet, bots/fleet.py, following the membership
as a pool bot does), which plays every seat of the bot's matches on that engine with no
call per match (docs/arena.md, "Standby streams"). Each time the engine seats the bot
(ArenaSeat) in a match whose engine it does not stand by with, it plays that match on a
seat stream of its own (Hello.arena_seat: the bot key stands for the seat token). Either
way it is the same Runner and strategy adapter as any seat (bots/runner.py): in time or
with the fallback, reconnecting, following the match to its owner engine. The lobby
itself reconnects with capped, jittered backoff after a drop or an engine restart; the
engine then delivers the seats still in play again, and a match already being played is
not played twice.

A refusal that would come again (a bad or rotated key, a retired bot, an unknown arena,
a newer lobby of the same bot that replaced this one) ends ``run`` with RunnerError. When
the engine pauses the bot (ArenaPaused: a no-show, or timeouts in several matches in a
row) the lobby says so in the log, waits PAUSED_WAIT_S and connects again, which clears
the pause: a bot that keeps failing is seated at most once in that time.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import grpc

from domino_proto.domino.v1 import play_pb2, play_pb2_grpc
from domino_wire import game
from domino_wire.names import VARIANT
from domino_wire.refusals import refusal_of
from domino_wire.routing import addresses_of

from .fleet import PoolFleet
from .io_loop import CHANNEL_OPTIONS, io_loop, on_io, ready
from .runner import Backoff, Runner, RunnerError

log = logging.getLogger("bots.lobby")

CLIENT = "domino bot runner (python, arena)"
PAUSED_WAIT_S = 30.0
STANDBY_WAIT_S = 5.0    # for a standby stream to stand by before the lobby opens
STANDING_WAIT_S = 600.0  # leaving: for the matches played on standby streams to end
# Refusals of a lobby Hello that would come again: give up at once.
FINAL = {"BAD_BOT_KEY", "BOT_RETIRED", "UNKNOWN_ARENA", "LOBBY_REPLACED", "MALFORMED_REQUEST"}


def lobby_hello(bot_key: str, version: str, arena: str, max_matches: int = 0,
                client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(arena=play_pb2.ArenaEnlist(bot_key=bot_key, version=version,
                                                     arena=arena, max_matches=max_matches),
                          client=client)


def arena_seat_hello(match_id: str, bot_key: str, client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(arena_seat=play_pb2.ArenaSeatAuth(match_id=match_id,
                                                            bot_key=bot_key), client=client)


def standby_hello(bot_key: str, arena: str, client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(arena_standby=play_pb2.ArenaStandby(bot_key=bot_key, arena=arena),
                          client=client)


class ArenaBot:
    """A registered bot in one arena. `make_bot(match_id, seat)` gives the strategy of each
    match; `matches`: leave the lobby once seated that many times, and return when those
    matches are over (0: play until `stop()`);
    `give_up_after`: seconds in a row the engines may stay unreachable (None: forever).
    `standby`: stand by with every engine (False: a seat stream for every ArenaSeat).
    `runner_options` go to each seat's Runner (margin, events, answers, on_message)."""

    def __init__(self, address: str | list[str], bot_key: str, version: str, arena: str,
                 make_bot: Callable, *, matches: int = 0, give_up_after: float | None = 120.0,
                 backoff: Backoff | None = None, label: str = "", paused_wait: float = PAUSED_WAIT_S,
                 standby: bool = True, **runner_options):
        self.addresses = addresses_of(address)
        self.address = self.addresses[0]
        self.bot_key, self.version, self.arena = bot_key, version, arena
        self.make_bot, self.matches, self.give_up_after = make_bot, matches, give_up_after
        self.backoff = backoff or Backoff()
        self.label = label or f"arena {arena} lobby"
        self.paused_wait = paused_wait
        self.runner_options = runner_options
        self.welcome: play_pb2.ArenaWelcome | None = None
        self.results: list[dict] = []        # one per finished match, in the order they ended
        self.finished: list[str] = []        # their match ids
        self.errors: dict[str, str] = {}     # match id -> why its seat stream failed
        self.seats: list[play_pb2.ArenaSeat] = []   # every ArenaSeat received, in order
        self.pauses: list[str] = []          # ArenaPaused reasons received
        self._seated: dict[str, threading.Thread] = {}
        self._standing: set[str] = set()     # matches a standby stream plays
        self._runners: dict[str, Runner] = {}
        self._stopping = threading.Event()
        self._leaving = threading.Event()
        self._lock = threading.Lock()
        self._stream = None
        self._fleet: PoolFleet | None = None
        self._standing_by = threading.Event()
        self._fleet_thread: threading.Thread | None = None
        if standby:
            seen = runner_options.get("on_message")
            self._fleet = PoolFleet(
                self.addresses, standby_hello(bot_key, arena), make_bot, matches=0,
                label=f"{self.label} standby", give_up_after=None,
                **{**runner_options, "on_message": self._on_standby(seen)})

    # ----- the lobby loop ------------------------------------------------------------------
    def run(self) -> list[dict]:
        down_since = None
        if self._fleet is not None:
            self._fleet_thread = threading.Thread(target=self._stand_by, daemon=True,
                                                  name=f"arena-standby-{self.arena}")
            self._fleet_thread.start()
            # Standing by before the lobby, so that the first seat finds the stream there
            # (a seat stream would play it otherwise: no harm, one call more).
            if not self._standing_by.wait(STANDBY_WAIT_S):
                log.info("%s: no standby stream yet; the lobby opens anyway", self.label)
        try:
            while not self._done() and not self._seated_enough() and not self._leaving.is_set():
                wait = None
                try:
                    if self._lobby_once():
                        self.backoff.reset()
                        down_since = None
                except grpc.FutureTimeoutError:
                    log.info("%s: engine %s not reachable", self.label, self.address)
                    self._next_engine()
                except grpc.RpcError as e:
                    if self._done():
                        break
                    refusal = refusal_of(e)
                    reason = refusal.reason if refusal is not None else ""
                    if reason in FINAL or e.code() in (grpc.StatusCode.UNAUTHENTICATED,
                                                       grpc.StatusCode.INVALID_ARGUMENT,
                                                       grpc.StatusCode.NOT_FOUND):
                        raise RunnerError(f"{self.label}: the engine refused: "
                                          f"{e.code().name}: {e.details()}", e.code()) from None
                    if refusal is None:
                        self._next_engine()
                    log.warning("%s: lobby lost (%s: %s)", self.label, e.code().name, e.details())
                except _Paused as p:
                    wait = self.paused_wait
                    log.warning("%s: paused by the engine (%s): %s; connecting again in %.0f s",
                                self.label, p.reason, p.message, wait)
                if self._done() or self._leaving.is_set():
                    break
                down_since = down_since or time.monotonic()
                if (wait is None and self.give_up_after is not None
                        and time.monotonic() - down_since > self.give_up_after):
                    raise RunnerError(f"{self.label}: engine {self.address} unreachable for "
                                      f"{self.give_up_after:.0f} s")
                if wait is not None:
                    down_since = None
                self._stopping.wait(wait if wait is not None else self.backoff.next())
        finally:
            self._stop_seats()
        return self.results

    def leave(self) -> None:
        """Leave the lobby (no further seat comes) and let the matches in play end; `run`
        returns then. `stop` ends them too."""
        self._leaving.set()
        with self._lock:
            stream = self._stream
        if stream is not None:
            io_loop().call_soon_threadsafe(stream.cancel)

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            stream = self._stream
            runners = list(self._runners.values())
        if stream is not None:
            io_loop().call_soon_threadsafe(stream.cancel)
        for r in runners:
            r.stop()
        if self._fleet is not None:
            self._fleet.stop()

    def _done(self) -> bool:
        return self._stopping.is_set() or (0 < self.matches <= len(self.results))

    def _seated_enough(self) -> bool:
        """Seated in `matches` matches: the lobby closes (no further seat comes), and the
        seats go on to their ends."""
        with self._lock:
            return 0 < self.matches <= len(self._seated)

    def _next_engine(self) -> None:
        i = self.addresses.index(self.address) if self.address in self.addresses else -1
        self.address = self.addresses[(i + 1) % len(self.addresses)]

    def _lobby_once(self) -> bool:
        return on_io(self._stream_once())

    async def _stream_once(self) -> bool:
        welcomed = False
        channel = grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS)
        try:
            await ready(channel, several=len(self.addresses) > 1)
            stream = play_pb2_grpc.PlayStub(channel).Connect()
            with self._lock:
                if self._stopping.is_set() or self._leaving.is_set():
                    stream.cancel()
                    return False
                self._stream = stream
            try:
                # The engine seats the bot no more than the matches still to be seated.
                with self._lock:
                    left = max(self.matches - len(self._seated), 0) if self.matches else 0
                await stream.write(play_pb2.BotMessage(hello=lobby_hello(
                    self.bot_key, self.version, self.arena, left)))
                while (message := await stream.read()) is not grpc.aio.EOF:
                    kind = message.WhichOneof("body")
                    if kind == "arena_welcome":
                        welcomed = True
                        self.welcome = message.arena_welcome
                        w = message.arena_welcome
                        log.info("%s: in as %s (%s) version %s, rating %.2f +- %.2f over %d "
                                 "matches", self.label, w.name, w.bot_id, w.version, w.mu,
                                 w.sigma, w.matches)
                    elif kind == "arena_seat":
                        self._seat(message.arena_seat)
                        if self._seated_enough():
                            break
                    elif kind == "arena_paused":
                        self.pauses.append(message.arena_paused.reason)
                        raise _Paused(message.arena_paused.reason, message.arena_paused.message)
                    if self._done():
                        break
            except asyncio.CancelledError:
                if not (self._stopping.is_set() or self._leaving.is_set()):
                    raise
            finally:
                with self._lock:
                    self._stream = None
                stream.cancel()
        finally:
            await channel.close()
        return welcomed

    # ----- seats ---------------------------------------------------------------------------
    def _stand_by(self) -> None:
        """The standby streams, until stopped; ended by a refusal (a rotated key ends the
        lobby too), the bot goes on with a seat stream per match."""
        try:
            self._fleet.run()
        except RunnerError as e:
            log.warning("%s: the standby streams ended: %s", self.label, e)
        except Exception:   # never silent; the lobby goes on with seat streams
            log.exception("%s: the standby streams failed", self.label)

    def _on_standby(self, seen: Callable | None) -> Callable:
        """What the standby streams' runners call with each message: a match's end is
        one of this bot's results."""
        def on_message(message) -> None:
            if seen is not None:
                seen(message)
            kind = message.WhichOneof("body")
            if kind == "keepalive":
                self._standing_by.set()     # the first comes as the engine enlisted it
            elif kind == "match_over":
                self._over(message.match_over.match_id, game.match_result(
                    message.match_over.result))
        return on_message

    def _over(self, match_id: str, result: dict) -> None:
        with self._lock:
            if match_id in self.finished:
                return
            self.finished.append(match_id)
            self.results.append(result)
        if self._done():
            self.stop()

    def _standing_over(self) -> bool:
        """Whether every match played on a standby stream is over (under the lock: the
        lobby's thread may be adding one)."""
        with self._lock:
            return self._standing <= set(self.finished)

    def _stands_by(self, seat: play_pb2.ArenaSeat) -> bool:
        """Whether a standby stream with the match's engine plays it."""
        fleet = self._fleet
        return fleet is not None and fleet.holds(seat.owner or self.address)

    def _seat(self, seat: play_pb2.ArenaSeat) -> None:
        """Play the seat on a stream of its own (a thread), once per match, unless a
        standby stream plays it."""
        with self._lock:
            self.seats.append(seat)
            thread = self._seated.get(seat.match_id)
            if seat.match_id in self.finished or (thread is not None and thread.is_alive()):
                return
            if self._stands_by(seat):
                self._standing.add(seat.match_id)
                log.info("%s: seated in match %s seat %d, played on the standby stream",
                         self.label, seat.match_id, seat.seat)
                return
            # The owner first; every engine given after it, should the owner die and
            # another take the match over.
            where = [seat.owner] if seat.owner else [self.address]
            runner = Runner([*where, *self.addresses], arena_seat_hello(seat.match_id,
                                                                         self.bot_key),
                            self.make_bot, matches=1,
                            label=f"{self.label} match {seat.match_id} seat {seat.seat}",
                            give_up_after=self.give_up_after, **self.runner_options)
            self._runners[seat.match_id] = runner
            thread = threading.Thread(target=self._play, args=(seat, runner), daemon=True,
                                      name=f"arena-seat-{seat.match_id}")
            self._seated[seat.match_id] = thread
        log.info("%s: seated in match %s (%s) seat %d%s", self.label, seat.match_id,
                 VARIANT.word(seat.variant) or "?", seat.seat,
                 f" at {seat.owner}" if seat.owner else "")
        thread.start()

    def _play(self, seat: play_pb2.ArenaSeat, runner: Runner) -> None:
        try:
            results = runner.run()
        except RunnerError as e:
            log.warning("%s", e)
            with self._lock:
                self.errors[seat.match_id] = str(e)
            return
        except Exception as e:   # noqa: BLE001 - one match fails; the lobby goes on
            log.exception("%s: match %s failed", self.label, seat.match_id)
            with self._lock:
                self.errors[seat.match_id] = repr(e)
            return
        finally:
            with self._lock:
                self._runners.pop(seat.match_id, None)
        if results:
            self._over(seat.match_id, results[0])

    def _stop_seats(self) -> None:
        """Stopped: end the seats' streams; else (the matches asked for are seated) wait
        for them to end."""
        with self._lock:
            runners = list(self._runners.values())
            threads = list(self._seated.values())
        if self._stopping.is_set():
            for r in runners:
                r.stop()
        for t in threads:
            t.join(10 if self._stopping.is_set() else None)
        if self._fleet is not None:
            # The matches played on the standby streams, to their ends as well (bounded:
            # a seat the clock played, its standby away, never ends on that stream).
            until = time.monotonic() + STANDING_WAIT_S
            while (not self._stopping.is_set() and not self._standing_over()
                   and self._fleet_thread is not None and self._fleet_thread.is_alive()
                   and time.monotonic() < until):
                self._stopping.wait(0.2)
            self._fleet.stop()
            if self._fleet_thread is not None:
                self._fleet_thread.join(10)


class _Paused(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(reason)
        self.reason, self.message = reason, message

