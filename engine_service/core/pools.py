"""Bot pools: seats that need a bot meet bots that enlisted, first come first served.

A match created with SeatSpec.pool = P has seats waiting here; a bot that connects with
Hello.pool = P offers capacity (matches at once). Whenever either side arrives, or a bot
finishes a match, waiting seats are handed to bots with room, in arrival order. The engine
claims the seat itself (no token leaves it) and tells the bot's stream to play it.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Protocol

from .referee import Referee


class PoolBot(Protocol):
    """What a pool needs from an enlisted bot's stream."""
    capacity: int
    name: str

    def seat_in(self, referee: Referee, seat: int) -> None: ...


class Pools:
    def __init__(self):
        # One lock for the pools only; it is never held while a match waits on another
        # match, and the move path never takes it.
        self._lock = threading.Lock()
        self._seats: dict[str, deque[tuple[Referee, int]]] = {}
        self._bots: dict[str, list[PoolBot]] = {}
        self._playing: dict[PoolBot, set[str]] = {}   # match ids each bot is seated in

    def need(self, pool: str, referee: Referee, seat: int) -> None:
        """A seat of the referee's match waits for a bot from `pool`."""
        with self._lock:
            self._seats.setdefault(pool, deque()).append((referee, seat))
            self._assign(pool)

    def enlist(self, pool: str, bot: PoolBot) -> None:
        """A bot enlisted as (pool P, name N) is offered the seats waiting in pool P and in
        pool "P/N" (seats meant for that bot only: a ladder's entrant)."""
        with self._lock:
            self._playing[bot] = set()
            for name in self._names(pool, bot):
                self._bots.setdefault(name, []).append(bot)
                self._assign(name)

    def done(self, pool: str, bot: PoolBot, match_id: str) -> None:
        """The bot finished one of its matches: it has room again."""
        with self._lock:
            if bot in self._playing:
                self._playing[bot].discard(match_id)
                for name in self._names(pool, bot):
                    self._assign(name)

    def leave(self, pool: str, bot: PoolBot) -> None:
        """The bot's stream ended. Seats it held stay with their matches (their clocks
        cover them); it is offered nothing more."""
        with self._lock:
            if bot in self._playing:
                del self._playing[bot]
                for name in self._names(pool, bot):
                    self._bots[name].remove(bot)

    def withdraw(self, referee: Referee, seat: int) -> None:
        """Stop waiting for a bot for this seat (the engine plays it)."""
        with self._lock:
            for seats in self._seats.values():
                if (referee, seat) in seats:
                    seats.remove((referee, seat))

    @staticmethod
    def _names(pool: str, bot: PoolBot) -> list[str]:
        return [pool, f"{pool}/{bot.name}"] if bot.name else [pool]

    def waiting(self, pool: str) -> int:
        with self._lock:
            return len(self._seats.get(pool, ()))

    def _assign(self, pool: str) -> None:
        """Hand waiting seats, oldest first, to the least loaded bot with room that is not
        already in that match (a stream plays one seat per match)."""
        seats, bots = self._seats.get(pool), self._bots.get(pool, [])
        if not seats or not bots:
            return
        still = deque()
        while seats:
            referee, seat = seats.popleft()
            if referee.match.over:
                continue
            free = [b for b in bots
                    if len(self._playing[b]) < b.capacity and referee.id not in self._playing[b]]
            if not free:
                still.append((referee, seat))
                continue
            bot = min(free, key=lambda b: len(self._playing[b]))
            self._playing[bot].add(referee.id)
            if not referee.seats[seat].claimed:
                # The token is dropped: the bot never needs it.
                referee.claim(seat, by_pool=True, name=bot.name)
            bot.seat_in(referee, seat)
        seats.extend(still)
