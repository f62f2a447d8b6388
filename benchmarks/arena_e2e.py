"""The arena end to end: N registered lean bots spread over a few fleet processes (a lobby
stream each and a standby stream with each engine, or with DOMINO_ARENA_STANDBY=0 a seat
stream per match; the first legal move at once), 2 `domino engine` processes on one real
PostgreSQL, for a while; meanwhile a reader asks for the leaderboard again and again.

Figures: counted matches per minute; the wait from free (lobby welcomed, or the bot's last
match over) to its next ArenaSeat, p50/p99, of every seating and of those the arena's rate
bound cannot have held (below); the wait from an ArenaSeat to the first answer on its
seat stream (the engine taking a new call), or to its Welcome on the standby stream,
beside how late the bots' own loops woke (so that a fleet too slow to read is seen, not
blamed on the engines); the engines' CPU per table formed (everything
they did, play included: an upper bound of matchmaking's share); GetLeaderboard p50/p99
while it runs, on an engine, and the REST GET of a gateway in front of it (which serves the
boards it keeps, gateway/leaderboard_cache.py); the engines' memory per connected bot. The
seat wait is also given without a lobby's first seat (the bots all connect at once at the
start, a herd no running arena sees), and by when the bot was free, in windows of 15 s:
the first minutes' waves (every bot seated at once, their matches ending together) against
the later, steadier run. Sizes: DOMINO_ARENA_BOTS (default 100) and DOMINO_ARENA_SECONDS
(default 120); smoke: 8 bots for a few seconds. DOMINO_ARENA_THINK_MS makes each bot wait
that long before each move (default 0: at once). DOMINO_ARENA_LOG=PATH keeps the engines'
log there.

The lean bots play a match in about a second, faster than the arena seats one bot
(MATCHES_PER_MINUTE, docs/arena.md): a bot that comes back sooner is not free to be seated
yet, and its wait is partly the bound's. A bot cannot tell when the matchmaker will let it
be seated again, so such seatings are told apart from the bot's side, generously: one is
counted as possibly held when the bot's previous ArenaSeat came less than 60 s /
MATCHES_PER_MINUTE before it was free, or it had MATCHES_PER_MINUTE of them in the 60 s
before (the bound as a gap, and as a count). The rest, which no form of the bound can
have held, are the seat wait of a free bot.

The bots share a few gRPC channels (DOMINO_ARENA_CHANNELS, default one per 50 bots): each
lobby and seat is an HTTP/2 stream, so a thousand bots need a handful of connections, not
a thousand. (gRPC Python gives channels of the same address and options one connection:
a fleet process holds one per engine. Its seat streams spread over 8 connections instead,
in a scratch run, waited as long for their first answer: docs/arena.md.) They belong to 10
operator keys, so that the matchmaker's owner rule (one seat per owner while others are
free) is at work as it would be. One Python process answering for a thousand bots was
itself the saturated part (its seat streams came too late and the engine charged
no-shows): the bots are split over DOMINO_ARENA_PROCESSES fleet processes
(default one per 250 bots), each its own asyncio loop, started together.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks import sized
from benchmarks.engine_bench import ROOT, _env, cpu_s
from engine_service.core.arena.spec import MATCHES_PER_MINUTE

BOTS = int(os.environ.get("DOMINO_ARENA_BOTS") or sized(100, 8))
SECONDS = float(os.environ.get("DOMINO_ARENA_SECONDS") or sized(120, 6))
OWNERS = sized(10, 2)
# How long a bot thinks before each move (0: it answers at once). Bots that answer at once
# play as fast as the engines let them, so some part of the engines is always saturated
# and its queue shows in some wait; bots that think load them as an arena of real bots would.
THINK_MS = float(os.environ.get("DOMINO_ARENA_THINK_MS") or 0)
# 1 (default): each bot holds a standby stream with every engine, which plays its seats
# there (Hello.arena_standby); 0: a seat stream per ArenaSeat, a new call each.
STANDBY = os.environ.get("DOMINO_ARENA_STANDBY", "1") != "0"
PER_CHANNEL = 50
# Bots of a fleet process connecting their standby streams at once. Three thousand calls
# at once (a lobby and two standby streams a bot) were more than gRPC lets wait for an
# engine to take them: it cancelled some ("Internal error from Core" at the bot), and a
# running arena sees no such herd.
CONNECTING = 25
PER_PROCESS = 250   # bots a fleet process answers for
ARENA = "hhl"


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def _keys(dsn: str, n: int) -> list[str]:
    """`n` operator keys on the store, each with room for every bot."""
    out = []
    for i in range(n):
        done = subprocess.run([sys.executable, "-m", "domino_cli", "keys", "create",
                               f"bench-{i}", "--quota", f"bots={BOTS + 20}", "--db", dsn],
                              capture_output=True, text=True, timeout=60, check=True)
        out.append(done.stdout.strip().split()[-1])
    return out


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Fleet:
    """The lean bots, on one asyncio loop."""

    def __init__(self, addresses: list[str], keys: list[str]):
        self.addresses, self.keys = addresses, keys
        self.unheld: list[float] = []    # the waits the rate bound cannot have held
        # each seat wait: (when free, from the start; the wait; free after a match, not a
        # lobby's first seat)
        self.timed: list[tuple[float, float, bool]] = []
        self.seated: dict[int, list[float]] = {}   # bot -> its ArenaSeats of the last 60 s
        # from an ArenaSeat to its seat stream's first answer (with standby streams: to the
        # match's Welcome on the standby, which may come first: then below zero)
        self.answered: list[float] = []
        self.told: dict[str, float] = {}      # match -> when its ArenaSeat came (standby)
        self.welcomes: dict[str, float] = {}  # match -> when its Welcome came (standby)
        self.lag: list[float] = []    # how late this loop woke, a sample every 50 ms
        self.matches = 0
        self.errors: list[str] = []
        self.welcomed = 0
        self.free_since: dict[int, float | None] = {}   # bot -> when it became free
        self.after_match: set[int] = set()   # the bots whose free_since is a match's end
        self.start = time.monotonic()
        self.stop = asyncio.Event()
        self.seats: set[asyncio.Task] = set()

    async def run(self, seconds: float) -> None:
        import grpc

        from domino_proto.domino.v1 import play_pb2_grpc

        n_channels = max(1, int(os.environ.get("DOMINO_ARENA_CHANNELS") or
                                -(-len(self.keys) // PER_CHANNEL)))
        self.channels = [grpc.aio.insecure_channel(self.addresses[i % len(self.addresses)])
                         for i in range(n_channels)]
        self.stubs = [play_pb2_grpc.PlayStub(c) for c in self.channels]
        self.by_address = {}
        # Connected before a thousand calls start on them: calls started on a channel
        # still connecting failed by the dozen ("Internal error from Core"), and came again.
        for address in self.addresses if STANDBY else ():
            self._stub(0, address)
        await asyncio.gather(*(c.channel_ready() for c in self.channels))
        self.connecting = asyncio.Semaphore(CONNECTING)
        tasks = [asyncio.create_task(self.bot(i, key)) for i, key in enumerate(self.keys)]
        tasks.append(asyncio.create_task(self.probe()))
        await asyncio.sleep(seconds)
        self.stop.set()
        tasks += self.seats
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in self.channels:
            await c.close()

    async def probe(self) -> None:
        """This loop's own lateness: a seat stream's answer that came late because the bots'
        process was slow to read it is the bench's delay, not the engines'."""
        while True:
            t = time.monotonic()
            await asyncio.sleep(0.05)
            self.lag.append(time.monotonic() - t - 0.05)

    def _stub(self, i: int, owner: str):
        import grpc

        from domino_proto.domino.v1 import play_pb2_grpc

        if not owner:
            return self.stubs[i % len(self.stubs)]
        if owner not in self.by_address:
            channel = grpc.aio.insecure_channel(owner)
            self.channels.append(channel)
            self.by_address[owner] = play_pb2_grpc.PlayStub(channel)
        return self.by_address[owner]

    async def bot(self, i: int, key: str) -> None:
        from domino_proto.domino.v1 import play_pb2

        hello = play_pb2.BotMessage(hello=play_pb2.Hello(arena=play_pb2.ArenaEnlist(
            bot_key=key, version="v1", arena=ARENA), client="arena bench"))
        if STANDBY:
            # Standing by with every engine before the lobby, so that the first seat finds
            # the bot there; a few bots at a time (see CONNECTING).
            async with self.connecting:
                standing = [asyncio.Event() for _ in self.addresses]
                for address, ready in zip(self.addresses, standing, strict=True):
                    self._hold(asyncio.create_task(self.standby(i, key, address, ready)))
                await asyncio.gather(*(ready.wait() for ready in standing))
        while not self.stop.is_set():
            # written, never half-closed from this side (that would end the lobby)
            call = self._stub(i, "").Connect()
            try:
                await call.write(hello)
                async for m in call:
                    kind = m.WhichOneof("body")
                    if kind == "arena_welcome":
                        self.welcomed += 1
                        self.free_since[i] = time.monotonic()
                        self.after_match.discard(i)
                    elif kind == "arena_seat":
                        self._seated(i)
                        if STANDBY:    # its standby stream with the owner plays it
                            self._met(m.arena_seat.match_id, self.told, self.welcomes)
                            continue
                        self._hold(asyncio.create_task(self.seat(i, key, m.arena_seat)))
                    elif kind == "arena_paused":
                        self.errors.append(f"paused: {m.arena_paused.reason}")
                        break
            except asyncio.CancelledError:
                call.cancel()
                raise
            except Exception as e:   # noqa: BLE001 -- a lobby that broke: counted, again
                self.errors.append(type(e).__name__ + ": " + str(e)[:80])
            call.cancel()
            await asyncio.sleep(0.5)

    def _seated(self, i: int) -> None:
        now, since = time.monotonic(), self.free_since.get(i)
        self.free_since[i] = None
        seated = self.seated.setdefault(i, [])
        if since is not None:
            self.timed.append((since - self.start, now - since, i in self.after_match))
            recent = [t for t in seated if t > since - 60]
            gap = 60 / MATCHES_PER_MINUTE
            if not (recent and since - recent[-1] < gap or len(recent) >= MATCHES_PER_MINUTE):
                self.unheld.append(now - since)
        seated[:] = [t for t in seated if t > now - 60] + [now]

    async def seat(self, i: int, key: str, seat) -> None:
        """Play one seat: first legal move at once. An engine that does not own the match
        (yet: the one the matchmaker placed it on adopts it within 0.2 s) refuses with
        NOT_OWNER, naming the owner when it knows it: go there, or ask again shortly."""
        import grpc

        from domino_proto.domino.v1 import play_pb2

        owner, told, answered = seat.owner, time.monotonic(), False
        for _ in range(50):
            call = self._stub(i, owner).Connect()
            try:
                await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                    arena_seat=play_pb2.ArenaSeatAuth(match_id=seat.match_id, bot_key=key),
                    skip_events=True, skip_accepted=True)))
                async for m in call:
                    if not answered:
                        answered = True
                        self.answered.append(time.monotonic() - told)
                    if await self._play(i, call, m):
                        return
                return
            except asyncio.CancelledError:
                call.cancel()
                raise
            except asyncio.InvalidStateError:
                return      # the engine ended the stream as the move went out: the match is over
            except grpc.aio.AioRpcError as e:
                refusal = _refusal(e)
                if e.code() != grpc.StatusCode.UNAVAILABLE or self.stop.is_set():
                    self.errors.append(f"seat {e.code().name} "
                                       f"{refusal.reason if refusal else ''}: {e.details()[:80]}")
                    return
                if refusal is not None and refusal.owner:
                    owner = refusal.owner
                else:
                    await asyncio.sleep(0.1)
            finally:
                call.cancel()
        self.errors.append(f"seat {seat.match_id}: no engine took it")


    def _hold(self, task: asyncio.Task) -> None:
        """Keep a task until it ends (the loop keeps only weak references); cancelled at
        the run's end."""
        self.seats.add(task)
        task.add_done_callback(self.seats.discard)

    async def _play(self, i: int, call, m) -> bool:
        """Answer a turn with the first legal move; True at a match's end."""
        from domino_proto.domino.v1 import play_pb2

        kind = m.WhichOneof("body")
        if kind == "turn" and m.turn.state.legal_moves:
            s = m.turn.state
            if THINK_MS:
                await asyncio.sleep(THINK_MS / 1000)
            await call.write(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                match_id=s.match_id, version=s.version, move_id=s.legal_moves[0].id)))
        elif kind == "match_over":
            self.matches += 1
            self.free_since[i] = time.monotonic()   # free again from here
            self.after_match.add(i)
            return True
        return False

    def _met(self, match_id: str, mine: dict, other: dict) -> None:
        """An ArenaSeat or a standby's Welcome came: when both have, the gap is a sample."""
        now = time.monotonic()
        if match_id in other:
            told = self.told.pop(match_id, now)
            self.answered.append(self.welcomes.pop(match_id, now) - told)
        else:
            mine[match_id] = now

    async def standby(self, i: int, key: str, address: str, ready: asyncio.Event) -> None:
        """Bot `i`'s standby stream with the engine at `address`: plays every seat of the
        bot's matches there, one after another, for the whole run; `ready` is set once
        the engine said it stands by (its first Keepalive)."""
        import grpc

        from domino_proto.domino.v1 import play_pb2

        hello = play_pb2.BotMessage(hello=play_pb2.Hello(
            arena_standby=play_pb2.ArenaStandby(bot_key=key, arena=ARENA),
            skip_events=True, skip_accepted=True, client="arena bench"))
        while not self.stop.is_set():
            call = self._stub(i, address).Connect()
            try:
                await call.write(hello)
                async for m in call:
                    kind = m.WhichOneof("body")
                    if kind == "keepalive":
                        ready.set()
                    elif kind == "welcome":
                        self._met(m.welcome.match_id, self.welcomes, self.told)
                    else:
                        await self._play(i, call, m)
            except asyncio.CancelledError:
                call.cancel()
                raise
            except grpc.aio.AioRpcError as e:   # a standby that broke: counted, again
                refusal = _refusal(e)
                self.errors.append(f"standby {e.code().name} "
                                   f"{refusal.reason if refusal else ''}: {e.details()[:80]}")
            except Exception as e:   # noqa: BLE001 -- the same
                self.errors.append("standby " + type(e).__name__ + ": " + str(e)[:80])
            call.cancel()
            await asyncio.sleep(0.5)


def fleet_main(argv: list[str]) -> int:
    """One fleet process: `addresses` (comma-separated), a file of bot keys (one a line),
    seconds; prints its figures as one JSON line."""
    addresses, keys_path, seconds = argv
    with open(keys_path) as f:
        keys = f.read().split()
    fleet = Fleet(addresses.split(","), keys)
    asyncio.run(fleet.run(float(seconds)))
    print(json.dumps({"unheld": fleet.unheld, "timed": fleet.timed,
                      "answered": fleet.answered, "lag": fleet.lag, "matches": fleet.matches,
                      "errors": fleet.errors, "welcomed": fleet.welcomed}))
    return 0


def _fleets(addresses: list[str], bot_keys: list[str], workdir: str) -> dict:
    """Every fleet process, started together, run for SECONDS; their figures summed."""
    n = max(1, int(os.environ.get("DOMINO_ARENA_PROCESSES") or -(-len(bot_keys) // PER_PROCESS)))
    procs = []
    for k in range(n):
        path = os.path.join(workdir, f"keys-{k}.txt")
        with open(path, "w") as f:
            f.write("\n".join(bot_keys[k::n]))
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "benchmarks.arena_e2e", "fleet", ",".join(addresses), path,
             str(SECONDS)], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=_env()))
    total = {"unheld": [], "timed": [], "answered": [], "lag": [], "matches": 0, "errors": [],
             "welcomed": 0, "processes": n}
    for proc in procs:
        out, _ = proc.communicate(timeout=SECONDS + 120)
        if proc.returncode != 0:
            total["errors"].append(f"a fleet process exited {proc.returncode}")
            continue
        got = json.loads(out.strip().splitlines()[-1])
        for key in ("unheld", "timed", "answered", "lag", "errors"):
            total[key] += got[key]
        for key in ("matches", "welcomed"):
            total[key] += got[key]
    return total


def reader_main(argv: list[str]) -> int:
    """The leaderboard reader as a process: `address` `gateway_port` `seconds`
    `control_address`; its figures as one JSON line. The gRPC reads, the REST GETs and the
    control server's health checks run side by side, on threads."""
    address, port, seconds, control_address = argv
    stop = threading.Event()
    threading.Timer(float(seconds), stop.set).start()
    reads, checks, tops, failures = [], [], [], []
    rest, rest_tops, rest_failures, control = [], [], [], []
    threads = [threading.Thread(target=_rest_reader, args=(
                   int(port), stop, rest, rest_tops, rest_failures)),
               threading.Thread(target=_control_checker, args=(control_address, stop,
                                                                control))]
    for thread in threads:
        thread.start()
    _reader(address, stop, reads, checks, tops, failures)
    for thread in threads:
        thread.join()
    print(json.dumps({"reads": reads, "checks": checks, "tops": tops, "failures": failures,
                      "slowest": SLOWEST, "rest": rest, "rest_tops": rest_tops,
                      "rest_failures": rest_failures, "control": control}))
    return 0


def _control_checker(address: str, stop: threading.Event, times: list[float]) -> None:
    """A health check of the control server every 0.2 s until `stop`: what the machine's
    load alone does to a call's answer time."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        checker = health_pb2_grpc.HealthStub(channel)
        while not stop.is_set():
            _timed(lambda **kw: checker.Check(health_pb2.HealthCheckRequest(), **kw), times, [])
            stop.wait(0.2)


def _timed(call, into: list[float], failures: list[str]) -> float:
    """One gRPC call, its answer time appended to `into`; one that fails (its deadline
    passed) counts as READ_DEADLINE_S, so that the percentiles show it rather than hide it.
    Returns when it began."""
    import grpc

    t = time.perf_counter()
    try:
        call(timeout=READ_DEADLINE_S)
        into.append(time.perf_counter() - t)
    except grpc.RpcError as e:
        into.append(READ_DEADLINE_S)
        failures.append(f"{e.code().name} after {time.perf_counter() - t:.1f} s")
    return t


def control_main() -> int:
    """The control server: a grpc.aio server with nothing but the health service, in a
    process of its own, on the same machine as the arena; its port on stdout, then served
    until stdin closes."""
    import grpc
    from grpc_health.v1 import health, health_pb2_grpc

    async def serve():
        server = grpc.aio.server()
        health_pb2_grpc.add_HealthServicer_to_server(health.aio.HealthServicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(port, flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        await server.stop(None)
    asyncio.run(serve())
    return 0


def _rest_reader(port: int, stop: threading.Event, full: list[float], top: list[float],
                 failures: list[str]) -> None:
    """GET the whole board, then its first TOP rows, again and again until `stop`, over one
    keep-alive connection, as a page polling the board would; a GET that fails or is not
    200 counts as READ_DEADLINE_S."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_DEADLINE_S)
    path = f"/api/v1/arenas/{ARENA}/leaderboard"
    while not stop.is_set():
        for query, into in (("", full), (f"?limit={TOP}", top)):
            t = time.perf_counter()
            try:
                conn.request("GET", path + query)
                answer = conn.getresponse()
                answer.read()
                if answer.status != 200:
                    raise OSError(f"HTTP {answer.status}")
                into.append(time.perf_counter() - t)
            except (OSError, http.client.HTTPException) as e:
                into.append(READ_DEADLINE_S)
                failures.append(f"{type(e).__name__}: {e}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=READ_DEADLINE_S)
        stop.wait(0.2)
    conn.close()


def _refusal(err):
    from domino_wire.refusals import refusal_of

    try:
        return refusal_of(err)
    except Exception:   # noqa: BLE001 -- an aio error without the rich status
        return None


READ_DEADLINE_S = 30.0
TOP = 50        # rows of a leaderboard page (the REST default)
SLOWEST: list[tuple[float, float]] = []   # (seconds a full read took, when it began)
SETTLED_S = sized(30.0, 2.0)   # the bots are connected by then


def _reader(address: str, stop: threading.Event, times: list[float],
            health: list[float] | None = None, top: list[float] | None = None,
            failures: list[str] | None = None) -> None:
    """GetLeaderboard (every row) again and again until `stop` (`_timed`). With `top`,
    each is followed by a read of the first TOP rows (a page, as the web page shows); with
    `health`, by a gRPC health check: the engine's answer time to a call that does no work
    at all, next to which the leaderboard's own cost shows."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from domino_proto.domino.v1 import arena_pb2, arena_pb2_grpc

    def timed(call, into: list[float]) -> None:
        t = _timed(call, into, failures)
        if into is times:
            SLOWEST.append((into[-1], t - began))

    failures = [] if failures is None else failures
    began = time.perf_counter()
    with grpc.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        checker = health_pb2_grpc.HealthStub(channel)
        while not stop.is_set():
            timed(lambda **kw: stub.GetLeaderboard(
                arena_pb2.GetLeaderboardRequest(arena_id=ARENA), **kw), times)
            if top is not None:
                timed(lambda **kw: stub.GetLeaderboard(
                    arena_pb2.GetLeaderboardRequest(arena_id=ARENA, limit=TOP), **kw), top)
            if health is not None:
                timed(lambda **kw: checker.Check(health_pb2.HealthCheckRequest(), **kw),
                      health)
            stop.wait(0.2)


def run():
    from tests.pg_server import PostgresServer, why_not

    why = why_not()
    if why:
        yield f"end to end: skipped: {why}"
        return
    pg = PostgresServer()
    try:
        with tempfile.TemporaryDirectory(prefix="arena-bench-") as workdir:
            yield from _run(pg.database(), workdir)
    finally:
        pg.stop()


def _run(dsn: str, workdir: str):
    import grpc

    from domino_proto.domino.v1 import arena_pb2, arena_pb2_grpc
    from tests.cluster.support import EngineCluster

    keys = _keys(dsn, OWNERS)
    cluster = EngineCluster(dsn, 2, os.path.join(workdir, "engines.log"))
    gateway = control = None
    try:
        bot_keys = []
        with grpc.insecure_channel(cluster.address(0)) as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            for i in range(BOTS):
                answer = stub.RegisterBot(arena_pb2.RegisterBotRequest(name=f"lean-{i}"),
                                          metadata=(("authorization",
                                                     f"Bearer {keys[i % OWNERS]}"),),
                                          timeout=30)
                bot_keys.append(answer.bot_key)
        pids = [p.pid for p in cluster.procs]
        rss0 = sum(_rss_mb(p) for p in pids)
        cpu0 = sum(cpu_s(p) for p in pids)
        # The reader is a process of its own, as a client of the arena would be, and so is
        # the gateway in front of the reader's engine.
        gateway = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.gateway_bench", "serve", cluster.address(1)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=_env())
        port = gateway.stdout.readline().strip()
        if not port.isdigit():
            raise RuntimeError(f"the gateway did not start (it said {port!r})")
        # A control: a bare gRPC server in a process of its own, checked by the reader as
        # it checks the engine. Its answer time is the floor the machine's load sets.
        control = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.arena_e2e", "control"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, cwd=ROOT, env=_env())
        control_port = control.stdout.readline().strip()
        if not control_port.isdigit():
            raise RuntimeError(f"the control server did not start (it said {control_port!r})")
        reader = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.arena_e2e", "reader", cluster.address(1), port,
             str(SECONDS), f"127.0.0.1:{control_port}"], stdout=subprocess.PIPE, text=True,
            cwd=ROOT, env=_env())
        started = time.monotonic()
        fleet = _fleets([cluster.address(0), cluster.address(1)], bot_keys, workdir)
        elapsed = time.monotonic() - started
        rss1 = max(sum(_rss_mb(p) for p in pids), rss0)
        read = json.loads(reader.communicate(timeout=READ_DEADLINE_S * 3 + 60)[0]
                          .strip().splitlines()[-1])
        reads, checks, tops, failures = (read[k] for k in ("reads", "checks", "tops",
                                                           "failures"))
        rest, rest_tops, rest_failures = (read[k] for k in ("rest", "rest_tops",
                                                            "rest_failures"))
        cpu = sum(cpu_s(p) for p in pids) - cpu0
        # the same call with the bots gone: what it costs without the fleet's traffic
        quiet, done = [], threading.Event()
        threading.Timer(sized(5.0, 1.0), done.set).start()
        _reader(cluster.address(1), done, quiet)
        with grpc.insecure_channel(cluster.address(0)) as channel:
            info = next(a for a in arena_pb2_grpc.ArenaStub(channel).ListArenas(
                arena_pb2.ListArenasRequest(), timeout=30).arenas if a.arena_id == ARENA)
        tables = info.matches_counted + info.matches_playing + info.matches_voided
        waits, errors = [wait for _, wait, _ in fleet["timed"]], fleet["errors"]
        thinking = f", thinking {THINK_MS:g} ms a move" if THINK_MS else ""
        yield (f"{BOTS} lean bots{thinking} in {fleet['processes']} processes "
               f"({fleet['welcomed']} lobbies "
               f"welcomed), 2 engines on PostgreSQL, {elapsed:.0f} s: {info.matches_counted} "
               f"counted, {info.matches_voided} voided, {info.matches_playing} playing at the "
               f"end; {fleet['matches']} seats played to the end; {len(errors)} stream errors"
               + (" (" + ", ".join(f"{n} {kind}" for kind, n in collections.Counter(
                   e.split(":")[0] for e in errors).most_common(4)) + ")" if errors else ""))
        if errors:
            yield "stream errors, the commonest: " + "; ".join(
                f"{n}x {text}" for text, n in collections.Counter(errors).most_common(3))
        yield f"counted matches per minute: {info.matches_counted / elapsed * 60:.1f}"
        yield (f"wait from free to the next ArenaSeat: p50 {_pct(waits, 50):.3f} s, "
               f"p99 {_pct(waits, 99):.3f} s ({len(waits)} seatings)")
        unheld = fleet["unheld"]
        yield (f"the same, of the seatings the rate bound ({MATCHES_PER_MINUTE} a minute) cannot "
               f"have held: p50 {_pct(unheld, 50):.3f} s, p99 {_pct(unheld, 99):.3f} s "
               f"({len(unheld)} seatings)")
        again = [wait for _, wait, after_match in fleet["timed"] if after_match]
        yield (f"the same, of a bot free after a match (a lobby's first seat left out): "
               f"p50 {_pct(again, 50):.3f} s, p99 {_pct(again, 99):.3f} s ({len(again)} seatings)")
        windows: dict[int, list[float]] = {}
        for at, wait, _ in fleet["timed"]:
            windows.setdefault(int(at // 15), []).append(wait)
        yield ("the same, by when the bot was free (15 s windows: p99, seatings): " + ", ".join(
            f"{k * 15}-{k * 15 + 15} s {_pct(w, 99):.2f} s ({len(w)})"
            for k, w in sorted(windows.items())))
        answered, lag = fleet["answered"], fleet["lag"]
        what = ("from an ArenaSeat to its match's Welcome on the bot's standby stream (below "
                "zero: the Welcome came first)" if STANDBY else
                "from an ArenaSeat to its seat stream's first answer (the engine taking the "
                "new call)")
        yield (f"{what}: p50 {_pct(answered, 50):.3f} s, p99 {_pct(answered, 99):.3f} s "
               f"({len(answered)} seats); the bots' own loops were late by p50 "
               f"{_pct(lag, 50) * 1e3:.0f} ms, p99 {_pct(lag, 99) * 1e3:.0f} ms, "
               f"at most {max(lag, default=0):.2f} s")
        yield (f"engines' CPU per table formed (all of it, play included): "
               f"{cpu / max(1, tables) * 1e3:.1f} ms over {tables} tables "
               f"({cpu / elapsed:.2f} cores)")
        # The bots connecting (a thousand lobbies and standby streams in the first
        # seconds) are a herd no running arena sees: the reads begun after it, apart.
        settled = [took for took, began in read["slowest"] if began >= SETTLED_S]
        yield (f"GetLeaderboard while it runs: p50 {_pct(reads, 50) * 1e3:.1f} ms, "
               f"p99 {_pct(reads, 99) * 1e3:.1f} ms ({len(reads)} reads); begun from "
               f"{SETTLED_S:.0f} s on: p50 {_pct(settled, 50) * 1e3:.1f} ms, p99 "
               f"{_pct(settled, 99) * 1e3:.1f} ms ({len(settled)}); with the bots "
               f"gone: p50 {_pct(quiet, 50) * 1e3:.1f} ms, p99 {_pct(quiet, 99) * 1e3:.1f} ms")
        yield (f"GetLeaderboard of the first {TOP} rows while it runs: p50 "
               f"{_pct(tops, 50) * 1e3:.1f} ms, p99 {_pct(tops, 99) * 1e3:.1f} ms; reads that "
               f"failed (counted as {READ_DEADLINE_S:.0f} s): {len(failures)}"
               + (f" ({', '.join(sorted(set(failures))[:3])})" if failures else ""))
        yield (f"REST GET of the leaderboard through a gateway while it runs: whole board "
               f"p50 {_pct(rest, 50) * 1e3:.1f} ms, p99 {_pct(rest, 99) * 1e3:.1f} ms "
               f"({len(rest)} GETs); first {TOP} rows p50 {_pct(rest_tops, 50) * 1e3:.1f} ms, "
               f"p99 {_pct(rest_tops, 99) * 1e3:.1f} ms; failed (counted as "
               f"{READ_DEADLINE_S:.0f} s): {len(rest_failures)}"
               + (f" ({', '.join(sorted(set(rest_failures))[:3])})" if rest_failures else ""))
        slow = sorted(read["slowest"], reverse=True)[:3]
        yield ("the slowest full reads: " + ", ".join(f"{d:.1f} s begun at {at:.0f} s"
                                                      for d, at in slow))
        yield (f"a health check of the same engine while it runs (a call doing nothing): "
               f"p50 {_pct(checks, 50) * 1e3:.1f} ms, p99 {_pct(checks, 99) * 1e3:.1f} ms; "
               f"the matchmaker was on {info.matchmaker or 'no engine'}, the reader on "
               f"{cluster.address(1)}")
        yield (f"the same health check of a bare gRPC server in a process of its own (what "
               f"the machine's load alone costs a call): p50 "
               f"{_pct(read['control'], 50) * 1e3:.1f} ms, p99 "
               f"{_pct(read['control'], 99) * 1e3:.1f} ms ({len(read['control'])} checks)")
        yield (f"engines' memory: {rss0:.0f} MB idle, {rss1:.0f} MB with the bots: "
               f"{(rss1 - rss0) * 1024 / max(1, BOTS):.0f} KB per connected bot")
    finally:
        for helper in (gateway, control):
            if helper is not None:
                helper.kill()
                helper.wait()
        cluster.close()
        if os.environ.get("DOMINO_ARENA_LOG"):      # the engines' log, kept to be read
            shutil.copy(os.path.join(workdir, "engines.log"), os.environ["DOMINO_ARENA_LOG"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["fleet"]:
        sys.exit(fleet_main(sys.argv[2:]))
    if sys.argv[1:2] == ["reader"]:
        sys.exit(reader_main(sys.argv[2:]))
    if sys.argv[1:2] == ["control"]:
        sys.exit(control_main())
