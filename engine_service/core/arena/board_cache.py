"""The arenas' leaderboards as answered: one cached answer per (arena, view), so that a
GetLeaderboard reads no store and sorts nothing.

A board answered from the store costs its store reads (the counted results since, who is
present, the bots' facts) and the ordering of every row; under load those reads queue
behind the lobbies' and seats' traffic (docs/arena.md: a p99 of 15 s at 1,000 bots). So:
- a view's first answer is built by its first caller (another one at the same time waits
  for it, then reads it);
- an answer older than FRESH_S is served as it is while one background refresh per view
  builds the next one from the store (the others meanwhile get the previous answer);
- when this engine's board has folded results in since the answer was made (its own
  matchmaker counted a match, or another view's refresh read new results), the rows are
  made again at once from that board and the presence read last time: no store read, so
  a match counted here shows on the next GET, and both views agree; so does a bot retired
  on this engine (`changed`).
Online and last seen are those of the last refresh (at most FRESH_S old, plus its reads).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from plumbing.daemon_pool import DaemonPool

log = logging.getLogger(__name__)

# How old an answer may be before a refresh is started. Every open arena page polls its
# board every few seconds and a reader may ask several times a second: half a second keeps
# the store reads to two a second per view whatever the readers, and is shorter than any
# page's poll, so no page shows a board older than its own poll period.
FRESH_S = 0.5


@dataclass
class Built:
    at: float         # time.monotonic() when its store reads began
    sequence: int     # the last sequence number folded into it
    online: dict      # (bot, version) -> connected since, as read then
    value: dict       # the answer, every row (Arenas.compose)
    generation: int   # Leaderboards.generation when it was made


class Leaderboards:
    def __init__(self, room):
        self.room = room
        self._built: dict[tuple, Built] = {}
        self._locks: dict[tuple, threading.Lock] = {}   # one builder per view at a time
        self._guard = threading.Lock()
        self.generation = 0     # moved by `changed`: every answer is made again
        # One thread for every refresh, kept: a thread started per refresh made a GET wait
        # for the new thread to come up, seconds on an engine whose cores were all busy.
        self._refresher = DaemonPool(1, "leaderboard")

    def close(self) -> None:
        self._refresher.shutdown(wait=False, cancel_futures=True)

    def changed(self) -> None:
        """Something the rows show changed here besides results (a bot retired): the next
        GET of every view makes its rows again."""
        with self._guard:
            self.generation += 1

    def now(self, arena_id: str) -> tuple[int, int]:
        """What an answer must hold to be as new as this moment: (the last sequence number
        folded here, the generation)."""
        return self.room.folded(arena_id), self.generation

    def get(self, arena_id: str, all_versions: bool, asked: tuple[int, int] | None = None
            ) -> dict:
        """`asked`: `now()` when the GET came (default: now). An answer made since then is
        as new as the GET needs: at a thousand bots, results are folded in several times a
        second, and GETs queued behind one another each made the rows again for the
        results folded while they waited, for seconds; now one making serves them all."""
        key = (arena_id, all_versions)
        built = self._built.get(key)
        if built is None:
            built = self._first(key)
        elif not self._holds(built, asked or self.now(arena_id)):
            built = self._reordered(key, built)
        self._refresh_if_old(key, built)
        return built.value

    def ready(self, arena_id: str, all_versions: bool) -> dict | None:
        """The answer as `get` gives it when that takes no work (no first build, no rows to
        make again), else None; a refresh is started behind it as `get` does."""
        key = (arena_id, all_versions)
        built = self._built.get(key)
        if built is None or not self._current(arena_id, built):
            return None
        self._refresh_if_old(key, built)
        return built.value

    def _current(self, arena_id: str, built: Built) -> bool:
        return self._holds(built, self.now(arena_id))

    @staticmethod
    def _holds(built: Built, asked: tuple[int, int]) -> bool:
        return built.sequence >= asked[0] and built.generation >= asked[1]

    def _refresh_if_old(self, key: tuple, built: Built) -> None:
        if time.monotonic() - built.at >= FRESH_S:
            self._refresh_behind(key)

    def _lock_of(self, key: tuple) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def _first(self, key: tuple) -> Built:
        with self._lock_of(key):
            built = self._built.get(key)
            return built if built is not None else self._build(key)

    def _build(self, key: tuple) -> Built:
        """From the store: the results counted since, the presence, the kept analyses."""
        arena_id = key[0]
        at = time.monotonic()
        self.room.board(arena_id)
        online = self.room.online(arena_id)
        self.room.skill.look(arena_id)
        built = self._compose(key, at, online, read=True)
        with self._guard:
            self._built[key] = built
        return built

    def _compose(self, key: tuple, at: float, online: dict, read: bool) -> Built:
        generation = self.generation
        value = self.room.compose(key[0], key[1], online, read)
        return Built(at, value["last_sequence"], online, value, generation)

    def _reordered(self, key: tuple, built: Built) -> Built:
        """The rows again from the board as folded here, with the presence `built` read:
        results this engine folded in since show at once, and no store is read."""
        # No store read at all, not even the facts of bots new to this engine: a GET made
        # them (a full read of the bots) while a thousand lobbies connected, and waited.
        new = self._compose(key, built.at, built.online, read=False)
        with self._guard:
            if self._built.get(key) is built:   # else a refresh made a newer one meanwhile
                self._built[key] = new
        return new

    def _refresh_behind(self, key: tuple) -> None:
        lock = self._lock_of(key)
        if not lock.acquire(blocking=False):
            return      # being built: the previous answer serves meanwhile
        try:
            self._refresher.submit(self._refresh, key, lock)
        except RuntimeError:   # closed: the engine is going
            lock.release()

    def _refresh(self, key: tuple, lock: threading.Lock) -> None:
        try:
            self._build(key)
        except Exception as e:   # the store away: the previous answer serves; the next
            log.warning("arena %s: the leaderboard was not refreshed (%s); it serves the "
                        "previous one", key[0], e)     # GET past FRESH_S tries again
        finally:
            lock.release()
