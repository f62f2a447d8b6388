"""The kit's Play proxy: the bot under test talks to it, it talks to the engine.

A grpc.aio server on 127.0.0.1 that speaks the Play service (and passes the Engine and
Ladder services through untouched, so a bot may call them at the same address). Each
Play stream is forwarded to the real engine message by message, and every message is
kept, with the time it passed, in a ``Connection`` that the case it belongs to reads:
what the bot was sent, what it answered, and when. A case may also act on the stream
through its ``Observer``: hold a message back, change it, or delay one.

The engine is asked for every event and every answer (Hello.skip_events and skip_accepted
false upstream), so the kit sees all of them; the bot gets only what its own Hello asked
for, exactly as from the engine itself. A stream the engine ends with a status (a wrong
token, the engine going away) ends the bot's stream with the same status, details and
trailers (the rich status with its Refusal).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

import grpc

from domino_proto.domino.v1 import engine_pb2, ladder_pb2, play_pb2, play_pb2_grpc
from engine_service.rpc.server import SERVER_OPTIONS as ENGINE_SERVER_OPTIONS

HELLO_WAIT_S = 6.0   # a little longer than the engine's own HELLO_TIMEOUT_S

# The proxy serves bots as the engine's server does: bots may ping every second.
SERVER_OPTIONS = ENGINE_SERVER_OPTIONS
# The channel to the engine outlives engine restarts: it must try again at once, not
# after gRPC's default backoff (up to 120 s).
CHANNEL_OPTIONS = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
]
_RESERVED_METADATA = {"user-agent", "content-type", "te", "grpc-accept-encoding",
                      "grpc-encoding", "grpc-timeout"}


@dataclass
class Seen:
    """One message that passed, and when: ``t`` monotonic seconds, ``wall_ms`` the Unix
    time in milliseconds (the engine's clock: the same machine)."""
    t: float
    wall_ms: int
    side: str       # "from_bot", "to_engine", "from_engine", "to_bot"
    message: object


def now() -> tuple[float, int]:
    return time.monotonic(), int(time.time() * 1000)


@dataclass
class Connection:
    """One Play stream of the bot under test, from its Hello to its end."""
    hello: play_pb2.Hello | None
    started: float = field(default_factory=time.monotonic)
    seen: list[Seen] = field(default_factory=list)
    welcomed: list[str] = field(default_factory=list)   # match ids of its Welcomes
    turns: list = field(default_factory=list)    # watch.Turn: the TurnRequests shown to the bot

    def note(self, side: str, message) -> None:
        t, wall = now()
        self.seen.append(Seen(t, wall, side, message))

    def wants(self, message: play_pb2.EngineMessage) -> bool:
        """Would the engine have sent this message to a stream with the bot's own Hello?"""
        kind = message.WhichOneof("body")
        if self.hello is None:
            return True
        if kind == "events":
            return not self.hello.skip_events
        if kind == "answer":
            return not (self.hello.skip_accepted and message.answer.accepted)
        return True


class Observer:
    """What a case does with the streams routed to it. The default forwards everything."""

    upstream: str = ""   # HOST:PORT of the engine the streams go to ("": the proxy's own)

    def connected(self, conn: Connection) -> None:
        """A stream started (its Hello is read)."""

    def changed(self) -> None:
        """Something was noted on one of the case's streams."""

    async def from_bot(self, conn: Connection, message: play_pb2.BotMessage) -> list:
        """The messages to send the engine for this one of the bot's (may wait)."""
        return [message]

    async def from_engine(self, conn: Connection, message: play_pb2.EngineMessage) -> list:
        """The messages to send the bot for this one of the engine's (may wait)."""
        return [message]


def _route_key(message: play_pb2.BotMessage | None) -> tuple | None:
    if message is None or message.WhichOneof("body") != "hello":
        return None
    hello = message.hello
    auth = hello.WhichOneof("auth")
    if auth == "seat":
        return ("match", hello.seat.match_id)
    if auth == "pool":
        return ("pool", hello.pool.pool)
    return None


class Proxy:
    """A Play proxy in front of one engine (``upstream``); streams go to the Observer
    registered for their match id or pool name, anything else straight through."""

    def __init__(self, upstream: str):
        self.upstream = upstream
        self.routes: dict[tuple, Observer] = {}
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._channels: dict[str, grpc.aio.Channel] = {}

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def route(self, key: tuple, observer: Observer) -> None:
        self.routes[key] = observer

    def channel(self, address: str) -> grpc.aio.Channel:
        if address not in self._channels:
            self._channels[address] = grpc.aio.insecure_channel(address, options=CHANNEL_OPTIONS)
        return self._channels[address]

    async def start(self) -> int:
        self._server = grpc.aio.server(options=SERVER_OPTIONS)
        play_pb2_grpc.add_PlayServicer_to_server(_PlayProxy(self), self._server)
        for module, name in ((engine_pb2, "Engine"), (ladder_pb2, "Ladder")):
            self._server.add_generic_rpc_handlers([_pass_through(
                self, module.DESCRIPTOR.services_by_name[name])])
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        await self._server.start()
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            await self._server.stop(0)
        for channel in self._channels.values():
            await channel.close()


class _PlayProxy(play_pb2_grpc.PlayServicer):
    def __init__(self, proxy: Proxy):
        self.proxy = proxy

    async def Connect(self, request_iterator, context):
        try:
            first = await asyncio.wait_for(anext(request_iterator, None), HELLO_WAIT_S)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED,
                                f"HELLO_TIMEOUT: no Hello within {HELLO_WAIT_S:.0f} s")
            return
        if first is None:
            return
        observer = self.proxy.routes.get(_route_key(first)) or Observer()
        hello = first.hello if first.WhichOneof("body") == "hello" else None
        conn = Connection(hello)
        observer.connected(conn)
        conn.note("from_bot", first)
        upstream_hello = play_pb2.BotMessage()
        upstream_hello.CopyFrom(first)
        if hello is not None:
            # The kit sees everything; the bot is sent only what it asked for (Connection.wants).
            upstream_hello.hello.skip_events = False
            upstream_hello.hello.skip_accepted = False
        channel = self.proxy.channel(observer.upstream or self.proxy.upstream)
        call = play_pb2_grpc.PlayStub(channel).Connect()

        def changed():
            observer.changed()

        async def to_engine():
            try:
                conn.note("to_engine", upstream_hello)
                await call.write(upstream_hello)
                changed()
                async for message in request_iterator:
                    conn.note("from_bot", message)
                    changed()
                    for out in await observer.from_bot(conn, message):
                        conn.note("to_engine", out)
                        await call.write(out)
                        changed()
                await call.done_writing()
            except (grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
                pass   # the engine's side ended; to_bot says how

        writer = asyncio.ensure_future(to_engine())
        code, details, trailers = grpc.StatusCode.OK, "", ()
        try:
            while True:
                message = await call.read()
                if message is grpc.aio.EOF:
                    break
                conn.note("from_engine", message)
                if message.WhichOneof("body") == "welcome":
                    conn.welcomed.append(message.welcome.match_id)
                changed()
                for out in await observer.from_engine(conn, message):
                    if conn.wants(out):
                        await context.write(out)
                        conn.note("to_bot", out)
                        changed()
            code = await call.code()
            details = await call.details() or ""
            trailers = await call.trailing_metadata() or ()
        except grpc.aio.AioRpcError as e:
            code, details, trailers = e.code(), e.details() or "", e.trailing_metadata() or ()
        finally:
            writer.cancel()
            call.cancel()
            changed()
        if code != grpc.StatusCode.OK:
            context.set_trailing_metadata(tuple(trailers))
            await context.abort(code, details)


def _pass_through(proxy: Proxy, service) -> grpc.GenericRpcHandler:
    """Every method of an Engine-side service, forwarded as bytes to the proxy's engine."""
    handlers = {}
    for method in service.methods:
        path = f"/{service.full_name}/{method.name}"
        if method.client_streaming:
            continue    # none today
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _forward_stream(proxy, path))
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(_forward_unary(proxy, path))
    return grpc.method_handlers_generic_handler(service.full_name, handlers)


def _metadata(context) -> tuple:
    return tuple((k, v) for k, v in (context.invocation_metadata() or ())
                 if k not in _RESERVED_METADATA and not k.startswith(":"))


def _forward_unary(proxy: Proxy, path: str):
    async def forward(request: bytes, context):
        call = proxy.channel(proxy.upstream).unary_unary(path)(
            request, metadata=_metadata(context), timeout=context.time_remaining())
        try:
            return await call
        except grpc.aio.AioRpcError as e:
            context.set_trailing_metadata(tuple(e.trailing_metadata() or ()))
            await context.abort(e.code(), e.details() or "")
    return forward


def _forward_stream(proxy: Proxy, path: str):
    async def forward(request: bytes, context):
        call = proxy.channel(proxy.upstream).unary_stream(path)(
            request, metadata=_metadata(context), timeout=context.time_remaining())
        try:
            async for message in call:
                yield message
        except grpc.aio.AioRpcError as e:
            context.set_trailing_metadata(tuple(e.trailing_metadata() or ()))
            await context.abort(e.code(), e.details() or "")
        finally:
            with contextlib.suppress(Exception):
                call.cancel()
    return forward
