"""The lobby streams this engine holds, and what the cluster knows of them (presence).

A lobby (Hello.arena) is one bot, one version, one arena. While it is connected the
engine keeps a presence row (bot, arena, version, engine, session, connected, free since,
paused): the matchmaker, on whichever engine, reads the rows of live engines only, so a
killed engine's lobbies stop counting when its lease runs out. A new lobby of the same
bot and arena replaces the row (its session changes); the engine that held the old one
notices at its next look and ends that stream (LOBBY_REPLACED). A rotated key or a
retired bot removes the rows: those lobbies end too (BAD_BOT_KEY, BOT_RETIRED).

Seats the matchmaker assigns are rows too (arena_seats). The engine holding the bot's
lobby delivers each one (an ArenaSeat message) and marks it delivered: it looks every
DELIVERY_S, and at once when the matchmaker runs here or, on PostgreSQL, when the store
tells it a match of its bots was made (room.py). A new lobby has its seats in play
delivered again, so a bot that reconnects finds its matches.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from ..errors import EngineError, Reason
from ..security.keys import digest
from .accounts import BotInfo
from .spec import COUNT, DELIVER

log = logging.getLogger(__name__)


class LobbyStream(Protocol):
    """What the arena needs from a lobby stream (rpc/arena_lobby.py): each call only
    queues a message for the stream, from any thread."""

    def seated(self, arena: str, match_id: str, seat: int, variant: str, owner: str) -> None: ...

    def paused(self, reason: str, message: str) -> None: ...

    def end(self, error: EngineError) -> None: ...

    def finish(self) -> None: ...


@dataclass
class Lobby:
    bot: BotInfo
    version: str
    arena: str
    key_hash: str
    stream: LobbyStream
    session: str
    paused: str = ""
    finished: bool = False   # its last seat sent (max_matches): it ends, and gets no more


PAUSE_SENTENCES = {
    "no_show": "a seat stream did not connect in time; connect the lobby again to be seated",
    "timeouts": "the turn clock played for this bot in each of its last matches; connect "
                "the lobby again to be seated",
}


class Lobbies:
    def __init__(self, room):
        self.room = room
        self.store = room.store
        self._lock = threading.Lock()
        self._lobbies: dict[str, Lobby] = {}    # session -> lobby
        # One delivery at a time, whichever thread asks (the arena thread does, room.py):
        # two at once could read the same seats as not sent and send them twice.
        self._delivering = threading.Lock()

    def enlist(self, bot: BotInfo, bot_key: str, version: str, arena: str,
               stream: LobbyStream, max_matches: int = 0) -> Lobby:
        lobby = Lobby(bot, version, arena, digest(bot_key), stream, secrets.token_hex(8))
        # The row first: a lobby held here without its row is one another replaced
        # (tick ends it), so it is held only once its row is written.
        self.store.connect(bot.bot_id, arena, version, lobby.session, time.time(), max_matches)
        with self._lock:
            self._lobbies[lobby.session] = lobby
        try:
            self.store.redeliver(bot.bot_id, arena, version)
        except BaseException:
            self.leave(lobby)
            raise
        log.info("arena %s: bot %s (%s) connected, version %s", arena, bot.name, bot.bot_id,
                 version)
        self.room.wake(COUNT, DELIVER)    # free: a table; its seats in play: sent again
        return lobby

    def leave(self, lobby: Lobby) -> None:
        with self._lock:
            if self._lobbies.pop(lobby.session, None) is None:
                return
        try:
            self.store.disconnect(lobby.bot.bot_id, lobby.arena, lobby.session)
        except Exception:   # the row then ages out with this engine, or is replaced
            log.exception("arena %s: the presence row of bot %s could not be removed",
                          lobby.arena, lobby.bot.name)
        log.info("arena %s: bot %s disconnected", lobby.arena, lobby.bot.name)

    def held(self) -> list[Lobby]:
        with self._lock:
            return list(self._lobbies.values())

    def tick(self) -> None:
        """End the lobbies whose presence row is gone or another's; tell paused ones;
        deliver seats."""
        lobbies = self.held()
        if not lobbies:
            return
        rows = self.store.sessions()
        for lb in lobbies:
            if lb.session not in rows:
                self._ended(lb)
            elif rows[lb.session] != lb.paused:
                lb.paused = rows[lb.session]
                if lb.paused:
                    lb.stream.paused(lb.paused, PAUSE_SENTENCES.get(lb.paused, lb.paused))
        self.deliver()

    def _ended(self, lb: Lobby) -> None:
        with self._lock:
            if self._lobbies.pop(lb.session, None) is None:
                return
        row = self.store.bot_by_hash(lb.key_hash)
        if row is None:
            err = EngineError(Reason.BAD_BOT_KEY, "the bot key was rotated: connect with the "
                              "new one")
        elif row[5]:
            err = EngineError(Reason.BOT_RETIRED, f"bot {lb.bot.name} was retired")
        else:
            err = EngineError(Reason.LOBBY_REPLACED, f"a newer lobby of bot {lb.bot.name} in "
                              f"arena {lb.arena} took over; this one ends")
        log.info("arena %s: lobby of bot %s ends: %s", lb.arena, lb.bot.name, err.reason)
        lb.stream.end(err)

    def deliver(self) -> None:
        with self._delivering:
            self._deliver()

    def _deliver(self) -> None:
        with self._lock:
            by_session = dict(self._lobbies)
        if not by_session:
            return
        found = [f for f in self.store.undelivered()
                 if f[4] in by_session and not by_session[f[4]].finished]
        if not found:
            return
        # Marked sent before they are sent: a mark the store refused is tried again at the
        # next look, and a lobby is never sent one seat twice.
        self.store.delivered([(f[0], f[1]) for f in found], time.time())
        for i, (match_id, seat, _bot_id, arena, session, left, owner, address) in \
                enumerate(found):
            lb = by_session[session]
            if owner == self.store.engine_id:
                address = ""     # this engine plays it: the lobby's own address
            variant = self.room.variant_of(arena)
            lb.stream.seated(arena, match_id, seat, variant, address)
            log.info("arena %s: bot %s seated in match %s seat %d", arena, lb.bot.name,
                     match_id, seat)
            if left is not None and left <= 0 and not any(f[4] == session for f in found[i + 1:]):
                # Its last seat (ArenaEnlist.max_matches): the lobby ends after it, OK;
                # its stream's end removes its row (leave).
                lb.finished = True
                lb.stream.finish()

    def close(self) -> None:
        for lb in self.held():
            self.leave(lb)
