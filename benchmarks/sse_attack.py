"""Event streams from many addresses: how many one gateway takes, and how REST fares.

`domino engine` + `domino gateway`; one client plays its own match over REST, timing each
POST .../moves, first alone, then while a crowd (benchmarks/sse_crowd.py) of STREAMS
event streams of that match, from ADDRESSES loopback addresses (127.0.0.1..127.0.0.k),
is held open. Target: REST p99 under 100 ms while the streams are at the gateway's cap.
"""

from __future__ import annotations

import resource
import sys
import time

from benchmarks.attack_support import (
    Engine,
    Gateway,
    bench_root,
    ms,
    percentile,
    rest_mover,
    timed_for,
)
from benchmarks.sse_crowd import Crowd

STREAMS, SMOKE_STREAMS = 5000, 300
ADDRESSES, SMOKE_ADDRESSES = 30, 2
WINDOW_S, SMOKE_WINDOW_S = 8.0, 0.5


def run(smoke: bool = False) -> list[str]:
    root = bench_root()
    n = SMOKE_STREAMS if smoke else STREAMS
    addresses = SMOKE_ADDRESSES if smoke else ADDRESSES
    window = SMOKE_WINDOW_S if smoke else WINDOW_S
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))   # a socket per stream
    engine = Engine(root)
    gateway = Gateway(engine.address, root, engine.log)
    try:
        move = rest_mover(gateway.port, 13)
        timed_for(move, 1.0)
        idle = timed_for(move, window, pause=0.005)
        crowd = Crowd(gateway.port, f"/api/v1/matches/{move.match_id}/events", n, addresses)
        try:
            deadline = time.monotonic() + (60 if not smoke else 20)
            while crowd.snapshots + len(crowd.refused) < n and time.monotonic() < deadline:
                time.sleep(0.2)
            held = crowd.snapshots
            busy = timed_for(move, window, pause=0.005)
            refused = len(crowd.refused)
            kinds = sorted({r.split(" ", 2)[1] if r.startswith("HTTP") else r[:30]
                            for r in crowd.refused})
        finally:
            crowd.close()
    finally:
        gateway.close()
        engine.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return [f"event streams from {addresses} addresses (gateway of {root}): {n} asked for, "
            f"{held} open, {refused} refused ({', '.join(kinds) or 'none'})",
            f"   REST moves, no streams:           {ms(idle)}",
            f"   REST moves, the streams held:     {ms(busy)}; p99 "
            f"{percentile(busy, 99) * 1000:.0f} ms (target < 100 ms)"]


if __name__ == "__main__":
    for line in run(smoke="--smoke" in sys.argv):
        print(line, flush=True)
