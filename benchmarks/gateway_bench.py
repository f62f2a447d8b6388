"""The gateway under a crowd: REST move round trips next to a bare Flask endpoint on the
same server, with 0, 300 and 1,000 event streams open, and how fast an event reaches
every one of 1,000 watchers.

Three processes, as deployed: the engine (`domino engine`), the gateway (gateway/server.py:
the app of `domino gateway` plus one bare endpoint POST /bench/bare that answers a small
JSON object without touching the engine), and this load generator, whose crowd of event
streams (benchmarks/sse_crowd.py) is a thread of coroutines. Each REST client thread plays
its own all-person HHL match: it mirrors the match with the rules core to know a legal
move, so only POST /api/v1/matches/{id}/moves is timed. Targets: REST p99 under
100 ms with 1,000 streams open; an event at every watcher within 100 ms p99 of its move;
moves >= 0.4 x the bare endpoint's rate.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import threading
import time

from benchmarks import sized
from benchmarks.sse_crowd import Crowd

CLIENTS = sized(4, 2)
SECONDS = sized(4.0, 0.3)
WARM_S = sized(0.5, 0.1)
CROWDS = sized((0, 300, 1000), (0, 20))
DELIVERY_MOVES = sized(40, 3)


def _serve(engine_address: str) -> None:
    """The gateway process: the real server and app plus the bare endpoint, on a free port."""
    from flask import jsonify, request

    from gateway.server import GatewayServer

    server = GatewayServer({"ENGINE_ADDRESS": engine_address}, "127.0.0.1", 0)

    def bare():
        body = request.get_json()
        return jsonify({"version": body.get("version", 0), "ok": True})

    server.app.flask.add_url_rule("/bench/bare", "bench_bare", bare, methods=["POST"])
    print(server.port, flush=True)
    server.run()


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method: str, path: str, body=None, token: str = "") -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None,
                          headers=headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())


def _mover(port: int, seed: int):
    """A match of its own and a function that makes its next move (timed) -> seconds."""
    from engine_service import rules

    c = Client(port)
    options = {"minutes": 1440}   # never ends within the run
    _, created = c.call("POST", "/api/v1/matches", {"variant": "hhl", "options": options,
                                                    "seed": seed, "person_clock_ms": 3_600_000})
    match_id = created["match_id"]
    tokens = [c.call("POST", f"/api/v1/matches/{match_id}/seats/{s}/claim")[1]["seat_token"]
              for s in range(4)]
    mirror = rules.new_match("hhl", options, seed=seed)
    state = {"version": 0}

    def move() -> float:
        seat = mirror.to_move
        chosen = mirror.legal_moves(seat)[0]
        t0 = time.perf_counter()
        status, answer = c.call("POST", f"/api/v1/matches/{match_id}/moves",
                                {"version": state["version"], "move_text": str(chosen)}, tokens[seat])
        elapsed = time.perf_counter() - t0
        if status != 200:
            raise RuntimeError(f"move refused: {answer}")
        state["version"] = answer["version"]
        mirror.play(seat, chosen)
        return elapsed
    return move


def _grpc_mover(address: str, seed: int):
    """The same moves straight to the engine over gRPC: the ceiling the gateway sits under."""
    import grpc

    from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, game_pb2
    from domino_wire import game
    from engine_service import rules

    stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
    options = {"minutes": 1440}
    created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", options), seed=seed,
        person_clock_ms=3_600_000), timeout=10)
    tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s),
                             timeout=10).seat_token for s in range(4)]
    mirror = rules.new_match("hhl", options, seed=seed)
    state = {"version": 0}

    def move() -> float:
        seat = mirror.to_move
        chosen = mirror.legal_moves(seat)[0]
        t0 = time.perf_counter()
        done = stub.SubmitMove(engine_pb2.SubmitMoveRequest(
            match_id=created.match_id, seat_token=tokens[seat], expected_version=state["version"],
            move_text=str(chosen)), timeout=10)
        elapsed = time.perf_counter() - t0
        state["version"] = done.version
        mirror.play(seat, chosen)
        return elapsed
    return move


def _bare(port: int):
    c = Client(port)

    def call() -> float:
        t0 = time.perf_counter()
        status, _ = c.call("POST", "/bench/bare", {"version": 1, "move_text": "6-4 left"}, "x" * 43)
        elapsed = time.perf_counter() - t0
        assert status == 200
        return elapsed
    return call


def _load(make, seconds: float) -> dict:
    """Run CLIENTS threads calling make(i)() until `seconds` pass; rate and latency."""
    calls = [make(i) for i in range(CLIENTS)]
    times: list[list[float]] = [[] for _ in calls]
    errors: list[BaseException] = []
    stop = time.perf_counter() + seconds

    def work(i):
        try:
            while time.perf_counter() < stop:
                times[i].append(calls[i]())
        except BaseException as e:   # noqa: BLE001 - reported below
            errors.append(e)
    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    elapsed = time.perf_counter() - start
    flat = sorted(x for ts in times for x in ts)
    return {"rate": len(flat) / elapsed, "p50": statistics.median(flat) * 1000,
            "p99": flat[min(len(flat) - 1, int(len(flat) * 0.99))] * 1000, "n": len(flat)}


def _delivery(port: int, crowd: Crowd, match_id: str, tokens: list[str], seed: int) -> dict:
    """Moves in the crowd's match, one every 100 ms; for each, how long until every
    watcher had its event (from just before the POST)."""
    from engine_service import rules

    c = Client(port)
    mirror = rules.new_match("hhl", {"minutes": 1440}, seed=seed)
    delays, version = [], 0
    for _ in range(DELIVERY_MOVES):
        seat = mirror.to_move
        chosen = mirror.legal_moves(seat)[0]
        t0 = time.monotonic()
        status, answer = c.call("POST", f"/api/v1/matches/{match_id}/moves",
                                {"version": version, "move_text": str(chosen)}, tokens[seat])
        assert status == 200, answer
        version = answer["version"]
        mirror.play(seat, chosen)
        deadline = time.monotonic() + 10
        while crowd.count("events", version) < crowd.n and time.monotonic() < deadline:
            time.sleep(0.001)
        delays += [t - t0 for t in crowd.times("events", version)]
        time.sleep(0.1)
    delays.sort()
    return {"n": len(delays), "expected": DELIVERY_MOVES * crowd.n,
            "p50": statistics.median(delays) * 1000,
            "p99": delays[min(len(delays) - 1, int(len(delays) * 0.99))] * 1000,
            "max": delays[-1] * 1000}


def run(seconds: float = SECONDS) -> list[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    engine = subprocess.Popen([sys.executable, "-m", "domino_cli", "engine", "--port", "0",
                               "--db", ":memory:"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env)
    gateway = None
    rows, delivery = [], None
    try:
        line = engine.stdout.readline()
        address = line.split()[3]
        gateway = subprocess.Popen([sys.executable, "-m", "benchmarks.gateway_bench", "serve",
                                    address], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, env=env)
        port = int(gateway.stdout.readline())
        _load(lambda i: _bare(port), WARM_S)        # warm up both paths
        _load(lambda i: _mover(port, 100 + i), WARM_S)
        direct = _load(lambda i: _grpc_mover(address, 200 + i), seconds)
        c = Client(port)
        _, created = c.call("POST", "/api/v1/matches", {
            "variant": "hhl", "options": {"minutes": 1440}, "seed": 999,
            "person_clock_ms": 3_600_000})
        match_id = created["match_id"]
        tokens = [c.call("POST", f"/api/v1/matches/{match_id}/seats/{s}/claim")[1]["seat_token"]
                  for s in range(4)]
        for n in CROWDS:
            crowd = Crowd(port, f"/api/v1/matches/{match_id}/events", n) if n else None
            try:
                if crowd is not None:
                    deadline = time.monotonic() + 60
                    while crowd.snapshots < n and time.monotonic() < deadline:
                        time.sleep(0.05)
                bare = _load(lambda i: _bare(port), seconds)
                moves = _load(lambda i, n=n: _mover(port, 1000 * n + i), seconds)
                rows.append((n, bare, moves, crowd.snapshots if crowd else 0))
                if n == CROWDS[-1]:
                    delivery = _delivery(port, crowd, match_id, tokens, 999)
            finally:
                if crowd is not None:
                    crowd.close()
    finally:
        for p in (gateway, engine):
            if p is not None:
                p.terminate()
                p.wait(10)
    lines = [f"{'gateway, ' + str(CLIENTS) + ' REST clients, keep-alive':44s} {'req/s':>8s} "
             f"{'p50 ms':>8s} {'p99 ms':>8s}"]
    for n, bare, moves, open_ in rows:
        lines.append(f"with {n} event streams open ({open_} connected)")
        for label, r in (("  bare Flask endpoint (same server)", bare),
                         ("  REST move: POST .../moves -> engine", moves)):
            lines.append(f"{label:44s} {r['rate']:8.0f} {r['p50']:8.2f} {r['p99']:8.2f}")
        lines.append(f"  moves / bare = {moves['rate'] / bare['rate']:.2f} (target >= 0.4)")
    lines.append(f"{'(engine alone: gRPC SubmitMove)':44s} {direct['rate']:8.0f} "
                 f"{direct['p50']:8.2f} {direct['p99']:8.2f}")
    if delivery:
        lines.append(f"event delivery to {CROWDS[-1]} watchers of one match, {DELIVERY_MOVES} "
                     f"moves: {delivery['n']}/{delivery['expected']} events arrived; from the "
                     f"move's POST to each watcher p50 {delivery['p50']:.1f} ms, p99 "
                     f"{delivery['p99']:.1f} ms, max {delivery['max']:.1f} ms (target p99 < 100)")
    return lines


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "serve":
        _serve(sys.argv[2])
    else:
        print("\n".join(run()))
