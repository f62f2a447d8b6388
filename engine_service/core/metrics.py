"""The engine's Prometheus metrics, defined once here and recorded through plain functions.

The core and the rpc layer call the functions below on their paths; each only updates a
number in memory (prometheus_client's default registry), so the engine runs, and is
tested, the same with no metrics server. `serve` (`domino engine --metrics-port`) exposes
them at /metrics. docs/cluster.md ("Metrics") lists every name, type and label.

The move path pays for a counter and two histogram observations per move: 8-10 µs in all
on the 2-core CI machine, mostly prometheus_client's lock per value and its bucket loop
(python -m benchmarks.metrics_overhead measures it). Label children are looked up once
here, not per call.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import Counter, Gauge, Histogram

from ..rules import VARIANTS

# Seconds. A move's work is ~0.1 ms in memory plus its commit (SQLite fsync or a
# PostgreSQL round trip), so the buckets start well under a millisecond.
LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                   0.25, 0.5, 1.0, 2.5)

LIVE_MATCHES = Gauge("domino_engine_live_matches",
                     "Matches this engine holds that are not over (waiting for seats or live)")
MOVES = Counter("domino_engine_moves_accepted",
                "Moves accepted and committed by this engine (every cause: seat, turn clock, "
                "absent seat, time limit)", ["variant"])
MOVE_LATENCY = Histogram("domino_engine_move_latency_seconds",
                         "From a seat's move received (MoveChoice or SubmitMove) to it being "
                         "committed and published, for accepted moves",
                         buckets=LATENCY_BUCKETS)
REFUSALS = Counter("domino_engine_refusals",
                   "Requests and moves refused, by the refusal's stable reason code", ["reason"])
TIMEOUTS = Counter("domino_engine_timeouts",
                   "Moves the turn clock played for a seat that did not move in time",
                   ["variant"])
OWNER_CHANGES = Counter("domino_engine_owner_changes",
                        "Matches and ladders this engine took over from another one "
                        "(failover, draining)", ["kind"])
MOVE_PACE = Gauge("domino_engine_move_pace",
                  "Moves a second this engine lets in while its event loop runs late "
                  "(0: not paced; engine_service/rpc/pacing.py)")
COMMIT_LATENCY = Histogram("domino_engine_store_commit_seconds",
                           "How long the store took to commit one move (append_move)",
                           ["store"], buckets=LATENCY_BUCKETS)

# Label children made once: labels() takes a lock and hashes the values on every call.
_moves: dict[str, Counter] = {}
_timeouts: dict[str, Counter] = {}
_commits: dict[str, Histogram] = {}
_refusals: dict[str, Counter] = {}
_observe_move = MOVE_LATENCY.observe


def _child(cache: dict, metric, value: str):
    child = cache.get(value)
    if child is None:
        child = cache[value] = metric.labels(value)
    return child


# Every variant's series exist from the start (at 0), so a rate() has its first point.
for _variant in VARIANTS:
    _child(_moves, MOVES, _variant)
    _child(_timeouts, TIMEOUTS, _variant)
for _kind in ("match", "ladder"):
    OWNER_CHANGES.labels(_kind)


def move_committed(variant: str) -> None:
    _child(_moves, MOVES, variant).inc()


def move_latency(seconds: float) -> None:
    _observe_move(seconds)


def commit_took(store: str, seconds: float) -> None:
    _child(_commits, COMMIT_LATENCY, store).observe(seconds)


def refused(reason: str) -> None:
    # reason is a Reason member (a str): a fixed, small set of label values
    _child(_refusals, REFUSALS, str(reason)).inc()


def timed_out(variant: str) -> None:
    _child(_timeouts, TIMEOUTS, variant).inc()


def owner_changed(kind: str, count: int = 1) -> None:
    """`kind`: "match" or "ladder"."""
    if count:
        OWNER_CHANGES.labels(kind).inc(count)


def count_live(count: Callable[[], int]) -> None:
    """Read the live matches from `count` at each scrape (nothing to update per match)."""
    LIVE_MATCHES.set_function(count)


def follow_pace(rate: Callable[[], float | None]) -> None:
    """Read the move pace from `rate` at each scrape (None: not paced)."""
    MOVE_PACE.set_function(lambda: rate() or 0.0)


def serve(host: str, port: int) -> int:
    """Serve /metrics on host:port from a daemon thread of prometheus_client (OSError when
    the port cannot be bound); the port it serves on (port 0 picks a free one)."""
    import prometheus_client

    # No *_created series: one more line per series that no dashboard here reads.
    prometheus_client.disable_created_metrics()
    server, _ = prometheus_client.start_http_server(port, addr=host)
    return server.server_port
