"""A store outage under a real engine: a PostgreSQL server of its own (tests/pg_server.py)
that can be stopped or frozen, a `domino engine` process on it, matches played by
`domino bot` processes, and what the outage tests and `python -m benchmarks outage` ask
of them: the engine's gRPC health, reads, moves, and the match's log in the database."""

from __future__ import annotations

import contextlib
import time

import grpc
import psycopg
from grpc_health.v1 import health_pb2, health_pb2_grpc

from domino_proto.domino.v1 import common_pb2, engine_pb2
from engine_service.core.matches.referee import Referee
from engine_service.core.storage.factory import open_store
from engine_service.core.storage.postgres import WAIT_ENV, WAIT_S
from tests.engine.support import Client, start_bot, start_engine
from tests.pg_server import PostgresServer

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
MODES = ("stopped", "frozen")    # pg_ctl stop, then start; SIGSTOP, then SIGCONT
NOT_STORED = "00000000deadbeef"  # a well-formed match id no store has: a read needs it


class OutageRig:
    def __init__(self, log_path: str):
        self.pg = PostgresServer()
        try:
            self.dsn = self.pg.database()
            self.log_path = log_path
            # the product's own bound (tests/conftest.py raises it for the others)
            self.proc, self.port = start_engine(self.dsn, 0, log_path,
                                                env={WAIT_ENV: str(int(WAIT_S * 1000))})
        except BaseException:
            self.pg.stop()
            raise
        self.client = Client(self.port)
        self.health_stub = health_pb2_grpc.HealthStub(self.client.channel)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.channel.close()
        self.proc.kill()
        self.proc.wait(10)
        self.pg.stop()

    # ----- the store going away and coming back ---------------------------------------
    def away(self, mode: str) -> None:
        self.pg.halt() if mode == "stopped" else self.pg.freeze()

    def back(self, mode: str) -> None:
        self.pg.start() if mode == "stopped" else self.pg.thaw()

    # ----- what a client sees ----------------------------------------------------------
    def health(self, timeout: float = 1.0):
        """The engine's gRPC health now; None when it did not answer within `timeout`."""
        try:
            return self.health_stub.Check(health_pb2.HealthCheckRequest(service=""),
                                          timeout=timeout).status
        except grpc.RpcError:
            return None

    def wait_health(self, status, timeout: float = 60.0) -> float:
        """Seconds until health says `status` (asked every 10 ms); AssertionError after
        `timeout`."""
        started = time.monotonic()
        while self.health() != status:
            assert time.monotonic() - started < timeout, f"health never said {status}"
            time.sleep(0.01)
        return time.monotonic() - started

    def version(self, match_id: str) -> int:
        return self.client.summary(match_id).summary.version

    def new_match(self, hands: int = 2, delay: float = 0.1, clock_ms: int = 5000,
                  seed: int = 7) -> tuple[str, list[str], list]:
        """An HHL match played by one `domino bot` per seat: (id, seat tokens, bots)."""
        match_id, tokens = self.client.new_match("hhl", {"hands": hands}, seed=seed,
                                                 clock_ms=clock_ms)
        bots = [start_bot(f"127.0.0.1:{self.port}", match_id, s, t, "--delay", str(delay),
                          "--progress-every", "0") for s, t in enumerate(tokens)]
        return match_id, tokens, bots

    def move_of_seat_to_move(self, match_id: str, tokens: list[str]):
        """SubmitMove of the seat to move's first legal move: the answer, or the RpcError."""
        summary = self.client.summary(match_id).summary
        try:
            return self.client.submit(match_id, tokens[summary.to_move], summary.version,
                                      move_id="0")
        except grpc.RpcError as err:
            return err

    def watch_snapshot(self, match_id: str):
        """The first message of a spectator's Watch stream (its snapshot)."""
        stream = self.client.stub.Watch(engine_pb2.WatchRequest(match_id=match_id),
                                        timeout=5)
        try:
            return next(stream)
        finally:
            stream.cancel()

    def reads_needing_the_store(self) -> list[grpc.RpcError | object]:
        """A record no match in memory has, and the finished matches of the lobby."""
        out = []
        for call, request in ((self.client.stub.GetRecord,
                               engine_pb2.GetRecordRequest(match_id=NOT_STORED)),
                              (self.client.stub.ListMatches,
                               engine_pb2.ListMatchesRequest(
                                   status=common_pb2.MATCH_STATUS_OVER))):
            try:
                out.append(call(request, timeout=5))
            except grpc.RpcError as err:
                out.append(err)
        return out

    # ----- what the database says ------------------------------------------------------
    def logged_versions(self, match_id: str) -> list[int]:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            return [v for (v,) in conn.execute(
                "SELECT version FROM moves WHERE match_id = %s ORDER BY version",
                (match_id,)).fetchall()]

    def replayed(self, match_id: str) -> Referee:
        """The match rebuilt from its log by a store of its own."""
        store = open_store(self.dsn)
        try:
            return Referee.restore(store.match(match_id), store, None)
        finally:
            store.close()
