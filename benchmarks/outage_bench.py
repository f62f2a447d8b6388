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
import subprocess
import sys
import tempfile
import time

import grpc

from benchmarks import sized
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


def _timed(call) -> tuple[float, object]:
    """(seconds, the answer or the exception) of one call."""
    started = time.perf_counter()
    try:
        answer = call()
    except Exception as e:   # noqa: BLE001 - an answer too: counted by the caller
        answer = e
    return time.perf_counter() - started, answer


def _until(condition, limit_s: float, since: float | None = None) -> float | None:
    """Seconds from `since` (default: now) until `condition()` holds (asked every 5 ms),
    or None after `limit_s`."""
    since = time.monotonic() if since is None else since
    while not condition():
        if time.monotonic() - since > limit_s:
            return None
        time.sleep(0.005)
    return time.monotonic() - since


def _took(seconds: float | None, limit: str) -> str:
    return _ms(seconds) if seconds is not None else f"never within {limit}"


def one_outage(rig: OutageRig, mode: str, outage_s: float, probes: int) -> list[str]:
    """Everything is measured, nothing assumed: an engine that stalls or answers wrong
    gives its own figures (how the ones before the fix were had)."""
    match_id, tokens, bots = rig.new_match(hands=2, delay=0.05)
    finished = "finished"

    def version() -> int:
        try:
            return rig.version(match_id)
        except grpc.RpcError:    # a stalled engine: its deadline passed
            return -1
    try:
        assert _until(lambda: version() >= 4, 60) is not None, "no bot moved"
        at_version = version()
        rig.away(mode)
        gone = time.monotonic()
        to_not_serving = _until(lambda: rig.health() == NOT_SERVING, outage_s)
        views, refusals, healths = [], [], []
        view_failed = unexpected = answered = said_down = 0
        # PROBES at least, for OUTAGE_S at least; and never past 3 x OUTAGE_S (an engine
        # that stalls on the store makes each probe wait for its deadlines).
        while (len(views) < probes or time.monotonic() - gone < outage_s) and \
                time.monotonic() - gone < 3 * outage_s:
            took, answer = _timed(lambda: rig.client.view(match_id, tokens[0]))
            views.append(took)
            view_failed += isinstance(answer, Exception)
            took, answer = _timed(lambda: rig.move_of_seat_to_move(match_id, tokens))
            refusals.append(took)
            unexpected += not (isinstance(answer, grpc.RpcError)
                               and (answer.details() or "").startswith("STORE_UNAVAILABLE"))
            took, status = _timed(lambda: rig.health(timeout=1.0))
            healths.append(took)
            answered += status is not None and took < 1.0
            said_down += status == NOT_SERVING
            time.sleep(max(0.0, min(0.05, outage_s / probes)))
        at_version = max(at_version, version())
        rig.back(mode)
        returned = time.monotonic()
        to_serving = _until(lambda: rig.health() == SERVING, 60, returned)
        to_move = _until(lambda: version() > at_version, 60, returned)
        try:
            finish(bots, timeout=180)
        except (AssertionError, subprocess.TimeoutExpired) as e:
            finished = f"NOT finished by every bot ({type(e).__name__})"
    finally:
        for bot in bots:
            if bot.poll() is None:
                bot.kill()
    final = rig.version(match_id)
    logged = rig.logged_versions(match_id)
    lost = len(set(range(1, final + 1)) - set(logged))
    doubled = len(logged) - len(set(logged))
    n = len(healths)
    return [
        f"{mode}: store away {returned - gone:.1f} s; to NOT_SERVING "
        f"{_took(to_not_serving, 'the outage')}; health checks answered within 1 s "
        f"{answered} of {n}, NOT_SERVING {said_down} of {n}",
        f"{mode}: during it, GetView p50 {_ms(statistics.median(views))} p99 "
        f"{_ms(_p(views, 0.99))} ({len(views)}{f', {view_failed} failed' if view_failed else ''}); "
        f"SubmitMove refused STORE_UNAVAILABLE p50 {_ms(statistics.median(refusals))} max "
        f"{_ms(max(refusals))}"
        f"{f'; {unexpected} answers other than STORE_UNAVAILABLE' if unexpected else ''}",
        f"{mode}: store back to SERVING {_took(to_serving, '60 s')}, to the first accepted "
        f"move {_took(to_move, '60 s')}; match {finished} at version {final}: {lost} lost, "
        f"{doubled} twice",
    ]


# `python -m benchmarks --smoke outage` (benchmarks.sized) takes the short outage too.
SIZES = sized((OUTAGE_S, PROBES), (SMOKE_OUTAGE_S, SMOKE_PROBES))


def run(smoke: bool | None = None) -> list[str]:
    outage_s, probes = SIZES if smoke is None else \
        (SMOKE_OUTAGE_S, SMOKE_PROBES) if smoke else (OUTAGE_S, PROBES)
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
