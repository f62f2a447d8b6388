"""GET /api/v1/matches/{match_id}/events on the gateway's event loop (ASGI, grpc.aio).

An open event stream costs a coroutine and a queue, not a thread. Spectators of one match
share one engine Watch stream per gateway process (a Fanout): the engine sends each
update once to the gateway, and the gateway writes the same text to every spectator. A
seat's stream (with its seat token) is private: it has an engine Watch of its own.

A spectator joining a match that is under way gets a snapshot from GetMatch, taken after
its Fanout is subscribed, and then only the updates past that snapshot's version, so it
misses nothing and sees nothing twice. A spectator that stops reading (its queue passes
MAX_BEHIND updates) is dropped; its browser reconnects and starts from a fresh snapshot.
How many streams are open at once, in all and per address, is bounded (stream_caps.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import NamedTuple
from urllib.parse import parse_qs

import grpc

from domino_proto.domino.v1 import common_pb2, engine_pb2, engine_pb2_grpc
from domino_wire.routing import GIVE_UP_S, RETRY_S, addresses_of, where_next

from . import convert, metrics, schemas_stream, sse
from .engine_client import CHANNEL_OPTIONS, api_error
from .errors import ApiError
from .stream_caps import StreamCaps

log = logging.getLogger(__name__)

PATH = re.compile(r"/api/v1/matches/([^/]+)/events/?")
MAX_BEHIND = 1000      # updates a spectator may have unread before it is dropped
END = object()
MATCH_ID_MAX = 64      # a longer match id is refused here, before the engine is asked
SEAT_TOKEN = "seat_token"   # the query parameter of a seat token (EventSource sends no headers)
# The JSON errors a request for a stream can answer before its stream starts: its own (400
# a match id too long, 401 an Authorization header with no bearer token) and the engine's
# refusal of the Watch as every route maps it (engine_client.api_error: 400 a malformed
# token, 401 a wrong one, 404 an unknown match, 409 a spectator of a duplicate ladder's
# match whose set is in play (DEAL_IN_PLAY), 502 a failed or empty stream, 503 and 504 the
# engine away or slow).
ERRORS = (400, 401, 404, 409, 502, 503, 504)
OWN_REASONS = {409: ("DEAL_IN_PLAY",)}   # the statuses whose reasons are this route's own


class Update(NamedTuple):
    version: int | None      # None: a keepalive or an error, for everyone
    text: str                # the SSE text, made once for every spectator
    last: bool               # the stream ends after it


class Fanout:
    """One engine Watch stream of one match, as a spectator, and the spectators sharing it."""

    def __init__(self, streams: EventStreams, match_id: str):
        self.streams, self.match_id = streams, match_id
        self.queues: set[asyncio.Queue] = set()
        self.ready = asyncio.Event()          # the engine stream is subscribed (or failed)
        self.failure: ApiError | None = None
        self.task = asyncio.get_running_loop().create_task(self._run())

    def join(self) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue()
        self.queues.add(queue)
        return queue

    def leave(self, queue: asyncio.Queue) -> None:
        self.queues.discard(queue)
        if not self.queues and not self.task.done():
            self.task.cancel()               # nobody watches any more
            # The task ends only at its next turn on the loop: a spectator arriving before
            # that would join this Fanout and be sent its END (a stream cut, events lost
            # until the browser reconnects). The next one gets a Fanout of its own.
            if self.streams.fanouts.get(self.match_id) is self:
                del self.streams.fanouts[self.match_id]

    def _broadcast(self, item) -> None:
        for queue in list(self.queues):
            if queue.qsize() >= MAX_BEHIND:
                self.queues.discard(queue)   # a spectator that does not read: let it go
                queue.put_nowait(END)
            else:
                queue.put_nowait(item)

    async def _run(self) -> None:
        call = None
        try:
            call, first = await self.streams.open_watch(self.match_id, "")
            if first.WhichOneof("body") == "snapshot":
                self.ready.set()              # subscribed: every later update comes here
            # read(), as for the first: grpc.aio refuses to mix it with async for
            while (message := await call.read()) is not grpc.aio.EOF:
                kind = message.WhichOneof("body")
                self._broadcast(Update(sse.version_of(message), sse.message_text(message),
                                       kind == "match_over"))
        except asyncio.CancelledError:
            raise
        except ApiError as err:
            self.failure = err
        except grpc.RpcError as err:
            self.failure = api_error(err)
            if self.ready.is_set() and err.code() != grpc.StatusCode.CANCELLED:
                self._broadcast(Update(None, sse.error(self.failure.reason,
                                                       self.failure.message), True))
        except Exception:      # never silent: the spectators reconnect to a new Fanout
            log.exception("the event stream of match %s failed", self.match_id)
            self.failure = ApiError(502, "ENGINE_ERROR", "the event stream failed")
        finally:
            if call is not None:
                call.cancel()
            self.ready.set()
            self._broadcast(END)
            if self.streams.fanouts.get(self.match_id) is self:
                del self.streams.fanouts[self.match_id]


class EventStreams:
    """Every event stream of one gateway process; made with the app, used on the loop.
    A match's engine is found as every client finds it (domino_wire/routing.py): a call
    refused with NOT_OWNER goes to the owner it names; a stream that ends because its
    match moved (a failover) makes the browser reconnect, and it is found again."""

    def __init__(self, address: str, watch_timeout: float, cors_headers,
                 caps: StreamCaps | None = None):
        self.addresses, self.watch_timeout = addresses_of(address), watch_timeout
        self.caps = caps or StreamCaps()
        self.cors_headers = cors_headers          # origin -> extra response headers
        self.fanouts: dict[str, Fanout] = {}
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._stubs: dict[tuple[str, type], object] = {}
        self._engine_of: dict[str, str] = {}      # match id -> the engine last seen owning it

    def stub(self, address: str | None = None, kind: type = engine_pb2_grpc.EngineStub):
        """The `kind` stub (a service's: Engine, Analysis) of an engine; every service of
        one engine shares its one channel."""
        address = address or self.addresses[0]
        stub = self._stubs.get((address, kind))
        if stub is None:                     # made on the loop it will be used on
            if address not in self._channels:
                self._channels[address] = grpc.aio.insecure_channel(address,
                                                                    options=CHANNEL_OPTIONS)
            stub = self._stubs[(address, kind)] = kind(self._channels[address])
        return stub

    async def routed(self, match_id: str, attempt, kind: type = engine_pb2_grpc.EngineStub):
        """`attempt(stub)`, a `kind` stub, on the engine that owns the match, following
        NOT_OWNER."""
        address = self._engine_of.get(match_id, self.addresses[0])
        give_up = asyncio.get_running_loop().time() + GIVE_UP_S
        while True:
            try:
                result = await attempt(self.stub(address, kind))
                self._engine_of[match_id] = address
                return result
            except grpc.RpcError as err:
                step, owner = where_next(err)
                if step == "fail" or asyncio.get_running_loop().time() > give_up or (
                        step == "away" and self.addresses == [address]):
                    raise api_error(err) from None
                if step == "owner":
                    address = owner
                else:
                    await asyncio.sleep(RETRY_S)
                    i = self.addresses.index(address) if address in self.addresses else -1
                    address = self.addresses[(i + 1) % len(self.addresses)]

    async def get_match(self, match_id: str):
        return await self.routed(match_id, lambda stub: stub.GetMatch(
            engine_pb2.GetMatchRequest(match_id=match_id), timeout=10))

    async def open_watch(self, match_id: str, token: str):
        """A Watch of the match on its engine, and its first message (the snapshot)."""
        async def attempt(stub):
            call = stub.Watch(engine_pb2.WatchRequest(match_id=match_id, seat_token=token),
                              timeout=self.watch_timeout)
            return await opened(call)
        return await self.routed(match_id, attempt)

    async def close(self) -> None:
        for fanout in list(self.fanouts.values()):
            fanout.task.cancel()
        for channel in self._channels.values():
            await channel.close()

    # ----- one HTTP request ---------------------------------------------------------------
    async def serve(self, scope, receive, send) -> None:
        match_id = PATH.fullmatch(scope["path"])[1]
        await self.capped(scope, send, lambda headers, extra: self._serve(
            match_id, headers, scope, receive, send, extra))

    async def capped(self, scope, send, serve) -> None:
        """`await serve(headers, extra)` as one open stream of this gateway's caps (past
        them, 429 TOO_MANY_STREAMS at once); `headers` the request's, `extra` the CORS
        headers of its answer. Every stream of the gateway counts against the same caps."""
        headers = dict(scope["headers"])
        extra = self.cors_headers(headers.get(b"origin", b"").decode("latin-1"))
        address = (scope.get("client") or ("",))[0]
        why = self.caps.enter(address)
        if why:
            await json_error(send, ApiError(429, "TOO_MANY_STREAMS", why,
                                            headers={"Retry-After": "5"}), extra)
            return
        try:
            await serve(headers, extra)
        finally:
            self.caps.leave(address)

    async def _serve(self, match_id, headers, scope, receive, send, extra) -> None:
        try:
            token = _seat_token(headers, scope.get("query_string", b""))
            if len(match_id) > MATCH_ID_MAX:
                raise ApiError(400, "MALFORMED_REQUEST",
                               f"match_id: is at most {MATCH_ID_MAX} characters",
                               errors={"match_id": [f"is at most {MATCH_ID_MAX} characters"]})
            if token:
                await self._private(match_id, token, receive, send, extra)
            else:
                await self._public(match_id, receive, send, extra)
        except ApiError as err:
            await json_error(send, err, extra)

    async def _public(self, match_id: str, receive, send, extra: dict) -> None:
        fanout = self.fanouts.get(match_id)
        if fanout is None or fanout.task.done():
            fanout = self.fanouts[match_id] = Fanout(self, match_id)
        queue = fanout.join()
        try:
            await fanout.ready.wait()
            if fanout.failure is not None and fanout.task.done():
                raise fanout.failure
            got = await self.get_match(match_id)
            seen = got.summary.version
            async with Stream(send, extra) as out:
                await out.write(sse.RETRY + sse.snapshot(
                    got.summary, convert.spectator_state(got.summary, got.view)))
                if got.summary.status == common_pb2.MATCH_STATUS_OVER:
                    await out.write(sse.match_over(match_id, seen, got.summary.result))
                    return
                await _pump(queue, seen, receive, out, match_id)
        finally:
            fanout.leave(queue)

    async def _private(self, match_id: str, token: str, receive, send, extra: dict) -> None:
        call, first = await self.open_watch(match_id, token)
        try:
            async with Stream(send, extra) as out:
                await out.write(sse.RETRY + sse.message_text(first))

                async def forward() -> None:
                    try:   # read(), as for the first: grpc.aio refuses to mix it with async for
                        while (message := await call.read()) is not grpc.aio.EOF:
                            await out.write(sse.message_text(message))
                    except grpc.RpcError as err:
                        if err.code() != grpc.StatusCode.CANCELLED:
                            failure = api_error(err)
                            await out.write(sse.error(failure.reason, failure.message))

                await until_done_or_gone(forward(), receive, match_id)
        finally:
            call.cancel()


async def opened(call):
    """A stream call and its first message. A refusal comes as that first read's error,
    and an engine that ends the stream at once is a 502; either way the call is cancelled,
    so no half-open stream is left behind."""
    try:
        first = await call.read()
    except BaseException:
        call.cancel()
        raise
    if first is grpc.aio.EOF:
        call.cancel()
        raise ApiError(502, "ENGINE_ERROR", "the engine ended the stream at once")
    return call, first


async def _pump(queue: asyncio.Queue, seen: int, receive, out: Stream, match_id: str) -> None:
    """Write the updates past version `seen` until the match is over, the client goes
    away or the stream ends. The writer waits on its queue alone (an update costs each
    spectator one queue hand-over and one socket write, nothing more); keepalives come
    through the queue too, from the engine's stream."""
    async def write() -> None:
        while (update := await queue.get()) is not END:
            if update.version is not None and update.version <= seen:
                continue          # already in the snapshot
            await out.write(update.text)
            if update.last:
                return

    await until_done_or_gone(write(), receive, match_id)


async def until_done_or_gone(writing, receive, match_id: str) -> None:
    """Run the coroutine `writing` until it ends or the client goes away; a writer that
    fails is logged (never silent), and its stream ends."""
    writer = asyncio.ensure_future(writing)
    gone = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({writer, gone}, return_when=asyncio.FIRST_COMPLETED)
        if writer.done() and not writer.cancelled() and writer.exception() is not None:
            log.error("an event stream%s failed", f" of match {match_id}" if match_id else "",
                      exc_info=writer.exception())
    finally:
        writer.cancel()
        gone.cancel()


# ----- ASGI details -------------------------------------------------------------------------
def _seat_token(headers: dict, query_string: bytes) -> str:
    scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    if headers.get(b"authorization"):
        raise ApiError(401, "NO_TOKEN", "send the seat token as Authorization: Bearer "
                       f"<seat_token> or ?{SEAT_TOKEN}=",
                       headers={"WWW-Authenticate": 'Bearer realm="seat"'})
    return parse_qs(query_string.decode("latin-1")).get(SEAT_TOKEN, [""])[0]


async def _disconnected(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class Stream:
    """An event-stream response: started on entry, finished on exit."""

    def __init__(self, send, extra: dict):
        self.send, self.extra = send, extra

    async def __aenter__(self) -> Stream:
        headers = [(b"content-type", b"text/event-stream; charset=utf-8"),
                   (b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no"),
                   *((k.lower().encode(), v.encode()) for k, v in self.extra.items())]
        await self.send({"type": "http.response.start", "status": 200, "headers": headers})
        metrics.stream_opened()
        return self

    async def write(self, text: str) -> None:
        await self.send({"type": "http.response.body", "body": text.encode(), "more_body": True})

    async def __aexit__(self, *exc) -> None:
        metrics.stream_closed()     # first: the send fails when the client is gone
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})


async def json_error(send, err: ApiError, extra: dict) -> None:
    body = json.dumps(err.body()).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode()),
               *((k.lower().encode(), v.encode()) for k, v in {**err.headers, **extra}.items())]
    await send({"type": "http.response.start", "status": err.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# ----- the OpenAPI document -----------------------------------------------------------------
OPENAPI_TAG = {"name": "events", "description": "Live events of a match as Server-Sent Events"}
# The path's own parameter (the route, as Flask writes it, is metrics.EVENTS_ROUTE).
OPENAPI_PATH_PARAMETERS = [{"in": "path", "name": "match_id", "required": True,
                            "schema": {"type": "string", "minLength": 1,
                                       "maxLength": MATCH_ID_MAX}}]


def openapi_operation(error_response) -> dict:
    """GET .../events as the OpenAPI document describes it, made from what this module
    serves: its optional seat token (header or query), the event stream of sse.EVENTS, and
    ERRORS, each described by `error_response(status, reasons)`."""
    events = "; ".join(f"`{name}` {e['data']}: {e['description']}"
                       for name, e in sse.EVENTS.items())
    return {
        "tags": [OPENAPI_TAG["name"]],
        "summary": "Live events: seat-private with a seat token, public (spectator) without",
        "description": "Served by `domino serve` and `domino gateway` on their event loop. "
                       "Spectators of one match share one engine stream per gateway "
                       "process. An unknown match or a refused token answers JSON, not a "
                       "stream.",
        "parameters": [
            {"in": "query", "name": SEAT_TOKEN, "required": False, "schema": {"type": "string"},
             "description": "the seat token, for EventSource (which cannot send headers); "
                            "the Authorization header works too"},
        ],
        # A seat token is optional: without one the stream is the spectators'.
        "security": [{"seatToken": []}, {}],
        "responses": {
            # x-sse-events: each SSE event name, and the schema of its data JSON
            # (schemas_stream.py); the parsed messages are StreamMessage.
            "200": {"description": f"text/event-stream, each message's `id` its match "
                                   f"version: {events}. Parsed, each message is a "
                                   f"StreamMessage",
                    "content": {"text/event-stream": {
                        "schema": {"type": "string"},
                        "x-sse-events": {name: {**e, "schema": schemas_stream.ref(name)}
                                         for name, e in sse.EVENTS.items()}}}},
            **{str(status): error_response(status, OWN_REASONS.get(status))
               for status in ERRORS},
            "default": {"$ref": "#/components/responses/DEFAULT_ERROR"},
        },
    }
