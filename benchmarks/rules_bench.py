"""In-process throughput of the rules core with random bots, next to the yardstick."""

import random
import time

from benchmarks import sized
from benchmarks.yardstick import play_hand
from engine_service.rules import new_match


def ours(variant: str, seconds: float) -> dict:
    """Random-bot play through the public Match API until ``seconds`` have passed: the
    longest matches the options allow, one after another."""
    options = {"hands": 1000} if variant == "hhl" else {"cycles": 100}
    m = new_match(variant, options, seed=1)
    rng = random.Random(2)
    moves = hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(1000):
            if m.over:
                hands += len(m.deals)
                m = new_match(variant, options, seed=rng.randrange(2**32))
            seat = m.to_move
            m.play(seat, rng.choice(m.legal_moves(seat)))
        moves += 1000
        if time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    hands += len(m.deals) - 1
    return {"moves_per_s": moves / elapsed, "hands_per_s": hands / elapsed}


def yardstick(seconds: float) -> dict:
    rng = random.Random(3)
    moves = hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(200):
            moves += play_hand(rng)
        hands += 200
    elapsed = time.perf_counter() - start
    return {"moves_per_s": moves / elapsed, "hands_per_s": hands / elapsed}


SECONDS = sized(3.0, 0.2)


def run(seconds: float = SECONDS) -> list[str]:
    y = yardstick(seconds)
    rows = [("yardstick block dominoes", y)]
    for variant, label in (("hhl", "HHL (hands)"), ("domeng", "Domeng (rounds)")):
        rows.append((label, ours(variant, seconds)))
    head = f"{'rules core, random bots, 1 core':34s} {'hands/s':>10s} {'moves/s':>11s}"
    lines = [f"{head} {'x yardstick':>12s}"]
    for label, r in rows:
        ratio = r["moves_per_s"] / y["moves_per_s"]
        lines.append(f"{label:34s} {r['hands_per_s']:10.0f} {r['moves_per_s']:11.0f} {ratio:12.2f}")
    lines.append("targets: >= 0.15 x yardstick and >= 100,000 moves/s (a move = one seat's chosen play)")
    return lines
