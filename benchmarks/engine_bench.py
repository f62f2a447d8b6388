"""The engine over gRPC on 127.0.0.1: one match next to a bare ping-pong, 25 matches at once,
and memory per idle match. Every process is started and stopped here.

Timeouts are counted from the engine's move log (moves its clock played): greedy bots ask
for no EventBatch (Hello.skip_events), so they never see the timeout events.

The bots are `domino bot` processes (strategy greedy) run through a thin shim,
``python -m benchmarks.engine_bench bot OUT ARGS...``, that wraps the runner's message
handlers to note when each TurnRequest, MoveChoice and MoveAnswer passes and writes the
figures to OUT as JSON; the bot itself is unchanged. Next to them, the same match is
played by four lean bots (``python -m benchmarks.engine_bench leanbot ...``: first legal
move, nothing read) to show the engine's own ceiling, whatever the bots do.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent import futures

import grpc

from benchmarks import sized

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = sized(2, 1)         # every measurement is taken this many times
SINGLE_HANDS = sized(40, 1)  # one HHL match: about 850 moves (p99 from some 800 samples)
MULTI_MATCHES, MULTI_HANDS = sized((25, 8), (2, 1))  # 25 matches of about 170 moves each
IDLE_MATCHES = sized(1000, 10)
IDLE_CLOCK_MS = 3_600_000  # an idle live match must not be moved by its clock while measured
PING_SECONDS = sized(3.0, 0.3)
# The single match's figures leave out its first moves, as the bare ping-pong leaves out
# its first 200 round trips: they are played while the other bot processes still start
# (importing gRPC takes a core for a good part of a second).
WARM_MOVES = sized(50, 2)
# The probe sizes the messages of every 7th version only (7: every seat of 4 gets its
# share), from the whole match as the ping-pong's sizes must be, at a seventh of the cost.
SIZE_EVERY = sized(7, 1)
LIMIT_S = 120              # no bot process may run longer than this


# ----- processes ----------------------------------------------------------------------------
def cpu_s(pid: int) -> float:
    """CPU seconds (user + system, every thread) process `pid` has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _env(**extra) -> dict:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _start(args: list[str], ready: str, log, env: dict | None = None
           ) -> tuple[subprocess.Popen, int]:
    """A Python child that prints `ready ... HOST:PORT ...` on its first line."""
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=log,
                            text=True, cwd=ROOT, env=env or _env())
    line = proc.stdout.readline()
    if not line.startswith(ready):
        proc.kill()
        raise RuntimeError(f"{args[:3]} did not start: {line!r}")
    port = next(w for w in line.split() if w.startswith("127.0.0.1:")).rsplit(":", 1)[1]
    return proc, int(port)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout:
        proc.stdout.close()


class Engine:
    """`domino engine` on a fresh SQLite file in a temporary directory, with one bot pool,
    POOL, whose enlist secret is `pool_secret`."""

    POOL = "bench"

    def __init__(self, *extra: str, key_quotas: str = ""):
        """`key_quotas` ("live_matches=1000,..."): make an API key with these quotas in
        the store first (`domino keys create`), as `self.key`."""
        self.dir = tempfile.TemporaryDirectory(prefix="engine-bench-")
        self.db = os.path.join(self.dir.name, "engine.sqlite3")
        self.log = open(os.path.join(self.dir.name, "engine.log"), "w")
        self.pool_secret = "ps_bench-" + os.urandom(16).hex()
        self.key = ""
        if key_quotas:
            self.key = subprocess.run(
                [sys.executable, "-m", "domino_cli", "keys", "create", "bench", "--quota",
                 key_quotas, "--db", self.db], capture_output=True, text=True, cwd=ROOT,
                env=_env(), check=True).stdout.strip()
        self.proc, self.port = _start(
            ["-m", "domino_cli", "engine", "--port", "0", "--db", self.db, *extra],
            "engine listening", self.log,
            _env(DOMINO_POOL_SECRETS=json.dumps({self.POOL: self.pool_secret})))
        self.address = f"127.0.0.1:{self.port}"
        from domino_proto.domino.v1 import engine_pb2_grpc
        self.channel = grpc.insecure_channel(self.address)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)

    def new_match(self, options: dict, seed: int, clock_ms: int = 0, claim: bool = True):
        from domino_proto.domino.v1 import engine_pb2, game_pb2
        from domino_wire import game
        created = self.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", options), seed=seed,
            bot_clock_ms=clock_ms), timeout=10,
            metadata=(("authorization", f"Bearer {self.key}"),) if self.key else ())
        tokens = [self.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=10).seat_token
            for s in range(created.num_seats)] if claim else []
        return created.match_id, tokens

    def version(self, match_id: str) -> int:
        from domino_proto.domino.v1 import engine_pb2
        return self.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                  timeout=10).summary.version

    def cpu_s(self) -> float:
        return cpu_s(self.proc.pid)

    def timeouts(self, match_ids: list[str]) -> int:
        """Moves the engine's clock played (timeouts, then absent seats), from its own log:
        bots that skip events never hear of them."""
        import sqlite3

        db = sqlite3.connect(f"file:{os.path.join(self.dir.name, 'engine.sqlite3')}?mode=ro",
                             uri=True)
        try:
            marks = ",".join("?" * len(match_ids))
            return db.execute(f"SELECT COUNT(*) FROM moves WHERE cause IN ('timeout', 'absent')"
                              f" AND match_id IN ({marks})", match_ids).fetchone()[0]
        finally:
            db.close()

    def rss_kb(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def close(self) -> None:
        self.channel.close()
        _stop(self.proc)
        self.log.close()
        self.dir.cleanup()


def run_bots(engine: Engine, seat_lists: list[list[dict]], workdir: str,
             answers: bool, lean: bool = False) -> list[dict]:
    """One `domino bot --seats-file` process per list of seats, all started together;
    returns each process's probe figures plus its exit status and output lines. With
    `answers` the bots ask for a MoveAnswer to every move (the probe times them); with
    `lean` each process is the lean bot (lean_bot_main) instead, one seat each."""
    procs = []
    for i, seats in enumerate(seat_lists):
        seats_path = os.path.join(workdir, f"seats-{i}.json")
        with open(seats_path, "w") as f:
            json.dump(seats, f)
        probe_path = os.path.join(workdir, f"probe-{i}.json")
        err = open(os.path.join(workdir, f"bot-{i}.err"), "w")
        args = (["leanbot", probe_path, seats_path, engine.address] if lean else
                ["bot", probe_path, "--engine", engine.address, "--strategy", "greedy",
                 "--seats-file", seats_path, *(["--answers"] if answers else [])])
        procs.append((subprocess.Popen(
            [sys.executable, "-m", "benchmarks.engine_bench", *args],
            stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT, env=_env()), probe_path, err))
    found = []
    for proc, probe_path, err in procs:
        try:
            stdout, _ = proc.communicate(timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, _ = proc.communicate()
        err.close()
        probe = {}
        if os.path.exists(probe_path):
            with open(probe_path) as f:
                probe = json.load(f)
        lines = [json.loads(x) for x in stdout.splitlines() if x.startswith("{")]
        found.append({**probe, "rc": proc.returncode, "lines": lines})
    return found


# ----- the probe inside each bot process ----------------------------------------------------
def bot_main(argv: list[str]) -> int:
    """`domino bot ARGS` with timing hooks on the runner; figures go to argv[0]."""
    from bots import runner as r
    from domino_proto.domino.v1 import play_pb2

    out_path, args = argv[0], argv[1:]
    turn_at: dict = {}
    sent_at: dict = {}
    answer_at: dict = {}
    probe = {"first_turn": None, "warm_turn": None, "last_over": None, "timeouts": 0,
             "turn_bytes": [],
             "choice_bytes": [], "received": 0}
    Runner = r.Runner
    orig_turn, orig_send = Runner._turn, Runner._send
    orig_answer, orig_events, orig_over = Runner._answer, Runner._events, Runner._match_over

    def _turn(self, state, turns, outbox):
        now = time.perf_counter()
        probe["received"] += 1
        if probe["first_turn"] is None:
            probe["first_turn"] = time.time()
            probe["cpu_first_turn"] = time.process_time()
        if probe["warm_turn"] is None and state.version >= WARM_MOVES:
            probe["warm_turn"] = time.time()
        turn_at.setdefault((state.match_id, state.version), now)
        if state.version % SIZE_EVERY == 0 and len(probe["turn_bytes"]) < 200:
            probe["turn_bytes"].append(play_pb2.EngineMessage(
                turn=play_pb2.TurnRequest(state=state)).ByteSize())
        return orig_turn(self, state, turns, outbox)

    def _send(self, turn, index, outbox, fallback_reason=""):
        sent_at.setdefault((turn.seated.match_id, turn.version), time.perf_counter())
        if turn.version % SIZE_EVERY == 0 and len(probe["choice_bytes"]) < 200:
            probe["choice_bytes"].append(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                match_id=turn.seated.match_id, version=turn.version,
                move_id=turn.ids[index])).ByteSize())
        return orig_send(self, turn, index, outbox, fallback_reason)

    def _answer(self, answer, turns):
        probe["received"] += 1
        answer_at.setdefault((answer.match_id, answer.submitted_version), time.perf_counter())
        return orig_answer(self, answer, turns)

    def _events(self, batch):
        probe["received"] += 1
        seated = self._seated.get(batch.match_id)
        for e in batch.events:
            if e.WhichOneof("body") == "timeout" and seated and e.timeout.seat == seated.seat:
                probe["timeouts"] += 1
        return orig_events(self, batch)

    def _match_over(self, over):
        probe["last_over"] = time.time()
        return orig_over(self, over)

    Runner._turn, Runner._send, Runner._answer = _turn, _send, _answer
    Runner._events, Runner._match_over = _events, _match_over
    from domino_cli.main import main
    try:
        rc = main(["bot", *args])
    finally:
        keys = [k for k in turn_at if k in sent_at and k in answer_at and k[1] >= WARM_MOVES]
        probe["turn_to_answer_ms"] = [(answer_at[k] - turn_at[k]) * 1000 for k in keys]
        probe["choice_to_answer_ms"] = [(answer_at[k] - sent_at[k]) * 1000 for k in keys]
        probe["turns"] = len(turn_at)
        probe["cpu_s"] = time.process_time() - (probe.get("cpu_first_turn") or 0.0)
        with open(out_path, "w") as f:
            json.dump(probe, f)
    return rc


def lean_bot_main(argv: list[str]) -> int:
    """The leanest bot there can be, for one seat: a grpc.aio client written from the .proto
    alone that answers each TurnRequest with its first legal move and reads nothing else
    (no view, no strategy, no runner; Hello asks for no events and no accepted answers).
    A match of four of these shows what the engine's own work leaves of the bare
    ping-pong, whatever the bots do. Figures go to argv[0] as the probe's do."""
    from bots.io_loop import CHANNEL_OPTIONS
    from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

    out_path, seats_path, address = argv
    with open(seats_path) as f:
        (seat,) = json.load(f)
    probe = {"first_turn": None, "warm_turn": None, "last_over": None, "received": 0}

    async def play() -> None:
        async with grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
            call = play_pb2_grpc.PlayStub(channel).Connect()
            await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                seat=play_pb2.SeatAuth(match_id=seat["match_id"], seat_token=seat["seat_token"]),
                skip_events=True, skip_accepted=True, client="engine bench lean bot")))
            while (message := await call.read()) is not grpc.aio.EOF:
                kind = message.WhichOneof("body")
                if kind == "turn":
                    state = message.turn.state
                    probe["received"] += 1
                    probe["first_turn"] = probe["first_turn"] or time.time()
                    if probe["warm_turn"] is None and state.version >= WARM_MOVES:
                        probe["warm_turn"] = time.time()
                    await call.write(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                        match_id=state.match_id, version=state.version,
                        move_id=state.legal_moves[0].id)))
                elif kind == "match_over":
                    probe["last_over"] = time.time()
                    break
            call.cancel()

    start = time.process_time()
    asyncio.run(play())
    probe["cpu_s"] = time.process_time() - start
    with open(out_path, "w") as f:
        json.dump(probe, f)
    return 0


# ----- bare ping-pong -----------------------------------------------------------------------
def ping_server_main(argv: list[str]) -> int:
    """A bidi stream that answers each message with `reply_bytes` bytes; prints its port."""
    from engine_service.rpc.server import SERVER_OPTIONS

    reply = b"x" * int(argv[0])

    def pong(request_iterator, context):
        for _ in request_iterator:
            yield reply

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=SERVER_OPTIONS)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "bench.Ping", {"Pong": grpc.stream_stream_rpc_method_handler(pong)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(f"ping listening on 127.0.0.1:{port}", flush=True)
    sys.stdin.read()        # until the bench closes our stdin
    server.stop(0)
    return 0


def aio_ping_server_main(argv: list[str]) -> int:
    """The same bidi stream on grpc.aio (the engine's own server API); prints its port."""
    reply = b"x" * int(argv[0])

    async def pong(request_iterator, context):
        async for _ in request_iterator:
            await context.write(reply)

    asyncio.run(_serve_aio("ping", "/bench.Ping/Pong", pong))
    return 0


async def _serve_aio(name: str, method: str, handler) -> None:
    """Serve one bidi `method` on grpc.aio with the engine's options; prints
    "NAME listening on HOST:PORT" and serves until stdin closes."""
    from engine_service.rpc.server import SERVER_OPTIONS

    service, rpc = method.strip("/").split("/")
    server = grpc.aio.server(options=SERVER_OPTIONS)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        service, {rpc: grpc.stream_stream_rpc_method_handler(handler)}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(f"{name} listening on 127.0.0.1:{port}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)


def ping_pong(ask_bytes: int, reply_bytes: int, seconds: float, server: str = "pingserver"
              ) -> dict:
    """Round trips of one stream with one message in flight, like a bot and its engine;
    the client is a grpc.aio client with the bots' channel options (bots/io_loop.py)."""
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.engine_bench", server,
                             str(reply_bytes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, cwd=ROOT, env=_env())
    try:
        line = proc.stdout.readline()
        if not line.startswith("ping listening on "):
            raise RuntimeError(f"the ping-pong server did not start: {line!r}")
        rtts, elapsed, server_cpu = asyncio.run(_ping(line.split()[-1], proc.pid,
                                                      b"y" * ask_bytes, seconds))
    finally:
        proc.stdin.close()      # the server stops when its stdin closes
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    return {"rate": len(rtts) / elapsed, "server_cpu_ms": server_cpu * 1000 / max(len(rtts), 1),
            **_pcts(rtts)}


async def _ping(address: str, pid: int, ask: bytes, seconds: float):
    """(round trip times in ms after 200 warm-up ones, seconds they took, server CPU s)."""
    from bots.io_loop import CHANNEL_OPTIONS

    async with grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
        await asyncio.wait_for(channel.channel_ready(), 10)
        call = channel.stream_stream("/bench.Ping/Pong")()
        for _ in range(200):
            await call.write(ask)
            await call.read()
        rtts, start, cpu = [], time.perf_counter(), cpu_s(pid)
        while (now := time.perf_counter()) - start <= seconds:
            await call.write(ask)
            await call.read()
            rtts.append((time.perf_counter() - now) * 1000)
        cpu = cpu_s(pid) - cpu
        elapsed = time.perf_counter() - start
        call.cancel()
    return rtts, elapsed, cpu


# ----- bare relay ---------------------------------------------------------------------------
RELAY_HOPS = sized(3000, 50)


def relay_server_main(argv: list[str]) -> int:
    """The shape of a match with no game in it: 4 bidi streams; each message that client k
    sends is forwarded to client k+1 as `reply_bytes` bytes, one message in flight, for
    RELAY_HOPS hops; then every stream ends. Prints its port."""
    reply, seats = b"x" * int(argv[0]), 4

    async def serve():
        inboxes = [asyncio.Queue() for _ in range(seats)]
        joined, hops = [], [0]

        async def relay(request_iterator, context):
            me = len(joined)
            joined.append(me)
            if len(joined) == seats:
                inboxes[0].put_nowait(reply)        # everyone is here: start the ball

            async def forward():
                async for _ in request_iterator:
                    hops[0] += 1
                    for i in range(seats) if hops[0] == RELAY_HOPS else ():
                        inboxes[i].put_nowait(None)
                    inboxes[(me + 1) % seats].put_nowait(reply)
            reader = asyncio.ensure_future(forward())
            try:
                while (item := await inboxes[me].get()) is not None:
                    await context.write(item)
            finally:
                reader.cancel()

        await _serve_aio("relay", "/bench.Relay/Go", relay)

    asyncio.run(serve())
    return 0


def relay_client_main(argv: list[str]) -> int:
    """One seat of the relay: answers each message at once with `ask_bytes` bytes; prints
    [first message, last message (Unix s), messages]."""
    from bots.io_loop import CHANNEL_OPTIONS

    address, ask = argv[0], b"y" * int(argv[1])

    async def play():
        async with grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
            call = channel.stream_stream("/bench.Relay/Go")()
            first, last, n = None, None, 0
            while await call.read() is not grpc.aio.EOF:
                last = time.time()
                first, n = first or last, n + 1
                await call.write(ask)
            print(json.dumps([first, last, n]), flush=True)

    asyncio.run(play())
    return 0


def relay(ask_bytes: int, reply_bytes: int) -> dict:
    """Hops per second of the bare relay (4 client processes, like the match's bots)."""
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.engine_bench", "relayserver",
                               str(reply_bytes)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, cwd=ROOT, env=_env())
    clients = []
    try:
        line = server.stdout.readline()
        if not line.startswith("relay listening on "):
            raise RuntimeError(f"the relay server did not start: {line!r}")
        clients = [subprocess.Popen([sys.executable, "-m", "benchmarks.engine_bench",
                                     "relayclient", line.split()[-1], str(ask_bytes)],
                                    stdout=subprocess.PIPE, text=True, cwd=ROOT, env=_env())
                   for _ in range(4)]
        seen = [json.loads(c.communicate(timeout=LIMIT_S)[0]) for c in clients]
    finally:
        for c in clients:
            if c.poll() is None:
                c.kill()
        server.stdin.close()
        server.wait(10)
        server.stdout.close()
    hops = sum(n for _, _, n in seen)
    return {"rate": hops / (max(t for _, t, _ in seen) - min(t for t, _, _ in seen)),
            "hops": hops}


def _pcts(ms: list[float]) -> dict:
    if not ms:
        return {"p50": float("nan"), "p99": float("nan"), "n": 0}
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50": statistics.median(ms), "p99": q[98], "n": len(ms)}


# ----- the three measurements ---------------------------------------------------------------
def _outcome(engine: Engine, match_ids: list[str], bots: list[dict], engine_cpu: float,
             warm: int = 0) -> dict:
    """The figures of a run; with `warm`, the rate counts from the TurnRequest at version
    `warm` (one match: the moves before it are left out)."""
    starts = [b["warm_turn" if warm else "first_turn"] for b in bots]
    starts = [t for t in starts if t]
    ends = [b["last_over"] for b in bots if b.get("last_over")]
    moves = sum(engine.version(m) for m in match_ids)
    errors = sum(1 for b in bots if b["rc"] != 0)
    errors += sum(1 for b in bots for x in b["lines"] if "error" in x)
    refusals = sum(len(x.get("stats", {}).get("refusals", [])) for b in bots for x in b["lines"])
    fallbacks = sum(x.get("stats", {}).get("fallbacks", 0) for b in bots for x in b["lines"])
    finished = sum(1 for b in bots for x in b["lines"] if "result" in x)
    failures = [x["error"] for b in bots for x in b["lines"] if "error" in x]
    failures += [f"a bot process exited with status {b['rc']}" for b in bots if b["rc"] != 0]
    elapsed = max(ends) - min(starts) if starts and ends else float("nan")
    return {"moves": moves, "seconds": elapsed, "rate": (moves - warm) / elapsed,
            "timeouts": engine.timeouts(match_ids), "errors": errors,
            "engine_cpu_ms": engine_cpu * 1000 / max(moves, 1),
            "bots_cpu_ms": sum(b.get("cpu_s", 0.0) for b in bots) * 1000 / max(moves, 1),
            "sent_per_move": sum(b.get("received", 0) for b in bots) / max(moves, 1),
            "refusals": refusals, "fallbacks": fallbacks, "seats_finished": finished,
            "first_error": failures[0] if failures else "",
            "turn_to_answer": _pcts([v for b in bots for v in b.get("turn_to_answer_ms", [])]),
            "choice_to_answer": _pcts([v for b in bots
                                       for v in b.get("choice_to_answer_ms", [])]),
            "turn_bytes": statistics.median([v for b in bots for v in b.get("turn_bytes", [])]
                                            or [0]),
            "choice_bytes": statistics.median([v for b in bots
                                               for v in b.get("choice_bytes", [])] or [0])}


def one_match(seed: int, answers: bool = True, lean: bool = False) -> dict:
    """One HHL match of 4 bot processes: `domino bot` (through the probe), or with `lean`
    four lean bots (lean_bot_main)."""
    engine = Engine()
    try:
        match_id, tokens = engine.new_match({"hands": SINGLE_HANDS}, seed)
        seats = [[{"match_id": match_id, "seat": s, "seat_token": t}] for s, t in enumerate(tokens)]
        cpu = engine.cpu_s()
        with tempfile.TemporaryDirectory(prefix="engine-bench-bots-") as workdir:
            bots = run_bots(engine, seats, workdir, answers=answers, lean=lean)
        return _outcome(engine, [match_id], bots, engine.cpu_s() - cpu, warm=WARM_MOVES)
    finally:
        engine.close()


class _Drop:
    """A watcher's queue that keeps nothing (engine_work has nobody to send to)."""

    def put(self, item) -> None:
        pass


def engine_work(seed: int) -> dict:
    """The engine's own work per move with no gRPC and no other process: one HHL match
    played in this process through Referee.submit (rules, commit to a SQLite file, publish
    to 4 watchers that asked for no events), each seat's TurnRequest built and serialized
    as its Play stream builds it (view, legal moves, encoding). µs per move by
    perf_counter, the first WARM_MOVES moves left out."""
    from engine_service.core.engine import Engine as Core
    from engine_service.rpc import codec as wire

    turn_s = move_s = 0.0
    moves = 0
    with tempfile.TemporaryDirectory(prefix="engine-bench-work-") as workdir:
        core = Core.open(os.path.join(workdir, "engine.sqlite3"))
        try:
            match = core.create_match("hhl", {"hands": SINGLE_HANDS}, seed=seed,
                                      bot_clock_ms=10_000)
            for s in range(4):
                core.claim_seat(match.id, s)
                match.subscribe(s, _Drop(), events=False)
            while not match.match.over:
                seat = match.match.to_move
                start = time.perf_counter()
                view = match.seat_view(seat)
                wire.turn_request(match.id, view)
                built = time.perf_counter()
                match.submit(seat, view.version, view.legal_moves[0][0])
                if view.version >= WARM_MOVES:
                    turn_s += built - start
                    move_s += time.perf_counter() - built
                    moves += 1
        finally:
            core.close()
    return {"turn_us": turn_s * 1e6 / moves, "move_us": move_s * 1e6 / moves,
            "work_us": (turn_s + move_s) * 1e6 / moves}


def many_matches(seed: int) -> dict:
    """MULTI_MATCHES matches; bot process k plays seat k of every match."""
    engine = Engine()
    try:
        made = [engine.new_match({"hands": MULTI_HANDS}, seed + i) for i in range(MULTI_MATCHES)]
        seats = [[{"match_id": m, "seat": s, "seat_token": tokens[s]} for m, tokens in made]
                 for s in range(4)]
        cpu = engine.cpu_s()
        with tempfile.TemporaryDirectory(prefix="engine-bench-bots-") as workdir:
            bots = run_bots(engine, seats, workdir, answers=False)
        return _outcome(engine, [m for m, _ in made], bots, engine.cpu_s() - cpu)
    finally:
        engine.close()


def pooled_matches(seed: int) -> dict:
    """MULTI_MATCHES matches whose seats come from a pool: 4 `domino bot --pool` processes,
    each ONE stream that plays a seat in every match at once (capacity MULTI_MATCHES), so
    the engine serves 4 streams instead of 100. Timed from the first match created (the
    bots have enlisted) to the last bot's exit; timeouts from the engine's log."""
    from domino_proto.domino.v1 import engine_pb2, game_pb2
    from domino_wire import game

    engine = Engine()
    try:
        bots = [subprocess.Popen([sys.executable, "-m", "domino_cli", "bot", "--engine",
                                  engine.address, "--strategy", "greedy", "--pool", engine.POOL,
                                  "--name", f"bot{i}", "--capacity", str(MULTI_MATCHES),
                                  "--matches", str(MULTI_MATCHES)],
                                 stdout=subprocess.DEVNULL, stderr=engine.log, cwd=ROOT,
                                 env=_env(DOMINO_POOL_SECRET=engine.pool_secret))
                for i in range(4)]
        wait_enlisted(engine, 4)   # the clock starts once the four streams are there
        cpu, start = engine.cpu_s(), time.monotonic()
        ids = [engine.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": MULTI_HANDS}),
            seed=seed + i, seats=[engine_pb2.SeatSpec(pool="bench")] * 4), timeout=10).match_id
            for i in range(MULTI_MATCHES)]
        codes = [b.wait(LIMIT_S) for b in bots]
        elapsed = time.monotonic() - start
        moves = sum(engine.version(m) for m in ids)
        return {"moves": moves, "seconds": elapsed, "rate": moves / elapsed,
                "timeouts": engine.timeouts(ids), "errors": sum(1 for c in codes if c != 0),
                "engine_cpu_ms": (engine.cpu_s() - cpu) * 1000 / max(moves, 1)}
    finally:
        engine.close()


def wait_enlisted(engine: Engine, bots: int, timeout: float = 60) -> None:
    """Until `bots` streams are enlisted in the engine's pool."""
    from domino_proto.domino.v1 import engine_pb2

    deadline = time.monotonic() + timeout
    while engine.stub.GetPool(engine_pb2.GetPoolRequest(name=engine.POOL),
                              timeout=10).bots < bots:
        if time.monotonic() > deadline:
            raise RuntimeError(f"fewer than {bots} bots enlisted in {timeout:.0f} s")
        time.sleep(0.05)


def idle_memory(claim: bool) -> dict:
    # a key whose quotas let one client make every idle match within the minute
    engine = Engine(key_quotas=f"live_matches={IDLE_MATCHES + 100},"
                               f"matches_per_minute={IDLE_MATCHES + 100}")
    try:
        for i in range(20):       # warm up: every module and code path of a match is loaded
            engine.new_match({}, i, IDLE_CLOCK_MS, claim)
        time.sleep(0.5)
        before = engine.rss_kb()
        for i in range(IDLE_MATCHES):
            engine.new_match({}, 1000 + i, IDLE_CLOCK_MS, claim)
        time.sleep(0.5)
        after = engine.rss_kb()
        return {"before": before, "after": after, "per_match": (after - before) / IDLE_MATCHES}
    finally:
        engine.close()


def _load() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run() -> list[str]:
    lines = [f"{os.cpu_count()} CPUs; load average before: {_load()}; engine store: SQLite file "
             "(WAL); every figure measured twice (run 1 / run 2)"]
    singles, quiet, leans, works, pings, aio_pings, relays = [], [], [], [], [], [], []
    multis = []
    idles = {True: [], False: []}
    for r in range(RUNS):
        quiet.append(one_match(seed=7 + r, answers=False))
        singles.append(one_match(seed=7 + r))
        leans.append(one_match(seed=7 + r, answers=False, lean=True))
        works.append(engine_work(seed=7 + r))
        size = (int(singles[-1]["choice_bytes"]), int(singles[-1]["turn_bytes"]), PING_SECONDS)
        pings.append(ping_pong(*size))
        aio_pings.append(ping_pong(*size, server="pingserver-aio"))
        relays.append(relay(*size[:2]))
    from benchmarks import move_path
    path = move_path.run()
    pooled = []
    for r in range(RUNS):
        multis.append(many_matches(seed=100 + 100 * r))
        pooled.append(pooled_matches(seed=100 + 100 * r))
    for _ in range(RUNS):
        for claim in (True, False):
            idles[claim].append(idle_memory(claim))

    def get(x, key):
        for k in key.split("."):
            x = x[k]
        return x

    def both(items, fmt: str, *keys) -> str:
        """`fmt` filled with each run's figures at `keys` (a key "a.b" looks into a dict)."""
        return " / ".join(fmt.format(*(get(x, k) for k in keys)) for x in items)

    def ratio(num, den, knum, kden) -> str:
        runs = [{"r": get(a, knum) / get(b, kden)} for a, b in zip(num, den, strict=True)]
        return both(runs, "{:.2f}x", "r")

    def cost(runs) -> list[str]:
        """Where a move's CPU goes, and the ceiling that puts on moves per second."""
        for x in runs:
            x["cores_cap"] = os.cpu_count() * 1000 / (x["engine_cpu_ms"] + x["bots_cpu_ms"])
            x["gil_cap"] = 1000 / x["engine_cpu_ms"]
        return [
            "   CPU per move, engine:    " + both(runs, "{:.2f} ms", "engine_cpu_ms")
            + "   (user+sys of every thread / accepted moves)",
            "   CPU per move, the bots:  " + both(runs, "{:.2f} ms", "bots_cpu_ms"),
            "   engine messages per move:" + both(runs, " {:.1f} sent", "sent_per_move")
            + " + 1 received (MoveChoice)",
            "   ceiling from CPU:        " + both(runs, "{:.0f}", "cores_cap")
            + f" moves/s on {os.cpu_count()} cores; " + both(runs, "{:.0f}", "gil_cap")
            + " moves/s for one engine process (one GIL)",
        ]

    s0 = singles[0]
    lines += [
        "",
        f"1. one HHL match (hands={SINGLE_HANDS}), 4 `domino bot` processes (greedy), 1 engine",
        f"   match moves/s = accepted moves after the first {WARM_MOVES} / (TurnRequest at version"
        f" {WARM_MOVES} .. last",
        "   MatchOver) at the bots; latencies also from version "
        f"{WARM_MOVES} on (see WARM_MOVES)",
        "   a move's critical path is one round trip: TurnRequest to a bot, MoveChoice back",
        "   turn->answer = bot receives TurnRequest .. bot receives its MoveAnswer (includes",
        "   the bot's own decoding and choosing); choice->answer = MoveChoice queued for",
        "   sending .. MoveAnswer received: the engine's round trip as the bot sees it",
        "   bare ping-pong = one gRPC bidi stream between two processes, one message in flight,",
        f"   asks of {s0['choice_bytes']:.0f} B (a MoveChoice) answered with {s0['turn_bytes']:.0f} B"
        " (a TurnRequest),",
        "   same channel/server options; the client is a grpc.aio client like the bots; the",
        "   server is measured both as a sync gRPC server and as a grpc.aio server (the engine's",
        "   API); ratios are given against each (the faster one is the stricter)",
        "   each run plays the match twice: as `domino bot` plays by default (no MoveAnswer to",
        "   an accepted move: 2 messages per move), then with --answers (3 messages per move),",
        "   which the latencies need: they end at the MoveAnswer",
        "   match moves:             " + both(quiet, "{} in {:.2f} s", "moves", "seconds")
        + "; with answers " + both(singles, "{} in {:.2f} s", "moves", "seconds"),
        "   match moves/s:           " + both(quiet, "{:.0f}", "rate") + "; with answers "
        + both(singles, "{:.0f}", "rate"),
        "   bare round trips/s:      " + both(pings, "{:.0f}", "rate") + " sync server; "
        + both(aio_pings, "{:.0f}", "rate") + " aio server",
        "   match / bare rate:       " + ratio(quiet, pings, "rate", "rate") + " sync; "
        + ratio(quiet, aio_pings, "rate", "rate") + " aio   (target >= 0.6x)",
        "   the same with answers:   " + ratio(singles, pings, "rate", "rate") + " sync; "
        + ratio(singles, aio_pings, "rate", "rate") + " aio",
        "   bare relay: the match's shape with no game in it (an aio server forwarding each",
        f"   message of 4 aio client processes to the next, {RELAY_HOPS} hops, same sizes):",
        "   relay hops/s:            " + both(relays, "{:.0f}", "rate") + " = "
        + ratio(relays, aio_pings, "rate", "rate") + " of the aio bare ping-pong",
        "   match / relay rate:      " + ratio(quiet, relays, "rate", "rate")
        + "   (what the engine's and the bots' own work leaves of the relay)",
        "   the same engine with the leanest bots (a client from the .proto alone that answers",
        "   each TurnRequest with its first legal move, reading nothing else): no bot can take",
        "   the match past this, so it is the engine's own ceiling",
        "   lean match moves/s:      " + both(leans, "{:.0f}", "rate") + " = "
        + ratio(leans, pings, "rate", "rate") + " sync; " + ratio(leans, aio_pings, "rate", "rate")
        + " aio of the bare ping-pong; engine CPU per move " + both(leans, "{:.2f} ms",
                                                                    "engine_cpu_ms"),
        "   the engine's own work per move in one process, no gRPC (what the relay does not do):",
        "   play a move (rules, commit, publish) " + both(works, "{:.0f} µs", "move_us")
        + "; build the next TurnRequest (view, legal moves, encoding) "
        + both(works, "{:.0f} µs", "turn_us"),
        "   engine work per move:    " + both(works, "{:.0f} µs", "work_us")
        + " (in the match: \"MoveChoice -> next TurnRequest built\" below)",
        "   turn->answer p50/p99:    " + both(singles, "{:.2f}/{:.2f} ms", "turn_to_answer.p50",
                                                "turn_to_answer.p99"),
        "   choice->answer p50/p99:  " + both(singles, "{:.2f}/{:.2f} ms", "choice_to_answer.p50",
                                                "choice_to_answer.p99"),
        "   bare p50/p99:            " + both(pings, "{:.2f}/{:.2f} ms", "p50", "p99")
        + " sync; " + both(aio_pings, "{:.2f}/{:.2f} ms", "p50", "p99") + " aio",
        "   p99 choice->answer/bare: " + ratio(singles, pings, "choice_to_answer.p99", "p99")
        + " sync; " + ratio(singles, aio_pings, "choice_to_answer.p99", "p99")
        + " aio   (target <= 3x)",
        "   p99 turn->answer/bare:   " + ratio(singles, pings, "turn_to_answer.p99", "p99")
        + " sync; " + ratio(singles, aio_pings, "turn_to_answer.p99", "p99") + " aio",
        "   timeouts/errors/refusals/fallbacks: " + both(singles, "{}/{}/{}/{}", "timeouts",
                                                         "errors", "refusals", "fallbacks"),
        "   bare server CPU:         " + both(pings, "{:.3f} ms", "server_cpu_ms") + " sync; "
        + both(aio_pings, "{:.3f} ms", "server_cpu_ms") + " aio, per round trip (1 in, 1 out)",
        "   with answers:",
        *cost(singles),
        "   as domino bot plays:",
        *cost(quiet),
        *("   " + line for line in path),
        "",
        f"2. {MULTI_MATCHES} HHL matches at once (hands={MULTI_HANDS}, {4 * MULTI_MATCHES} seats),"
        f" 4 `domino bot --seats-file` processes of {MULTI_MATCHES} seats each, 1 engine;",
        "   the bots answer as `domino bot` does by default: no EventBatch, no MoveAnswer to an",
        "   accepted move (Hello.skip_events, skip_accepted): 2 messages per move",
        "   total moves:             " + both(multis, "{} in {:.2f} s", "moves", "seconds"),
        "   total moves/s:           " + both(multis, "{:.0f}", "rate") + "   (target >= 2,500)",
        "   timeouts / errors:       " + both(multis, "{}/{}", "timeouts", "errors")
        + "   (target 0/0)",
        "   refusals / fallbacks:    " + both(multis, "{}/{}", "refusals", "fallbacks"),
        "   seats finished:          " + both(multis, "{}", "seats_finished")
        + f" of {4 * MULTI_MATCHES}",
        *cost(multis),
        f"   the same with pool streams: 4 `domino bot --pool` processes, one stream each"
        f" playing all {MULTI_MATCHES} matches",
        "   total moves/s:           " + both(pooled, "{:.0f}", "rate") + "   (target >= 2,500)",
        "   timeouts / errors:       " + both(pooled, "{}/{}", "timeouts", "errors"),
        "   CPU per move, engine:    " + both(pooled, "{:.2f} ms", "engine_cpu_ms"),
        "",
        f"3. engine RSS (/proc/PID/status VmRSS) before/after {IDLE_MATCHES} idle HHL matches"
        " (after 20 warm-up matches)",
    ]
    for claim, label in ((True, "all 4 seats claimed (live, clock 1 h)"),
                         (False, "no seat claimed (waiting)")):
        xs = idles[claim]
        lines.append(f"   {label + ':':40s} " + both(xs, "{}->{} KB", "before", "after")
                     + ", " + both(xs, "{:.1f}", "per_match") + " KB per match"
                     + ("   (target <= 50 KB)" if claim else ""))
    for label, x in [("1.", x) for x in singles + quiet] + [("2.", x) for x in multis]:
        if x["first_error"]:
            lines.append(f"{label} first error: {x['first_error'][:300]}")
    lines.append(f"load average after: {_load()}")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["bot"]:
        sys.exit(bot_main(sys.argv[2:]))
    if sys.argv[1:2] == ["leanbot"]:
        sys.exit(lean_bot_main(sys.argv[2:]))
    if sys.argv[1:2] == ["pingserver"]:
        sys.exit(ping_server_main(sys.argv[2:]))
    if sys.argv[1:2] == ["pingserver-aio"]:
        sys.exit(aio_ping_server_main(sys.argv[2:]))
    if sys.argv[1:2] == ["relayserver"]:
        sys.exit(relay_server_main(sys.argv[2:]))
    if sys.argv[1:2] == ["relayclient"]:
        sys.exit(relay_client_main(sys.argv[2:]))
    print("\n".join(run()))
