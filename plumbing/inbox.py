"""A stream's inbox on the server's event loop: filled from any thread, read by one coroutine.

The engine's Play and Watch streams wait here for what to send next: updates of their
matches, answers to their bot's moves, new seats from the pools; the bot runner keeps what
it sends in one too. A put on the loop itself (a bot's move
publishing to the next seat's stream) is a deque append that wakes the reader; a put from
another thread (the turn clock, Engine.SubmitMove calls, the pools) is handed to the loop.
Everything here is on the path of every move, so it is kept to the bare minimum: no
asyncio.Queue, and no timer per message. A stream that had nothing to send for
KEEPALIVE_S gets KEEPALIVE from `get`, from one timer per stream that is re-armed only
when it fires.

An inbox may be bounded (`limit`): a stream whose client stops reading stops taking what
it is sent, and its inbox would grow with every update of its matches. Past `limit`
unread items the inbox overflows: what it holds is dropped, nothing more is taken, `get`
returns OVERFLOWED, and `on_overflow` is called (on the loop) so that the stream, which
may be stuck writing to its client, can be ended at once.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque

KEEPALIVE_S = 5.0     # an idle stream gets a Keepalive message this often
KEEPALIVE = object()  # what Inbox.get returns when nothing came for KEEPALIVE_S
CLOSED = object()     # put by whoever ends the stream (the engine closing, a watcher dropped)
OVERFLOWED = object()  # what get returns once a bounded inbox overflowed


class Inbox:
    """Made on the loop thread; `close` it when its stream ends (that stops its timer).
    Puts after the loop closed (engine shutdown) are dropped: nobody is left to read them.
    Without `keepalive`, `get` never returns KEEPALIVE (a bot's outbox: the bot runner
    keeps the same queue for what it sends)."""

    __slots__ = ("_loop", "_loop_thread", "_items", "_waiter", "_last", "_timer", "_limit",
                 "_on_overflow", "overflowed")

    def __init__(self, keepalive: bool = True, limit: int | None = None, on_overflow=None):
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._items: deque = deque()
        self._waiter: asyncio.Future | None = None
        self._last = self._loop.time()      # when the reader last got an item
        self._timer = (self._loop.call_later(KEEPALIVE_S, self._idle_check) if keepalive
                       else None)
        self._limit, self._on_overflow = limit, on_overflow
        self.overflowed = False

    @property
    def limit(self) -> int | None:
        return self._limit

    def put(self, item) -> None:
        if threading.get_ident() == self._loop_thread:
            self._append(item)
            return
        try:
            self._loop.call_soon_threadsafe(self._append, item)
        except RuntimeError:    # the loop is closed
            pass

    async def get(self):
        """The next item, or KEEPALIVE after KEEPALIVE_S without one (OVERFLOWED once a
        bounded inbox overflowed)."""
        if self.overflowed:
            return OVERFLOWED
        while not self._items:
            self._waiter = self._loop.create_future()
            await self._waiter
        self._last = self._loop.time()
        return self._items.popleft()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def _append(self, item) -> None:
        if self._limit is not None and (self.overflowed or len(self._items) >= self._limit):
            self._overflow()      # nothing more is taken once it overflowed
            return
        self._items.append(item)
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _overflow(self) -> None:
        if self.overflowed:
            return
        self.overflowed = True
        self._items.clear()
        self._items.append(OVERFLOWED)        # a reader waiting in get() wakes to it
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self._on_overflow is not None:
            self._on_overflow()

    def _idle_check(self) -> None:
        if self.overflowed:
            return                            # the stream is being ended
        idle = self._loop.time() - self._last
        if idle >= KEEPALIVE_S:
            self._append(KEEPALIVE)
            idle = 0.0
        self._timer = self._loop.call_later(KEEPALIVE_S - idle, self._idle_check)
