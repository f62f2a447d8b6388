"""Residents: the house strategies the engine plays itself in its arena matches.

Seat-honest, unlike a ladder's yardstick: a resident subscribes to its seat like any
watcher, and when it is its turn it reads that seat's view and legal moves (SeatView)
and answers through Referee.submit, exactly as a bot's move arrives; it never touches
the match. Its thinking runs on a small pool of worker threads (RESIDENT_WORKERS for the
whole engine), never on the event loop or the alarm thread, and its strategy has a small
fixed budget (the search resident: SEARCH_ITERATIONS samples a move), so residents cannot
starve the engine: a resident that is late is played by the turn clock like anyone.
The strategies come from the composition root (domino_cli): the engine imports no bots.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from plumbing.inbox import CLOSED

from ... import rules
from ..errors import EngineError
from ..matches.referee import Referee
from ..matches.updates import EngineEvent, Moved, Update
from .spec import RESIDENT_WORKERS

log = logging.getLogger(__name__)


class Residents:
    """The players of the residents' seats of the arena matches this engine holds."""

    def __init__(self, makers: dict[str, Callable]):
        """`makers`: strategy name -> a function of no argument making a strategy (one
        per seat of a match: a strategy may keep state across a match)."""
        self.makers = dict(makers)
        self._pool: ThreadPoolExecutor | None = None
        self._players: dict[tuple[str, int], _Player] = {}
        self._lock = threading.Lock()

    @property
    def names(self) -> list[str]:
        return list(self.makers)

    def play(self, referee: Referee, seat: int, strategy: str) -> None:
        """Play `seat` of `referee`'s match with the resident `strategy` until it ends."""
        with self._lock:
            if (referee.id, seat) in self._players:
                return
            if self._pool is None:
                self._pool = ThreadPoolExecutor(RESIDENT_WORKERS, thread_name_prefix="resident")
            player = _Player(self, referee, seat, strategy, self.makers[strategy]())
            self._players[(referee.id, seat)] = player
        player.start()

    def stop(self, match_id: str) -> None:
        with self._lock:
            gone = [k for k in self._players if k[0] == match_id]
            players = [self._players.pop(k) for k in gone]
        for p in players:
            p.stop()

    def submit(self, job) -> None:
        pool = self._pool
        if pool is not None:
            try:
                pool.submit(job)
            except RuntimeError:   # shut down: the engine is closing
                pass

    def close(self) -> None:
        with self._lock:
            players, self._players = list(self._players.values()), {}
            pool, self._pool = self._pool, None
        for p in players:
            p.stop()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class _Player:
    """One resident seat; its subscriber's queue (put never blocks: it hands a job to
    the pool)."""

    def __init__(self, residents: Residents, referee: Referee, seat: int, name: str, strategy):
        self.residents, self.referee, self.seat = residents, referee, seat
        self.name, self.strategy = name, strategy
        self.lock = threading.Lock()   # one move at a time for this seat
        self.asked = -1                # the last version answered
        self.stopped = False
        self.sub = None

    def start(self) -> None:
        self.sub, _ = self.referee.subscribe(self.seat, self, events=False)
        self.residents.submit(self._move)

    def stop(self) -> None:
        self.stopped = True
        if self.sub is not None:
            self.referee.unsubscribe(self.sub)

    def put(self, item) -> None:
        if item is CLOSED or isinstance(item, Moved):
            self.stopped = True
        elif isinstance(item, Update):
            if item.over:
                self.stopped = True
            elif item.to_move == self.seat:
                self.residents.submit(self._move)

    def _move(self) -> None:
        with self.lock:
            if self.stopped:
                return
            seen = self.referee.seat_view(self.seat)
            if not seen.legal_moves or seen.version <= self.asked:
                return
            self.asked = seen.version
            texts = [text for _, text in seen.legal_moves]
            legal = [rules.Move.parse(t) for t in texts]
            # A strategy's view is the rules' (Match.view), as `domino bot` gives it: its
            # history without the engine's events (timeout, absent, returned, time_up).
            history = [e.to_dict(self.seat) for e in seen.history
                       if not isinstance(e, EngineEvent)]
            view = {**seen.view, "history": history, "legal_moves": texts}
            try:
                index = legal.index(self.strategy.choose(view, legal))
            except Exception:   # never silent; the first legal move, as the clock would
                log.exception("match %s seat %d: resident %s failed at version %d; it plays "
                              "the first legal move", self.referee.id, self.seat, self.name,
                              seen.version)
                index = 0
            try:
                self.referee.submit(self.seat, seen.version, move_id=str(index))
            except EngineError as e:   # the clock or the end came first: nothing to do
                log.debug("match %s seat %d: resident move refused: %s", self.referee.id,
                          self.seat, e)
