"""Ladders: throughput through the engine, and how many matches `until separated` needs.

1. Throughput: a real `domino engine` process runs a ladder whose entrants are all random
   bots, each its own `domino bot --strategy random` process enlisted in the ladder's pool
   under a distinct entrant name (random-1..random-4 for HHL, random-1..random-5 for Domeng:
   one seat each per match). Ladder defaults: HHL {"hands": 4}, Domeng {"cycles": 1},
   4 matches at once, 10 s turn clocks. Reported: counted matches per minute in steady
   state (from the first counted match to the last), and the wall time from CreateLadder
   to done (includes starting the bot processes).
2. Separation: greedy against random in HHL with --until-separated, rotation and duplicate
   formats, over SEEDS seeds, played in-process (ladders/inprocess.py: the same schedule,
   rows and standings as the engine, checked after every complete set): the counted
   matches needed (mean, median, range), how many runs separated, and how many ended with
   greedy on top of the leaderboard.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time

from benchmarks import sized

SEEDS = sized(20, 2)
SEPARATION_OPTIONS = ({"hands": 4}, {"hands": 1})
# variant, entrants (= seats), matches
THROUGHPUT = sized((("hhl", 4, 160), ("domeng", 5, 80)), (("hhl", 4, 2), ("domeng", 5, 1)))
MAX_MATCHES = sized(2000, 40)   # a separation run stops here, separated or not
CONCURRENCY = 4


def _throughput(variant: str, seats: int, matches: int, address: str, log) -> dict:
    import grpc

    from domino_cli.processes import DOMINO, stop_processes
    from domino_proto.domino.v1 import game_pb2, ladder_pb2, ladder_pb2_grpc
    from domino_wire import game

    entrants = [f"random-{i + 1}" for i in range(seats)]
    enum = {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}[variant]
    bots = []
    with grpc.insecure_channel(address) as channel:
        stub = ladder_pb2_grpc.LadderStub(channel)
        started = time.monotonic()
        created = stub.CreateLadder(ladder_pb2.CreateLadderRequest(
            variant=enum, entrants=entrants, matches=matches, seed=7,
            concurrency=CONCURRENCY), timeout=10)
        info, secrets = created.ladder, {p.entrant: p.enlist_secret for p in created.pools}
        try:
            for k, name in enumerate(entrants):
                bots.append(subprocess.Popen(
                    [*DOMINO, "bot", "--engine", address, "--strategy", "random",
                     "--pool", f"{info.key}/{name}", "--name", name, "--capacity",
                     str(CONCURRENCY), "--matches", "0", "--seed", str(k)],
                    stdout=subprocess.DEVNULL, stderr=log,
                    env={**os.environ, "DOMINO_POOL_SECRET": secrets[name]}))
            first = None
            get = ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id)
            while info.status != ladder_pb2.LADDER_STATUS_DONE:
                time.sleep(0.05)
                info = stub.GetLadder(get, timeout=10)
                if first is None and info.matches_counted >= 1:
                    first = (time.monotonic(), info.matches_counted)
            done = time.monotonic()
            standings = stub.GetStandings(get, timeout=10)
        finally:
            stop_processes(bots)
    faults = sum(r.faults.timeouts + r.faults.illegal + r.faults.crashes for r in standings.entries)
    steady = ((info.matches_counted - first[1]) / max(done - first[0], 1e-9) * 60
              if info.matches_counted > first[1] else float("nan"))
    return {"variant": variant, "matches": info.matches_counted, "voided": info.matches_voided,
            "wall_s": done - started, "steady_per_min": steady,
            "overall_per_min": info.matches_counted / (done - started) * 60, "faults": faults,
            "options": game.options(info.options)}


def throughput() -> list[dict]:
    from domino_cli.processes import start_engine, stop_processes

    tmp = tempfile.mkdtemp(prefix="ladder-bench-")
    with open(os.path.join(tmp, "ladder-bench.log"), "a") as log:
        engine, port = start_engine("127.0.0.1", 0, os.path.join(tmp, "engine.sqlite3"), log=log)
        try:
            return [_throughput(v, seats, n, f"127.0.0.1:{port}", log)
                    for v, seats, n in THROUGHPUT]
        finally:
            stop_processes([engine])


def separation(options: dict, fmt: str, seeds: int = SEEDS) -> dict:
    from bots.inprocess_ladder import run

    needed, separated, greedy_first = [], 0, 0
    for seed in range(1, seeds + 1):
        s = run("hhl", ["random", "greedy"], fmt, options, seed=seed, until_separated=True,
                max_matches=MAX_MATCHES)
        needed.append(s["matches"])
        separated += s["separated"]
        greedy_first += s["separated"] and s["entries"][0]["entrant"] == "greedy"
    return {"format": fmt, "options": options, "mean": statistics.mean(needed),
            "median": statistics.median(needed), "min": min(needed), "max": max(needed),
            "separated": separated, "greedy_first": greedy_first, "seeds": seeds}


def run() -> list[str]:
    lines = ["throughput through the engine: all-random ladders, every entrant its own "
             f"`domino bot` process, {CONCURRENCY} matches at once"]
    for t in throughput():
        lines.append(
            f"  {t['variant']:6s} {json.dumps(t['options'])}: {t['steady_per_min']:6.1f} matches/min "
            f"steady, {t['overall_per_min']:6.1f}/min overall ({t['matches']} matches in "
            f"{t['wall_s']:.1f} s from CreateLadder, {t['voided']} voided, {t['faults']} faults)")
    lines.append(f"until separated, greedy vs random, HHL, in-process, seeds 1..{SEEDS}: "
                 "counted matches needed")
    for options in SEPARATION_OPTIONS:
        for fmt in ("rotation", "duplicate"):
            s = separation(options, fmt)
            lines.append(
                f"  {json.dumps(options):14s} {fmt:9s}: mean {s['mean']:6.1f}, median {s['median']:5.1f}, "
                f"range {s['min']}-{s['max']}; separated {s['separated']}/{s['seeds']}, greedy on top "
                f"{s['greedy_first']}/{s['seeds']}")
    lines.append("  (a duplicate set is both seatings of one deal, 2 matches: the paired test gets one "
                 "sample per 2 matches and needs 5, so at least 10 matches)")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
