"""Helpers for the engine tests: a client for a real server, refusal decoding, threads,
an event loop of virtual time."""

import asyncio
import selectors
import threading

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, game_pb2
from domino_wire import game
from domino_wire.refusals import refusal_of

VARIANTS = {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}


class Served:
    """An in-process engine behind a real server, and a client stub for it."""

    def __init__(self, engine, server, port):
        self.engine, self.server, self.port = engine, server, port
        self.address = f"127.0.0.1:{port}"
        self.channel = grpc.insecure_channel(self.address)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)

    def new_match(self, variant="hhl", options=None, seed=1, clock_ms=0, claim=True):
        """Create a match and claim every seat; returns (match_id, tokens)."""
        created = self.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=VARIANTS[variant], options=game.options_pb(variant, options or {}), seed=seed,
            bot_clock_ms=clock_ms), timeout=5)
        tokens = []
        if claim:
            tokens = [self.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
                match_id=created.match_id, seat=s), timeout=5).seat_token
                for s in range(created.num_seats)]
        return created.match_id, tokens

    def summary(self, match_id):
        return self.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), timeout=5)

    def view(self, match_id, token):
        return self.stub.GetView(engine_pb2.GetViewRequest(match_id=match_id,
                                                           seat_token=token), timeout=5)

    def submit(self, match_id, token, version, move_id="", move_text=""):
        request = engine_pb2.SubmitMoveRequest(match_id=match_id, seat_token=token,
                                               expected_version=version)
        if move_id:
            request.move_id = move_id
        if move_text:
            request.move_text = move_text
        return self.stub.SubmitMove(request, timeout=5)


def refusal(err: grpc.RpcError):
    """(status code, Refusal) of a refused call, read with grpcio-status's own helpers from
    the standard rich status; its ErrorInfo repeats the reason, and a BadRequest names the
    field of a malformed request."""
    status = rpc_status.from_call(err)
    assert status is not None and status.code == err.code().value[0], err
    r = refusal_of(err)
    assert r is not None and err.details().startswith(r.reason + ":")
    infos = [d for d in status.details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)]
    assert len(infos) == 1
    info = error_details_pb2.ErrorInfo()
    infos[0].Unpack(info)
    assert (info.reason, info.domain) == (r.reason, "domino.v1")
    bad = [d for d in status.details if d.Is(error_details_pb2.BadRequest.DESCRIPTOR)]
    if r.field:
        violations = error_details_pb2.BadRequest()
        bad[0].Unpack(violations)
        assert [v.field for v in violations.field_violations] == [r.field]
    else:
        assert not bad
    assert not any(k.startswith("domino-") for k, _ in err.trailing_metadata() or ())
    return err.code(), r


def run_threads(targets):
    """Run callables in threads; re-raise the first failure."""
    errors = []

    def wrap(f):
        def run():
            try:
                f()
            except BaseException as e:   # noqa: BLE001 - reported below
                errors.append(e)
        return run
    threads = [threading.Thread(target=wrap(f), daemon=True) for f in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "a thread did not finish"
    if errors:
        raise errors[0]


def start_engine(db, port: int = 0, log_path=None, env: dict | None = None,
                 extra: tuple = ()):
    """`domino engine` as a real process (the product's own launcher); returns (process,
    port) once it listens. Its log goes to log_path (default: nowhere)."""
    import os

    from domino_cli.processes import start_engine as launch

    with open(log_path or os.devnull, "a") as log:
        return launch("127.0.0.1", port, str(db), log=log, env=env, extra=extra)


def start_bot(address: str, match_id: str, seat: int, token: str, *extra: str):
    """`domino bot` as a real process; the token goes through the environment."""
    import os
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "domino_cli", "bot", "--engine", address,
         "--match", match_id, "--seat", str(seat), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DOMINO_SEAT_TOKEN": token})


def finish(procs, timeout=60):
    """Wait for processes; returns their stdout lines, failing on a non-zero exit."""
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        assert p.returncode == 0, stderr[-2000:]
        out.append(stdout)
    return out


class Client(Served):
    """A client stub for an engine running in another process."""

    def __init__(self, port):
        super().__init__(None, None, port)


def wait_for(condition, timeout: float = 30, what: str = "the condition"):
    """Poll `condition` until it is true (real threads and streams are at work)."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.002)


def clock_plays_for(served, match_id: str, seat: int) -> None:
    """Let the (manual) turn clock run out once for `seat`: wait until it is the seat's
    turn with its clock armed, then move the clock past its deadline."""
    referee = served.engine.get(match_id)
    wait_for(lambda: referee.match.over or (referee.match.to_move == seat
                                            and referee.seat_view(seat).deadline > 0),
             what=f"seat {seat}'s turn with its clock armed")
    if not referee.match.over:
        version = referee.version
        served.alarms.advance(referee.seats[seat].clock_ms / 1000)
        assert referee.version > version, "the clock did not play"


class _VirtualTime(selectors.DefaultSelector):
    """A selector that never sleeps: a wait for a timer jumps the loop's clock instead."""

    def __init__(self):
        super().__init__()
        self.now = 0.0

    def select(self, timeout=None):
        ready = super().select(0)
        if not ready and timeout:
            self.now += timeout
        return ready


def run_in_virtual_time(main):
    """main() on a loop of virtual time; `loop.busy(seconds)` stands for a callback that
    holds the loop that long (the loop runs late by it)."""
    selector = _VirtualTime()
    loop = asyncio.SelectorEventLoop(selector)
    loop.time = lambda: selector.now
    loop.busy = lambda seconds: setattr(selector, "now", selector.now + seconds)
    with asyncio.Runner(loop_factory=lambda: loop) as runner:
        return runner.run(main())
