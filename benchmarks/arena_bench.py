"""The arena's pure parts at scale: folding 100,000 arena results into a leaderboard (what
an engine does when it first reads an arena's results), one more result folded in (what
every counted match costs), and one table made among 200 free bots (what every match the
matchmaker makes costs). Synthetic results: 300 (bot, version) keys, HHL line-ups of 4.
Then its hot statements over a long history (benchmarks/arena_history.py), how fast a busy
event loop takes new calls (benchmarks/new_calls.py: a seat stream is one), and the arena end
to end (benchmarks/arena_e2e.py): lean bots, 2 engines, PostgreSQL."""

from __future__ import annotations

import random
import time

from benchmarks import sized

RESULTS = sized(100_000, 500)
KEYS = sized(300, 30)
FREE = sized(200, 20)


def _results(n: int, rng: random.Random) -> list[dict]:
    keys = [(f"b{i}", "v1") for i in range(KEYS)]
    out = []
    for s in range(1, n + 1):
        lineup = rng.sample(keys, 4)
        out.append({"sequence": s, "lineup": [list(k) for k in lineup],
                    "scores": [rng.randint(-30, 40) * 100 for _ in lineup], "titles": [0] * 4,
                    "deals": 4, "faults": [{} for _ in lineup], "ended": float(s)})
    return out


def run():
    from ladders.leaderboard import Board
    from ladders.matchmaking import Candidate, next_table

    rng = random.Random(1)
    results = _results(RESULTS + 1, rng)
    started = time.perf_counter()
    board = Board.of("hhl", results[:RESULTS])
    took = time.perf_counter() - started
    yield (f"fold {RESULTS} results: {took:.1f} s ({took / RESULTS * 1e6:.0f} µs a result), "
           f"{len(board.entries)} rows")
    started = time.perf_counter()
    board.add(results[RESULTS])
    yield f"fold one more result: {(time.perf_counter() - started) * 1e6:.0f} µs"
    started = time.perf_counter()
    rows = board.ordered()
    yield f"order the board ({len(rows)} rows): {(time.perf_counter() - started) * 1e3:.1f} ms"
    free = [Candidate((f"b{i}", "v1"), f"o{i % 50}", rng.uniform(10, 40), rng.uniform(0, 100))
            for i in range(FREE)]
    residents = [Candidate((f"house-{i}", "house"), "house", 25.0, 0.0, True) for i in range(4)]
    n = 200
    started = time.perf_counter()
    for turn in range(n):
        next_table(free, residents, 4, {}, turn)
    yield (f"one table among {FREE} free bots: "
           f"{(time.perf_counter() - started) / n * 1e3:.2f} ms")
    from benchmarks import arena_e2e, arena_history, new_calls

    yield from arena_history.run()
    yield from new_calls.run()
    yield from arena_e2e.run()
