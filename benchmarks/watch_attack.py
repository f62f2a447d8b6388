"""Spectators that never read: Watch streams opened on a match and left unread, and how
that match's seats fare.

`domino engine` on a SQLite file; one client plays a match over gRPC, timing each
SubmitMove, first alone, then while STREAMS spectator streams of that same match are held
open by one process (one client address) and never read. A stream the engine refuses or
ends is opened again a second later (as a browser's EventSource does), so the attack
keeps up its number. Target: the seats' move p99 within 2x of idle.
"""

from __future__ import annotations

import asyncio
import sys
import threading

import grpc

from benchmarks.attack_support import Engine, bench_root, grpc_mover, ms, percentile, timed_for

STREAMS, SMOKE_STREAMS = 1000, 60
WINDOW_S, SMOKE_WINDOW_S = 8.0, 0.5
REOPEN_S = 1.0


def _spectators(address: str, match_id: str, n: int, stop: threading.Event,
                tally: dict) -> None:
    from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc

    async def main():
        channels = [grpc.aio.insecure_channel(address) for _ in range(max(1, n // 100))]

        async def hold(i: int) -> None:
            stub = engine_pb2_grpc.EngineStub(channels[i % len(channels)])
            while not stop.is_set():
                call = stub.Watch(engine_pb2.WatchRequest(match_id=match_id))
                tally["opened"] += 1
                code = await call.code()          # waits for the end, reading nothing
                tally[code.name] = tally.get(code.name, 0) + 1
                details = await call.details()
                if "SLOW_READER" in details or "behind" in details:
                    tally["dropped slow"] += 1
                await asyncio.sleep(REOPEN_S)

        tasks = [asyncio.ensure_future(hold(i)) for i in range(n)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()

    asyncio.run(main())


def run(smoke: bool = False) -> list[str]:
    root = bench_root()
    n = SMOKE_STREAMS if smoke else STREAMS
    window = SMOKE_WINDOW_S if smoke else WINDOW_S
    engine = Engine(root)
    try:
        move = grpc_mover(engine.address, 9)
        timed_for(move, 1.0)
        idle = timed_for(move, window, pause=0.005)
        stop, tally = threading.Event(), {"opened": 0, "dropped slow": 0}
        thread = threading.Thread(target=_spectators, args=(engine.address, move.match_id, n,
                                                            stop, tally), daemon=True)
        thread.start()
        timed_for(move, 2.0 if not smoke else 0.5)     # the crowd gathers
        rss_before = engine.rss_kb()
        busy = timed_for(move, window, pause=0.005)
        rss_after = engine.rss_kb()
        stop.set()
        thread.join(60)
    finally:
        engine.close()
    ended = {k: v for k, v in tally.items() if k not in ("opened", "dropped slow")}
    return [f"spectators that never read (engine of {root}): {n} Watch streams of the match "
            "being played, from one address, reopened a second after they end",
            f"   the seats' moves, idle:          {ms(idle)}",
            f"   with the spectators:             {ms(busy)}; p99 "
            f"{percentile(busy, 99) / percentile(idle, 99):.2f}x idle (target <= 2x)",
            f"   streams opened {tally['opened']}, ended {ended} (dropped as slow readers: "
            f"{tally['dropped slow']}); engine RSS {rss_before / 1024:.1f} -> "
            f"{rss_after / 1024:.1f} MB while measured"]


if __name__ == "__main__":
    for line in run(smoke="--smoke" in sys.argv):
        print(line, flush=True)
