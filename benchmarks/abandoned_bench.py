"""Ladders nobody plays: what they cost before and after they pause, and how long a revoked
key's ladder or an operator's cancel takes to stop (docs/ladders.md, "Abandoned ladders";
docs/security.md, "Revoking a key").

python -m benchmarks abandoned
"""

from __future__ import annotations

import os
import tempfile
import time

from benchmarks import sized
from engine_service.core.engine import Engine
from engine_service.core.ladders.director import PAUSED
from engine_service.core.security.keys import Quotas
from engine_service.core.storage.factory import open_store

LADDERS = sized(4, 1)
SPEC = {"variant": "hhl", "entrants": ["a", "b"], "matches": 10_000, "concurrency": 4,
        "clock_ms": 100, "seat_wait_s": 1, "options": {"hands": 1}}
WINDOW_S = sized(10.0, 1.0)


def _moves(engine: Engine) -> int:
    return engine.store.read("SELECT count(*) FROM moves")[0][0]


def _rate(engine: Engine, seconds: float) -> tuple[float, float]:
    """(moves committed a second, CPU seconds of this process a second) over `seconds`."""
    moves, cpu, at = _moves(engine), time.process_time(), time.monotonic()
    time.sleep(seconds)
    took = time.monotonic() - at
    return (_moves(engine) - moves) / took, (time.process_time() - cpu) / took


def pause_cost() -> dict:
    with tempfile.TemporaryDirectory(prefix="abandoned-bench-") as folder:
        db = os.path.join(folder, "engine.sqlite3")
        engine = Engine.open(db)
        try:
            ladders = [engine.ladders.create(dict(SPEC))[0] for _ in range(LADDERS)]
            started = time.monotonic()
            time.sleep(3)   # the seats' no-show: then the clocks play every seat
            running, running_cpu = _rate(engine, sized(3.0, 1.0))
            while not all(d.status == PAUSED and not d.playing for d in ladders):
                time.sleep(0.1)
            paused_after = time.monotonic() - started
            size = os.path.getsize(db)
            paused, paused_cpu = _rate(engine, WINDOW_S)
            grown = os.path.getsize(db) - size
            counted = sum(len(d.counted) for d in ladders)
        finally:
            engine.close()
    return {"running": running, "running_cpu": running_cpu, "paused_after": paused_after,
            "paused": paused, "paused_cpu": paused_cpu, "grown": grown, "counted": counted}


def stop_latency() -> dict:
    """Seconds from `domino keys revoke` (the store's revoke_key) and from an operator's
    cancel (on the store) to the ladder's director stopping it."""
    with tempfile.TemporaryDirectory(prefix="abandoned-bench-") as folder:
        db = os.path.join(folder, "engine.sqlite3")
        engine = Engine.open(db, keys_required=True)
        operator = open_store(db)
        try:
            key = engine.keys.create("alice", Quotas())
            who = engine.keys.principal(key)
            revoked, cancelled = engine.ladders.create(dict(SPEC), who)[0], \
                engine.ladders.create(dict(SPEC), who)[0]
            out = {}
            at = time.monotonic()
            operator.ladders.cancel(cancelled.id, "cancelled by an operator")
            while cancelled.active:
                time.sleep(0.01)
            out["operator"] = time.monotonic() - at
            at = time.monotonic()
            operator.revoke_key("alice", "its key 'alice' was revoked")
            while revoked.active:
                time.sleep(0.01)
            out["revoke"] = time.monotonic() - at
        finally:
            operator.close()
            engine.close()
    return out


def run() -> list[str]:
    c = pause_cost()
    s = stop_latency()
    return [
        f"{LADDERS} ladders nobody plays (HHL, 2 entrants, 4 at once, 100 ms clocks), one engine:",
        f"   before they pause: {c['running']:6.0f} moves/s, {c['running_cpu'] * 100:5.1f}% of a "
        "core for this process",
        f"   all paused after {c['paused_after']:.0f} s ({c['counted']} matches counted)",
        f"   paused, {WINDOW_S:.0f} s: {c['paused']:6.1f} moves/s, {c['paused_cpu'] * 100:5.1f}% "
        f"of a core, store grew {c['grown']} bytes",
        f"stopping a ladder in the store: operator's cancel {s['operator']:.2f} s, key revoked "
        f"{s['revoke']:.2f} s (the director reads its row every 2 s)",
    ]
