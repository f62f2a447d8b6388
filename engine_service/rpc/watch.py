"""Engine.Watch: a snapshot, then the match's events and keepalives, then MatchOver.

Seat-private with a seat token, public (a spectator) without; the engine's `watch`
decides which (engine_service/core/engine.py), as it does for every other call, and
bounds the streams of one client address and of one match (TOO_MANY_STREAMS: answered
after REFUSED_AFTER_S, without a thread, so that a client opening again at once makes no
flood of refusals). A watcher that falls WATCH_BEHIND updates behind is dropped with
SLOW_READER (streams.py); it may connect again, and starts from a fresh snapshot.
"""

from __future__ import annotations

import asyncio

from domino_proto.domino.v1 import engine_pb2
from plumbing.inbox import Inbox

from ..core.engine import Engine
from ..core.errors import EngineError, Reason
from ..core.matches.updates import Moved, TurnAgain
from . import codec
from .streams import serve_inbox

WATCH_BEHIND = 256      # updates a watcher may leave unread before it is dropped
REFUSED_AFTER_S = 5.0   # how long a Watch over the bounds waits for its refusal


class WatchSession:
    """Made on the server's event loop, one per Watch call."""

    def __init__(self, engine: Engine, match_id: str, seat_token: str, client: str = ""):
        self.engine, self.match_id, self.seat_token = engine, match_id, seat_token
        self.client = client
        self.referee = None
        self.seat: int | None = None
        self.done = False

    async def run(self, write) -> None:
        inbox = Inbox(limit=WATCH_BEHIND, on_overflow=asyncio.current_task().cancel)
        try:
            try:
                referee, sub, view = self.engine.watch(self.match_id, self.seat_token, inbox,
                                                       self.client)
            except EngineError as err:
                if err.reason == Reason.TOO_MANY_STREAMS:
                    await asyncio.sleep(REFUSED_AFTER_S)
                raise
            self.referee, self.seat = referee, view.seat
            try:
                await write(engine_pb2.WatchMessage(snapshot=codec.snapshot(referee, view)))
                if referee.match.over:
                    await write(engine_pb2.WatchMessage(match_over=codec.match_over(referee)))
                    return
                await serve_inbox(inbox, self, write)
            finally:
                referee.unsubscribe(sub)
                self.engine.unwatch(referee, self.client)
        finally:
            inbox.close()

    def handle(self, item):
        if isinstance(item, Moved):   # another engine plays the match now: reconnect there
            self.done = True
            return
        if isinstance(item, TurnAgain):   # for a Play stream: a watcher asks for no turns
            return
        yield codec.events_message(item, self.seat, engine_pb2.WatchMessage)
        if item.over:
            yield engine_pb2.WatchMessage(match_over=codec.match_over(self.referee))
            self.done = True

    def keepalive(self):
        return engine_pb2.WatchMessage(keepalive=codec.keepalive(self.referee.version))
