"""The gateway's only way to the engine: one gRPC channel per process, a deadline on every call.

Every method makes one Engine (or Ladder) call and returns the protobuf answer. A failed
call raises ApiError (gateway/errors.py) with the HTTP status of the error table in
docs/protocol.md and the engine's Refusal (reason, message, version, legal moves) when it
sent one.
"""

from __future__ import annotations

import logging
import os
import re
import threading

import grpc

from domino_proto.domino.v1 import (
    arena_pb2,
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    ladder_pb2,
    play_pb2,
)
from domino_wire.refusals import refusal_of
from domino_wire.routing import Router

from . import metrics
from .errors import ApiError

log = logging.getLogger(__name__)

# gRPC status -> (HTTP status, reason used when the engine sent no Refusal).
HTTP_OF = {
    grpc.StatusCode.INVALID_ARGUMENT: (400, "MALFORMED_REQUEST"),
    grpc.StatusCode.UNAUTHENTICATED: (401, "BAD_TOKEN"),
    grpc.StatusCode.PERMISSION_DENIED: (403, "FORBIDDEN"),
    grpc.StatusCode.NOT_FOUND: (404, "UNKNOWN_MATCH"),
    grpc.StatusCode.FAILED_PRECONDITION: (409, "ILLEGAL"),
    grpc.StatusCode.ABORTED: (409, "STALE_VERSION"),
    grpc.StatusCode.ALREADY_EXISTS: (409, "SEAT_TAKEN"),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (429, "QUOTA_EXCEEDED"),
    grpc.StatusCode.INTERNAL: (502, "ENGINE_ERROR"),
    grpc.StatusCode.UNAVAILABLE: (503, "ENGINE_UNAVAILABLE"),
    grpc.StatusCode.DEADLINE_EXCEEDED: (504, "ENGINE_TIMEOUT"),
}

# Reasons whose HTTP status is not their gRPC code's: a Hello that never came is a request
# timeout; a retired bot is, for REST (rotate, retire: no route takes a bot key), a bot
# that can no longer change (gRPC says UNAUTHENTICATED because its key opens nothing).
REASON_STATUS = {"HELLO_TIMEOUT": 408, "BOT_RETIRED": 409}

FAILOVER_WAIT_S = 6.0   # how long a REST request waits for a match's engine to be found

# Notice a dead engine within seconds (as the bots do), without pinging an idle channel.
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 10000),
    ("grpc.keepalive_timeout_ms", 5000),
    ("grpc.http2.max_pings_without_data", 0),
]


def api_error(err: grpc.RpcError, not_found: str = "UNKNOWN_MATCH") -> ApiError:
    """The ApiError for a failed engine call (refusal details from the trailing metadata);
    `not_found` is the reason of a NOT_FOUND that came without a Refusal."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    metrics.engine_call_failed(code.name if isinstance(code, grpc.StatusCode) else str(code))
    status, reason = HTTP_OF.get(code, (502, "ENGINE_ERROR"))
    if code == grpc.StatusCode.NOT_FOUND:
        reason = not_found
    refusal = refusal_of(err)
    if refusal is not None and refusal.reason:
        status = REASON_STATUS.get(refusal.reason, status)
        return ApiError(status, refusal.reason, refusal.message,
                        refusal.version if refusal.HasField("version") else None,
                        [{"id": m.id, "text": m.text} for m in refusal.legal_moves],
                        errors={rest_field(refusal.field):
                                [refusal.message.removeprefix(refusal.field + ": ")]}
                        if refusal.field else None)
    if code == grpc.StatusCode.UNAVAILABLE:
        message = "the engine is unreachable; try again shortly"
    elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
        message = "the engine did not answer in time"
    else:
        message = (err.details() if hasattr(err, "details") else None) or str(code)
    return ApiError(status, reason, message)


def _key_metadata(key: str) -> tuple:
    return (("authorization", f"Bearer {key}"),) if key else ()


def rest_field(field: str) -> str:
    """The REST name of a field the engine named: an index is one more dotted part, as
    marshmallow names them ("deals[0]" is "deals.0", "seats[2].name" "seats.2.name").
    A fork's record is JSON text on the wire and a JSON document in REST."""
    field = REST_NAMES.get(field, field)
    return re.sub(r"\[(\d+)\]", r".\1", field)


REST_NAMES = {"fork.record_json": "fork.record"}


class EngineClient:
    """The engine (or the engines of a cluster: ENGINE_ADDRESS "A,B,C") through one
    Router per process (domino_wire/routing.py: a request goes to the engine that owns its
    match), made lazily and made again after a fork."""

    def __init__(self, address: str, timeout: float = 5.0, watch_timeout: float = 900.0):
        self.address = address
        self.timeout = timeout
        self.watch_timeout = watch_timeout
        self._lock = threading.Lock()
        self._pid = None
        self._router: Router | None = None

    @property
    def router(self) -> Router:
        if self._pid != os.getpid():   # a forked worker must not share its parent's channels
            with self._lock:
                if self._pid != os.getpid():
                    self._router = Router(self.address, CHANNEL_OPTIONS,
                                          give_up_s=FAILOVER_WAIT_S)
                    self._pid = os.getpid()
        return self._router

    @property
    def stub(self) -> engine_pb2_grpc.EngineStub:
        """The first engine's stub (tests; routes use the methods below)."""
        return self.router.stub(self.router.addresses[0])

    def close(self) -> None:
        with self._lock:
            if self._router is not None and self._pid == os.getpid():
                self._router.close()
            self._router = self._pid = None

    def _call(self, method: str, request, key: str = "", about: str = ""):
        try:
            return self.router.call(method, request, about=about, timeout=self.timeout,
                                    metadata=_key_metadata(key))
        except grpc.RpcError as err:
            raise api_error(err) from None

    def _call_ladder(self, method: str, request, key: str = "", about: str = ""):
        try:
            return self.router.call(method, request, about=about, service="Ladder",
                                    timeout=self.timeout, metadata=_key_metadata(key))
        except grpc.RpcError as err:
            refused = api_error(err, not_found="UNKNOWN_LADDER")
            refused.version = None   # a ladder has no match version
            raise refused from None

    def _call_arena(self, method: str, request, key: str = ""):
        """An Arena call: any engine of a cluster answers it (its rows are the store's)."""
        try:
            return self.router.call(method, request, service="Arena", timeout=self.timeout,
                                    metadata=_key_metadata(key))
        except grpc.RpcError as err:
            refused = api_error(err, not_found="UNKNOWN_BOT")
            refused.version = None   # an arena call concerns no match version
            raise refused from None

    def everywhere(self, method: str, request, service: str = "Engine") -> list:
        """`method` on every live engine of the cluster (one, for an engine on SQLite):
        for lists of what each engine holds."""
        try:
            engines = self.router.call("ListEngines", engine_pb2.ListEnginesRequest(),
                                       timeout=self.timeout).engines
        except grpc.RpcError as err:
            raise api_error(err) from None
        answers = []
        for address in [e.address for e in engines if e.live and e.address] or \
                [self.router.addresses[0]]:
            try:
                answers.append(getattr(self.router.stub(address, service), method)(
                    request, timeout=self.timeout))
            except grpc.RpcError as err:
                if len(engines) <= 1:
                    raise api_error(err) from None
                metrics.engine_call_failed(err.code().name)
                log.warning("engine %s did not answer %s: %s", address, method, err.code())
        return answers

    # ----- one method per Engine rpc --------------------------------------------------
    def create_match(self, request: engine_pb2.CreateMatchRequest, key: str = ""):
        return self._call("CreateMatch", request, key)

    def claim_seat(self, match_id: str, seat: int, key: str = "", claim_secret: str = ""):
        return self._call("ClaimSeat", engine_pb2.ClaimSeatRequest(
            match_id=match_id, seat=seat, claim_secret=claim_secret), key, about=match_id)

    def list_matches(self, status: int, limit: int) -> list:
        """Every engine's matches, newest first; a finished match once."""
        request = engine_pb2.ListMatchesRequest(status=status, limit=limit)
        found = {}
        for answer in self.everywhere("ListMatches", request):
            for m in answer.matches:
                if m.match_id not in found or m.status != common_pb2.MATCH_STATUS_OVER:
                    found[m.match_id] = m
        return sorted(found.values(), key=lambda m: m.created_unix_ms, reverse=True)[:limit]

    def get_match(self, match_id: str):
        return self._call("GetMatch", engine_pb2.GetMatchRequest(match_id=match_id),
                          about=match_id)

    def get_view(self, match_id: str, token: str):
        return self._call("GetView", engine_pb2.GetViewRequest(match_id=match_id, seat_token=token),
                          about=match_id)

    def submit_move(self, match_id: str, token: str, version: int, move_id: str = "",
                    move_text: str = ""):
        request = engine_pb2.SubmitMoveRequest(match_id=match_id, seat_token=token,
                                               expected_version=version)
        if move_id:
            request.move_id = move_id
        else:
            request.move_text = move_text
        return self._call("SubmitMove", request, about=match_id)

    def list_variants(self):
        return self._call("ListVariants", engine_pb2.ListVariantsRequest())

    def get_pool(self, name: str):
        return self._call("GetPool", engine_pb2.GetPoolRequest(name=name))

    def get_record(self, match_id: str):
        return self._call("GetRecord", engine_pb2.GetRecordRequest(match_id=match_id),
                          about=match_id)

    def watch(self, match_id: str, token: str = ""):
        """The Watch stream on the match's engine and its first message (cancel the call
        when done). Its deadline is long: an SSE client reconnects when it ends and gets a
        fresh snapshot."""
        try:
            return self.router.open_stream(
                "Watch", engine_pb2.WatchRequest(match_id=match_id, seat_token=token),
                about=match_id, timeout=self.watch_timeout)
        except grpc.RpcError as err:
            raise api_error(err) from None

    def get_analysis(self, request, key: str = ""):
        """Analysis.GetAnalysis on the match's engine: the job's state, started if new."""
        try:
            return self.router.call("GetAnalysis", request, about=request.match_id,
                                    service="Analysis", timeout=self.timeout,
                                    metadata=_key_metadata(key))
        except grpc.RpcError as err:
            raise api_error(err) from None

    def list_engines(self):
        return self._call("ListEngines", engine_pb2.ListEnginesRequest())

    def sample_worlds(self, match_id: str, token: str, count: int, seed: int):
        try:
            return self.router.call("SampleWorlds", play_pb2.SampleWorldsRequest(
                match_id=match_id, seat_token=token, count=count, seed=seed),
                about=match_id, service="Play", timeout=self.timeout)
        except grpc.RpcError as err:
            raise api_error(err) from None

    # ----- one method per Ladder rpc --------------------------------------------------
    def create_ladder(self, request: ladder_pb2.CreateLadderRequest, key: str = ""):
        return self._call_ladder("CreateLadder", request, key)

    def cancel_ladder(self, ladder_id: str, key: str = ""):
        return self._call_ladder("CancelLadder", ladder_pb2.GetLadderRequest(ladder_id=ladder_id),
                                 key, about=ladder_id)

    def list_ladders(self) -> list:
        """Every engine's ladders, newest first; each once (a finished one may be known to
        several engines)."""
        found = {}
        for answer in self.everywhere("ListLadders", ladder_pb2.ListLaddersRequest(), "Ladder"):
            for d in answer.ladders:
                if d.ladder_id not in found or d.status in (ladder_pb2.LADDER_STATUS_RUNNING,
                                                            ladder_pb2.LADDER_STATUS_PAUSED):
                    found[d.ladder_id] = d
        return sorted(found.values(), key=lambda d: d.created_unix_s, reverse=True)

    def get_ladder(self, ladder_id: str):
        return self._call_ladder("GetLadder", ladder_pb2.GetLadderRequest(ladder_id=ladder_id),
                                 about=ladder_id)

    def get_standings(self, ladder_id: str):
        return self._call_ladder("GetStandings", ladder_pb2.GetLadderRequest(ladder_id=ladder_id),
                                 about=ladder_id)

    def list_ladder_matches(self, ladder_id: str):
        return self._call_ladder("ListLadderMatches",
                                 ladder_pb2.GetLadderRequest(ladder_id=ladder_id),
                                 about=ladder_id)

    # ----- one method per Arena rpc ---------------------------------------------------
    def register_bot(self, name: str, description: str, key: str = ""):
        return self._call_arena("RegisterBot", arena_pb2.RegisterBotRequest(
            name=name, description=description), key)

    def rotate_bot_key(self, name: str, key: str = ""):
        return self._call_arena("RotateBotKey", arena_pb2.RotateBotKeyRequest(name=name), key)

    def retire_bot(self, name: str, key: str = ""):
        return self._call_arena("RetireBot", arena_pb2.RetireBotRequest(name=name), key)

    def list_arenas(self):
        return self._call_arena("ListArenas", arena_pb2.ListArenasRequest())

    def get_leaderboard(self, arena_id: str, view: int, limit: int):
        return self._call_arena("GetLeaderboard", arena_pb2.GetLeaderboardRequest(
            arena_id=arena_id, view=view, limit=limit))

    def get_bot(self, name: str):
        return self._call_arena("GetBot", arena_pb2.GetBotRequest(name=name))

    def list_bot_matches(self, name: str, limit: int, before: float):
        return self._call_arena("ListBotMatches", arena_pb2.ListBotMatchesRequest(
            name=name, limit=limit, before_unix_s=before))

    def get_rating_history(self, arena_id: str, name: str, version: str, limit: int):
        return self._call_arena("GetRatingHistory", arena_pb2.GetRatingHistoryRequest(
            arena_id=arena_id, name=name, version=version, limit=limit))
