"""The stores and the cluster, side by side in one run (docs/cluster.md).

- Throughput: CLUSTER_MATCHES concurrent HHL matches, played by lean bots (first legal
  move; LEAN_PROCS processes, each holding one stream per seat it plays, straight to the
  match's owner) on 1 engine with SQLite, 1 engine with PostgreSQL and 2 engines with
  PostgreSQL, the three alternated RUNS times. Total moves/s, engine CPU per move and the
  cores used by everything (engines, bots, PostgreSQL) while it ran.
- Commit latency: a move row appended and committed, p50/p99, for SQLite (WAL) and
  PostgreSQL with synchronous_commit off (the default) and on, in this process.
- Failover: KILLS kill -9s of a match's owner at random moments among 3 engines, with
  `domino bot` processes following the matches; from each kill to the first move the new
  owner accepts, p50 and max, and the records compared with uninterrupted runs (moves lost).

PostgreSQL is started here as the tests start it (tests/pg_server.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import sized
from benchmarks.engine_bench import ROOT, _env, cpu_s

RUNS = sized(2, 1)
CLUSTER_MATCHES, CLUSTER_HANDS = sized((50, 4), (4, 1))   # 50 matches of about 85 moves each
LEAN_PROCS = 4                              # bot process k plays seat k of every match
COMMITS = sized(2000, 20)
KILLS = sized(10, 1)
FAILOVER_HANDS = sized(60, 6)               # long enough for every kill to find a live match
LIMIT_S = 300


# ----- the lean bot: many seats, one process ---------------------------------------------
def lean_seats_main(argv: list[str]) -> int:
    """Play every seat in the JSON file argv[0] ([{address, match_id, seat, seat_token}]) to
    its match's end: one stream each, first legal move, nothing read. Prints the CPU time."""
    import grpc

    from bots.io_loop import CHANNEL_OPTIONS
    from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

    with open(argv[0]) as f:
        seats = json.load(f)

    async def play(channel, seat) -> None:
        call = play_pb2_grpc.PlayStub(channel).Connect()
        await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
            seat=play_pb2.SeatAuth(match_id=seat["match_id"], seat_token=seat["seat_token"]),
            skip_events=True, skip_accepted=True, client="cluster bench lean bot")))
        while (message := await call.read()) is not grpc.aio.EOF:
            kind = message.WhichOneof("body")
            if kind == "turn":
                state = message.turn.state
                await call.write(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                    match_id=state.match_id, version=state.version,
                    move_id=state.legal_moves[0].id)))
            elif kind == "match_over":
                break
        call.cancel()

    async def main() -> None:
        channels = {a: grpc.aio.insecure_channel(a, options=CHANNEL_OPTIONS)
                    for a in {s["address"] for s in seats}}
        await asyncio.gather(*(play(channels[s["address"]], s) for s in seats))
        for channel in channels.values():
            await channel.close()

    start = time.process_time()
    asyncio.run(main())
    print(json.dumps({"cpu_s": time.process_time() - start}), flush=True)
    return 0


# ----- throughput ------------------------------------------------------------------------
def _engines(db: str, n: int, log) -> list[tuple[subprocess.Popen, int]]:
    """`n` engines on `db`, each on the port it picked (and advertises), once each has read
    the membership with all `n` in it: placement spreads matches only over those it read."""
    from domino_cli.processes import start_engine
    from engine_service.core.storage.factory import is_dsn
    from tests.cluster.support import placement_ready

    out = [start_engine("127.0.0.1", 0, db, log=log) for _ in range(n)]
    if is_dsn(db):
        placement_ready(db, n)
    return out


def _pg_cpu_s() -> float:
    """CPU seconds of every PostgreSQL process (they run as the postgres user)."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == "postgres":
                        total += cpu_s(int(pid))
    return total


def throughput(db: str, n_engines: int, seed: int, workdir: str) -> dict:
    """CLUSTER_MATCHES matches on `n_engines` engines on `db`, played by lean bots."""
    from domino_proto.domino.v1 import engine_pb2, game_pb2
    from domino_wire import game
    from domino_wire.routing import Router

    log = open(os.path.join(workdir, "engines.log"), "a")
    engines = _engines(db, n_engines, log)
    router = Router([f"127.0.0.1:{p}" for _, p in engines])
    try:
        seats = [[] for _ in range(LEAN_PROCS)]
        for i in range(CLUSTER_MATCHES):
            created = router.call("CreateMatch", engine_pb2.CreateMatchRequest(
                variant=game_pb2.VARIANT_HHL, seed=seed + i, bot_clock_ms=30_000,
                options=game.options_pb("hhl", {"hands": CLUSTER_HANDS})))
            for s in range(created.num_seats):
                token = router.call("ClaimSeat", engine_pb2.ClaimSeatRequest(
                    match_id=created.match_id, seat=s), about=created.match_id).seat_token
                seats[s % LEAN_PROCS].append({"address": router.engine_of(created.match_id),
                                              "match_id": created.match_id, "seat": s,
                                              "seat_token": token})
        ids = sorted({s["match_id"] for group in seats for s in group})
        placed = [sum(1 for m in ids if router.engine_of(m) == f"127.0.0.1:{p}")
                  for _, p in engines]
        paths = []
        for k, group in enumerate(seats):
            paths.append(os.path.join(workdir, f"seats-{k}.json"))
            with open(paths[-1], "w") as f:
                json.dump(group, f)
        engine_cpu = sum(cpu_s(p.pid) for p, _ in engines)
        pg_cpu = _pg_cpu_s()
        start = time.monotonic()
        bots = [subprocess.Popen([sys.executable, "-m", "benchmarks.cluster_bench", "leanseats",
                                  path], stdout=subprocess.PIPE, stderr=log, text=True,
                                 cwd=ROOT, env=_env()) for path in paths]
        bot_cpu = 0.0
        for b in bots:
            out, _ = b.communicate(timeout=LIMIT_S)
            bot_cpu += json.loads(out.strip().splitlines()[-1])["cpu_s"] if b.returncode == 0 else 0
        elapsed = time.monotonic() - start
        engine_cpu = sum(cpu_s(p.pid) for p, _ in engines) - engine_cpu
        pg_cpu = _pg_cpu_s() - pg_cpu
        moves = sum(router.call("GetMatch", engine_pb2.GetMatchRequest(match_id=m), about=m)
                    .summary.version for m in ids)
        over = sum(router.call("GetMatch", engine_pb2.GetMatchRequest(match_id=m), about=m)
                   .summary.status == 3 for m in ids)
        return {"moves": moves, "rate": moves / elapsed, "over": over, "placed": placed,
                "engine_cpu_ms": engine_cpu * 1000 / moves,
                "cores": (engine_cpu + pg_cpu + bot_cpu) / elapsed,
                "errors": sum(b.returncode != 0 for b in bots)}
    finally:
        router.close()
        for proc, _ in engines:
            proc.terminate()
            proc.wait(20)
        log.close()


# ----- commit latency --------------------------------------------------------------------
def commit_latency(store) -> dict:
    """COMMITS move rows appended (each committed on its own), p50/p99 in µs."""
    from engine_service.core.storage.rows import MatchRow, MoveRow

    store.add_match(MatchRow("bench", "hhl", {"hands": 1, "minutes": None}, 1, None,
                             {"kinds": ["bot"] * 4, "names": [""] * 4,
                              "clocks_ms": [10_000] * 4}, time.time()))
    took = []
    for v in range(1, COMMITS + 1):
        t = time.perf_counter()
        store.append_move("bench", MoveRow(v, v % 4, "0-0", "seat", time.time()))
        took.append((time.perf_counter() - t) * 1e6)
    store.close()
    took.sort()
    return {"p50": took[len(took) // 2], "p99": took[int(len(took) * 0.99)]}


# ----- failover --------------------------------------------------------------------------
def failover(pg, workdir: str) -> dict:
    from tests.cluster.support import EngineCluster, kill_loop, new_match, record_of, start_bots
    from tests.engine.test_processes import uninterrupted

    options = {"hands": FAILOVER_HANDS}
    cluster = EngineCluster(pg.database(), 3, os.path.join(workdir, "failover.log"))
    try:
        router = cluster.router()
        made = [(*new_match(router, "hhl", options, seed=500 + i), 500 + i) for i in range(3)]
        bots = [b for m, t, _ in made for b in start_bots(cluster.addresses, m, t, delay=0.02)]
        times = kill_loop(cluster, router, [m for m, _, _ in made], KILLS, random.Random(9))
        for b in bots:
            b.communicate(timeout=LIMIT_S)
        same = sum(record_of(router, m) == uninterrupted("hhl", options, seed)
                   for m, _, seed in made)
        router.close()
        return {"times": times, "matches": len(made), "same": same,
                "bot_errors": sum(b.returncode != 0 for b in bots)}
    finally:
        cluster.close()


def run() -> list[str]:
    from engine_service.core.storage.postgres import PostgresStore
    from engine_service.core.storage.sqlite import SQLiteStore
    from tests.pg_server import PostgresServer, why_not

    why = why_not()
    if why:
        return [f"skipped: {why}"]
    pg = PostgresServer()
    lines = [f"{os.cpu_count()} CPUs; {CLUSTER_MATCHES} concurrent HHL matches of "
             f"{CLUSTER_HANDS} hands, {LEAN_PROCS} lean bot processes; run 1 / run 2"]
    try:
        with tempfile.TemporaryDirectory(prefix="cluster-bench-") as workdir:
            results = {"sqlite 1 engine": [], "postgres 1 engine": [], "postgres 2 engines": []}
            for r in range(RUNS):
                seed = 1000 * (r + 1)
                results["sqlite 1 engine"].append(throughput(
                    os.path.join(workdir, f"engine-{r}.sqlite3"), 1, seed, workdir))
                results["postgres 1 engine"].append(throughput(pg.database(), 1, seed, workdir))
                results["postgres 2 engines"].append(throughput(pg.database(), 2, seed, workdir))
            for name, runs in results.items():
                lines.append(f"{name}: " + " / ".join(
                    f"{x['rate']:.0f} moves/s, engine CPU {x['engine_cpu_ms']:.3f} ms/move, "
                    f"{x['cores']:.2f} cores used, placed {x['placed']}, "
                    f"{x['over']}/{CLUSTER_MATCHES} over, {x['errors']} bot errors"
                    for x in runs))
            base = results["sqlite 1 engine"]
            for name in ("postgres 1 engine", "postgres 2 engines"):
                lines.append(f"ratio {name} / sqlite 1 engine: " + " / ".join(
                    f"{a['rate'] / b['rate']:.2f}x" for a, b in zip(results[name], base,
                                                                     strict=True)))
            lines.append("ratio postgres 2 engines / postgres 1 engine: " + " / ".join(
                f"{a['rate'] / b['rate']:.2f}x" for a, b in zip(
                    results["postgres 2 engines"], results["postgres 1 engine"], strict=True)))
            stores = {"sqlite (WAL)": lambda: SQLiteStore(os.path.join(workdir, "c.sqlite3")),
                      "postgres, synchronous_commit off": lambda: PostgresStore(pg.database()),
                      "postgres, synchronous_commit on": lambda: PostgresStore(
                          pg.database() + "?options=-c%20synchronous_commit%3Don")}
            for name, make in stores.items():
                c = commit_latency(make())
                lines.append(f"commit latency, {name}: p50 {c['p50']:.0f} µs, "
                             f"p99 {c['p99']:.0f} µs ({COMMITS} commits)")
            f = failover(pg, workdir)
            t = sorted(f["times"]) or [float("nan")]    # (no kill: every match was over)
            lines.append(f"failover over {len(f['times'])} kill -9s of an owner (3 engines): kill "
                         f"to the first move accepted by the new owner p50 {statistics.median(t):.2f}"
                         f" s, max {max(t):.2f} s; records equal to uninterrupted runs "
                         f"{f['same']}/{f['matches']} (moves lost: "
                         f"{'0' if f['same'] == f['matches'] else 'SOME'}), "
                         f"{f['bot_errors']} bot errors")
    finally:
        pg.stop()
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["leanseats"]:
        sys.exit(lean_seats_main(sys.argv[2:]))
