"""The gateway's Prometheus metrics and its GET /metrics (text exposition format).

Defined once per process in a registry of the gateway's own, so /metrics shows the
gateway alone even when an engine runs in the same process (tests, benchmarks). The
route is plain Flask, outside the API blueprints: it is not part of the OpenAPI document
(docs/cluster.md, "Metrics", lists every metric). Routes are labelled by their rule
("/api/v1/matches/<match_id>"), never by the path, so ids make no new series.
"""

from __future__ import annotations

import time

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)      # CPU, memory, open files of the gateway process

REQUESTS = Counter("domino_gateway_requests", "HTTP requests answered, by route and status",
                   ["route", "status"], registry=REGISTRY)
LATENCY = Histogram("domino_gateway_request_seconds",
                    "From a request received to its answer, by route (event streams, which "
                    "last as long as their match, are not timed)", ["route"],
                    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
                             2.5, 5.0, 10.0), registry=REGISTRY)
OPEN_STREAMS = Gauge("domino_gateway_open_event_streams",
                     "Event streams (text/event-stream) open now", registry=REGISTRY)
ENGINE_ERRORS = Counter("domino_gateway_engine_call_errors",
                        "Engine calls that failed, by gRPC status code (refusals included)",
                        ["code"], registry=REGISTRY)

EVENTS_ROUTE = "/api/v1/matches/<match_id>/events"
UNMATCHED = "(unmatched)"      # a path no route has: one series for all of them


def answered(route: str, status: int, seconds: float | None = None) -> None:
    REQUESTS.labels(route, str(status)).inc()
    if seconds is not None:
        LATENCY.labels(route).observe(seconds)


def engine_call_failed(code: str) -> None:
    ENGINE_ERRORS.labels(code).inc()


def stream_opened() -> None:
    OPEN_STREAMS.inc()


def stream_closed() -> None:
    OPEN_STREAMS.dec()


def exposition() -> tuple[bytes, str]:
    """The current metrics as (body, content type)."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def install(app: Flask) -> None:
    """Time and count every Flask request, and serve GET /metrics."""

    @app.before_request
    def _started() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _answered(response):
        rule = request.url_rule.rule if request.url_rule is not None else UNMATCHED
        started = g.get("metrics_started")
        streaming = response.mimetype == "text/event-stream"
        answered(rule, response.status_code,
                 None if started is None or streaming else time.perf_counter() - started)
        return response

    @app.get("/metrics")
    def metrics():
        body, content_type = exposition()
        return Response(body, content_type=content_type)
