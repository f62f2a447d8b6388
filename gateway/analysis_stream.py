"""GET /api/v1/matches/{match_id}/analysis/events on the gateway's event loop (ASGI,
grpc.aio): the progress of a finished match's analysis as Server-Sent Events.

The route follows the engine's Analysis.Analyse stream of the job that the polling route
(gateway/api/analyses.py) asks about: a `progress` event per update while it is queued or
running, then one `done` (with the domino-analysis/1 document) or `failed`, and the stream
ends. The query is read by the polling route's own schema and the request made by its own
helper, so that both routes ask the engine the same and refuse the same: a refusal comes
before the stream starts and is answered as JSON, exactly as the polling route answers it.
An analysis is run by the engine that owns its match (it reads the match's record there),
so the call is routed as every stream is (EventStreams.routed: NOT_OWNER names the owner);
the stream counts against the same caps as the match event streams.
"""

from __future__ import annotations

import asyncio
import re
from urllib.parse import parse_qs

import grpc
from marshmallow import EXCLUDE, ValidationError
from werkzeug.exceptions import UnprocessableEntity

from domino_proto.domino.v1 import analysis_pb2, analysis_pb2_grpc

from . import errors, schemas_analysis, sse
from .api.analyses import job_answer, request_of
from .engine_client import _key_metadata, api_error
from .errors import ApiError
from .streams import EventStreams, Stream, json_error, opened, until_done_or_gone

PATH = re.compile(r"/api/v1/matches/([^/]+)/analysis/events/?")
ROUTE = "/api/v1/matches/<match_id>/analysis/events"   # as Flask writes it: metrics, OpenAPI
# A queued job may wait minutes with nothing to tell: a comment now and then keeps proxies
# from closing the idle connection (EventSource ignores comments).
KEEPALIVE_S = 15.0
KEEPALIVE = ": keepalive\n\n"
LAST = (analysis_pb2.ANALYSIS_STATE_DONE, analysis_pb2.ANALYSIS_STATE_FAILED)

# Every event the stream sends, by its SSE event name: its data, when it comes, and the
# schema of its data; the OpenAPI document is made from this table (openapi_operation).
EVENTS = {
    "progress": {"data": "{state, done, total}",
                 "description": "each change while the job is queued or running",
                 "schema": schemas_analysis.AnalysisProgressSchema},
    "done": {"data": "{state, done, total, kept, analysis}",
             "description": "last: `analysis` is the domino-analysis/1 document, `kept` says "
                            "it came from the store; the stream then ends",
             "schema": schemas_analysis.AnalysisDoneSchema},
    "failed": {"data": "{state, error}",
               "description": "last: the analyser failed, or the engine went away; the "
                              "stream then ends",
               "schema": schemas_analysis.AnalysisFailedSchema},
}
# The JSON errors before the stream starts: the polling route's for the same request, and
# 429 TOO_MANY_STREAMS past the gateway's stream caps (no 405: this is no Flask route).
ERRORS = (400, 404, 409, 429, 502, 503, 504)
OWN_REASONS = {409: ("MATCH_NOT_OVER", "DEAL_IN_PLAY", "ANALYSIS_OFF"),
               429: ("QUOTA_EXCEEDED", "ENGINE_FULL", "TOO_MANY_STREAMS")}


class AnalysisStreams:
    """Every analysis stream of one gateway process, on the channels, routing and caps of
    its EventStreams. `api_key`: the gateway's own key (config API_KEY), sent when the
    request sends none, as the polling route does."""

    def __init__(self, streams: EventStreams, api_key: str = ""):
        self.streams, self.api_key = streams, api_key

    async def serve(self, scope, receive, send) -> None:
        match_id = PATH.fullmatch(scope["path"])[1]
        await self.streams.capped(scope, send, lambda headers, extra: self._serve(
            match_id, headers, scope, receive, send, extra))

    async def _serve(self, match_id, headers, scope, receive, send, extra) -> None:
        try:
            request = request_of(match_id, load_query(scope.get("query_string", b"")))
            call, first = await self.open(request, _bearer(headers) or self.api_key)
        except ApiError as err:
            await json_error(send, err, extra)
            return
        try:
            async with Stream(send, extra) as out:
                await until_done_or_gone(_forward(call, first, out), receive, match_id)
        finally:
            call.cancel()

    async def open(self, request: analysis_pb2.AnalyseRequest, key: str):
        """An Analyse stream on the match's engine, and its first update: a refusal (a live
        match, a full queue...) comes as the first read's error, before any answer."""
        async def attempt(stub):
            call = stub.Analyse(request, timeout=self.streams.watch_timeout,
                                metadata=_key_metadata(key))
            return await opened(call)
        return await self.streams.routed(request.match_id, attempt,
                                         analysis_pb2_grpc.AnalysisStub)


def load_query(query_string: bytes) -> dict:
    """The query as the polling route's @blp.arguments loads it (AnalysisQuerySchema, the
    first of a repeated parameter, others ignored); invalid, the same 400 as it answers."""
    args = {k: v[0] for k, v in parse_qs(query_string.decode("latin-1"),
                                         keep_blank_values=True).items()}
    try:
        return schemas_analysis.AnalysisQuerySchema().load(args, unknown=EXCLUDE)
    except ValidationError as err:
        # The error webargs raises for Flask's routes, turned into the one error body by
        # the same function, so the two routes' 400s are the same.
        failure = UnprocessableEntity()
        failure.data = {"messages": {"query": err.messages}}
        raise errors.from_http_exception(failure) from None


def _bearer(headers: dict) -> str:
    """The key of `Authorization: Bearer <key>`, as api.api_key() reads it ("" if none)."""
    scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def event_text(update: analysis_pb2.AnalyseUpdate) -> str:
    """One engine update as its SSE event, its data the polling route's answer cut to the
    fields of its state (so `done`'s analysis is the polling route's, as JSON)."""
    job = job_answer(update)
    if update.state == analysis_pb2.ANALYSIS_STATE_DONE:
        return sse.sse("done", {k: job[k] for k in ("state", "done", "total", "kept",
                                                    "analysis")})
    if update.state not in (analysis_pb2.ANALYSIS_STATE_QUEUED,
                            analysis_pb2.ANALYSIS_STATE_RUNNING):   # failed, or no known state
        return failed(job["error"] or "the engine told no state of the analysis")
    return sse.sse("progress", {k: job[k] for k in ("state", "done", "total")})


def failed(error: str) -> str:
    return sse.sse("failed", {"state": "failed", "error": error})


async def _forward(call, first, out: Stream) -> None:
    """Write each update, from `first`, until the last (done or failed); a keepalive
    comment when the engine is quiet. A read is left pending across keepalives: grpc.aio
    cancels the call when a read is cancelled."""
    message, reading = first, None
    try:
        while True:
            if message is not None:
                await out.write(event_text(message))
                if message.state in LAST:
                    return
            reading = reading or asyncio.ensure_future(call.read())
            done, _ = await asyncio.wait({reading}, timeout=KEEPALIVE_S)
            if not done:
                message = None
                await out.write(KEEPALIVE)
                continue
            message, reading = reading.result(), None
            if message is grpc.aio.EOF:
                await out.write(failed("the engine ended the stream before the analysis "
                                       "was done"))
                return
    except grpc.RpcError as err:
        if err.code() != grpc.StatusCode.CANCELLED:
            await out.write(failed(api_error(err).message))
    finally:
        if reading is not None:
            reading.cancel()


# ----- the OpenAPI document -----------------------------------------------------------------
# The path's own parameter, as Flask's route of GET .../analysis has it in the document.
OPENAPI_PATH_PARAMETERS = [{"in": "path", "name": "match_id", "required": True,
                            "schema": {"type": "string", "minLength": 1}}]


def register(spec) -> None:
    """The data schema of each event, as a component (the events' entries name them)."""
    for e in EVENTS.values():
        name = _name(e["schema"])
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=e["schema"])


def _name(cls) -> str:
    return cls.__name__.removesuffix("Schema")


def openapi_operation(error_response, converter) -> dict:
    """GET .../analysis/events as the OpenAPI document describes it, made from what this
    module serves: the polling route's query (AnalysisQuerySchema, by `converter`, the
    document's marshmallow converter), the events of EVENTS, and ERRORS, each described by
    `error_response(status, reasons)`."""
    events = "; ".join(f"`{name}` {e['data']}: {e['description']}" for name, e in EVENTS.items())
    return {
        "tags": ["analysis"],
        "summary": "The analysis job of a finished match, its progress as it comes",
        "description": "Served by `domino serve` and `domino gateway` on their event loop. "
                       "The job of GET .../analysis for the same query (started if new, "
                       "followed if running, answered at once if kept), as a stream. A "
                       "refused request answers JSON, not a stream, as GET .../analysis "
                       "does. `Authorization: Bearer <key>` counts the job against that "
                       "key's quota.",
        "parameters": converter.schema2parameters(schemas_analysis.AnalysisQuerySchema,
                                                  location="query"),
        "responses": {
            "200": {"description": f"text/event-stream, no `id`; comment lines keep an idle "
                                   f"stream open: {events}",
                    "content": {"text/event-stream": {
                        "schema": {"type": "string"},
                        "x-sse-events": {name: {
                            "data": e["data"], "description": e["description"],
                            "schema": {"$ref": f"#/components/schemas/{_name(e['schema'])}"}}
                            for name, e in EVENTS.items()}}}},
            **{str(status): error_response(status, OWN_REASONS.get(status))
               for status in ERRORS},
            "default": {"$ref": "#/components/responses/DEFAULT_ERROR"},
        },
    }
