"""What the attack benchmarks share (benchmarks/safety_bench.py runs them): the product's
processes started from a checkout, a REST victim that times its moves, and figures.

Every attack runs against the engine (and gateway) of one checkout: this one, or the one
DOMINO_BENCH_ROOT names (so the "before" figures are taken with the same attack on the
commit before a fix: `git archive <commit> | tar -x -C /tmp/before`, copy domino_proto/
there, then DOMINO_BENCH_ROOT=/tmp/before python -m benchmarks safety). Processes run
with the root's code on PYTHONPATH, as that checkout starts them.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bench_root() -> str:
    return os.environ.get("DOMINO_BENCH_ROOT") or ROOT


def env_for(root: str, **extra) -> dict:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = root
    return env


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_rss_kb(pid: int) -> int:
    """The RSS of `pid`'s child processes (a fork's worker), summed."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                total += sum(rss_kb(int(c)) for c in f.read().split())
        except (OSError, RuntimeError):
            pass
    return total


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def ms(values: list[float]) -> str:
    """p50 / p99 of seconds, in ms."""
    return (f"p50 {statistics.median(values) * 1000:6.1f} ms, p99 "
            f"{percentile(values, 99) * 1000:6.1f} ms ({len(values)} samples)")


class Engine:
    """`domino engine` of `root` on a store in a temporary folder (a SQLite file unless
    `db` is given), restartable on the same store and port."""

    def __init__(self, root: str | None = None, *extra: str, db: str = "", env: dict | None = None,
                 key_quotas: str = ""):
        """`key_quotas` ("live_matches=1000,..."): an API key with these quotas is made in
        the store first (`domino keys create`), as `self.key` (metadata: `self.auth`)."""
        self.root = root or bench_root()
        self.dir = tempfile.TemporaryDirectory(prefix="attack-")
        self.db = db or os.path.join(self.dir.name, "engine.sqlite3")
        self.extra, self.env = list(extra), env or {}
        self.log = open(os.path.join(self.dir.name, "engine.log"), "w")
        self.port = 0
        self.key, self.auth = "", ()
        if key_quotas:
            self.key = subprocess.run(
                [sys.executable, "-m", "domino_cli", "keys", "create", "bench", "--quota",
                 key_quotas, "--db", self.db], capture_output=True, text=True, cwd=self.root,
                env=env_for(self.root), check=True).stdout.strip()
            self.auth = (("authorization", f"Bearer {self.key}"),)
        self.start()

    def start(self) -> float:
        """Start (again); returns the seconds until it listened (its recovery included)."""
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "domino_cli", "engine", "--port", str(self.port), "--db",
             self.db, *self.extra], stdout=subprocess.PIPE, stderr=self.log, text=True,
            cwd=self.root, env=env_for(self.root, **self.env))
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise RuntimeError(f"the engine did not start: {line!r} (see {self.log.name})")
        took = time.monotonic() - started
        self.port = int(line.split()[3].rsplit(":", 1)[1])
        self.address = f"127.0.0.1:{self.port}"
        from domino_proto.domino.v1 import engine_pb2_grpc
        self.channel = grpc.insecure_channel(self.address)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)
        return took

    def stop(self, kill: bool = False) -> None:
        self.channel.close()
        if kill:
            self.proc.kill()
        else:
            self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()

    def rss_kb(self) -> int:
        return rss_kb(self.proc.pid)

    def cpu_s(self) -> float:
        return cpu_s(self.proc.pid)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.stop()
        self.log.close()
        self.dir.cleanup()


class Gateway:
    """`domino gateway` of `root` in front of an engine, on a free port."""

    def __init__(self, engine_address: str, root: str | None = None, log=None):
        root = root or bench_root()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "domino_cli", "gateway", "--engine", engine_address,
             "--port", "0", "--bots", "random"], stdout=subprocess.PIPE,
            stderr=log or subprocess.DEVNULL, text=True, cwd=root, env=env_for(root))
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            self.proc.kill()
            raise RuntimeError(f"the gateway did not start: {line!r}")
        self.port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


class Rest:
    """One keep-alive HTTP connection to the gateway."""

    def __init__(self, port: int, timeout: float = 60):
        self.port, self.timeout = port, timeout
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(self, method: str, path: str, body=None, token: str = "",
             raw: bytes | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        try:
            self.conn.request(method, path, body=data, headers=headers)
            r = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # The gateway closes a keep-alive connection idle for 5 s: a new one.
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                   timeout=self.timeout)
            self.conn.request(method, path, body=data, headers=headers)
            r = self.conn.getresponse()
        return r.status, json.loads(r.read() or b"{}")

    def close(self) -> None:
        self.conn.close()


def rest_mover(port: int, seed: int):
    """A person-seat HHL match of its own, played over REST one move at a time: returns
    move() -> the seconds its POST .../moves took. It mirrors the match with the rules
    core to know a legal move (so only the move is timed)."""
    from engine_service import rules

    c = Rest(port)
    options = {"minutes": 1440}   # never ends within a run
    status, created = c.call("POST", "/api/v1/matches", {"variant": "hhl", "options": options,
                                                         "seed": seed,
                                                         "person_clock_ms": 3_600_000})
    if status != 201:
        raise RuntimeError(f"the victim's match was refused: {created}")
    match_id = created["match_id"]
    tokens = [c.call("POST", f"/api/v1/matches/{match_id}/seats/{s}/claim")[1]["seat_token"]
              for s in range(4)]
    mirror = rules.new_match("hhl", options, seed=seed)
    version = [0]

    def move() -> float:
        seat = mirror.to_move
        chosen = mirror.legal_moves(seat)[0]
        t0 = time.perf_counter()
        status, answer = c.call("POST", f"/api/v1/matches/{match_id}/moves",
                                {"version": version[0], "move_text": str(chosen)}, tokens[seat])
        elapsed = time.perf_counter() - t0
        if status != 200:
            raise RuntimeError(f"the victim's move was refused: {answer}")
        version[0] = answer["version"]
        mirror.play(seat, chosen)
        return elapsed
    move.match_id = match_id
    return move


def timed_for(call, seconds: float, pause: float = 0.0) -> list[float]:
    """call() -> seconds, again and again for `seconds`; the samples."""
    samples, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        samples.append(call())
        if pause:
            time.sleep(pause)
    return samples


def grpc_mover(address: str, seed: int, auth=()):
    """rest_mover's twin straight to the engine: a person-seat HHL match of its own,
    move() -> the seconds one SubmitMove took."""
    from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, game_pb2
    from domino_wire import game
    from engine_service import rules

    stub = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))
    options = {"minutes": 1440}
    created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", options), seed=seed,
        person_clock_ms=3_600_000), timeout=30, metadata=auth)
    tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s),
                             timeout=30).seat_token for s in range(4)]
    mirror = rules.new_match("hhl", options, seed=seed)
    version = [0]

    def move() -> float:
        seat = mirror.to_move
        chosen = mirror.legal_moves(seat)[0]
        t0 = time.perf_counter()
        done = stub.SubmitMove(engine_pb2.SubmitMoveRequest(
            match_id=created.match_id, seat_token=tokens[seat], expected_version=version[0],
            move_text=str(chosen)), timeout=30)
        elapsed = time.perf_counter() - t0
        version[0] = done.version
        mirror.play(seat, chosen)
        return elapsed
    move.match_id, move.tokens = created.match_id, tokens
    return move


def seated_matches(stub, count: int, variant: str = "hhl", clock_ms: int = 3_600_000,
                   auth=()):
    """`count` matches of person seats, every seat claimed: [(match_id, tokens)]."""
    from domino_proto.domino.v1 import engine_pb2, game_pb2
    from domino_wire import game

    number = {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}[variant]
    options = {"minutes": 1440} if variant == "hhl" else {}
    out = []
    for i in range(count):
        created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=number, options=game.options_pb(variant, options), seed=1000 + i,
            person_clock_ms=clock_ms), timeout=30, metadata=auth)
        out.append((created.match_id, [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=30).seat_token
            for s in range(created.num_seats)]))
    return out


def children_cpu_s(pid: int) -> float:
    """The CPU seconds of `pid`'s living child processes (its workers), summed."""
    total = 0.0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                total += sum(cpu_s(int(c)) for c in f.read().split())
        except OSError:
            pass
    return total
