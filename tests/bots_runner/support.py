"""Real processes for the runner tests: `domino engine` on 127.0.0.1 port 0, `domino bot`,
the Node.js bot, and a small Engine client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import grpc

from bots.strategies import make_strategy
from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, game_pb2
from domino_wire import game
from engine_service import rules
from engine_service.rules.moves import Move
from tests.engine.support import start_engine  # noqa: F401 - the runner tests start it from here

ROOT = Path(__file__).resolve().parents[2]
JS_BOT = ROOT / "bots" / "js"
VARIANTS = {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}
DOMINO = [sys.executable, "-m", "domino_cli"]


def domino_bot(address: str, *args: str, env: dict | None = None, stdin=None):
    """`domino bot --engine ADDRESS ARGS...` as a process."""
    return subprocess.Popen([*DOMINO, "bot", "--engine", address, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=stdin, env={**os.environ, **(env or {})})


def node_bot(address: str, *args: str, env: dict | None = None):
    return subprocess.Popen(["node", str(JS_BOT / "bot.js"), "--engine", address, *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


# What npm says when the package registry cannot be reached: the test is skipped, not failed.
NPM_OFFLINE = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT",
               "ENETUNREACH", "EHOSTUNREACH", "network request", "network connectivity")


def ensure_node_modules() -> None:
    """CI starts from a clean clone: install the locked packages once. Tests run in several
    worker processes at once, so one installs while the others wait on a lock (two `npm ci`
    in one folder undo each other). Skipped, with npm's reason, when the registry cannot be
    reached; any other npm failure fails the test."""
    import fcntl

    import pytest

    npm = shutil.which("npm")
    assert npm, "node is installed but npm is not"
    # The check is made under the lock too: `npm ci` creates the package's folder before
    # it has written its files, so a worker that looked without the lock while another
    # installed saw the folder and started a bot that could not load it.
    with open(JS_BOT / "package-lock.json", "rb") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # released when the file closes
        if (JS_BOT / "node_modules" / "@grpc" / "grpc-js" / "package.json").is_file():
            return                            # installed before, or by another worker
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS_BOT,
                              capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and any(word in done.stderr for word in NPM_OFFLINE):
        why = next(line for line in done.stderr.splitlines() if any(
            word in line for word in NPM_OFFLINE))
        pytest.skip(f"npm ci cannot reach the package registry: {why.strip()[:300]}")
    assert done.returncode == 0, done.stderr[-2000:]


def outputs(procs, timeout: float = 60) -> list[dict]:
    """Wait for bot processes; every JSON line they printed, failing on a non-zero exit
    (or a process still running after `timeout` seconds, with what every process said)."""
    lines = []
    deadline = time.monotonic() + timeout
    for p in procs:
        try:
            stdout, stderr = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            said = []
            for q in procs:
                q.kill()
                said.append(f"--- {q.args[:3]} (exit {q.wait()}):\n{q.communicate()[1][-3000:]}")
            raise AssertionError(f"{p.args[:3]} did not finish in {timeout} s\n"
                                 + "\n".join(said)) from None
        assert p.returncode == 0, stderr[-3000:]
        lines += [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return lines


class Client:
    """Engine calls the tests need."""

    def __init__(self, port: int):
        self.address = f"127.0.0.1:{port}"
        self.channel = grpc.insecure_channel(self.address)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def new_match(self, variant: str, options: dict | None = None, seed: int = 1,
                  clock_ms: int = 20_000, pools: list[str] | None = None):
        """Create a match; claim its token seats. Returns (match_id, {seat: token})."""
        created = self.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=VARIANTS[variant], options=game.options_pb(variant, options or {}), seed=seed,
            bot_clock_ms=clock_ms, seats=[engine_pb2.SeatSpec(pool=p) for p in pools or []]),
            timeout=10)
        tokens = {s: self.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=10).seat_token
            for s in range(created.num_seats) if not pools or not pools[s]}
        return created.match_id, tokens

    def summary(self, match_id: str):
        return self.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                  timeout=10).summary

    def record(self, match_id: str) -> dict:
        return json.loads(self.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id),
                                              timeout=10).record_json)

    def watch(self, match_id: str, into: list) -> None:
        """Collect the public events of a match until it is over (run it in a thread)."""
        for message in self.stub.Watch(engine_pb2.WatchRequest(match_id=match_id), timeout=120):
            if message.WhichOneof("body") == "events":
                into.extend(game.event(e) for e in message.events.events)


def replays(record: dict, tmp_path: Path) -> None:
    """`domino replay` accepts the record."""
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = subprocess.run([*DOMINO, "replay", str(path)], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "record OK" in done.stdout


def greedy_seat_moves(record, seat):
    """Replay the record's decisions; (made, what the highest-pip rule picks) for `seat`.
    bots/strategies greedy is that rule exactly: most pips, ties to the first listed, a
    barricade only when nothing else is legal (then the first listed)."""
    m = rules.new_match(record["variant"], record["options"], record["seed"],
                        deals=[{k: d[k] for k in ("hands", "stock", "sleeping") if k in d}
                               for d in record["deals"]])
    greedy = make_strategy("greedy")
    pairs = []
    for deal in record["deals"]:
        for entry in deal["moves"]:
            if "play" not in entry:
                continue      # draws and passes follow from the rules
            move = Move.from_dict({k: v for k, v in entry.items() if k != "seat"})
            if entry["seat"] == seat:
                pairs.append((move, greedy.choose(m.view(seat), m.legal_moves(seat))))
            m.play(entry["seat"], move)
    assert m.over
    return pairs
