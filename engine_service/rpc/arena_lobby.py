"""A registered bot's lobby on the Play stream (Hello.arena, play.proto): ArenaWelcome,
then an ArenaSeat each time the matchmaker seats the bot, ArenaPaused when it stops
seating it, and keepalives, until the bot goes away or the lobby is replaced, its key
rotated or the bot retired (the stream then ends with that refusal's status).

The arena calls the stream's methods from its own thread (LobbyStream, core/arena/
lobbies.py); each only queues into the stream's inbox, read on the event loop. The calls
into the arena that touch the store (enlisting, leaving) run on a worker thread, not on
the loop that carries every match's moves."""

from __future__ import annotations

import asyncio
import logging

from domino_proto.domino.v1 import play_pb2
from domino_wire.names import VARIANT
from plumbing.inbox import CLOSED, Inbox

from ..core.errors import EngineError
from . import codec
from .streams import enlist_shielded, serve_inbox

log = logging.getLogger(__name__)


def out(**body) -> play_pb2.EngineMessage:
    return play_pb2.EngineMessage(**body)


class LobbySession:
    def __init__(self, engine):
        self.engine = engine
        self.inbox = Inbox()
        self.done = False

    async def run(self, enlist: play_pb2.ArenaEnlist, request_iterator, write) -> None:
        arenas = self.engine.arenas
        # A bot that goes away while it is being enlisted still leaves: no presence row
        # is left behind for as long as this engine lives.
        lobby, (mu, sigma, matches) = await enlist_shielded(
            lambda: arenas.enlist(enlist.bot_key, enlist.version, enlist.arena, self,
                                  enlist.max_matches),
            lambda enlisted: asyncio.ensure_future(
                asyncio.to_thread(arenas.lobbies.leave, enlisted[0])))
        reader = None
        try:
            await write(out(arena_welcome=play_pb2.ArenaWelcome(
                bot_id=lobby.bot.bot_id, name=lobby.bot.name, version=lobby.version,
                arena=lobby.arena, mu=mu, sigma=sigma, matches=matches)))
            reader = asyncio.create_task(self._read(request_iterator))
            await serve_inbox(self.inbox, self, write)
        finally:
            self.inbox.close()
            if reader is not None:
                reader.cancel()
            # Shielded too: the lobby's end and the bot's cancel often come together (its
            # last seat sent), and a leave cancelled before its thread started never ran.
            await asyncio.shield(asyncio.to_thread(arenas.lobbies.leave, lobby))

    async def _read(self, request_iterator) -> None:
        """The bot sends nothing after its Hello; its half-close ends the lobby."""
        try:
            async for _ in request_iterator:
                pass
        except asyncio.CancelledError:
            raise
        except Exception:   # noqa: BLE001 - the stream broke: it ends like a half-close
            log.debug("lobby stream: reading failed", exc_info=True)
        self.inbox.put(CLOSED)

    # ----- LobbyStream (core/arena/lobbies.py), from the arena's thread ---------------
    def seated(self, arena: str, match_id: str, seat: int, variant: str, owner: str) -> None:
        self.inbox.put(out(arena_seat=play_pb2.ArenaSeat(
            arena=arena, match_id=match_id, seat=seat, variant=VARIANT.number(variant),
            owner=owner)))

    def paused(self, reason: str, message: str) -> None:
        self.inbox.put(out(arena_paused=play_pb2.ArenaPaused(reason=reason, message=message)))

    def end(self, error: EngineError) -> None:
        self.inbox.put(error)

    def finish(self) -> None:
        self.inbox.put(CLOSED)

    # ----- the stream loop (streams.serve_inbox) -------------------------------------
    def handle(self, item):
        yield item

    def keepalive(self):
        return out(keepalive=codec.keepalive(0))
