"""The one loop of every server stream (Play.Connect and Engine.Watch): wait on the
stream's inbox and send what each item calls for, until the stream is done.

A session (play_session.PlaySession, watch.WatchSession, arena_lobby.LobbySession) says
what an item calls for: `handle(item)` yields the messages to send, `keepalive()` is the
message for an idle stream, and `done` turns true when the stream has said all it will.
An EngineError put in the inbox (from any thread) ends the stream with its status: a
lobby or a standby stream replaced, its key rotated, its bot retired.

A stream's inbox is bounded: a client that stops reading (its writes wait on the network)
leaves its inbox filling, and past the bound the inbox overflows and cancels the stream's
task, wherever it waits. The stream then ends with RESOURCE_EXHAUSTED SLOW_READER, a
status that reaches the client even when it reads no data (HTTP/2 sends trailers beyond
the flow-control window); it may connect again and start from a fresh snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from plumbing.inbox import CLOSED, KEEPALIVE, OVERFLOWED, Inbox

from ..core.errors import EngineError, Reason


class Session(Protocol):
    done: bool

    def handle(self, item) -> Iterable: ...

    def keepalive(self): ...


async def send_all(messages: Iterable, write: Callable[[object], Awaitable]) -> None:
    for message in messages:
        await write(message)


async def serve_inbox(inbox: Inbox, session: Session,
                      write: Callable[[object], Awaitable]) -> None:
    """Until the session is done or the inbox is closed (engine shutdown); EngineError
    SLOW_READER when it overflowed."""
    try:
        while not session.done:
            item = await inbox.get()
            if isinstance(item, asyncio.Future):   # a place kept for an item made later
                item = await item
            if item is CLOSED:
                return
            if item is OVERFLOWED:
                raise slow_reader(inbox)
            if isinstance(item, EngineError):
                raise item
            if item is KEEPALIVE:
                await write(session.keepalive())
            else:
                await send_all(session.handle(item), write)
    except asyncio.CancelledError:
        if inbox.overflowed:       # the inbox's own cancel, not the client's
            raise slow_reader(inbox) from None
        raise


async def enlist_shielded(enlist: Callable[[], object], undo: Callable[[object], None]):
    """`enlist()` (a call that writes to the store) on a worker thread, its result. Shielded:
    a stream cancelled meanwhile (its client gone) still gets the whole enlisting, and then
    `undo(result)`, on the loop; a cancelled await would have left it enlisted for as long
    as the engine lives."""
    enlisting = asyncio.ensure_future(asyncio.to_thread(enlist))
    try:
        return await asyncio.shield(enlisting)
    except asyncio.CancelledError:
        enlisting.add_done_callback(
            lambda done: done.cancelled() or done.exception() is not None
            or undo(done.result()))
        raise


def slow_reader(inbox: Inbox) -> EngineError:
    return EngineError(Reason.SLOW_READER, f"the stream fell {inbox.limit} messages behind "
                       "its reader and was ended; connect again for a fresh snapshot")
