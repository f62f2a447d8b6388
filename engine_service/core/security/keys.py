"""Who may create work: operators' API keys, their quotas, and the open mode.

A key is shown once when it is made (`domino keys create NAME`); the store keeps only its
sha256. A request that creates work (a match, a ladder) names its key; the engine checks it
and counts what the key has running against the key's quotas. An engine running open (on
127.0.0.1 by default, docs/security.md) accepts requests without a key, as the principal
"open", under the open quotas.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, fields

from ..errors import EngineError, Reason

KEY_PREFIX = "dk_"   # tells a key from a seat token (64 hex digits) at a glance
OPEN = "open"


def new_secret(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Quotas:
    live_matches: int = 100        # matches created by the key and not over yet
    ladders: int = 4               # ladders created by the key and still running
    matches_per_minute: int = 60   # matches created in any 60 seconds
    bots: int = 20                 # registered arena bots owned by the key (retired ones too)

    @classmethod
    def parse(cls, text: str) -> Quotas:
        """"live_matches=10,ladders=1": the others keep their defaults."""
        names = {f.name for f in fields(cls)}
        values = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            if not sep or key not in names or not value.isdigit():
                raise ValueError(f"a quota is NAME=N with NAME one of {', '.join(sorted(names))}"
                                 f", got {part!r}")
            values[key] = int(value)
        return cls(**values)

    @classmethod
    def of(cls, d: dict) -> Quotas:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Principal:
    """Who is asking: a key's name and its quotas, or the open principal."""
    name: str
    quotas: Quotas


OPEN_PRINCIPAL = Principal(OPEN, Quotas(live_matches=200, ladders=8, matches_per_minute=120))


class Keys:
    """Checks keys against the store (a key made while the engine runs works at once)."""

    def __init__(self, store, required: bool):
        self.store = store
        self.required = required
        self._lock = threading.Lock()
        self._created: dict[str, deque] = {}   # principal name -> creation times, last minute

    def create(self, name: str, quotas: Quotas) -> str:
        """A new key for `name`, shown once; ValueError if that name has one."""
        key = new_secret(KEY_PREFIX)
        if not self.store.add_key(name, digest(key), quotas.as_dict(), time.time()):
            raise ValueError(f"a key named {name!r} exists already (revoke it first)")
        return key

    def principal(self, key: str) -> Principal:
        """The principal of a request carrying `key` ("" when it carries none)."""
        if not key:
            if self.required:
                raise EngineError(Reason.NO_KEY, "this needs an operator API key: send "
                                  "the metadata 'authorization: Bearer <key>'")
            return OPEN_PRINCIPAL
        found = self.store.key_by_hash(digest(key)) if len(key) <= 128 else None
        if found is None:
            raise EngineError(Reason.BAD_KEY, "the API key is not known (or was revoked)")
        return Principal(found[0], Quotas.of(found[1]))

    def charge_creation(self, who: Principal, live: int) -> None:
        """Refuse a new match over `who`'s quotas (`live`: its matches not over yet),
        else count it for the per-minute quota. A fork is charged so before its work is
        done (a refused fork has cost that work too), then checked with check_live."""
        self.check_live(who, live)
        now = time.monotonic()
        q = who.quotas
        with self._lock:
            times = self._created.setdefault(who.name, deque())
            while times and now - times[0] > 60:
                times.popleft()
            if len(times) >= q.matches_per_minute:
                raise EngineError(Reason.QUOTA_EXCEEDED, f"{who.name} created "
                                  f"{q.matches_per_minute} matches in the last minute, its "
                                  "quota; try again shortly")
            times.append(now)

    @staticmethod
    def check_live(who: Principal, live: int) -> None:
        if live >= who.quotas.live_matches:
            raise EngineError(Reason.QUOTA_EXCEEDED, f"{who.name} has {live} live matches, "
                              f"its quota is {who.quotas.live_matches}")
