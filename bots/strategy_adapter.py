"""How the runner asks a strategy for a move, and answers in time whatever the strategy does.

A strategy (bots/strategy.py) answers ``choose(view, legal_moves) -> move`` and may listen
to ``on_event(event)``; a bare ``choose`` function is wrapped (``as_strategy``). Each seat
gets a worker thread of its own (``Worker``), so its strategy is never called from two
threads at once and events reach it in order between its choices. ``answer`` asks it for
one turn's move and answers the turn exactly once: with the strategy's choice, or with the
fallback — the first legal move, the engine's own default (``FirstLegal``) — when the
strategy fails, chooses no legal move, or takes longer than ``think_time`` allows (an alarm
on the process's one timer thread, bots/io_loop.py, answers for it then).

A strategy that declares it chooses at once (``Strategy.inline``: first legal, random,
greedy; see ``runs_inline``) is called on the I/O loop instead, with no worker, timer or
Future: two thread hand-overs per turn saved.

What is not checked: that a move is legal beyond "is it one of the offered moves" (the
engine is the authority).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from bots.strategy import Strategy
from engine_service.rules.moves import Move
from plumbing.alarms import Alarm

from .io_loop import deadlines

log = logging.getLogger("bots.runner")


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


def listens(strategy) -> bool:
    """True when the strategy overrides on_event (the base class ignores events)."""
    hook = getattr(type(strategy), "on_event", None)
    return hook is not None and hook is not Strategy.on_event


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


class Worker:
    """One daemon thread that runs a strategy's calls in order (a hung strategy never
    keeps the process from exiting)."""

    def __init__(self, name: str):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn, *args) -> Future:
        future: Future = Future()
        self._jobs.put((future, fn, args))
        return future

    def close(self) -> None:
        """No job after the ones submitted; they still run (join waits for them)."""
        self._jobs.put(None)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def busy(self) -> bool:
        return self._thread.is_alive()

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
    worker: Worker | None     # None for an inline strategy
    clock_ms: int = 0
    listens: bool = False
    inline: bool = False      # choose runs on the I/O loop (see runs_inline)
    label: str = "bot"        # the runner's, for its log lines


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


# How a turn is answered: send(turn, index of the legal move, fallback reason or "").
# Called with turn.lock held, at most once per turn (and once more after a refusal).
Send = Callable[[Turn, int, str], None]


def answer(turn: Turn, view, budget: float | None, send: Send) -> None:
    """Ask the turn's strategy for its move and answer the turn once through `send`: its
    choice, or the fallback (the first legal move) when it fails, chooses no legal move,
    or has not chosen within `budget` seconds (None: no limit)."""
    seated = turn.seated
    if seated.inline:
        # No worker, no timer and no Future: nothing else can answer this turn.
        try:
            chosen = seated.strategy.choose(view, list(turn.moves))
        except Exception as e:   # noqa: BLE001 - answered with the fallback
            _decided(turn, None, e, send)
        else:
            _decided(turn, chosen, None, send)
        return
    turn.future = seated.worker.submit(seated.strategy.choose, view, list(turn.moves))
    if budget is not None:
        turn.timer = deadlines().set(budget, lambda: _too_slow(turn, budget, send))
    turn.future.add_done_callback(lambda f: _chosen(turn, f, send))


def answer_again(turn: Turn, send: Send) -> None:
    """The same turn offered again after the engine refused our answer: the fallback, once
    (the engine's clock answers after that)."""
    with turn.lock:
        if turn.refused == 1 and turn.answered:
            turn.refused += 1
            send(turn, 0, "our answer was refused")


def _too_slow(turn: Turn, budget: float, send: Send) -> None:
    with turn.lock:
        if turn.answered:
            return
        turn.future.cancel()     # not started yet (queued behind a slow turn): skip it
        send(turn, 0, f"the strategy did not answer within {budget:.2f} s")


def _chosen(turn: Turn, future: Future, send: Send) -> None:
    """The worker's answer (or failure) for `turn`, unless the turn was skipped."""
    if future.cancelled():
        return
    error = future.exception()
    _decided(turn, None if error else future.result(), error, send)


def _decided(turn: Turn, chosen, error: BaseException | None, send: Send) -> None:
    """Answer `turn` with what the strategy chose, or with the fallback when it failed
    or chose no legal move; nothing if the fallback timer answered first."""
    with turn.lock:
        if turn.answered:
            return
        if error is not None:
            log.error("%s: match %s version %d: the strategy failed: %r", turn.seated.label,
                      turn.seated.match_id, turn.version, error)
            send(turn, 0, "the strategy failed")
            return
        index = _index(turn, chosen)
        if index is None:
            send(turn, 0, f"the strategy chose {chosen!r}, which is not a legal move")
        else:
            send(turn, index, "")


def _index(turn: Turn, chosen) -> int | None:
    for i, m in enumerate(turn.moves):
        if m is chosen:
            return i
    try:
        return turn.moves.index(parse_move(chosen) if isinstance(chosen, str)
                                else Move.parse(chosen))
    except Exception:   # noqa: BLE001 - not a move, or not a legal one
        return None
