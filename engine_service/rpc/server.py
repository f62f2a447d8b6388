"""The gRPC surface: Engine and Play servicers, health, reflection, keepalive.

Servicers are thin: decode the request, make one engine call, encode the answer (codec.py).
A refusal (EngineError) ends the call with the status code of its reason (status.py).

One grpc.aio server on an event loop thread of its own serves everything. The move path
runs on that loop: Play and Watch streams are coroutines (play_session.py), and so are
GetView and SubmitMove; their work is short (a match's lock, a commit; a store that does
not answer is bounded and then refused at once, storage/health.py). Every other method
is a plain function that the server runs on its thread pool, where a call may take its
time (a listing, a record, a ladder) without holding up the loop.

gRPC health follows the store: NOT_SERVING for every service while it is away, SERVING
again when it answers (and NOT_SERVING for good once the engine drains).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from domino_proto.domino.v1 import (
    analysis_pb2,
    arena_pb2,
    engine_pb2,
    engine_pb2_grpc,
    ladder_pb2,
    play_pb2,
    play_pb2_grpc,
)

from ..core.engine import Engine
from ..core.errors import EngineError
from ..core.security import limits
from . import codec
from .analysis_service import AnalysisServicer
from .arena_service import ArenaServicer
from .decode import add_service
from .ladder_service import LadderServicer
from .moves import Mover
from .play_session import PlaySession
from .status import async_refusals, bearer, peer_address, refusals
from .watch import WatchSession
from .worlds_job import draw_serialized

log = logging.getLogger(__name__)

# HTTP/2 pings every 5 s, answered within 3 s, so a dead peer is noticed in under 10 s.
SERVER_OPTIONS = [
    # A second engine on a port in use must fail to start, not share the port (gRPC
    # Python turns SO_REUSEPORT on by default).
    ("grpc.so_reuseport", 0),
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 3000),
    # Clients may ping once a second, with or without a call open (grpc-go never pings
    # more often than every 10 s). The name is gRPC core's string for
    # GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS: under any other, gRPC keeps its
    # default of 5 minutes, and a client pinging a quiet connection is sent away with
    # "too_many_pings" at its third early ping (max_ping_strikes, default 2).
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 1000),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.http2.bdp_probe", 0),
]


def _left(context) -> float | None:
    """The seconds left before the call's deadline, less a margin for the answer to
    travel (None: the caller set no deadline)."""
    left = context.time_remaining()
    return None if left is None or left > 1e6 else max(0.0, left - 0.2)


class EngineServicer(engine_pb2_grpc.EngineServicer):
    def __init__(self, engine: Engine, mover: Mover):
        self.engine, self.mover = engine, mover

    @refusals
    def CreateMatch(self, request, context):
        if request.HasField("fork"):
            with self.engine.forking_for(peer_address(context)):
                return self._create_match(request, context)
        return self._create_match(request, context)

    def _create_match(self, request, context):
        principal = self.engine.keys.principal(bearer(context))
        fork = None
        if request.HasField("fork"):   # the variant is the record's; naming it is optional
            fork = (request.fork.record_json, request.fork.at)
        variant = codec.variant_of(request.variant) if request.variant or not fork else ""
        # A fork's options and deals are its record's: any given are decoded only for the
        # engine to refuse them ("fork", Engine.create_match).
        given = "" if fork else variant
        referee = self.engine.create_match(
            variant, codec.options_given_of(given, request.options, "options"),
            request.seed if request.HasField("seed") else None,
            codec.deals_of(given, request.deals), codec.seat_specs_of(request.seats),
            request.bot_clock_ms, request.person_clock_ms, principal=principal,
            here=request.here, fork=fork, wait_s=_left(context))
        return engine_pb2.CreateMatchResponse(match_id=referee.id, num_seats=len(referee.seats),
                                              summary=codec.summary(referee.summary()),
                                              claim_secrets=referee.take_claim_secrets())

    @refusals
    def ClaimSeat(self, request, context):
        who = self.engine.keys.claimant(bearer(context))
        seat_token = self.engine.claim_seat(request.match_id, request.seat, who,
                                            request.claim_secret)
        return engine_pb2.ClaimSeatResponse(match_id=request.match_id, seat=request.seat,
                                            seat_token=seat_token)

    @refusals
    def ListMatches(self, request, context):
        found = self.engine.list_matches(codec.status_of(request.status), request.limit)
        return engine_pb2.ListMatchesResponse(matches=[codec.summary(s) for s in found])

    @refusals
    def GetMatch(self, request, context):
        referee = self.engine.spectate(request.match_id)
        return engine_pb2.GetMatchResponse(summary=codec.summary(referee.summary()),
                                           view=codec.typed_view(referee.seat_view(None)))

    @refusals
    def ListVariants(self, request, context):
        return codec.variants()

    # GetView and SubmitMove, the calls a REST client makes per move, run on the event
    # loop (short, and a thread hand-over each way saved); SubmitMove's move is played
    # where a Play stream's are (moves.py: on a thread when the store is PostgreSQL).
    @async_refusals
    async def GetView(self, request, context):
        view = self.engine.view(request.match_id, request.seat_token)
        return codec.seat_state(request.match_id, view)

    @async_refusals
    async def SubmitMove(self, request, context):
        seat, accepted = await self.mover.play(
            time.perf_counter(), self.engine.submit, request.match_id, request.seat_token,
            request.expected_version, request.move_id, request.move_text)
        return codec.submit_response(seat, accepted)

    @async_refusals
    async def Watch(self, request, context):
        await WatchSession(self.engine, request.match_id, request.seat_token,
                           peer_address(context)).run(context.write)

    @refusals
    def GetPool(self, request, context):
        limits.text(request.name, "name", limits.POOL_MAX, required=True,
                    pattern=limits.POOL_NAME)
        return engine_pb2.PoolInfo(**self.engine.pools.info(request.name))

    @refusals
    def ListEngines(self, request, context):
        return engine_pb2.ListEnginesResponse(engines=[
            engine_pb2.EngineInfo(**e) for e in self.engine.members()])

    @refusals
    def GetRecord(self, request, context):
        return engine_pb2.GetRecordResponse(
            record_json=codec.dumps(self.engine.record(request.match_id)))


class PlayServicer(play_pb2_grpc.PlayServicer):
    def __init__(self, engine: Engine, mover: Mover):
        self.engine, self.mover = engine, mover

    @async_refusals
    async def Connect(self, request_iterator, context):
        await PlaySession(self.engine, self.mover).run(request_iterator, context.write)

    # On the loop: let in or refused at once, a refusal held back without a thread (so a
    # client asking again at once makes no flood of it); the work itself waits for the
    # sampler's worker process on a thread of the loop's executor.
    @async_refusals
    async def SampleWorlds(self, request, context):
        try:
            ticket = self.engine.admit_worlds(request.match_id, request.seat_token,
                                              request.count, request.seed,
                                              peer_address(context))
        except EngineError as err:
            await asyncio.sleep(self.engine.worlds.pause_of(err))
            raise
        seen, done = await asyncio.get_running_loop().run_in_executor(
            None, self.engine.worlds.work, ticket, draw_serialized)
        return codec.worlds_response(request.match_id, ticket.seat, seen, done)


SERVICE_NAMES = [engine_pb2.DESCRIPTOR.services_by_name["Engine"].full_name,
                 play_pb2.DESCRIPTOR.services_by_name["Play"].full_name,
                 ladder_pb2.DESCRIPTOR.services_by_name["Ladder"].full_name,
                 arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name,
                 analysis_pb2.DESCRIPTOR.services_by_name["Analysis"].full_name]
HEALTH_NAMES = ["", *SERVICE_NAMES]   # "": the whole server


async def add_health_and_reflection(server: grpc.aio.Server) -> health.aio.HealthServicer:
    checker = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in HEALTH_NAMES:
        await checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection([*SERVICE_NAMES, health.SERVICE_NAME,
                                         reflection.SERVICE_NAME], server)
    return checker


class EngineServer:
    """The grpc.aio server and the event loop thread it runs on, driven from plain threads.

    An open Play or Watch stream costs no thread; a call of a plain method in progress
    holds a thread of the pool, so max_workers bounds those."""

    def __init__(self, engine: Engine, host: str, port: int, max_workers: int):
        self._loop = asyncio.new_event_loop()
        self._pool = futures.ThreadPoolExecutor(max_workers=max_workers,
                                                thread_name_prefix="rpc")
        # The loop's own blocking calls (asyncio.to_thread: an arena seat stream's key, a
        # lobby's enlisting and leaving, an Analyse stream waiting for its next step)
        # share that pool. asyncio's default is min(32, cores + 4) threads, 6 on 2 cores:
        # six clients following analyses would hold them all, and 1,000 arena bots' seat
        # streams queued there for seconds while the store answered slowly.
        self._loop.set_default_executor(self._pool)
        self._stopped = threading.Event()
        self._mover = Mover(engine.store.remote)
        threading.Thread(target=self._run, name="rpc-loop", daemon=True).start()
        try:
            self.port = asyncio.run_coroutine_threadsafe(
                self._start(engine, host, port), self._loop).result()
        except BaseException:
            self._loop.call_soon_threadsafe(self._loop.stop)
            raise

    def _run(self) -> None:
        try:
            self._loop.run_forever()
            # Calls that stop(grace) cancelled may still be unwinding when the loop stops
            # (a stream cancelled while it waited for its Hello, say): they are let finish
            # first, since cancelling one of grpc's own tasks makes grpc log a
            # CancelledError traceback. Only what still runs after that (a unary call
            # blocked on its thread) is cancelled, not destroyed with the loop.
            left = self._finish(asyncio.all_tasks(self._loop))
            for task in left:
                task.cancel()
            self._finish(left)
        finally:
            self._loop.close()
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._mover.close()
            self._stopped.set()

    def _finish(self, tasks: set[asyncio.Task], timeout: float = 2.0) -> set[asyncio.Task]:
        """Run the stopped loop until `tasks` are done or `timeout` passes; those not done."""
        if tasks:
            self._loop.run_until_complete(asyncio.wait(tasks, timeout=timeout))
        return {task for task in tasks if not task.done()}

    async def _start(self, engine: Engine, host: str, port: int) -> int:
        self._server = grpc.aio.server(migration_thread_pool=self._pool,
                                       options=SERVER_OPTIONS)
        for servicer, module, name in ((EngineServicer(engine, self._mover), engine_pb2,
                                        "Engine"),
                                       (PlayServicer(engine, self._mover), play_pb2, "Play"),
                                       (LadderServicer(engine), ladder_pb2, "Ladder"),
                                       (ArenaServicer(engine), arena_pb2, "Arena"),
                                       (AnalysisServicer(engine), analysis_pb2, "Analysis")):
            add_service(self._server, servicer, module.DESCRIPTOR.services_by_name[name])
        self._health = await add_health_and_reflection(self._server)
        self._store_health = engine.store.health
        self._store_health.listen(self._store_changed)
        if not self._store_health.up:
            await self._follow_store()
        try:
            bound = self._server.add_insecure_port(f"{host}:{port}")
        except RuntimeError:    # grpc refuses a port it cannot bind
            bound = 0
        if bound == 0:
            raise OSError(f"cannot listen on {host}:{port}: the port is in use or the "
                          "address is not this machine's")
        await self._server.start()
        return bound

    def _store_changed(self, up: bool) -> None:
        """On the thread that saw the change, maybe this loop's own: never wait here."""
        try:
            asyncio.run_coroutine_threadsafe(self._follow_store(), self._loop)
        except RuntimeError:   # the loop is closed: the server is gone
            pass

    async def _follow_store(self) -> None:
        # The state now, not the one of the change: two changes close together may run
        # in either order, and the last one run must leave the truth.
        status = (health_pb2.HealthCheckResponse.SERVING if self._store_health.up
                  else health_pb2.HealthCheckResponse.NOT_SERVING)
        for name in HEALTH_NAMES:
            await self._health.set(name, status)

    def not_serving(self) -> None:
        """gRPC health says NOT_SERVING for every service (the engine is draining)."""
        asyncio.run_coroutine_threadsafe(self._health.enter_graceful_shutdown(),
                                         self._loop).result(5)

    def stop(self, grace: float | None = None) -> threading.Event:
        """Stop serving (calls in progress get `grace` seconds); the returned event is set
        once the loop has stopped."""
        if not self._stopped.is_set():
            try:
                done = asyncio.run_coroutine_threadsafe(self._server.stop(grace), self._loop)
            except RuntimeError:    # stopped already
                return self._stopped
            done.add_done_callback(lambda _: self._loop.call_soon_threadsafe(self._loop.stop))
        return self._stopped


def start_server(engine: Engine, host: str = "127.0.0.1", port: int = 0,
                 max_workers: int = 256) -> tuple[EngineServer, int]:
    """Start serving `engine`; returns the server and the bound port (port 0 picks one)."""
    server = EngineServer(engine, host, port, max_workers)
    return server, server.port
