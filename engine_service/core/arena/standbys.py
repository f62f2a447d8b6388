"""The standby streams this engine holds (Hello.arena_standby, play.proto).

A standby stream is a registered bot's one stream, per arena and engine, that plays every
seat of that bot's matches of the arena that this engine holds. It is a pool bot of a pool
of its own, "@arena/<arena>/<bot id>" (a name no pool can have). As this engine comes to
hold an arena match (host.py, `track`), each seat of a bot standing by here is claimed for
it and handed to its stream (`seat`), with no call to make; the seat of a bot not standing
by waits in its bot's pool, for a standby stream that may come.
Under load a new call waited seconds for the engine's event loop to take it (grpc.aio
takes new calls one at a time, docs/arena.md "End to end"); the standby stream was taken
before its seats existed. A seat stream (Hello.arena_seat) for the same seat still works:
the seat is claimed once, and both streams play it.

Keys: checked at the Hello; then, every KEYS_S, one read for all the standby streams held
here, and a stream whose key was rotated or whose bot was retired ends (BAD_BOT_KEY,
BOT_RETIRED). A second standby stream of the same bot and arena here replaces the first,
which ends with STANDBY_REPLACED.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from ..errors import EngineError, Reason
from ..matches.referee import Referee
from ..security.keys import digest
from .accounts import BotInfo
from .spec import ARENA_POOL_PREFIX

log = logging.getLogger(__name__)

KEYS_S = 2.0    # how often the keys of the standby streams held here are read again
# Threads claiming the seats handed to standby streams. A claim is a store write; made on
# the thread that came to hold the match (the arena's, the matchmaker's), four of them a
# table, under load, held up the seats the arena threads had to deliver: the seat wait's
# p99 went from about 1 s to 3-6 s in two runs at 1,000 bots.
SEATING_THREADS = 2


def standby_pool(arena: str, bot_id: str) -> str:
    """The pool of a bot's seats in an arena's matches, offered to its standby stream."""
    return f"{ARENA_POOL_PREFIX}{arena}/{bot_id}"


class StandbyStream(Protocol):
    """What the arena needs from a standby stream (rpc/play_session.py): a pool bot that
    can be ended. Each call only queues for the stream, from any thread."""
    capacity: int
    name: str

    def seat_in(self, referee: Referee, seat: int) -> None: ...

    def end(self, error: EngineError) -> None: ...


@dataclass
class Standby:
    bot: BotInfo
    arena: str
    key_hash: str
    stream: StandbyStream


class Standbys:
    def __init__(self, room):
        self.room = room
        self.pools = room.engine.pools
        self._lock = threading.Lock()
        self._held: dict[str, Standby] = {}    # pool -> the stream that plays its seats
        self._checked = 0.0
        self._seating = ThreadPoolExecutor(SEATING_THREADS, thread_name_prefix="arena-standby")

    def seat(self, referee: Referee, arena: str, bots: list[tuple[int, str]]) -> None:
        """The seats (seat, bot id) of a match this engine has come to hold: those of bots
        standing by here are claimed and handed to their streams on a thread of this
        pool's, the others wait in their bots' pools."""
        ready = []
        for seat, bot_id in bots:
            pool = standby_pool(arena, bot_id)
            with self._lock:
                standby = self._held.get(pool)
            if standby is None:
                self.pools.need(pool, referee, seat)
            else:
                ready.append((seat, standby))
        if ready:
            self._seating.submit(self._hand, referee, ready)

    def _hand(self, referee: Referee, ready: list[tuple[int, Standby]]) -> None:
        for seat, standby in ready:
            if referee.match.over:     # (played out by the clocks meanwhile)
                return
            try:
                self.room.host.take(referee, seat, standby.bot.name)
                self.pools.give(standby.stream, referee, seat)
            except Exception:   # never silent; the seat is left to its clock, or a seat stream
                log.exception("arena: match %s seat %d: handing it to the standby stream of "
                              "bot %s failed", referee.id, seat, standby.bot.name)

    def close(self) -> None:
        self._seating.shutdown(wait=False, cancel_futures=True)

    def enlist(self, bot: BotInfo, bot_key: str, arena: str, stream: StandbyStream) -> str:
        """Play the bot's seats here on `stream` (its key checked already); the pool's name.
        The seats waiting for it are handed at once, and those of its matches in play here
        too (a standby stream that connects again)."""
        pool = standby_pool(arena, bot.bot_id)
        stream.name = bot.name    # the name its seats are claimed under, as a pool bot's
        with self._lock:
            old = self._held.get(pool)
            self._held[pool] = Standby(bot, arena, digest(bot_key), stream)
        if old is not None:
            self.pools.leave(pool, old.stream)
            old.stream.end(EngineError(Reason.STANDBY_REPLACED, f"a newer standby stream of "
                                       f"bot {bot.name} in arena {arena} took over"))
        self.pools.offer(stream, [pool])
        for referee, seat in self.room.host.rejoin(bot, arena):
            self.pools.give(stream, referee, seat)
        log.info("arena %s: bot %s stands by", arena, bot.name)
        return pool

    def leave(self, pool: str, stream: StandbyStream) -> None:
        with self._lock:
            standby = self._held.get(pool)
            if standby is not None and standby.stream is stream:
                del self._held[pool]
        self.pools.leave(pool, stream)

    def tick(self, now: float) -> None:
        """End the standby streams whose key is no longer their bot's, or whose bot
        retired; every KEYS_S."""
        if now - self._checked < KEYS_S:
            return
        self._checked = now
        with self._lock:
            held = list(self._held.items())
        if not held:
            return
        in_use = self.room.store.keys_in_use(sorted({s.key_hash for _, s in held}))
        for pool, standby in held:
            retired = in_use.get(standby.key_hash)
            if retired is None:
                err = EngineError(Reason.BAD_BOT_KEY, "the bot key was rotated: connect with "
                                  "the new one")
            elif retired:
                err = EngineError(Reason.BOT_RETIRED, f"bot {standby.bot.name} was retired")
            else:
                continue
            log.info("arena %s: standby stream of bot %s ends: %s", standby.arena,
                     standby.bot.name, err.reason)
            self.leave(pool, standby.stream)
            standby.stream.end(err)
