"""SampleWorlds served over gRPC on 127.0.0.1: worlds per second, and the time of a call.

The engine runs in a child process of its own (``python -m benchmarks.worlds_bench serve``)
with the per-seat rate and the CPU budgets lifted, so the figure is the engine's ceiling,
not the bound a seat gets (2000 worlds/s, core/sampling/service.py). The client walks a
few HHL and Domeng matches with the first legal move, and at each position asks every
seat for its worlds:

* 1000 worlds a call, the same view asked again (a bot thinking: the counting is kept);
* 100 worlds a call at a view never asked before (the counting is part of the call).

Worlds/s counts the worlds decoded by the client, so the encoding, the wire and the
decoding are all in it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import grpc

from benchmarks import sized

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POSITIONS_EVERY = sized(4, 12)   # moves between the positions asked about
REPEATS = sized(3, 1)               # 1000-world calls per seat and position


def serve() -> None:
    from engine_service.core.engine import Engine
    from engine_service.core.sampling.service import lifted
    from engine_service.rpc.server import start_server

    engine = Engine(worlds=lifted())
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=8)
    print(port, flush=True)
    sys.stdin.read()        # until the parent closes our stdin
    server.stop(0).wait()


def _matches(stub, engine_pb2, game):
    for variant, options, seed in (("hhl", {"hands": 1}, 3), ("domeng", {"round_cap": 1}, 4)):
        created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2_variant(variant), options=game.options_pb(variant, options),
            seed=seed, bot_clock_ms=3_600_000), timeout=10)   # no clock plays while it asks
        tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s),
                                 timeout=10).seat_token for s in range(created.num_seats)]
        yield created.match_id, tokens


def game_pb2_variant(variant: str) -> int:
    from domino_proto.domino.v1 import game_pb2
    return {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}[variant]


def run():
    from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, play_pb2, play_pb2_grpc
    from domino_wire import game

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    child = subprocess.Popen([sys.executable, "-m", "benchmarks.worlds_bench", "serve"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             cwd=ROOT, env=env)
    try:
        port = int(child.stdout.readline())
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        stub, play = engine_pb2_grpc.EngineStub(channel), play_pb2_grpc.PlayStub(channel)

        def ask(match_id, token, count, seed):
            got = play.SampleWorlds(play_pb2.SampleWorldsRequest(
                match_id=match_id, seat_token=token, count=count, seed=seed), timeout=30)
            return len(got.worlds), got.exact

        warm = fresh = 0
        warm_s = fresh_s = 0.0
        fresh_calls = warm_calls = inexact = positions = 0
        for match_id, tokens in _matches(stub, engine_pb2, game):
            moves = 0
            while True:
                if moves % POSITIONS_EVERY == 0:
                    positions += 1
                    for seat, token in enumerate(tokens):
                        t = time.perf_counter()
                        n, exact = ask(match_id, token, 100, seat)
                        fresh_s += time.perf_counter() - t
                        fresh += n
                        fresh_calls += 1
                        inexact += not exact
                        for r in range(REPEATS):
                            t = time.perf_counter()
                            n, _ = ask(match_id, token, 1000, 1000 + r)
                            warm_s += time.perf_counter() - t
                            warm += n
                            warm_calls += 1
                state = None
                for token in tokens:
                    s = stub.GetView(engine_pb2.GetViewRequest(match_id=match_id,
                                                               seat_token=token), timeout=10)
                    if s.legal_moves:
                        state, mover = s, token
                        break
                if state is None:
                    break       # the match is over
                stub.SubmitMove(engine_pb2.SubmitMoveRequest(
                    match_id=match_id, seat_token=mover, expected_version=state.version,
                    move_id=state.legal_moves[0].id), timeout=10)
                moves += 1
        channel.close()
    finally:
        child.stdin.close()
        child.wait(10)
    yield (f"SampleWorlds, 1000 worlds a call, view asked before: {warm / warm_s:,.0f} worlds/s "
           f"({warm_s / warm_calls * 1000:.1f} ms a call, {warm_calls} calls, {positions} "
           f"positions of HHL and Domeng, every seat)")
    yield (f"SampleWorlds, 100 worlds a call, a new view each time: {fresh / fresh_s:,.0f} "
           f"worlds/s ({fresh_s / fresh_calls * 1000:.1f} ms a call, counting included; "
           f"{inexact} of {fresh_calls} calls fell back to the near-uniform sampler)")


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        for line in run():
            print(line)
