"""What the engine's metrics add to one move: the calls the move path makes per accepted
move (engine_service/core/metrics.py), timed in a loop, in microseconds per move.

A seat's move makes four: two perf_counter() stamps around the commit with one
commit_took, move_committed, and, with its own two stamps, move_latency. A refused move
makes one refused() instead. Run: python -m benchmarks.metrics_overhead
"""

from __future__ import annotations

import time

from engine_service.core import metrics

N = 200_000


def _per_move_us(step, n: int = N) -> float:
    best = float("inf")
    for _ in range(5):              # the best of 5: the machine is shared
        started = time.perf_counter()
        for _ in range(n):
            step()
        best = min(best, time.perf_counter() - started)
    return best / n * 1e6


def _accepted_move() -> None:
    perf = time.perf_counter
    received = perf()
    started = perf()
    metrics.commit_took("sqlite", perf() - started)
    metrics.move_committed("hhl")
    metrics.move_latency(perf() - received)


def _refused_move() -> None:
    metrics.refused("NOT_YOUR_TURN")


def run() -> list[str]:
    empty = _per_move_us(lambda: None)
    accepted = _per_move_us(_accepted_move) - empty
    refused = _per_move_us(_refused_move) - empty
    return [f"metrics per accepted move: {accepted:.2f} µs (stamps, counter, 2 histograms)",
            f"metrics per refused move:  {refused:.2f} µs (counter)",
            f"(a move's whole engine path is about 100 µs plus its commit; loop of {N:,})"]


if __name__ == "__main__":
    print("\n".join(run()))
