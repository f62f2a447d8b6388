"""Registered bots: accounts owned by an operator API key, their bot keys, the residents.

A bot key ("dbk_...") is shown once, when the bot is registered or its key rotated; the
store keeps only its sha256, so a rotation refuses the old key at once on every engine.
A bot key is no operator key: Keys.principal does not know it, so it creates nothing.
A retired bot keeps its rows (history, leaderboard) and can no longer connect.
Residents are bots too (owner "house", names "house-<strategy>", a key nobody knows):
they are rated and listed like any other.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass

from ...rules.errors import shown
from ..errors import EngineError, Reason
from ..security import limits
from ..security.keys import Principal, digest, new_secret
from ..storage.arena_sql import ArenaStore
from .spec import RESIDENT_OWNER

BOT_KEY_PREFIX = "dbk_"
BOT_NAME_MAX = 40
RESIDENT_PREFIX = "house-"     # residents' names and ids; no registered bot's name


@dataclass(frozen=True)
class BotInfo:
    bot_id: str
    name: str
    description: str
    owner: str
    created: float
    retired: float      # Unix seconds; 0 while active
    resident: str       # the strategy of a resident; "" for a registered bot

    @classmethod
    def of(cls, row: tuple) -> BotInfo:
        bot_id, name, description, owner, created, retired, resident = row
        return cls(bot_id, name, description, owner, float(created), float(retired), resident)


def check_name(name: str, field: str = "name") -> str:
    limits.text(name, field, BOT_NAME_MAX, required=True, pattern=limits.BOT_NAME)
    return name


class Accounts:
    def __init__(self, store: ArenaStore):
        self.store = store
        self._lock = threading.Lock()
        self._by_id: dict[str, BotInfo] = {}   # a cache of public facts (names never change)

    # ----- an operator's requests -------------------------------------------------------
    def register(self, principal: Principal, name: str, description: str
                 ) -> tuple[BotInfo, str]:
        check_name(name)
        limits.text(description, "description", limits.BOT_DESCRIPTION_MAX)
        if name.startswith(RESIDENT_PREFIX):
            raise limits.refuse("name", f"names starting with {RESIDENT_PREFIX} are the "
                                "residents'")
        with self._lock:   # the quota's count and the insert together, on this engine
            have = self.store.count_bots(principal.name)
            if have >= principal.quotas.bots:
                raise EngineError(Reason.QUOTA_EXCEEDED, f"{principal.name} owns {have} "
                                  f"bots, its quota is {principal.quotas.bots}")
            key = new_secret(BOT_KEY_PREFIX)
            bot_id = secrets.token_hex(6)
            if not self.store.add_bot(bot_id, name, description, principal.name, digest(key),
                                      time.time()):
                raise EngineError(Reason.BOT_NAME_TAKEN, f"a bot named {name} exists "
                                  "already (names are never reused, retired bots' too)")
        return self.by_name(name), key

    def rotate(self, principal: Principal, name: str) -> tuple[BotInfo, str]:
        bot = self._owned(principal, name)
        key = new_secret(BOT_KEY_PREFIX)
        if not self.store.set_key(bot.bot_id, digest(key)):
            raise EngineError(Reason.BOT_RETIRED, f"bot {name} is retired")
        self.store.drop_presence(bot.bot_id)   # its lobbies end (lobbies.py notices)
        return bot, key

    def retire(self, principal: Principal, name: str) -> BotInfo:
        bot = self._owned(principal, name)
        self.store.retire(bot.bot_id, time.time())
        self.store.drop_presence(bot.bot_id)
        retired = self.by_name(name)
        with self._lock:   # the cache holds it retired: a leaderboard made again says so
            self._by_id[bot.bot_id] = retired
        return retired

    def _owned(self, principal: Principal, name: str) -> BotInfo:
        bot = self.by_name(name)
        if bot.resident or bot.owner != principal.name:
            raise EngineError(Reason.NOT_YOURS, f"bot {name} is owned by another key; only "
                              "its owner may change it")
        if bot.retired:
            raise EngineError(Reason.BOT_RETIRED, f"bot {name} is retired")
        return bot

    # ----- a bot's key ------------------------------------------------------------------
    def authenticate(self, bot_key: str, field: str) -> BotInfo:
        """The bot this key belongs to; UNAUTHENTICATED when unknown (or rotated) or the
        bot is retired. Read from the store every time: a rotation elsewhere counts now."""
        limits.text(bot_key, field, limits.TOKEN_MAX, required=True)
        row = self.store.bot_by_hash(digest(bot_key))
        if row is None or row[6]:   # a resident's key is nobody's
            raise EngineError(Reason.BAD_BOT_KEY, "the bot key is not known (a rotated key "
                              "is refused at once): use the key RegisterBot or RotateBotKey "
                              "gave")
        bot = BotInfo.of(row)
        if bot.retired:
            raise EngineError(Reason.BOT_RETIRED, f"bot {bot.name} is retired: it can no "
                              "longer connect")
        return bot

    # ----- public facts -----------------------------------------------------------------
    def by_name(self, name: str, field: str = "name") -> BotInfo:
        limits.text(name, field, BOT_NAME_MAX, required=True)
        row = self.store.bot_by_name(name)
        if row is None:
            raise EngineError(Reason.UNKNOWN_BOT, f"no bot named {shown(name)}")
        return BotInfo.of(row)

    def infos(self, bot_ids, read: bool = True) -> dict[str, BotInfo]:
        """Public facts of these bots (cached; retirement read again when asked anew).
        With `read` false, only those already cached: no store read."""
        want = set(bot_ids)
        with self._lock:
            missing = want - set(self._by_id)
        if missing and read:
            found = {r[0]: BotInfo.of(r) for r in self.store.bots()}
            with self._lock:
                self._by_id.update(found)
        with self._lock:
            return {i: self._by_id[i] for i in want if i in self._by_id}

    def residents(self, strategies) -> dict[str, BotInfo]:
        """The residents' bots, strategy -> BotInfo, made in the store when missing."""
        out = {}
        for strategy in strategies:
            name = RESIDENT_PREFIX + strategy
            self.store.add_bot(name, name, f"the house strategy {strategy}, played by the "
                               "engine", RESIDENT_OWNER, digest(new_secret()), time.time(),
                               resident=strategy)
            out[strategy] = self.by_name(name)
        return out
