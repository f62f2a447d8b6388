"""The one loop of every server stream (Play.Connect and Engine.Watch): wait on the
stream's inbox and send what each item calls for, until the stream is done.

A session (play_session.PlaySession, watch.WatchSession) says what an item calls for:
`handle(item)` yields the messages to send, `keepalive()` is the message for an idle
stream, and `done` turns true when the stream has said all it will.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from plumbing.inbox import CLOSED, KEEPALIVE, Inbox


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
        else:
            await send_all(session.handle(item), write)
