"""Bot pools: seats that need a bot meet bots that enlisted, first come first served.

A pool is defined with an enlist secret (`define`: `domino pools create`, or a ladder for
each entrant); the store keeps its hash. A match created with SeatSpec.pool = P has seats
waiting here; a bot that connects with Hello.pool = P and P's secret offers capacity
(matches at once). Whenever either side arrives, or a bot finishes a match, waiting seats
are handed to bots with room, in arrival order. The engine claims the seat itself (no
token leaves it) and tells the bot's stream to play it.
"""

from __future__ import annotations

import hmac
import logging
import threading
import time
from collections import deque
from typing import Protocol

from ..errors import EngineError, Reason
from ..security.keys import digest, new_secret
from .referee import Referee

log = logging.getLogger(__name__)


class PoolBot(Protocol):
    """What a pool needs from an enlisted bot's stream."""
    capacity: int
    name: str

    def seat_in(self, referee: Referee, seat: int) -> None: ...


class Pools:
    def __init__(self, store):
        self._store = store
        # One lock for the pools only; it is never held while a match waits on another
        # match, and the move path never takes it.
        self._lock = threading.Lock()
        self._seats: dict[str, deque[tuple[Referee, int]]] = {}   # only pools with seats
        self._bots: dict[str, list[PoolBot]] = {}
        self._playing: dict[PoolBot, set[str]] = {}   # match ids each bot is seated in
        self._offered: dict[PoolBot, list[str]] = {}  # the pools each bot is offered
        # The same, by match: the pools its seats wait in, the bots seated in it. An arena
        # has a pool per bot (core/arena/standbys.py): a match's end or a seat's taking
        # looked through every pool and every bot, a thousand of each at 1,000 bots.
        self._waiting_in: dict[str, set[str]] = {}
        self._players: dict[str, set[PoolBot]] = {}
        # pool -> bots that ever enlisted there: a new one resumes a paused ladder
        self._enlisted: dict[str, int] = {}

    def need(self, pool: str, referee: Referee, seat: int) -> None:
        """A seat of the referee's match waits for a bot from `pool`."""
        with self._lock:
            self._seats.setdefault(pool, deque()).append((referee, seat))
            self._waiting_in.setdefault(referee.id, set()).add(pool)
            self._assign(pool)

    # ----- definitions ------------------------------------------------------------------
    def define(self, name: str, secret: str = "") -> str:
        """Define pool `name` (or give it a new secret: `secret`, or a fresh one); returns
        its enlist secret, which is shown only here."""
        secret = secret or new_secret("ps_")
        self._store.set_pool(name, digest(secret), time.time())
        return secret

    def exists(self, name: str) -> bool:
        return self._store.pool_hash(name) is not None

    def opened_by(self, pool: str, name: str, secret: str) -> list[str]:
        """The pools a bot enlisting as (pool P, name N) with `secret` is offered: P if the
        secret is P's, "P/N" (a ladder entrant's own) if it is that one's."""
        given = digest(secret)
        out = []
        for candidate in ([pool, f"{pool}/{name}"] if name else [pool]):
            stored = self._store.pool_hash(candidate)
            if stored is not None and hmac.compare_digest(stored, given):
                out.append(candidate)
        return out

    # ----- seats and bots ---------------------------------------------------------------
    def enlist(self, pool: str, bot: PoolBot, secret: str) -> None:
        """Offer `bot` the seats of the pools its secret opens (opened_by); refuses with
        BAD_POOL_SECRET when it opens none."""
        names = self.opened_by(pool, bot.name, secret)
        if not names:
            raise EngineError(Reason.BAD_POOL_SECRET, "no pool of that name takes this "
                              "secret (pools are made with `domino pools create`)")
        self.offer(bot, names)

    def offer(self, bot: PoolBot, names: list[str]) -> None:
        """Offer `bot` the seats of pools `names`, whoever let it in (enlist, by a pool's
        secret; an arena's standby stream, by a bot key: core/arena/standbys.py)."""
        with self._lock:
            self._playing[bot] = set()
            self._offered[bot] = names
            for name in names:
                self._bots.setdefault(name, []).append(bot)
                self._enlisted[name] = self._enlisted.get(name, 0) + 1
                self._assign(name)

    def give(self, bot: PoolBot, referee: Referee, seat: int) -> None:
        """Hand `bot` a seat already claimed for it (a standby stream that connects again
        gets its matches in play), unless it plays that match already."""
        with self._lock:
            playing = self._playing.get(bot)
            if playing is None or referee.id in playing:
                return
            self._seat(bot, referee, seat)

    def done(self, pool: str, bot: PoolBot, match_id: str) -> None:
        """The bot finished one of its matches: it has room again."""
        with self._lock:
            if bot in self._playing:
                self._playing[bot].discard(match_id)
                self._unseat(bot, match_id)
                for name in self._offered[bot]:
                    self._assign(name)

    def leave(self, pool: str, bot: PoolBot) -> None:
        """The bot's stream ended. Seats it held stay with their matches (their clocks
        cover them); it is offered nothing more."""
        with self._lock:
            if bot in self._playing:
                for match_id in self._playing.pop(bot):
                    self._unseat(bot, match_id)
                for name in self._offered.pop(bot):
                    self._bots[name].remove(bot)
                    if not self._bots[name]:
                        del self._bots[name]

    def forget(self, referee: Referee) -> None:
        """The match is played elsewhere now: its seats wait here no more, and the bots
        seated in it have room again."""
        with self._lock:
            for pool in self._waiting_in.pop(referee.id, ()):
                self._drop(pool, lambda w: w[0] is referee)
            for bot in self._players.pop(referee.id, ()):
                self._playing[bot].discard(referee.id)
                for name in self._offered[bot]:
                    self._assign(name)

    def withdraw(self, referee: Referee, seat: int) -> None:
        """Stop waiting for a bot for this seat (the engine plays it)."""
        with self._lock:
            for pool in list(self._waiting_in.get(referee.id, ())):
                self._drop(pool, lambda w: w == (referee, seat))
                if not any(r is referee for r, _ in self._seats.get(pool, ())):
                    self._waited(referee.id, pool)

    def _drop(self, pool: str, which) -> None:
        """Remove the seats `which` picks from `pool`'s queue; an empty queue goes."""
        seats = self._seats.get(pool)
        if seats is None:
            return
        for waiting in [w for w in seats if which(w)]:
            seats.remove(waiting)
        if not seats:
            del self._seats[pool]

    def _seat(self, bot: PoolBot, referee: Referee, seat: int) -> None:
        self._playing[bot].add(referee.id)
        self._players.setdefault(referee.id, set()).add(bot)
        bot.seat_in(referee, seat)

    def _unseat(self, bot: PoolBot, match_id: str) -> None:
        _discard(self._players, match_id, bot)

    def enlistments(self, pools: list[str]) -> int:
        """How many times bots enlisted in these pools since the engine started."""
        with self._lock:
            return sum(self._enlisted.get(p, 0) for p in pools)

    def waiting(self, pool: str) -> int:
        with self._lock:
            return len(self._seats.get(pool, ()))

    def info(self, pool: str) -> dict:
        """Public facts of a pool: does it exist, bots enlisted, seats waiting."""
        exists = self.exists(pool)
        with self._lock:
            return {"name": pool, "exists": exists, "bots": len(self._bots.get(pool, ())),
                    "seats_waiting": len(self._seats.get(pool, ()))}

    def _assign(self, pool: str) -> None:
        """Hand waiting seats, oldest first, to the least loaded bot with room that is not
        already in that match (a stream plays one seat per match)."""
        seats, bots = self._seats.get(pool), self._bots.get(pool, [])
        if not seats or not bots:
            return
        still, left = deque(), set()
        while seats:
            referee, seat = seats.popleft()
            left.add(referee)
            if referee.match.over:
                continue
            free = [b for b in bots
                    if len(self._playing[b]) < b.capacity and referee.id not in self._playing[b]]
            if not free:
                still.append((referee, seat))
                continue
            bot = min(free, key=lambda b: len(self._playing[b]))
            try:
                if not referee.seats[seat].claimed:
                    # The token is dropped: the bot never needs it.
                    referee.claim(seat, by_pool=True, name=bot.name)
            except Exception:   # a failing match must not stop the pool for the others
                log.exception("pool %s: seating a bot in match %s seat %d failed; the seat "
                              "is left to its clock", pool, referee.id, seat)
                continue
            self._seat(bot, referee, seat)
        seats.extend(still)
        for referee in left - {r for r, _ in still}:   # no seat of it waits here now
            self._waited(referee.id, pool)
        if not seats:
            del self._seats[pool]

    def _waited(self, match_id: str, pool: str) -> None:
        _discard(self._waiting_in, match_id, pool)


def _discard(index: dict, key, value) -> None:
    """Take `value` out of the set index[key]; an empty set goes."""
    values = index.get(key)
    if values is not None:
        values.discard(value)
        if not values:
            del index[key]
