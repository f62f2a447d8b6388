"""The arenas' leaderboards as this gateway last read them, so that a public GET is answered
without waiting on an engine.

Why: an engine answers GetLeaderboard on the event loop that also carries every bot's
stream, so under a full arena a read waits its turn behind the moves (docs/arena.md
measures it). A board changes only when a match ends, and the engine's own answer is up to
half a second old already; so the gateway keeps each (arena, versions) board it has read
and serves it while a background read renews it (stale-while-revalidate), and a reader
never queues behind the moves.

- A board younger than `max_age_s` is served as it is.
- An older one is still served, and one thread (at most one per board) reads it anew.
- One older than `max_stale_s` is still served while that read is on its way (an engine
  slow to answer, not one that refused: a read bounded by the client's deadline), and
  after it ran out of time (`slow(err)`: a 504), up to `max_slow_s` old, each such
  reader starting the next read. Once a read has failed otherwise (or the board is older
  than that), the board is read in the request itself, so that the reader gets the
  engine's real refusal (503) rather than an ever older board. Reading it in every
  request as soon as it was 5 s old sent the readers of a loaded engine to wait on it
  too: seconds, and 504s, at a thousand arena bots; so did reading it after a renewal
  ran out of time, since the engine was as slow for the reader.
- A board that was never read is read in the request: an unknown arena is refused as the
  engine refuses it, and is never kept (the keys are the arenas that exist, times two).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

log = logging.getLogger(__name__)

MAX_AGE_S = 0.5
MAX_STALE_S = 5.0
MAX_SLOW_S = 60.0    # how old a board is still served while the engine is only slow
TAGGED_MAX = 16      # (limit -> answer) kept per board, then begun again


def encoded(body: dict) -> tuple[str, str]:
    """An answer's JSON and its strong ETag, the digest of that JSON (the same body, the
    same tag)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return text, '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"'


class Served(NamedTuple):
    text: str       # the board's JSON
    tag: str        # its ETag
    age_s: float    # how long ago this gateway read it from an engine (HTTP's Age)


@dataclass
class _Board:
    body: dict                     # the whole board, as the REST schema dumps it
    read_at: float
    tagged: dict = field(default_factory=dict)   # limit -> (JSON, ETag)

    def answer(self, limit: int) -> tuple[str, str]:
        """The first `limit` rows (0: all) as JSON, and its ETag: encoded once per board and
        limit, so that a GET costs the gateway no dump and no digest."""
        got = self.tagged.get(limit)     # read once: another request may clear the dict
        if got is None:
            if len(self.tagged) >= TAGGED_MAX:
                self.tagged.clear()
            body = self.body if not limit else {**self.body, "rows": self.body["rows"][:limit]}
            got = self.tagged[limit] = encoded(body)
        return got


class LeaderboardCache:
    def __init__(self, read: Callable[[str, str], dict], max_age_s: float = MAX_AGE_S,
                 max_stale_s: float = MAX_STALE_S, max_slow_s: float = MAX_SLOW_S,
                 slow: Callable[[Exception], bool] = lambda err: False,
                 clock: Callable[[], float] = time.monotonic):
        """`read(arena_id, versions)` is the whole board from an engine, dumped; it raises
        what the engine refused. `slow(err)`: whether a read's failure is its deadline
        passing (the engine busy, not gone)."""
        self._read = read
        self._max_age = max_age_s
        self._max_stale = max_stale_s
        self._max_slow = max_slow_s
        self._slow = slow
        self._clock = clock
        self._lock = threading.Lock()
        self._boards: dict[tuple[str, str], _Board] = {}
        self._renewing: set[tuple[str, str]] = set()
        self._late: set[tuple[str, str]] = set()     # boards whose last renewal ran out of time

    def get(self, arena_id: str, versions: str, limit: int) -> Served:
        """The board's first `limit` rows (0: all) as JSON, its ETag and its age."""
        key = (arena_id, versions)
        now = self._clock()
        with self._lock:
            board = self._boards.get(key)
            # (a renewal that began after `now` was taken may have landed meanwhile)
            age = None if board is None else max(0.0, now - board.read_at)
            if board is not None and (age <= self._max_stale or key in self._renewing or
                                      key in self._late and age <= self._max_slow):
                if age > self._max_age and key not in self._renewing:
                    self._renewing.add(key)
                    threading.Thread(target=self._renew, args=(key,), daemon=True,
                                     name="board-renew").start()
                return Served(*board.answer(limit), age)
        board = self._store(key, self._read_board(key))
        return Served(*board.answer(limit), self._clock() - board.read_at)

    def _read_board(self, key: tuple[str, str]) -> _Board:
        read_at = self._clock()
        return _Board(self._read(*key), read_at)

    def _store(self, key: tuple[str, str], board: _Board) -> _Board:
        with self._lock:
            held = self._boards.get(key)
            if held is None or held.read_at <= board.read_at:   # never an older over a newer
                self._boards[key] = board
                self._late.discard(key)
            return self._boards[key]

    def _renew(self, key: tuple[str, str]) -> None:
        late = False
        try:
            self._store(key, self._read_board(key))
        except Exception as err:   # kept: the board served stays the last one read
            late = self._slow(err)
            log.warning("the %s leaderboard (%s) was not renewed: %s", key[0], key[1],
                        type(err).__name__)
        finally:
            with self._lock:
                self._renewing.discard(key)
                if late:
                    self._late.add(key)
                else:
                    self._late.discard(key)
