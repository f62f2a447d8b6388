"""The oracle (bots/strategies/oracle.py on bots/pisearch.py): its time per move, when its
search is exact, and what entering it costs a ladder.

1. Time per move at the default budget (pisearch.DEFAULT_NODES moves applied; the default
   model), p50 and p99, wall clock and CPU, with the plies reached and the share of moves
   searched exactly: the oracle in one seat (rotated) against greedy seats, every choice
   it makes over whole matches (HHL 4 hands, Domeng a game cycle).
2. When exact is affordable: positions met in play (random seats), grouped by the tiles
   left in all hands; the work (moves applied) and CPU time to search each one to the end
   of the deal with no budget, median and p90, for the default model.
3. A ladder with and without the oracle entered, side by side, through a real engine
   (`domino engine`, which plays the oracle in process as a yardstick) with greedy bots as
   `domino bot` processes: entrants greedy-1..greedy-N (N = seats), against greedy-1..
   greedy-(N-1) plus the oracle; the same seed, options and concurrency. Reported: counted
   matches per minute (steady state) and the factor between the two.

Sizes: ORACLE_BENCH_MATCHES (default 24 HHL ladder matches, half as many Domeng) and the
module's constants; `python -m benchmarks --smoke oracle` runs it all at tiny sizes.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from benchmarks import sized
from bots import pisearch
from bots.arena import play_match
from bots.strategies import make_strategy
from bots.strategies.oracle import Oracle

TIMING_MATCHES = sized({"hhl": 24, "domeng": 12}, {"hhl": 1, "domeng": 1})
TIMING_OPTIONS = sized({"hhl": {"hands": 4}, "domeng": {"cycles": 1}},
                       {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}})
EXACT_TILES = sized({"hhl": (6, 8, 10, 12), "domeng": (8, 10, 12, 14)},
                    {"hhl": (6,), "domeng": (8,)})
EXACT_POSITIONS = sized(10, 2)
EXACT_CAP = 500_000  # moves applied: beyond it a position counts as "not affordable"
LADDER_MATCHES = sized(int(os.environ.get("ORACLE_BENCH_MATCHES", "24")), 2)
LADDER_OPTIONS = sized({"hhl": {"hands": 4}, "domeng": {"cycles": 1}},
                       {"hhl": {"hands": 1}, "domeng": {"cycles": 1, "round_cap": 1}})
CONCURRENCY = 4


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class _Timed(Oracle):
    def __init__(self, seed, log):
        super().__init__(seed)
        self.log = log

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            return legal_moves[0]
        w, c = time.perf_counter(), time.process_time()
        move = super().choose(view, legal_moves)
        self.log.append((time.perf_counter() - w, time.process_time() - c, self.last.depth,
                         self.last.exact, self.last.nodes))
        return move


def move_times(variant: str) -> dict:
    seats = 4 if variant == "hhl" else 5
    log: list = []
    for k in range(TIMING_MATCHES[variant]):
        bots = [_Timed(k, log) if s == k % seats else make_strategy("greedy", s) for s in range(seats)]
        play_match(variant, TIMING_OPTIONS[variant], 500 + k, bots)
    wall, cpu = [x[0] * 1000 for x in log], [x[1] * 1000 for x in log]
    return {"moves": len(log), "wall_p50": statistics.median(wall), "wall_p99": _pct(wall, 0.99),
            "cpu_p50": statistics.median(cpu), "cpu_p99": _pct(cpu, 0.99),
            "depth": statistics.median(x[2] for x in log), "exact": sum(x[3] for x in log) / len(log),
            "nodes": statistics.median(x[4] for x in log)}


def _positions(variant: str, tiles: int, count: int, seed: int):
    """Positions with ``tiles`` tiles in all hands where the seat to move has a choice,
    reached by random play."""
    import random

    from engine_service.rules import new_match

    rng, out, k = random.Random(seed), [], 0
    options = {"hands": 1} if variant == "hhl" else {"round_cap": 1}
    while len(out) < count and k < 50 * count:
        m = new_match(variant, options, seed * 7919 + k)
        k += 1
        while not m.over:
            left = sum(h.bit_count() for h in m.position.hands)
            legal = m.legal_moves(m.to_move)
            if left <= tiles:
                if left == tiles and len(legal) > 1:
                    out.append(m.position.playout())
                break
            m.play(m.to_move, rng.choice(legal))
    return out


def exact_costs(variant: str) -> list[dict]:
    rows = []
    for tiles in EXACT_TILES[variant]:
        work, cpu, capped = [], [], 0
        for p in _positions(variant, tiles, EXACT_POSITIONS, seed=tiles):
            c = time.process_time()
            r = pisearch.move_values(p, nodes=EXACT_CAP)
            if not r.exact:
                capped += 1
                continue
            work.append(r.nodes)
            cpu.append((time.process_time() - c) * 1000)
        rows.append({"tiles": tiles, "solved": len(work), "capped": capped,
                     "nodes_p50": statistics.median(work) if work else None,
                     "nodes_p90": _pct(work, 0.9) if work else None,
                     "cpu_p50": statistics.median(cpu) if cpu else None,
                     "cpu_p90": _pct(cpu, 0.9) if cpu else None})
    return rows


def _ladder(variant: str, entrants: list[str], yardsticks: list[str], address: str, log) -> dict:
    import subprocess

    import grpc

    from domino_cli.processes import DOMINO, stop_processes
    from domino_proto.domino.v1 import game_pb2, ladder_pb2, ladder_pb2_grpc
    from domino_wire import game

    enum = {"hhl": game_pb2.VARIANT_HHL, "domeng": game_pb2.VARIANT_DOMENG}[variant]
    matches = LADDER_MATCHES if variant == "hhl" else max(LADDER_MATCHES // 2, 2)
    bots = []
    with grpc.insecure_channel(address) as channel:
        stub = ladder_pb2_grpc.LadderStub(channel)
        created = stub.CreateLadder(ladder_pb2.CreateLadderRequest(
            variant=enum, entrants=entrants, yardsticks=yardsticks, matches=matches, seed=11,
            concurrency=CONCURRENCY, options=game.options_pb(variant, LADDER_OPTIONS[variant])),
            timeout=10)
        info = created.ladder
        started = time.monotonic()
        try:
            for k, p in enumerate(created.pools):
                bots.append(subprocess.Popen(
                    [*DOMINO, "bot", "--engine", address, "--strategy", "greedy", "--pool", p.pool,
                     "--name", p.entrant, "--capacity", str(CONCURRENCY), "--matches", "0",
                     "--seed", str(k)],
                    stdout=subprocess.DEVNULL, stderr=log,
                    env={**os.environ, "DOMINO_POOL_SECRET": p.enlist_secret}))
            first = None
            get = ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id)
            while info.status != ladder_pb2.LADDER_STATUS_DONE:
                time.sleep(0.05)
                info = stub.GetLadder(get, timeout=10)
                if first is None and info.matches_counted >= 1:
                    first = (time.monotonic(), info.matches_counted)
            done = time.monotonic()
        finally:
            stop_processes(bots)
    steady = ((info.matches_counted - first[1]) / max(done - first[0], 1e-9) * 60
              if info.matches_counted > first[1] else info.matches_counted / (done - started) * 60)
    return {"matches": info.matches_counted, "per_min": steady, "wall_s": done - started}


def ladders() -> list[tuple[str, dict, dict]]:
    from domino_cli.processes import start_engine, stop_processes

    tmp = tempfile.mkdtemp(prefix="oracle-bench-")
    out = []
    with open(os.path.join(tmp, "oracle-bench.log"), "a") as log:
        engine, port = start_engine("127.0.0.1", 0, os.path.join(tmp, "engine.sqlite3"), log=log)
        try:
            address = f"127.0.0.1:{port}"
            for variant, seats in (("hhl", 4), ("domeng", 5)):
                names = [f"greedy-{i + 1}" for i in range(seats)]
                without = _ladder(variant, names, [], address, log)
                with_oracle = _ladder(variant, names[:-1], ["oracle"], address, log)
                out.append((variant, without, with_oracle))
        finally:
            stop_processes([engine])
    return out


def run() -> list[str]:
    lines = [f"oracle: model {pisearch.DEFAULT_MODEL!r}, {pisearch.DEFAULT_NODES} moves applied per "
             "move at most (the first ply always completes)",
             "time per move, one oracle seat among greedy seats (choices with 2+ legal moves):"]
    for variant in ("hhl", "domeng"):
        t = move_times(variant)
        lines.append(f"  {variant:6s}: wall p50 {t['wall_p50']:6.1f} ms, p99 {t['wall_p99']:6.1f} ms; "
                     f"CPU p50 {t['cpu_p50']:6.1f} ms, p99 {t['cpu_p99']:6.1f} ms; plies {t['depth']:.0f} "
                     f"(median), exact {100 * t['exact']:.0f}%, {t['nodes']:.0f} moves applied (median); "
                     f"{t['moves']} moves")
    lines.append(f"exact to the end of the deal, no budget (capped at {EXACT_CAP} moves applied), by tiles "
                 "left in all hands:")
    for variant in ("hhl", "domeng"):
        for r in exact_costs(variant):
            if r["solved"]:
                lines.append(f"  {variant:6s} {r['tiles']:2d} tiles: {r['nodes_p50']:9.0f} moves applied "
                             f"p50, {r['nodes_p90']:9.0f} p90; CPU {r['cpu_p50']:8.1f} ms p50, "
                             f"{r['cpu_p90']:8.1f} ms p90 ({r['solved']} solved, {r['capped']} over the cap)")
            else:
                lines.append(f"  {variant:6s} {r['tiles']:2d} tiles: none solved under the cap "
                             f"({r['capped']} positions)")
    lines.append(f"a ladder through the engine, greedy bots as processes, {CONCURRENCY} matches at once: "
                 "without and with the oracle entered")
    for variant, a, b in ladders():
        lines.append(f"  {variant:6s} {LADDER_OPTIONS[variant]}: {a['per_min']:6.1f} matches/min without "
                     f"({a['matches']} matches), {b['per_min']:6.1f} with the oracle ({b['matches']} "
                     f"matches): {a['per_min'] / max(b['per_min'], 1e-9):.2f}x slower")
    return lines


if __name__ == "__main__":
    print("\n".join(run()))
