"""Safe on a network, measured: a soak of 10,000 short matches through one engine (memory,
store and WAL as it goes), and what a bot spamming refused moves costs the engine.

Soak: `domino engine` on a fresh SQLite file; four lean pool bots (one grpc.aio process,
first legal move, no events, no accepted answers) play every seat; this process keeps
IN_FLIGHT matches (HHL, one hand) going until SOAK_MATCHES have ended, and reads the
engine's RSS (/proc VmRSS) and the sizes of the store file and its WAL at each checkpoint.
Targets: RSS at the end within 20% of its value at 1,000 matches; the WAL under
64 MB throughout.

Spam: one seat stream that answers every TurnRequest, and every refusal, with an illegal
move at once, or floods illegal moves without waiting for any answer, for SPAM_SECONDS;
the engine's CPU share over that time, next to the same engine idle, and how much its
memory grew. DOMINO_BENCH_ROOT=/path/to/another/checkout runs that checkout's engine
instead (the "before" figures of docs/security.md were taken so, on the commit before
each bound).

Attacks (each its own module, each with a smoke mode a test runs in seconds): forks of a
long record (fork_attack.py), SampleWorlds from many seats (sampler_attack.py),
spectators that never read (watch_attack.py), event streams from many addresses
(sse_attack.py). `python -m benchmarks --smoke safety` runs them all small.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

import grpc

from benchmarks import sized
from benchmarks.engine_bench import ROOT, Engine, _env, cpu_s, wait_enlisted

SOAK_MATCHES = sized(10_000, 16)
CHECKPOINTS = sized((1_000, 5_000, 10_000), (4, 8, 16))
IN_FLIGHT = sized(48, 8)
SPAM_SECONDS = 10.0         # the first 10 s of a flood: what docs/security.md tells
SMOKE_SPAM_SECONDS = 1.0


def soak_bots_main(argv: list[str]) -> int:
    """Four pool streams from one process, each playing a seat in up to 64 matches."""
    from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

    address, secret, pool = argv

    async def stream(name: str) -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = play_pb2_grpc.PlayStub(channel).Connect()
            await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                pool=play_pb2.PoolEnlist(pool=pool, name=name, capacity=64, secret=secret),
                skip_events=True, skip_accepted=True, client="soak bot")))
            while (message := await call.read()) is not grpc.aio.EOF:
                if message.WhichOneof("body") == "turn":
                    state = message.turn.state
                    await call.write(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                        match_id=state.match_id, version=state.version,
                        move_id=state.legal_moves[0].id)))

    async def main():
        await asyncio.gather(*(stream(f"soak{i}") for i in range(4)))

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
    return 0


def _sizes(engine: Engine) -> dict:
    def size(path):
        try:
            return os.path.getsize(path)
        except OSError:
            return 0
    return {"rss_kb": engine.rss_kb(), "db_mb": size(engine.db) / 2**20,
            "wal_mb": size(engine.db + "-wal") / 2**20}


def soak() -> dict:
    from domino_proto.domino.v1 import common_pb2, engine_pb2, game_pb2
    from domino_wire import game

    engine = Engine(key_quotas="live_matches=1000,matches_per_minute=1000000")
    auth = (("authorization", f"Bearer {engine.key}"),)
    bots = subprocess.Popen([sys.executable, "-m", "benchmarks.safety_bench", "soakbots",
                             engine.address, engine.pool_secret, engine.POOL],
                            stderr=engine.log, env=_env())
    try:
        wait_enlisted(engine, 4)
        request = engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}),
            seats=[engine_pb2.SeatSpec(pool=engine.POOL)] * 4)
        created, done, live = 0, 0, set()
        marks, max_wal = {}, 0.0
        started = time.monotonic()
        while done < SOAK_MATCHES:
            while len(live) < IN_FLIGHT and created < SOAK_MATCHES:
                live.add(engine.stub.CreateMatch(request, timeout=60, metadata=auth).match_id)
                created += 1
            time.sleep(0.1)
            going = {m.match_id for status in (common_pb2.MATCH_STATUS_WAITING,
                                               common_pb2.MATCH_STATUS_LIVE)
                     for m in engine.stub.ListMatches(engine_pb2.ListMatchesRequest(
                         status=status, limit=1000), timeout=60).matches}
            done += len(live - going)
            live &= going
            max_wal = max(max_wal, _sizes(engine)["wal_mb"])
            for mark in CHECKPOINTS:
                if done >= mark and mark not in marks:
                    marks[mark] = {**_sizes(engine), "s": time.monotonic() - started}
        return {"marks": marks, "max_wal_mb": max_wal,
                "seconds": time.monotonic() - started}
    finally:
        bots.terminate()
        bots.wait(10)
        engine.close()


def spam_bot_main(argv: list[str]) -> int:
    """One seat stream sending the same illegal move, at once: in mode "turns" to every
    TurnRequest (as a buggy bot does), in mode "answers" to the first TurnRequest and then
    to every refusal (as a bot that will not stop does), in mode "flood" again and again
    without waiting for anything (reading what comes beside)."""
    from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

    address, match_id, token, seconds, out, mode = argv[:5] + [argv[5]]
    seconds = float(seconds)
    sent = refused = turns = 0

    async def main():
        nonlocal sent, refused, turns
        async with grpc.aio.insecure_channel(address) as channel:
            call = play_pb2_grpc.PlayStub(channel).Connect()
            await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                seat=play_pb2.SeatAuth(match_id=match_id, seat_token=token))))
            end = time.monotonic() + seconds
            bad = play_pb2.BotMessage(move=play_pb2.MoveChoice(version=0, move_text="6-6 sideways"))
            if mode == "flood":
                await flood(call, bad, end)
                return
            while time.monotonic() < end:
                try:
                    message = await asyncio.wait_for(call.read(), max(0.01, end - time.monotonic()))
                except TimeoutError:
                    break
                kind = message.WhichOneof("body")
                refused += kind == "answer"
                turns += kind == "turn"
                if (kind == "turn" and (mode == "turns" or turns == 1)) or (
                        kind == "answer" and mode == "answers"):
                    await call.write(bad)
                    sent += 1
            call.cancel()

    async def flood(call, bad, end):
        nonlocal sent, refused, turns

        async def read():
            nonlocal refused, turns
            while (message := await call.read()) is not grpc.aio.EOF:
                kind = message.WhichOneof("body")
                refused += kind == "answer"
                turns += kind == "turn"
        reader = asyncio.ensure_future(read())
        while time.monotonic() < end:
            try:      # a write waits while the engine reads no more (flow control)
                await asyncio.wait_for(asyncio.shield(call.write(bad)), end - time.monotonic())
                sent += 1
            except TimeoutError:
                break
        reader.cancel()
        call.cancel()

    asyncio.run(main())
    with open(out, "w") as f:
        json.dump({"sent": sent, "refused": refused, "turns": turns}, f)
    return 0


def spam(root: str, mode: str, seconds: float = SPAM_SECONDS) -> dict:
    """The engine's CPU share while one bot spams refused moves, and while idle."""
    from domino_proto.domino.v1 import engine_pb2, game_pb2
    from domino_wire import game

    engine = Engine() if root == ROOT else _other_engine(root)
    try:
        created = engine.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}),
            bot_clock_ms=3_600_000), timeout=10)
        tokens = [engine.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=10).seat_token for s in range(4)]
        leader = engine.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=created.match_id),
                                      timeout=10).summary.to_move
        idle_start = cpu_s(engine.proc.pid)
        time.sleep(seconds)
        idle = (cpu_s(engine.proc.pid) - idle_start) / seconds
        rss = engine.rss_kb()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "spam.json")
            start = cpu_s(engine.proc.pid)
            subprocess.run([sys.executable, "-m", "benchmarks.safety_bench", "spambot",
                            engine.address, created.match_id, tokens[leader], str(seconds),
                            out, mode], env=_env(), timeout=60 + seconds, check=True)
            busy = (cpu_s(engine.proc.pid) - start) / seconds
            grown = engine.rss_kb() - rss
            with open(out) as f:
                figures = json.load(f)
        return {"idle": idle, "busy": busy, "rss_grown_kb": grown, **figures}
    finally:
        engine.close()


def _other_engine(root: str) -> Engine:
    """The engine of another checkout (DOMINO_BENCH_ROOT), started as that checkout starts
    it: `python -m domino_cli engine`, or `python -m engine_service.cli engine` before
    domino_cli existed."""
    e = Engine.__new__(Engine)
    e.dir = tempfile.TemporaryDirectory(prefix="engine-bench-")
    e.db = os.path.join(e.dir.name, "engine.sqlite3")
    e.log = open(os.path.join(e.dir.name, "engine.log"), "w")
    cli = "domino_cli" if os.path.isdir(os.path.join(root, "domino_cli")) else "engine_service.cli"
    e.proc = subprocess.Popen([sys.executable, "-m", cli, "engine", "--port", "0", "--db", e.db],
                              stdout=subprocess.PIPE, stderr=e.log, text=True, cwd=root,
                              env=dict(os.environ, PYTHONPATH=root))
    e.port = int(e.proc.stdout.readline().split()[3].rsplit(":", 1)[1])
    e.address = f"127.0.0.1:{e.port}"
    from domino_proto.domino.v1 import engine_pb2_grpc
    e.channel = grpc.insecure_channel(e.address)
    e.stub = engine_pb2_grpc.EngineStub(e.channel)
    return e


def spam_lines(root: str, seconds: float) -> list[str]:
    lines = [f"refusal spam: one seat stream sending an illegal move, at once, for "
             f"{seconds:.0f} s (engine of {root})"]
    for mode, what in (("turns", "to every TurnRequest"), ("answers", "to every refusal"),
                       ("flood", "without waiting")):
        s = spam(root, mode, seconds)
        lines.append(f"   {what + ':':24s} engine CPU {s['busy'] * 100:5.1f}% of a core "
                     f"(idle {s['idle'] * 100:.1f}%); sent {s['sent']}, refusals "
                     f"{s['refused']} ({s['refused'] / seconds:.0f}/s), TurnRequests "
                     f"{s['turns']}; engine RSS +{s['rss_grown_kb'] / 1024:.1f} MB")
    return lines


def soak_lines() -> list[str]:
    lines = []
    r = soak()
    lines.append(f"soak: {SOAK_MATCHES} HHL matches of one hand, {IN_FLIGHT} at a time, 4 lean "
                 f"pool bots, in {r['seconds']:.0f} s")
    first = r["marks"][CHECKPOINTS[0]]
    for mark in CHECKPOINTS:
        m = r["marks"][mark]
        lines.append(f"   after {mark:>6} matches: engine RSS {m['rss_kb'] / 1024:6.1f} MB "
                     f"({m['rss_kb'] / first['rss_kb']:.2f}x of 1k), store {m['db_mb']:6.1f} MB, "
                     f"WAL {m['wal_mb']:5.1f} MB, at {m['s']:.0f} s")
    lines.append(f"   largest WAL seen: {r['max_wal_mb']:.1f} MB   (targets: RSS within 1.20x "
                 "of 1k, WAL under 64 MB)")
    return lines


def run(smoke: bool | None = None) -> list[str]:
    """Every attack, then the soak; all of them small in a smoke run (None: as
    `python -m benchmarks --smoke` says)."""
    import benchmarks
    from benchmarks import fork_attack, sampler_attack, sse_attack, watch_attack

    if smoke is None:
        smoke = benchmarks.smoke()

    root = os.environ.get("DOMINO_BENCH_ROOT", ROOT)
    lines = spam_lines(root, SMOKE_SPAM_SECONDS if smoke else SPAM_SECONDS)
    for attack in (fork_attack, sampler_attack, watch_attack, sse_attack):
        lines += attack.run(smoke=smoke)
    # The soak's sizes were fixed at import by the smoke setting (benchmarks.sized): it
    # runs when they fit this run, not full-sized in a smoke run asked for by argument.
    if root == ROOT and smoke == benchmarks.smoke():
        lines += soak_lines()
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["soakbots"]:
        sys.exit(soak_bots_main(sys.argv[2:]))
    if sys.argv[1:2] == ["spambot"]:
        sys.exit(spam_bot_main(sys.argv[2:]))
    for line in run(smoke="--smoke" in sys.argv or None):
        print(line, flush=True)
