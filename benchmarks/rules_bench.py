"""In-process throughput of the rules core with random bots, next to two yardsticks.

1. The public Match API (``m.play(seat, rng.choice(m.legal_moves(seat)))``) against the
   block-dominoes yardstick (benchmarks/yardstick.py).
2. ``domino simulate``'s own path (bots.simulate.simulate with random bots: the arena,
   the bots, the summary) against the flat-list engine (benchmarks/flat_engine.py),
   which plays the very same games: the two must agree on every match's plays and
   outcomes, and the bench stops if they do not.

The machine may be shared: times are this process's CPU time (time.process_time, which
other processes disturb less than the wall clock), every figure is taken in ROUNDS
rounds, the things compared run one after the other inside each round (alternating which
goes first), and each ratio is the median of the per-round ratios.
"""

import random
import statistics
import time

from benchmarks import flat_engine, sized
from benchmarks.yardstick import play_hand
from bots.simulate import simulate
from engine_service.rules import new_match

ROUNDS = 3
SEATS = {"hhl": 4, "domeng": 5}


def ours(variant: str, seconds: float, seed: int = 1) -> dict:
    """Random-bot play through the public Match API until ``seconds`` have passed: the
    longest matches the options allow, one after another."""
    options = {"hands": 1000} if variant == "hhl" else {"cycles": 100}
    m = new_match(variant, options, seed=seed)
    rng = random.Random(seed + 1)
    moves = hands = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(1000):
            if m.over:
                hands += len(m.deals)
                m = new_match(variant, options, seed=rng.randrange(2**32))
            seat = m.to_move
            m.play(seat, rng.choice(m.legal_moves(seat)))
        moves += 1000
        if time.process_time() > deadline:
            break
    elapsed = time.process_time() - start
    hands += len(m.deals) - 1
    return {"moves_per_s": moves / elapsed, "hands_per_s": hands / elapsed}


def yardstick(seconds: float, seed: int = 3) -> dict:
    rng = random.Random(seed)
    moves = hands = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(200):
            moves += play_hand(rng)
        hands += 200
    elapsed = time.process_time() - start
    return {"moves_per_s": moves / elapsed, "hands_per_s": hands / elapsed}


def match_api_rows(seconds: float) -> list[str]:
    """The Match API against the yardstick, ROUNDS rounds of (yardstick, HHL, Domeng)."""
    share = seconds / ROUNDS
    runs = {"yardstick": [], "hhl": [], "domeng": []}
    for r in range(ROUNDS):
        order = ["yardstick", "hhl", "domeng"] if r % 2 == 0 else ["domeng", "hhl", "yardstick"]
        for name in order:
            runs[name].append(yardstick(share, seed=3 + r) if name == "yardstick"
                              else ours(name, share, seed=1 + r))
    head = f"{'rules core, random bots, 1 core':34s} {'hands/s':>10s} {'moves/s':>11s}"
    lines = [f"{head} {'x yardstick':>12s}"]
    for name, label in (("yardstick", "yardstick block dominoes"), ("hhl", "HHL (hands)"),
                        ("domeng", "Domeng (rounds)")):
        ratio = statistics.median(a["moves_per_s"] / y["moves_per_s"]
                                  for a, y in zip(runs[name], runs["yardstick"], strict=True))
        hands = statistics.median(x["hands_per_s"] for x in runs[name])
        moves = statistics.median(x["moves_per_s"] for x in runs[name])
        lines.append(f"{label:34s} {hands:10.0f} {moves:11.0f} {ratio:12.2f}")
    return lines


def _timed(fn, *args):
    start = time.process_time()
    out = fn(*args)
    return out, time.process_time() - start


def simulate_vs_flat(variant: str, seconds: float) -> dict:
    """``domino simulate``'s path and the flat engine over the same matches, ROUNDS rounds
    (a new seed each); the flat engine's time is measured first to size the rounds."""
    bots = ["random"] * SEATS[variant]
    _, t = _timed(flat_engine.simulate, variant, 20, 0)
    matches = max(20, int(20 * seconds / ROUNDS / 8 / t))  # simulate takes several times longer
    ratios, sim_rates, flat_rates = [], [], []
    for r in range(ROUNDS):
        seed = 1 + r
        if r % 2 == 0:
            ours_, t_ours = _timed(simulate, variant, matches, seed, bots)
            flat, t_flat = _timed(flat_engine.simulate, variant, matches, seed)
        else:
            flat, t_flat = _timed(flat_engine.simulate, variant, matches, seed)
            ours_, t_ours = _timed(simulate, variant, matches, seed, bots)
        if (ours_["deals"], ours_["moves"], ours_["outcomes"]) != \
                (flat["deals"], flat["moves"], flat["outcomes"]):
            raise AssertionError(f"{variant} seed {seed}: simulate and the flat engine played "
                                 f"different games: {ours_} vs {flat}")
        ratios.append(t_flat / t_ours)
        sim_rates.append(ours_["moves"] / t_ours)
        flat_rates.append(flat["moves"] / t_flat)
    return {"matches": matches, "simulate": statistics.median(sim_rates),
            "flat": statistics.median(flat_rates), "ratio": statistics.median(ratios)}


def simulate_rows(seconds: float) -> list[str]:
    lines = [f"{'domino simulate, random bots':34s} {'matches':>10s} {'moves/s':>11s} "
             f"{'flat moves/s':>13s} {'x flat':>7s}"]
    for variant, label in (("hhl", "HHL (8 hands a match)"), ("domeng", "Domeng (1 cycle a match)")):
        r = simulate_vs_flat(variant, seconds)
        lines.append(f"{label:34s} {r['matches']:10d} {r['simulate']:11.0f} {r['flat']:13.0f} "
                     f"{r['ratio']:7.2f}")
    lines.append("(same games: every round's plays and outcomes agree with the flat engine)")
    return lines


SECONDS = sized(3.0, 0.1)


def run(seconds: float = SECONDS) -> list[str]:
    lines = match_api_rows(3 * seconds)
    lines.append("targets: >= 0.6 x yardstick (a move = one seat's chosen play)")
    lines.append("")
    lines += simulate_rows(2 * seconds)
    lines.append("targets: >= 0.3 x the flat engine")
    return lines
