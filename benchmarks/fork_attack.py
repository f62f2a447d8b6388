"""Forks of a long record, as an anonymous client of an open engine makes them: what one
forked match costs in memory next to an ordinary one, what sixty cost the engine and its
restart, and how REST moves of another match fare while four forks run at once.

The record is a 700-hand HHL match of random bots (about 1 MB of JSON, some 15,000
plays), forked at its last play (the most a fork may replay). Per match: tracemalloc in
one process of the checkout, around creating matches with Engine.create_match (the
worker process, where a fork's record is replayed, is not counted there; the engine's
RSS figure below counts it). Sixty: `domino engine` on a SQLite file, its RSS before and
after 60 forks over gRPC, then the seconds a restart takes until it listens, next to
the same engine with 60 ordinary matches. REST: `domino engine` + `domino gateway`; one
client plays its own match over REST, timing each POST .../moves, first alone, then
while four clients POST /api/v1/matches with the fork, again and again.

Targets: a live fork at most 2x an ordinary live match; sixty forks add under 100 MB;
the restart within noise of the engine with 60 ordinary matches; REST p99 during the
forks within 2x of idle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks.attack_support import (
    Engine,
    Gateway,
    Rest,
    bench_root,
    children_rss_kb,
    env_for,
    ms,
    percentile,
    rest_mover,
    timed_for,
)

HANDS, SMOKE_HANDS = 700, 30
FORKS, SMOKE_FORKS = 60, 3
WINDOW_S, SMOKE_WINDOW_S = 10.0, 0.5
ATTACKERS = 4
CLOCK_MS = 3_600_000     # nothing moves by itself while measured


def record_text(hands: int) -> str:
    from bots.arena import play_match
    from bots.strategies import make_strategy

    bots = [make_strategy("random", 70 + s) for s in range(4)]
    record = play_match("hhl", {"hands": hands}, 7, bots).record()
    return json.dumps(record, separators=(",", ":"))


def last_at(text: str) -> int:
    record = json.loads(text)
    return sum("play" in e for d in record["deals"] for e in d["moves"]) - 1


# Run in a process of the measured checkout: bytes per match, by tracemalloc.
PER_MATCH = r"""
import gc, json, sys, tracemalloc
from engine_service.core.engine import Engine
text = open(sys.argv[1]).read()
n, hands = int(sys.argv[2]), int(sys.argv[3])
e = Engine()
e.create_match("hhl", {"hands": 1}); e.create_match("", fork=(text, 1))    # warm
tracemalloc.start(1)
def kb_each(make, count):
    gc.collect(); before = tracemalloc.take_snapshot()
    kept = [make() for _ in range(count)]
    gc.collect(); after = tracemalloc.take_snapshot()
    return sum(s.size_diff for s in after.compare_to(before, "filename")) / 1024 / count
def played(moves):
    r = e.create_match("hhl", {"hands": hands}, bot_clock_ms=3600000)
    for s in range(4):
        r.claim(s)
    for _ in range(moves):
        r.submit(r.match.to_move, r.version, move_id="0")
    return r
print(json.dumps({
    "ordinary": kb_each(lambda: e.create_match("hhl", {"hands": hands}), 20),
    "ordinary_25": kb_each(lambda: played(25), 10),
    "fork_last": kb_each(lambda: e.create_match("", fork=(text, n)), 3),
    "fork_first": kb_each(lambda: e.create_match("", fork=(text, 0)), 3)}))
"""


def per_match(root: str, path: str, at: int, hands: int) -> dict:
    out = subprocess.run([sys.executable, "-c", PER_MATCH, path, str(at), str(hands)],
                         capture_output=True, text=True, cwd=root, env=env_for(root),
                         timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def sixty(root: str, text: str, at: int, count: int, hands: int) -> dict:
    from domino_proto.domino.v1 import engine_pb2, game_pb2
    from domino_wire import game

    def rss(engine):
        return engine.rss_kb() / 1024, children_rss_kb(engine.proc.pid) / 1024

    figures = {}
    for kind in ("fork", "ordinary"):
        engine = Engine(root)
        try:
            time.sleep(0.5)
            before = rss(engine)
            for _ in range(count):
                if kind == "fork":
                    engine.stub.CreateMatch(engine_pb2.CreateMatchRequest(
                        fork=engine_pb2.ForkFrom(record_json=text, at=at),
                        bot_clock_ms=CLOCK_MS), timeout=300)
                else:
                    engine.stub.CreateMatch(engine_pb2.CreateMatchRequest(
                        variant=game_pb2.VARIANT_HHL, options=game.options_pb(
                            "hhl", {"hands": hands}), bot_clock_ms=CLOCK_MS), timeout=60)
            after = rss(engine)
            engine.stop()
            restart = engine.start()
            figures[kind] = {"before_mb": before[0], "after_mb": after[0],
                             "workers_mb": after[1], "restart_s": restart,
                             "restarted_mb": rss(engine)[0]}
        finally:
            engine.close()
    return figures


def rest_during_forks(root: str, text: str, at: int, window: float) -> dict:
    engine = Engine(root)
    gateway = Gateway(engine.address, root, engine.log)
    body = json.dumps({"fork": {"record": json.loads(text), "at": at}}).encode()
    try:
        move = rest_mover(gateway.port, 11)
        timed_for(move, 1.0)                        # warm
        idle = timed_for(move, window, pause=0.005)
        stop = threading.Event()
        answers: list[int] = []
        lock = threading.Lock()

        def attack() -> None:
            c = Rest(gateway.port, timeout=300)
            while not stop.is_set():
                status, _ = c.call("POST", "/api/v1/matches", raw=body)
                with lock:
                    answers.append(status)
            c.close()

        threads = [threading.Thread(target=attack, daemon=True) for _ in range(ATTACKERS)]
        for t in threads:
            t.start()
        busy = timed_for(move, window, pause=0.005)
        stop.set()
        for t in threads:
            t.join(300)
        return {"idle": idle, "busy": busy, "answers": answers}
    finally:
        gateway.close()
        engine.close()


def run(smoke: bool = False) -> list[str]:
    root = bench_root()
    hands = SMOKE_HANDS if smoke else HANDS
    count = SMOKE_FORKS if smoke else FORKS
    window = SMOKE_WINDOW_S if smoke else WINDOW_S
    text = record_text(hands)
    at = last_at(text)
    lines = [f"forks (engine of {root}): a {hands}-hand HHL record, {len(text) / 1e6:.2f} MB, "
             f"{at + 1} plays, forked at play {at}"]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "record.json")
        with open(path, "w") as f:
            f.write(text)
        m = per_match(root, path, at, hands)
    lines.append(f"   memory per match (tracemalloc): ordinary {m['ordinary']:.1f} KB, ordinary "
                 f"after 25 moves {m['ordinary_25']:.1f} KB; fork at its last play "
                 f"{m['fork_last']:.1f} KB ({m['fork_last'] / m['ordinary']:.1f}x), fork at "
                 f"play 0 {m['fork_first']:.1f} KB ({m['fork_first'] / m['ordinary']:.1f}x)")
    s = sixty(root, text, at, count, hands)
    for kind, what in (("fork", "forks"), ("ordinary", "ordinary matches")):
        f = s[kind]
        lines.append(f"   {count} {what:16s}: engine RSS {f['before_mb']:6.1f} -> "
                     f"{f['after_mb']:6.1f} MB (+{f['after_mb'] - f['before_mb']:.1f} MB; "
                     f"worker processes {f['workers_mb']:.1f} MB), restart until listening "
                     f"{f['restart_s']:5.2f} s, then {f['restarted_mb']:.1f} MB")
    r = rest_during_forks(root, text, at, window)
    codes = {c: r["answers"].count(c) for c in sorted(set(r["answers"]))}
    lines.append(f"   REST moves of another match, idle:             {ms(r['idle'])}")
    lines.append(f"   ... while {ATTACKERS} clients fork again and again: {ms(r['busy'])}; "
                 f"fork answers {codes}")
    lines.append(f"   p99 during / idle: {percentile(r['busy'], 99) / percentile(r['idle'], 99):.2f}x"
                 "   (targets: fork <= 2x ordinary; +100 MB for sixty; restart flat; p99 <= 2x)")
    return lines


if __name__ == "__main__":
    for line in run(smoke="--smoke" in sys.argv):
        print(line, flush=True)
