"""How fast a grpc.aio server takes new calls while its event loop is busy: the cost behind a
seat stream's wait in the arena (every match needs a new call per seat; docs/arena.md, "End
to end, at scale").

A server process (grpc.aio, as the engine's) keeps its loop busy with 4 tasks that each
work WORK_MS and yield, as an engine's loop busy with a thousand streams is; a client
process keeps 64 unary calls in flight over 8 connections for SECONDS. The server counts
its loop's turns meanwhile: grpc.aio takes one new call at a time, and each takes a few
turns of the loop, however many wait. (The count is a task that yields at every turn: with
no other work its own turns are nearly all of them, and turns a call mean nothing then.)"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

from benchmarks import sized

SECONDS = sized(6.0, 0.5)
WORK_MS = (0.0, 0.5, 2.0)
IN_FLIGHT = 64
CONNECTIONS = 8
TASKS = 4
SERVICE = "bench.Calls"


def _handlers():
    import grpc

    async def unary(request, context):
        return request

    async def turns(request, context):
        return str(TURNS[0]).encode()

    ident = bytes
    return grpc.method_handlers_generic_handler(SERVICE, {
        "Unary": grpc.unary_unary_rpc_method_handler(unary, ident, ident),
        "Turns": grpc.unary_unary_rpc_method_handler(turns, ident, ident)})


TURNS = [0]     # the server's loop turns so far


async def _count_turns() -> None:
    while True:
        await asyncio.sleep(0)      # one step a turn of the loop
        TURNS[0] += 1


async def _serve(work_ms: float) -> None:
    import grpc

    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_handlers(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()

    async def busy() -> None:
        while True:
            began = time.perf_counter()
            while time.perf_counter() - began < work_ms / 1000:
                pass
            await asyncio.sleep(0)

    tasks = [asyncio.create_task(busy()) for _ in range(TASKS if work_ms else 0)]
    tasks.append(asyncio.create_task(_count_turns()))
    print(port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)   # until closed
    for t in tasks:
        t.cancel()
    await server.stop(0)


async def _load(port: int) -> tuple[float, float, float]:
    """New calls a second, their median, and the server's loop turns a second."""
    import grpc

    # Each channel its own connection (gRPC shares one between like channels otherwise).
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[
        ("grpc.use_local_subchannel_pool", 1)]) for _ in range(CONNECTIONS)]
    unary = [c.unary_unary(f"/{SERVICE}/Unary") for c in channels]
    turns = channels[0].unary_unary(f"/{SERVICE}/Turns")
    for call in unary:
        await call(b"x", timeout=60)      # connected before the clock starts
    took: list[float] = []

    async def calls(k: int, until: float) -> None:
        while time.perf_counter() < until:
            began = time.perf_counter()
            await unary[k % CONNECTIONS](b"x", timeout=60)
            took.append(time.perf_counter() - began)

    turned, began = int(await turns(b"", timeout=60)), time.perf_counter()
    await asyncio.gather(*(calls(k, began + SECONDS) for k in range(IN_FLIGHT)))
    turned = (int(await turns(b"", timeout=60)) - turned) / (time.perf_counter() - began)
    for c in channels:
        await c.close()
    took.sort()
    return len(took) / SECONDS, took[len(took) // 2], turned


def run():
    for work in WORK_MS:
        server = subprocess.Popen([sys.executable, "-m", "benchmarks.new_calls", str(work)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            port = int(server.stdout.readline())
            rate, median, turns = asyncio.run(_load(port))
        finally:
            server.stdin.close()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                # Its figures are in already; a grpc.aio server whose shutdown hangs (seen
                # once, in a smoke run) must not hang the bench.
                server.kill()
                server.wait(30)
        turn = f"{TASKS} tasks of {work:g} ms a turn" if work else "idle"
        yield (f"grpc.aio, its loop {turn}: {rate:,.0f} new calls a second (p50 "
               f"{median * 1e3:,.1f} ms, {IN_FLIGHT} in flight), {turns:,.0f} turns of its "
               f"loop a second: {turns / max(rate, 1e-9):.1f} turns a call")


if __name__ == "__main__":
    asyncio.run(_serve(float(sys.argv[1])))
