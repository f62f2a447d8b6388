"""A PostgreSQL outage under a real engine and real bots, timed (docs/cluster.md).

For each way the store goes away (tests/hostile/outage_support.py) — stopped (pg_ctl stop,
then start) and frozen (SIGSTOP of every PostgreSQL process, then SIGCONT: a black hole) —
an HHL match played by four `domino bot` processes loses its store for OUTAGE_S, and:

- the time from the store gone (pg_ctl stop returned, or SIGSTOP sent) to gRPC health
  NOT_SERVING, asked every 10 ms;
- during the outage: health checks answered within 1 s; GetView (a seat's view, from
  memory) p50 / p99; SubmitMove refused with STORE_UNAVAILABLE, p50 / max;
- after it: the time from the store back (pg_ctl start returned, or SIGCONT sent) to
  SERVING and to the first move accepted; then the match finished, and its log checked:
  versions 1..N, none missing, none twice.

`run(smoke=True)` (or `python -m benchmarks.outage_bench --smoke`) is the same with a short
outage and few probes, for a test to run quickly.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

import grpc

from tests.engine.support import finish
from tests.hostile.outage_support import MODES, NOT_SERVING, SERVING, OutageRig

OUTAGE_S = 10.0          # the finding: "the database was stopped for 10 s"
PROBES = 200             # GetViews and refused moves during the outage
SMOKE_OUTAGE_S, SMOKE_PROBES = 1.0, 10


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def one_outage(rig: OutageRig, mode: str, outage_s: float, probes: int) -> list[str]:
    match_id, tokens, bots = rig.new_match(hands=2, delay=0.05)
    try:
        deadline = time.monotonic() + 60
        while rig.version(match_id) < 4:
            assert time.monotonic() < deadline, "the bots did not start playing"
            time.sleep(0.01)
        rig.away(mode)
        gone = time.monotonic()
        to_not_serving = rig.wait_health(NOT_SERVING)
        views, refusals, health_ok, health_asked, unexpected = [], [], 0, 0, 0
        while True:
            started = time.perf_counter()
            rig.client.view(match_id, tokens[0])
            views.append(time.perf_counter() - started)
            started = time.perf_counter()
            answer = rig.move_of_seat_to_move(match_id, tokens)
            refusals.append(time.perf_counter() - started)
            if not (isinstance(answer, grpc.RpcError)
                    and "STORE_UNAVAILABLE" in (answer.details() or "")):
                unexpected += 1
            started = time.perf_counter()
            health_asked += 1
            health_ok += rig.health(timeout=1.0) == NOT_SERVING and \
                time.perf_counter() - started < 1.0
            if len(views) >= probes and time.monotonic() - gone >= outage_s:
                break
            time.sleep(max(0.0, min(0.05, outage_s / probes)))
        at_version = rig.version(match_id)
        rig.back(mode)
        returned = time.monotonic()
        to_serving = rig.wait_health(SERVING)
        while rig.version(match_id) <= at_version:
            assert time.monotonic() - returned < 60, "no move accepted after the outage"
            time.sleep(0.005)
        to_move = time.monotonic() - returned
        finish(bots, timeout=180)
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
    final = rig.version(match_id)
    logged = rig.logged_versions(match_id)
    lost = len(set(range(1, final + 1)) - set(logged))
    doubled = len(logged) - len(set(logged))
    return [
        f"{mode}: store away {returned - gone:.1f} s; to NOT_SERVING "
        f"{_ms(to_not_serving)}; health answered within 1 s {health_ok} of {health_asked}",
        f"{mode}: during it, GetView p50 {_ms(statistics.median(views))} p99 "
        f"{_ms(_p(views, 0.99))} ({len(views)}); SubmitMove refused STORE_UNAVAILABLE p50 "
        f"{_ms(statistics.median(refusals))} max {_ms(max(refusals))}"
        f"{f'; {unexpected} answers other than STORE_UNAVAILABLE' if unexpected else ''}",
        f"{mode}: store back to SERVING {_ms(to_serving)}, to the first accepted move "
        f"{_ms(to_move)}; match finished at version {final}: {lost} lost, {doubled} twice",
    ]


def run(smoke: bool = False) -> list[str]:
    outage_s, probes = (SMOKE_OUTAGE_S, SMOKE_PROBES) if smoke else (OUTAGE_S, PROBES)
    with tempfile.TemporaryDirectory(prefix="domino-outage-") as folder:
        rig = OutageRig(f"{folder}/engine.log")
        try:
            lines = [f"one engine on PostgreSQL, one HHL match of 4 `domino bot`s; the store "
                     f"away {outage_s:g} s, {probes} probes"]
            for mode in MODES:
                lines += one_outage(rig, mode, outage_s, probes)
            return lines
        finally:
            rig.close()


if __name__ == "__main__":
    for line in run(smoke="--smoke" in sys.argv[1:]):
        print(line, flush=True)
