"""The bot runner: one Play stream (a seat, or a pool), its connection and its messages.

The runner speaks the Play service of the engine (proto/domino/v1/play.proto, walked
through in docs/bots.md) on a strategy's behalf:

- authenticates with a match id and a seat token (bots.play.seat_hello), or enlists in a
  bot pool by name (pool_hello) and plays match after match; asks for no EventBatch
  (Hello.skip_events) when the strategy does not listen to events;
- turns each TurnRequest into the view a strategy reads (the dict of docs/views.md, read
  from the typed view on first use: domino_wire.game.LazyView) and rules ``Move`` values,
  and has the strategy answered (bots/strategy_adapter.py: in time, or with the fallback);
- after a dropped connection or an engine restart, reconnects with capped, jittered
  exponential backoff and resumes with the same token (the engine sends a fresh Snapshot
  and, if it is the seat's turn, the TurnRequest again); in a cluster, follows a match to
  the engine that owns it.

Every stream of the process is a coroutine on one I/O loop (bots/io_loop.py); ``run()``
blocks its caller's thread until the runner is done. ``on_message`` is called on that
loop, so it must be quick. The entry points a bot author calls (``play``, ``play_seats``)
are in bots/play.py.

What is not done here: rebuilding events missed while the connection was down (the view
in the next TurnRequest is complete; ``on_event`` is a hint).
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from domino_proto.domino.v1 import play_pb2, play_pb2_grpc
from domino_wire import game
from domino_wire.names import VARIANT
from domino_wire.routing import RETRY_S, addresses_of, where_next
from plumbing.inbox import Inbox

from . import strategy_adapter as adapter
from .io_loop import CHANNEL_OPTIONS, io_loop, on_io, ready
from .strategy_adapter import Seated, Turn, Worker, as_strategy, listens, parse_move, runs_inline

log = logging.getLogger("bots.runner")

# Worth another try: the engine is away, restarting, or the stream broke. Anything else
# (a bad token, an unknown match, a malformed Hello) would fail the same way again.
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED}
DRAIN_S = 10.0   # for the strategies' calls still under way when run() ends (Runner._drain)


class RunnerError(Exception):
    """The engine refused the connection for good (bad token, unknown match, ...), or
    stayed unreachable longer than the runner was told to wait."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None):
        super().__init__(message)
        self.code = code


class Backoff:
    """Exponential backoff, capped, with jitter: waits in [d/2, d] for d = first * 2**n,
    at most `cap`. Jitter keeps a crowd of bots from knocking at the same instant after an
    engine restart."""

    def __init__(self, first: float = 0.2, cap: float = 5.0, rng: random.Random | None = None):
        self.first, self.cap = first, cap
        self.rng = rng or random.Random()
        self.tries = 0

    def next(self) -> float:
        delay = min(self.cap, self.first * 2 ** self.tries)
        self.tries += 1
        return self.rng.uniform(delay / 2, delay)

    def reset(self) -> None:
        self.tries = 0


@dataclass
class Stats:
    """What happened on the runner's connections (for logs and tests)."""
    moves: int = 0            # answers sent
    fallbacks: int = 0        # answers that were the fallback move (slow or failing strategy)
    refusals: list = field(default_factory=list)    # refusal reasons of our answers
    connects: int = 0         # streams that got past the Hello
    reconnects: int = 0       # connection attempts after the first one


class Runner:
    """Plays through one Play stream (seat or pool), reconnecting as needed.

    `make_bot(match_id, seat)` gives the strategy for a match the stream is seated in; it
    is called once per match (kept across reconnects). `matches`: return once that many
    matches are over (0: never; `stop()` ends it). `give_up_after`: seconds in a row the
    engine may stay unreachable (None: forever). `on_message` sees every EngineMessage
    (tests use it); `on_open` is called whenever a stream to an engine is open (a pool
    stream hears nothing more until it is seated, so no message says the engine is there).
    `events`: False asks the engine for no EventBatch (Hello.skip_events),
    for strategies that do not listen to events; True asks for them; None sends `hello`
    as it is. `answers`: True asks for a MoveAnswer to every move; by default only refused
    moves are answered (Hello.skip_accepted), as the runner acts on refusals only.
    """

    def __init__(self, address: str | list[str], hello: play_pb2.Hello, make_bot: Callable, *,
                 matches: int = 1, margin: float | None = None,
                 give_up_after: float | None = 120.0, backoff: Backoff | None = None,
                 on_message: Callable | None = None, on_open: Callable | None = None,
                 label: str = "bot",
                 events: bool | None = None, answers: bool = False,
                 channel: grpc.aio.Channel | None = None):
        hello = _copy(hello)
        if events is not None:
            hello.skip_events = not events
        hello.skip_accepted = not answers
        # "A,B,C": the engines of a cluster (docs/cluster.md). The stream goes to the
        # first; an engine that does not own the match names its owner, and the runner
        # follows; one that does not answer is skipped for the next.
        self.addresses = addresses_of(address)
        self.address, self.hello, self.make_bot = self.addresses[0], hello, make_bot
        self.channel = channel                 # shared with other runners; not ours to close
        self._channel_address = self.address   # the engine a shared channel goes to
        self.matches, self.margin, self.give_up_after = matches, margin, give_up_after
        self.backoff = backoff or Backoff()
        self.on_message = on_message
        self.on_open = on_open
        self.label = label
        self.stats = Stats()
        self.results: list[dict] = []          # one per finished match, in the order they ended
        self.finished: list[str] = []          # their match ids
        self._seated: dict[str, Seated] = {}   # kept across reconnects, dropped at MatchOver
        self._closing: list[Worker] = []       # workers of ended matches, still at their jobs
        self._skew = 0.0                       # engine clock minus ours, from keepalives
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._stream = None

    # ----- the loop -----------------------------------------------------------------------
    def run(self) -> list[dict]:
        """Play until `matches` matches are over (or `stop()`); returns their results."""
        down_since = None
        try:
            while not self._done():
                if self.stats.connects or down_since is not None:
                    self.stats.reconnects += 1
                connected = False
                # Soon again, not after the growing backoff: while a failover is under
                # way (no engine owns the match for a second or two), and when another
                # engine of a cluster may answer for one that did not.
                soon = False
                try:
                    connected = self._connect_once()
                except grpc.FutureTimeoutError:
                    log.info("%s: engine %s not reachable yet", self.label, self.address)
                    soon = len(self.addresses) > 1
                    self._next_engine()
                except grpc.RpcError as e:
                    if self._done():
                        break
                    step, owner = where_next(e)
                    if step == "owner" and owner != self.address:
                        log.info("%s: the match is played by the engine at %s", self.label,
                                 owner)
                        self.address = owner
                        continue   # at once: that engine is up
                    if e.code() not in RETRYABLE:
                        raise RunnerError(f"{self.label}: the engine refused: {e.code().name}: "
                                          f"{e.details()}", e.code()) from None
                    if step == "away":
                        soon = len(self.addresses) > 1
                        self._next_engine()
                    soon = soon or step == "wait"
                    log.warning("%s: connection lost (%s: %s)", self.label, e.code().name,
                                e.details())
                if self._done():
                    break
                if connected:
                    self.backoff.reset()
                    down_since = None
                down_since = down_since or time.monotonic()
                if (self.give_up_after is not None
                        and time.monotonic() - down_since > self.give_up_after):
                    raise RunnerError(f"{self.label}: engine {self.address} unreachable for "
                                      f"{self.give_up_after:.0f} s")
                delay = RETRY_S if soon else self.backoff.next()
                log.info("%s: reconnecting in %.2f s", self.label, delay)
                self._stopping.wait(delay)
        finally:
            for seated in self._seated.values():
                seated.worker.close()
                self._closing.append(seated.worker)
            self._drain()
        return self.results

    def _drain(self) -> None:
        """Let the strategies finish the calls already given to them (the last on_event,
        MatchOver's, most of all) before run() returns, for at most DRAIN_S in all: a hung
        strategy keeps neither the caller nor the process (its thread is a daemon)."""
        deadline = time.monotonic() + DRAIN_S
        for worker in self._closing:
            worker.join(max(0.0, deadline - time.monotonic()))
        self._closing.clear()

    def stop(self) -> None:
        """End the stream from another thread; run() returns the results so far."""
        self._stopping.set()
        with self._lock:
            if self._stream is not None:
                io_loop().call_soon_threadsafe(self._stream.cancel)

    def _done(self) -> bool:
        return self._stopping.is_set() or (0 < self.matches <= len(self.results))

    def _next_engine(self) -> None:
        """The engine at self.address did not answer: the next one given (round robin);
        the one that takes its matches over says so when asked."""
        if self.address in self.addresses:
            self.address = self.addresses[(self.addresses.index(self.address) + 1)
                                          % len(self.addresses)]
        else:   # an owner we were sent to: back to the ones we were given
            self.address = self.addresses[0]

    def _connect_once(self) -> bool:
        """One stream, until it ends; True when it got past the Hello. The stream runs on
        the process's I/O loop; this thread waits for it."""
        return on_io(self._stream_once())

    async def _stream_once(self) -> bool:
        outbox = Inbox(keepalive=False)     # MoveChoices from any thread, in order
        outbox.put(play_pb2.BotMessage(hello=self.hello))
        turns: dict[tuple[str, int], Turn] = {}
        welcomed = False
        shared = self.channel if self._channel_address == self.address else None
        channel = shared or grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS)
        try:
            await ready(channel, several=len(self.addresses) > 1)
            stream = play_pb2_grpc.PlayStub(channel).Connect()
            with self._lock:
                if self._stopping.is_set():
                    stream.cancel()
                    return False
                self._stream = stream
            if self.on_open is not None:
                self.on_open()
            writer = asyncio.ensure_future(_send_all(stream, outbox))
            try:
                while (message := await stream.read()) is not grpc.aio.EOF:
                    if self.on_message is not None:
                        self.on_message(message)
                    kind = message.WhichOneof("body")
                    if kind == "welcome":
                        if not welcomed:
                            welcomed = True
                            self.stats.connects += 1
                        self._welcome(message.welcome)
                    elif kind == "snapshot":
                        self._snapshot(message.snapshot)
                    elif kind == "turn":
                        self._turn(message.turn.state, turns, outbox)
                    elif kind == "answer":
                        self._answer(message.answer, turns)
                    elif kind == "events":
                        self._events(message.events)
                    elif kind == "keepalive":
                        self._skew = message.keepalive.server_unix_ms / 1000 - time.time()
                    elif kind == "match_over":
                        self._match_over(message.match_over)
                        _forget(turns, message.match_over.match_id)
                        if self._done():
                            break
            except asyncio.CancelledError:
                if not self._stopping.is_set():
                    raise
            finally:
                with self._lock:
                    self._stream = None
                writer.cancel()
                stream.cancel()
                for turn in turns.values():
                    if turn.timer is not None:
                        turn.timer.cancel()
        finally:
            if shared is None:
                await channel.close()
        return welcomed

    # ----- messages -----------------------------------------------------------------------
    def _welcome(self, welcome) -> None:
        if welcome.match_id in self._seated:
            log.info("%s: back in match %s, seat %d", self.label, welcome.match_id, welcome.seat)
            return
        strategy = as_strategy(self.make_bot(welcome.match_id, welcome.seat))
        self._seated[welcome.match_id] = Seated(
            welcome.match_id, welcome.seat, VARIANT.word(welcome.variant) or "", strategy,
            Worker(f"strategy-{welcome.match_id}-{welcome.seat}"), listens=listens(strategy),
            inline=runs_inline(strategy), label=self.label)
        if self.hello.skip_events and listens(strategy):
            log.warning("%s: %s listens to events, but this stream asked for none "
                        "(skip_events): its on_event is not called", self.label,
                        getattr(strategy, "name", type(strategy).__name__))
        log.info("%s: playing match %s (%s), seat %d with %s", self.label, welcome.match_id,
                 VARIANT.word(welcome.variant) or "?", welcome.seat,
                 getattr(strategy, "name", type(strategy).__name__))

    def _snapshot(self, snapshot) -> None:
        seated = self._seated.get(snapshot.state.match_id)
        if seated is not None and 0 <= seated.seat < len(snapshot.summary.seats):
            seated.clock_ms = snapshot.summary.seats[seated.seat].clock_ms

    def _events(self, batch) -> None:
        seated = self._seated.get(batch.match_id)
        if seated is None or not seated.listens:
            return
        for event in batch.events:
            seated.worker.submit(seated.strategy.on_event, game.event(event))

    def _match_over(self, over) -> None:
        seated = self._seated.pop(over.match_id, None)
        if seated is not None:
            seated.worker.close()
            self._closing = [w for w in self._closing if w.busy()] + [seated.worker]
        if over.match_id in self.finished:
            return
        self.finished.append(over.match_id)
        self.results.append(game.match_result(over.result))
        log.info("%s: match %s over at version %d", self.label, over.match_id, over.version)

    def _turn(self, state, turns: dict, outbox: Inbox) -> None:
        seated = self._seated.get(state.match_id)
        if seated is None or not state.legal_moves:
            return

        def send(turn: Turn, index: int, fallback_reason: str) -> None:
            self._send(turn, index, outbox, fallback_reason)

        key = (state.match_id, state.version)
        turn = turns.get(key)
        if turn is not None:
            # The same turn again: after a refusal of our answer, otherwise a duplicate.
            adapter.answer_again(turn, send)
            return
        turn = Turn(seated, state.version, [m.id for m in state.legal_moves],
                    [parse_move(m.text) for m in state.legal_moves])
        turns[key] = turn
        budget = None if seated.inline else adapter.think_time(
            state.deadline_unix_ms, seated.clock_ms, time.time() + self._skew, self.margin)
        adapter.answer(turn, game.LazyView(state), budget, send)

    def _send(self, turn: Turn, index: int, outbox, fallback_reason: str = "") -> None:
        """Answer `turn` with its legal move `index` (caller holds turn.lock)."""
        turn.answered = True
        if turn.timer is not None:
            turn.timer.cancel()
        self.stats.moves += 1
        if fallback_reason:
            self.stats.fallbacks += 1
            log.warning("%s: match %s seat %d version %d: %s; answering the first legal move "
                        "%s", self.label, turn.seated.match_id, turn.seated.seat, turn.version,
                        fallback_reason, turn.moves[index])
        outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(
            match_id=turn.seated.match_id, version=turn.version, move_id=turn.ids[index])))

    def _answer(self, answer, turns: dict) -> None:
        if answer.accepted:
            return
        reason = answer.refusal.reason
        self.stats.refusals.append(reason)
        log.warning("%s: match %s: our move at version %d was refused: %s: %s", self.label,
                    answer.match_id, answer.submitted_version, reason, answer.refusal.message)
        match_id = answer.match_id or next(iter(self._seated), "")
        turn = turns.get((match_id, answer.submitted_version))
        if turn is not None:
            with turn.lock:
                turn.refused += 1


# ----- the stream's helpers --------------------------------------------------------------
async def _send_all(stream, outbox: Inbox) -> None:
    """Write the outbox to the stream in order, until the stream ends."""
    try:
        while True:
            await stream.write(await outbox.get())
    except (grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
        pass    # the stream ended; its reader reports why


def _forget(turns: dict, match_id: str) -> None:
    """Drop a finished match's turns: a pool stream lives for many matches."""
    for key in [k for k in turns if k[0] == match_id]:
        turn = turns.pop(key)
        if turn.timer is not None:
            turn.timer.cancel()


def _copy(hello: play_pb2.Hello) -> play_pb2.Hello:
    out = play_pb2.Hello()
    out.CopyFrom(hello)
    return out
