"""The one loop of every server stream (Play.Connect and Engine.Watch): wait on the
stream's inbox and send what each item calls for, until the stream is done.

A session (play_session.PlaySession, watch.WatchSession) says what an item calls for:
`handle(item)` yields the messages to send, `keepalive()` is the message for an idle
stream, and `done` turns true when the stream has said all it will.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from ..plumbing.inbox import CLOSED, KEEPALIVE, Inbox

# Where moves are played when the store's commit waits on the network (PostgreSQL): the
# event loop would otherwise sit idle through every commit, and every other match with it.
# Each match keeps its own lock; these threads only wait on the database side by side.
MOVE_THREADS = 8
_moves = ThreadPoolExecutor(MOVE_THREADS, thread_name_prefix="moves")


async def play_move(engine, fn: Callable, *args):
    """`fn(*args)` (a call that plays a move): here on the loop when the store commits
    locally (SQLite, ~40 µs), on a move thread when it is remote."""
    if not getattr(engine.store, "remote", False):
        return fn(*args)
    return await asyncio.get_running_loop().run_in_executor(_moves, fn, *args)


class Session(Protocol):
    done: bool

    def handle(self, item) -> Iterable: ...

    def keepalive(self): ...


async def send_all(messages: Iterable, write: Callable[[object], Awaitable]) -> None:
    for message in messages:
        await write(message)


async def serve_inbox(inbox: Inbox, session: Session,
                      write: Callable[[object], Awaitable]) -> None:
    """Until the session is done or the inbox is closed (engine shutdown)."""
    while not session.done:
        item = await inbox.get()
        if item is CLOSED:
            return
        if item is KEEPALIVE:
            await write(session.keepalive())
            continue
        ready = getattr(item, "ready", None)
        if ready is not None:
            await ready     # an answer queued before its move was played (off the loop)
        await send_all(session.handle(item), write)
