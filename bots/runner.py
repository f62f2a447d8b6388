"""The bot runner: it owns the connection, a strategy only chooses moves.

A strategy (bots/strategy.py) answers ``choose(view, legal_moves) -> move`` and may listen
to ``on_event(event)``. The runner speaks the Play service of the engine
(proto/domino/v1/play.proto, walked through in docs/bots.md) on its behalf:

- authenticates with a match id and a seat token (``play``), or enlists in a bot pool by
  name (``bots.fleet.play_pool``) and plays match after match; asks for no EventBatch
  (Hello.skip_events) when the strategy does not listen to events;
- turns each TurnRequest into the view a strategy reads (the dict of docs/views.md, read
  from the typed view on first use: domino_wire.game.LazyView) and rules ``Move`` values,
  asks the strategy, and answers with the legal move's id;
- answers before the engine's deadline even when the strategy is slow or fails: then it
  sends the first legal move (the engine's own default move) and logs it;
- after a dropped connection or an engine restart, reconnects with capped, jittered
  exponential backoff and resumes with the same token (the engine sends a fresh Snapshot
  and, if it is the seat's turn, the TurnRequest again).

Every connection of the process is a coroutine on one I/O event loop thread (grpc.aio),
so a message costs no thread hand-over however many seats the process plays; ``run()``
blocks its caller's thread until the runner is done, and ``play_seats`` plays several
seats from one process over one shared channel. Each strategy runs on one worker thread of
its own, so it is never called from two threads at once, and events reach it in order
between its choices; one shared timer thread answers for it when it is too slow. A
strategy that declares it chooses at once (``Strategy.inline``: first legal, random,
greedy) is called on the I/O loop instead, saving two thread hand-overs per turn; so is
``on_message``, which must therefore be quick.

What is not done here: checking that a strategy's move is legal beyond "is it one of the
offered moves" (the engine is the authority), and rebuilding events missed while the
connection was down (the view in the next TurnRequest is complete; ``on_event`` is a hint).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import grpc

from bots.strategy import Strategy
from domino_proto.domino.v1 import play_pb2, play_pb2_grpc
from domino_wire import game
from domino_wire.names import VARIANT
from domino_wire.routing import RETRY_S, addresses_of, where_next
from engine_service.rules.moves import Move
from plumbing.alarms import Alarm, Alarms
from plumbing.inbox import Inbox

log = logging.getLogger("bots.runner")

CLIENT = "domino bot runner (python)"

# Ping the engine every 5 s so a dead engine is noticed within seconds even when the
# operating system does not tell us (a pulled cable rather than a killed process).
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 3000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]

# Worth another try: the engine is away, restarting, or the stream broke. Anything else
# (a bad token, an unknown match, a malformed Hello) would fail the same way again.
# A channel shared by several streams (play_seats) outlives engine restarts: it must try
# again about as soon as the runner's own backoff would, not after gRPC's default (up to
# 120 s between attempts).
SHARED_CHANNEL_OPTIONS = CHANNEL_OPTIONS + [
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2000),
]

RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN,
             grpc.StatusCode.INTERNAL, grpc.StatusCode.DEADLINE_EXCEEDED,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.ABORTED}


class RunnerError(Exception):
    """The engine refused the connection for good (bad token, unknown match, ...), or
    stayed unreachable longer than the runner was told to wait."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None):
        super().__init__(message)
        self.code = code


class FirstLegal(Strategy):
    """The engine's default move: the first legal move. The runner's fallback."""

    name = "first"
    inline = True

    def choose(self, view, legal_moves):
        return legal_moves[0]


class _Function(Strategy):
    """A bare ``choose(view, legal_moves)`` function as a strategy."""

    def __init__(self, choose: Callable):
        super().__init__()
        self._choose = choose
        self.name = getattr(choose, "__name__", "function")

    def choose(self, view, legal_moves):
        return self._choose(view, legal_moves)


def as_strategy(bot) -> Strategy:
    """A Strategy (anything with ``choose``) as is; a plain function wrapped."""
    if hasattr(bot, "choose"):
        return bot
    if callable(bot):
        return _Function(bot)
    raise TypeError(f"a bot is a Strategy or a choose(view, legal_moves) function, got {bot!r}")


_io: asyncio.AbstractEventLoop | None = None
_clock: Alarms | None = None
_singletons = threading.Lock()   # guards the lazily made I/O loop and timer


def io_loop() -> asyncio.AbstractEventLoop:
    """The process's one event loop for every bot connection (grpc.aio), on a daemon
    thread: a message costs no thread hand-over, however many seats the process plays."""
    global _io
    with _singletons:
        if _io is None:
            _io = asyncio.new_event_loop()
            threading.Thread(target=_io.run_forever, name="bot-io", daemon=True).start()
        return _io


def _on_io(coro):
    """Run `coro` on the I/O loop and wait for its result (from any other thread)."""
    return asyncio.run_coroutine_threadsafe(coro, io_loop()).result()


def deadlines() -> Alarms:
    """The process's one timer thread for every turn's fallback answer (a turn costs a
    heap push, not a thread)."""
    global _clock
    with _singletons:
        if _clock is None:
            _clock = Alarms()
        return _clock


def runs_inline(strategy) -> bool:
    """True for a strategy whose ``choose`` is declared quick (``inline = True`` in the
    class that defines that ``choose``) and that does not listen to events (a listener's
    calls stay on one thread, in order). A ``choose`` replaced on the instance, or
    overridden by a subclass that does not declare it again, is not trusted to be quick."""
    if "choose" in getattr(strategy, "__dict__", {}) or listens(strategy):
        return False
    owner = next((c for c in type(strategy).__mro__ if "choose" in vars(c)), None)
    return owner is not None and vars(owner).get("inline") is True


# Legal moves arrive as text; the same few hundred texts come back all match long.
_MOVES: dict[str, Move] = {}


def parse_move(text: str) -> Move:
    move = _MOVES.get(text)
    if move is None:
        move = Move.parse(text)
        if len(_MOVES) < 4096:
            _MOVES[text] = move
    return move


def listens(strategy) -> bool:
    """True when the strategy overrides on_event (the base class ignores events)."""
    hook = getattr(type(strategy), "on_event", None)
    return hook is not None and hook is not Strategy.on_event


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


def think_time(deadline_unix_ms: int, clock_ms: int, now: float, margin: float | None = None
               ) -> float | None:
    """Seconds the strategy may think before the runner answers with the fallback.

    None when no clock runs (deadline 0): the strategy takes the time it needs. Otherwise
    the time left minus a safety margin for the trip to the engine (by default a tenth of
    the seat's clock, between 0.25 and 1 s), but never less than half the time left.
    `now` is the engine's clock in seconds (local time corrected by the measured skew).
    """
    if not deadline_unix_ms:
        return None
    left = deadline_unix_ms / 1000 - now
    if margin is None:
        margin = min(1.0, max(0.25, clock_ms / 10_000))
    return max(0.0, left - margin, left / 2)


class _Worker:
    """One daemon thread that runs a strategy's calls in order (a hung strategy never
    keeps the process from exiting)."""

    def __init__(self, name: str):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, fn, *args) -> Future:
        future: Future = Future()
        self._jobs.put((future, fn, args))
        return future

    def close(self) -> None:
        self._jobs.put(None)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            future, fn, args = job
            if not future.set_running_or_notify_cancel():
                continue   # the turn was answered without it
            try:
                future.set_result(fn(*args))
            except BaseException as e:   # noqa: BLE001 - handed to whoever waits
                future.set_exception(e)


@dataclass
class Seated:
    """One match as seen from one seat: the strategy that plays it and what we know."""
    match_id: str
    seat: int
    variant: str
    strategy: Strategy
    worker: _Worker
    clock_ms: int = 0
    listens: bool = False
    inline: bool = False      # choose runs on the I/O loop (see runs_inline)


@dataclass
class Turn:
    """One TurnRequest being answered (one per match and version per connection)."""
    seated: Seated
    version: int
    ids: list
    moves: list
    lock: threading.Lock = field(default_factory=threading.Lock)
    answered: bool = False
    refused: int = 0          # refusals of our answers at this version
    timer: Alarm | None = None
    future: Future | None = None


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
    (tests use it). `events`: False asks the engine for no EventBatch (Hello.skip_events),
    for strategies that do not listen to events; True asks for them; None sends `hello`
    as it is. `answers`: True asks for a MoveAnswer to every move; by default only refused
    moves are answered (Hello.skip_accepted), as the runner acts on refusals only.
    """

    def __init__(self, address: str | list[str], hello: play_pb2.Hello, make_bot: Callable, *,
                 matches: int = 1, margin: float | None = None,
                 give_up_after: float | None = 120.0, backoff: Backoff | None = None,
                 on_message: Callable | None = None, label: str = "bot",
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
        self.label = label
        self.stats = Stats()
        self.results: list[dict] = []          # one per finished match, in the order they ended
        self.finished: list[str] = []          # their match ids
        self._seated: dict[str, Seated] = {}   # kept across reconnects, dropped at MatchOver
        self._skew = 0.0                       # engine clock minus ours, from keepalives
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._stream = None
        self._outbox: Inbox | None = None

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
        return self.results

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
        return _on_io(self._stream_once())

    async def _stream_once(self) -> bool:
        outbox = Inbox(keepalive=False)     # MoveChoices from any thread, in order
        outbox.put(play_pb2.BotMessage(hello=self.hello))
        turns: dict[tuple[str, int], Turn] = {}
        welcomed = False
        shared = self.channel if self._channel_address == self.address else None
        channel = shared or grpc.aio.insecure_channel(self.address, options=CHANNEL_OPTIONS)
        try:
            try:
                # With other engines to try, one that does not answer within a second is
                # passed over (a killed engine's port refuses until it is back).
                await asyncio.wait_for(channel.channel_ready(),
                                       5 if len(self.addresses) == 1 else 1)
            except TimeoutError:
                raise grpc.FutureTimeoutError() from None
            stream = play_pb2_grpc.PlayStub(channel).Connect()
            with self._lock:
                if self._stopping.is_set():
                    stream.cancel()
                    return False
                self._stream, self._outbox = stream, outbox
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
                    self._stream = self._outbox = None
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
            _Worker(f"strategy-{welcome.match_id}-{welcome.seat}"), listens=listens(strategy),
            inline=runs_inline(strategy))
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
        if over.match_id in self.finished:
            return
        self.finished.append(over.match_id)
        self.results.append(game.match_result(over.result))
        log.info("%s: match %s over at version %d", self.label, over.match_id, over.version)

    def _turn(self, state, turns: dict, outbox: Inbox) -> None:
        seated = self._seated.get(state.match_id)
        if seated is None or not state.legal_moves:
            return
        key = (state.match_id, state.version)
        turn = turns.get(key)
        if turn is not None:
            # The same turn again: after a refusal of our answer (answer with the fallback
            # once, then leave it to the clock), otherwise a duplicate.
            with turn.lock:
                if turn.refused == 1 and turn.answered:
                    turn.refused += 1
                    self._send(turn, 0, outbox, "our answer was refused")
            return
        turn = Turn(seated, state.version, [m.id for m in state.legal_moves],
                    [parse_move(m.text) for m in state.legal_moves])
        turns[key] = turn
        view = game.LazyView(state)
        if seated.inline:
            # No worker, no timer and no Future: nothing else can answer this turn.
            try:
                chosen = seated.strategy.choose(view, list(turn.moves))
            except Exception as e:   # noqa: BLE001 - answered with the fallback
                self._decided(turn, None, e, outbox)
            else:
                self._decided(turn, chosen, None, outbox)
            return
        budget = think_time(state.deadline_unix_ms, seated.clock_ms, time.time() + self._skew,
                            self.margin)
        turn.future = seated.worker.submit(seated.strategy.choose, view, list(turn.moves))
        if budget is not None:
            turn.timer = deadlines().set(budget, lambda: self._too_slow(turn, outbox, budget))
        turn.future.add_done_callback(lambda f: self._chosen(turn, f, outbox))

    def _too_slow(self, turn: Turn, outbox, budget: float) -> None:
        with turn.lock:
            if turn.answered:
                return
            turn.future.cancel()     # not started yet (queued behind a slow turn): skip it
            self._send(turn, 0, outbox, f"the strategy did not answer within {budget:.2f} s")

    def _chosen(self, turn: Turn, future: Future, outbox) -> None:
        """The worker's answer (or failure) for `turn`, unless the turn was skipped."""
        if future.cancelled():
            return
        error = future.exception()
        self._decided(turn, None if error else future.result(), error, outbox)

    def _decided(self, turn: Turn, chosen, error: BaseException | None, outbox) -> None:
        """Answer `turn` with what the strategy chose, or with the fallback when it failed
        or chose no legal move; nothing if the fallback timer answered first."""
        with turn.lock:
            if turn.answered:
                return
            if error is not None:
                log.error("%s: match %s version %d: the strategy failed: %r", self.label,
                          turn.seated.match_id, turn.version, error)
                self._send(turn, 0, outbox, "the strategy failed")
                return
            index = self._index(turn, chosen)
            if index is None:
                self._send(turn, 0, outbox, f"the strategy chose {chosen!r}, "
                           "which is not a legal move")
            else:
                self._send(turn, index, outbox)

    @staticmethod
    def _index(turn: Turn, chosen) -> int | None:
        for i, m in enumerate(turn.moves):
            if m is chosen:
                return i
        try:
            return turn.moves.index(parse_move(chosen) if isinstance(chosen, str)
                                    else Move.parse(chosen))
        except Exception:   # noqa: BLE001 - not a move, or not a legal one
            return None

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


# ----- entry points -------------------------------------------------------------------------
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


def seat_hello(match_id: str, seat_token: str, client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(seat=play_pb2.SeatAuth(match_id=match_id, seat_token=seat_token),
                          client=client)


def pool_hello(pool: str, name: str, capacity: int = 1, secret: str = "",
               client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(pool=play_pb2.PoolEnlist(pool=pool, name=name, capacity=capacity,
                                                   secret=secret), client=client)


def play(address: str, match_id: str, seat_token: str, bot=None, **options) -> dict:
    """Play one seat of one match to its end with `bot` (a Strategy or a choose function;
    default: the first legal move); returns the match result. Options as for Runner; the
    stream asks for EventBatches only when the bot listens to them (on_event)."""
    bot = FirstLegal() if bot is None else bot
    options.setdefault("events", listens(as_strategy(bot)))
    runner = Runner(address, seat_hello(match_id, seat_token), lambda m, s: bot, matches=1,
                    label=options.pop("label", f"match {match_id}"), **options)
    return runner.run()[0]


@dataclass(frozen=True)
class SeatTicket:
    """What it takes to play one seat: the match, the seat number, its seat token."""
    match_id: str
    seat: int
    seat_token: str


def play_seats(address: str, tickets: list[SeatTicket], make_bot: Callable, **options
               ) -> list[dict]:
    """Play several seats from this process, one connection (thread) each. Returns, in
    the order of `tickets`, {"match_id", "seat", "result", "stats"} or {..., "error"}.
    Options as for Runner (`events=False` when make_bot's strategies do not listen)."""
    out: list[dict] = [{} for _ in tickets]
    # One channel (one HTTP/2 connection) carries every seat's stream: fewer sockets and
    # polling threads on both sides than a channel per seat.
    shared = None
    if len(tickets) > 1 and "channel" not in options:
        # To the first engine given, where every Runner starts ("A,B,C" is no gRPC target:
        # a channel to it would fail, and the seats would skip B's NOT_OWNER for A).
        shared = options["channel"] = _on_io(_channel(addresses_of(address)[0],
                                                      SHARED_CHANNEL_OPTIONS))

    def run(i: int, t: SeatTicket) -> None:
        runner = Runner(address, seat_hello(t.match_id, t.seat_token), make_bot, matches=1,
                        label=f"match {t.match_id} seat {t.seat}", **options)
        entry = {"match_id": t.match_id, "seat": t.seat}
        try:
            entry["result"] = runner.run()[0]
        except RunnerError as e:
            entry["error"] = str(e)
        except Exception as e:   # noqa: BLE001 - reported per seat; the other seats go on
            log.exception("match %s seat %d failed", t.match_id, t.seat)
            entry["error"] = repr(e)
        entry["stats"] = {"moves": runner.stats.moves, "fallbacks": runner.stats.fallbacks,
                          "refusals": runner.stats.refusals,
                          "reconnects": runner.stats.reconnects}
        out[i] = entry

    threads = [threading.Thread(target=run, args=(i, t), name=f"seat-{t.seat}", daemon=True)
               for i, t in enumerate(tickets)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if shared is not None:
            _on_io(shared.close())
    return out


async def _channel(address: str, options: list) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(address, options=options)   # bound to the I/O loop
