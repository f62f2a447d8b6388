"""Following a match to its engine: what every Python client of a cluster does.

Engines on one PostgreSQL store each own some matches (docs/cluster.md). Any engine
answers any request; for a match it does not own it refuses with UNAVAILABLE / NOT_OWNER
and the owner's address in the Refusal (empty while a failover is under way). A client
then sends the same request there — CreateMatch with `here` set, so the engine chosen for
the load makes it — and keeps using that engine for that match. An engine that does not
answer at all is skipped for the next address given. `Router` does this for the blocking
gRPC API (the gateway's REST routes, the `domino` commands); the bot runner and the
gateway's event streams (grpc.aio) use `where_next` the same way.
"""

from __future__ import annotations

import threading
import time

import grpc

from domino_proto.domino.v1 import (
    analysis_pb2_grpc,
    arena_pb2_grpc,
    engine_pb2_grpc,
    ladder_pb2_grpc,
    play_pb2_grpc,
)

from .refusals import refusal_of

MOVED = "NOT_OWNER"
RETRY_S = 0.2          # between tries while no engine owns the match (a failover)
GIVE_UP_S = 15.0       # a failover takes a few seconds; a call gives up after this long


def addresses_of(spec: str | list[str]) -> list[str]:
    """"A,B,C" (or a list) as a list of HOST:PORT, each once, in order."""
    items = spec.split(",") if isinstance(spec, str) else spec
    out = []
    for a in (x.strip() for x in items):
        if a and a not in out:
            out.append(a)
    if not out:
        raise ValueError("no engine address given")
    return out


def where_next(err: grpc.RpcError) -> tuple[str, str]:
    """What a failed call says to do: ("owner", address) to send it to the owner,
    ("wait", "") to try again shortly (no engine owns the match yet: a failover),
    ("away", "") when the engine did not answer at all (another one may), ("fail", "")
    otherwise."""
    code = err.code() if hasattr(err, "code") else None
    refusal = refusal_of(err)
    if refusal is not None and refusal.reason == MOVED:
        return ("owner", refusal.owner) if refusal.owner else ("wait", "")
    if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED) and refusal is None:
        return "away", ""
    return "fail", ""


class Router:
    """Blocking calls to the engines at `addresses` ("A,B,C"), each sent to the engine
    that owns what it is about, with the channels kept open (one per engine)."""

    def __init__(self, addresses: str | list[str], options: list | None = None,
                 give_up_s: float = GIVE_UP_S):
        self.addresses = addresses_of(addresses)
        self.options = options or []
        self.give_up_s = give_up_s
        self._channels: dict[str, grpc.Channel] = {}
        self._stubs: dict[tuple[str, str], object] = {}
        self._affinity: dict[str, str] = {}     # match or ladder id -> its engine
        self._lock = threading.Lock()

    def channel(self, address: str) -> grpc.Channel:
        with self._lock:
            channel = self._channels.get(address)
            if channel is None:
                channel = self._channels[address] = grpc.insecure_channel(address,
                                                                          self.options)
            return channel

    def stub(self, address: str, service: str = "Engine"):
        stub = self._stubs.get((address, service))
        if stub is None:
            module = {"Engine": engine_pb2_grpc, "Ladder": ladder_pb2_grpc,
                      "Play": play_pb2_grpc, "Arena": arena_pb2_grpc,
                      "Analysis": analysis_pb2_grpc}[service]
            stub = self._stubs[(address, service)] = getattr(module, f"{service}Stub")(
                self.channel(address))
        return stub

    def open_stream(self, method: str, request, *, about: str, timeout: float):
        """A server stream (Watch) on the engine that owns `about`: (the call, its first
        message); None for the first when the stream ended at once."""
        def attempt(stub):
            call = getattr(stub, method)(request, timeout=timeout)
            try:
                return call, next(call, None)
            except BaseException:
                call.cancel()
                raise
        return self._routed(attempt, about, method, request)

    def call(self, method: str, request, *, about: str = "", service: str = "Engine",
             timeout: float = 10.0, metadata=()):
        """Call `method`; `about`: the match or ladder id the request concerns (its
        owner is remembered). Raises the last grpc.RpcError when no engine will do."""
        return self._routed(lambda stub: getattr(stub, method)(
            request, timeout=timeout, metadata=metadata), about, method, request, service)

    def _routed(self, attempt, about: str, method: str, request, service: str = "Engine"):
        address = self._affinity.get(about, self.addresses[0]) if about else self.addresses[0]
        give_up = time.monotonic() + self.give_up_s
        while True:
            try:
                answer = attempt(self.stub(address, service))
            except grpc.RpcError as err:
                step, owner = where_next(err)
                if step == "fail" or time.monotonic() > give_up or (
                        step == "away" and self.addresses == [address]):
                    raise   # (an engine that is alone and away: no one else to ask)
                if step == "owner":
                    address = owner
                    if method == "CreateMatch":
                        request.here = True
                else:
                    # Another engine next (round robin); the same after a short wait.
                    address = self.addresses[(self.addresses.index(address) + 1)
                                             % len(self.addresses)] \
                        if address in self.addresses else self.addresses[0]
                    time.sleep(RETRY_S)
                continue
            if about:
                self._affinity[about] = address
            match_id = getattr(answer, "match_id", "")
            if isinstance(match_id, str) and match_id:
                self._affinity[match_id] = address
            return answer

    def engine_of(self, key: str) -> str:
        """The engine last seen owning `key` (else the first address)."""
        return self._affinity.get(key, self.addresses[0])

    def close(self) -> None:
        with self._lock:
            for channel in self._channels.values():
                channel.close()
            self._channels.clear()
            self._stubs.clear()
