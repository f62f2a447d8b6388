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

    def __init__(self, root: str | None = None, *extra: str, db: str = "", env: dict | None = None):
        self.root = root or bench_root()
        self.dir = tempfile.TemporaryDirectory(prefix="attack-")
        self.db = db or os.path.join(self.dir.name, "engine.sqlite3")
        self.extra, self.env = list(extra), env or {}
        self.log = open(os.path.join(self.dir.name, "engine.log"), "w")
        self.port = 0
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
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(self, method: str, path: str, body=None, token: str = "",
             raw: bytes | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
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
