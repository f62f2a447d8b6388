"""Whether the store answers now: a state every store call consults, and the probe that keeps it.

A PostgreSQL server can go away: stopped, restarting, cut off, or frozen (a black hole:
nothing refuses, nothing answers). The engine's moves run on the rpc event loop, so a call
that waits on such a server would stall every match, every health check and every stream
of the engine. So every call's wait is bounded (postgres.py), the first call refused or
cut off marks the store down, and while it is down no call touches it: each is refused
at once (StoreUnavailable, sql.py). Only the probe marks it up again, once a round trip
of its own has succeeded; listeners hear of every change (gRPC health, the matches'
clocks).

A call whose wait only ran out (no answer within the bound, no pooled connection free
within it) is `doubted`, not failed: on a machine busier than its cores, a loaded server
or an engine's own busy threads make an answer late now and then, and taking each for an
outage refused every call of the engine for a probe's time, up to two dozen times a
minute at a thousand arena bots (docs/arena.md, "End to end"). That call fails; the
probe looks at once, on its own connection, and only its failure marks the store down.
A frozen server is so found one probe's bound later than by the first call.

A store nothing can probe (SQLite: a file on this machine) is never marked down: each of
its failures belongs to its own call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

PROBE_S = 0.2   # how often the probe tries the store, up or down


class StoreHealth:
    """`probe(was_up)` makes one bounded round trip to the store and raises when it cannot
    (None: a store that is never down). It runs on a thread of its own, every PROBE_S and
    at once after a call failed."""

    def __init__(self, name: str, probe: Callable[[bool], None] | None = None):
        self.name = name
        self._probe = probe
        self._lock = threading.Lock()
        self._up = True
        self._why = ""
        self._since = time.monotonic()
        # Bumped by every failure: a probe that began before one must not mark the store
        # up (its round trip may have made it just before the server went away).
        self._failures = 0
        self._listeners: list[Callable[[bool], None]] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def probing(self) -> bool:
        """True when something tells this store's return (then the clocks wait for it)."""
        return self._probe is not None

    @property
    def up(self) -> bool:
        return self._up

    def refusal(self) -> str:
        """Why a call is refused while the store is down."""
        with self._lock:
            away = time.monotonic() - self._since
            return f"the store {self.name} has not answered for {away:.1f} s ({self._why})"

    def start(self) -> None:
        if self._probe is not None and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="store-probe", daemon=True)
            self._thread.start()

    def listen(self, listener: Callable[[bool], None]) -> None:
        """Call `listener(up)` at every change, on the thread that saw it: the probe's, or
        that of the call that failed (maybe the rpc event loop: it must not block)."""
        with self._lock:
            self._listeners.append(listener)

    def failed(self, why: str) -> None:
        """A call found the store unreachable: down now, and the probe looks at once."""
        if self._probe is None:
            return
        with self._lock:
            self._failures += 1
        self._set(False, why)
        self._wake.set()

    def doubted(self, why: str) -> None:
        """A call's wait ran out: the probe looks at once and marks the store down if its
        own round trip fails too (a late answer is not an outage by itself)."""
        if self._probe is None:
            return
        log.info("the store %s was late (%s): probing it", self.name, why)
        self._wake.set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)

    def _run(self) -> None:
        while True:
            self._wake.wait(PROBE_S)
            self._wake.clear()
            if self._stop.is_set():
                return
            with self._lock:
                failures, was_up = self._failures, self._up
            try:
                self._probe(was_up)
            except Exception as e:   # noqa: BLE001 - what a probe raises is why it is down
                self._set(False, first_line(e))
                continue
            with self._lock:
                raced = failures != self._failures
            if not raced:
                self._set(True, "")

    def _set(self, up: bool, why: str) -> None:
        with self._lock:
            if self._up == up:
                return
            away = time.monotonic() - self._since
            self._up, self._why, self._since = up, why, time.monotonic()
            listeners = list(self._listeners)
        if up:
            log.warning("the store %s answers again, after %.1f s", self.name, away)
        else:
            log.warning("the store %s is unreachable (%s): moves are refused, and reads that "
                        "need it, until it answers again", self.name, why)
        for listener in listeners:
            try:
                listener(up)
            except Exception:   # one listener's bug must not keep the news from the others
                log.exception("a listener of the store's health failed")


def first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:200] if text else type(e).__name__
