"""SampleWorlds from many seats at once: what the engine draws, and how the moves of
another match fare.

`domino engine` on a SQLite file; one client plays its own match over gRPC, timing each
SubmitMove (the victim), first alone, then under each attack, from one process of
coroutines (one client address, as a single host attacks):

* wide: SEATS seats of their own matches, each asking for 1,000 worlds again and again,
  at once after every answer or refusal;
* rotating: ROTATE seats asked in turn for one world each, so that the engine's kept
  countings (a few hundred views) never hold the next one: each call counts a new view.

Target: the victim's move p99 within 2x of idle.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import grpc

from benchmarks.attack_support import (
    Engine,
    bench_root,
    children_cpu_s,
    grpc_mover,
    ms,
    percentile,
    seated_matches,
    timed_for,
)

SEATS, SMOKE_SEATS = 50, 8
ROTATE, SMOKE_ROTATE = 450, 40
WINDOW_S, SMOKE_WINDOW_S = 8.0, 0.5
QUOTAS = "live_matches=1000,matches_per_minute=100000"


def _attack(address: str, seats: list[tuple[str, str]], count: int, rotate: bool,
            stop: threading.Event, tally: dict) -> None:
    from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

    async def main():
        async with grpc.aio.insecure_channel(address) as channel:
            stub = play_pb2_grpc.PlayStub(channel)
            turn = [0]

            async def one(i: int) -> None:
                while not stop.is_set():
                    if rotate:
                        match_id, token = seats[turn[0] % len(seats)]
                        turn[0] += 1
                    else:
                        match_id, token = seats[i]
                    try:
                        got = await stub.SampleWorlds(play_pb2.SampleWorldsRequest(
                            match_id=match_id, seat_token=token, count=count,
                            seed=turn[0] + i), timeout=30)
                        tally["worlds"] += len(got.worlds)
                    except grpc.aio.AioRpcError as e:
                        tally[e.code().name] = tally.get(e.code().name, 0) + 1

            await asyncio.gather(*(one(i) for i in range(min(len(seats), 50))))

    asyncio.run(main())


def attack(root: str, seats_n: int, count: int, rotate: bool, window: float) -> dict:
    engine = Engine(root, key_quotas=QUOTAS)
    try:
        move = grpc_mover(engine.address, 5, engine.auth)
        matches = seated_matches(engine.stub, (seats_n + 3) // 4, auth=engine.auth)
        seats = [(m, t) for m, tokens in matches for t in tokens][:seats_n]
        timed_for(move, 1.0)
        idle = timed_for(move, window, pause=0.005)
        stop, tally = threading.Event(), {"worlds": 0}
        thread = threading.Thread(target=_attack, args=(engine.address, seats, count, rotate,
                                                        stop, tally), daemon=True)
        cpu0, workers0 = engine.cpu_s(), children_cpu_s(engine.proc.pid)
        started = time.monotonic()
        thread.start()
        time.sleep(0.5)
        busy = timed_for(move, window, pause=0.005)
        stop.set()
        thread.join(60)
        took = time.monotonic() - started
        return {"idle": idle, "busy": busy, "tally": tally, "seconds": took,
                "cpu": (engine.cpu_s() - cpu0) / took,
                "workers": (children_cpu_s(engine.proc.pid) - workers0) / took}
    finally:
        engine.close()


def run(smoke: bool = False) -> list[str]:
    root = bench_root()
    window = SMOKE_WINDOW_S if smoke else WINDOW_S
    lines = [f"SampleWorlds attacks (engine of {root}), the victim plays over gRPC"]
    for name, seats, count, rotate in (
            ("wide", SMOKE_SEATS if smoke else SEATS, 1000, False),
            ("rotating", SMOKE_ROTATE if smoke else ROTATE, 1, True)):
        r = attack(root, seats, count, rotate, window)
        t = r["tally"]
        refused = {k: v for k, v in t.items() if k != "worlds"}
        lines.append(f"   {name}: {seats} seats x {count} world(s) a call: "
                     f"{t['worlds'] / r['seconds']:,.0f} worlds/s drawn, refused {refused}, "
                     f"engine CPU {r['cpu'] * 100:.0f}% of a core (+ its worker processes "
                     f"{r['workers'] * 100:.0f}%)")
        lines.append(f"      victim moves idle {ms(r['idle'])}")
        lines.append(f"      under the attack  {ms(r['busy'])}; p99 "
                     f"{percentile(r['busy'], 99) / percentile(r['idle'], 99):.2f}x idle "
                     "(target <= 2x)")
    return lines


if __name__ == "__main__":
    for line in run(smoke="--smoke" in sys.argv):
        print(line, flush=True)
