"""A minimal bot over the Play service: answers every turn request with the first legal move
(or a seeded random one) and reconnects with its token when the engine goes away.

It only uses the generated code of the .proto files, as a bot in any other language would.
"""

from __future__ import annotations

import json
import queue
import random
import time
from collections.abc import Callable

import grpc

from domino_proto.domino.v1 import play_pb2, play_pb2_grpc

# Ping the engine every 5 s so a dead engine is noticed within seconds.
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 3000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]

Choose = Callable[[dict, list], object]   # (view, legal moves) -> the chosen LegalMove


def first_legal(view: dict, legal: list):
    return legal[0]


def seeded_random(seed: int) -> Choose:
    rng = random.Random(seed)
    return lambda view, legal: rng.choice(legal)


def slowed(choose: Choose, seconds: float) -> Choose:
    """Think `seconds` before each move (tests use it to stop an engine mid-match)."""
    def think(view, legal):
        time.sleep(seconds)
        return choose(view, legal)
    return think


def play(address: str, match_id: str, token: str, choose: Choose = first_legal,
         reconnect_for: float = 30.0, on_message: Callable | None = None) -> dict:
    """Play one seat until the match is over; returns the result. Reconnects (with the same
    token) while the engine is unreachable, for at most `reconnect_for` seconds in a row."""
    hello = play_pb2.Hello(seat=play_pb2.SeatAuth(match_id=match_id, seat_token=token),
                           client="domino minibot")
    return _play(address, hello, 1, choose, reconnect_for, on_message)[0]


def play_pool(address: str, pool: str, name: str, matches: int, capacity: int = 1,
              choose: Choose = first_legal, reconnect_for: float = 30.0,
              on_message: Callable | None = None) -> list[dict]:
    """Enlist in a pool and play the matches the engine seats this bot in, `capacity` at
    once, until `matches` are over; returns their results in the order they ended."""
    hello = play_pb2.Hello(pool=play_pb2.PoolEnlist(pool=pool, name=name, capacity=capacity),
                           client="domino minibot")
    return _play(address, hello, matches, choose, reconnect_for, on_message)


def _play(address, hello, matches, choose, reconnect_for, on_message) -> list[dict]:
    results: list[dict] = []
    down_since = None
    while True:
        try:
            if _connect_once(address, hello, choose, on_message, results, matches):
                return results
        except grpc.FutureTimeoutError:
            pass   # the engine is not listening (yet): try again
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                                grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL):
                raise
        down_since = down_since or time.monotonic()
        if time.monotonic() - down_since > reconnect_for:
            raise TimeoutError(f"engine at {address} unreachable for {reconnect_for} s")
        time.sleep(0.2)


def _connect_once(address, hello, choose, on_message, results, matches) -> bool:
    """One connection; True once `matches` results are in (appended to results)."""
    outbox: queue.SimpleQueue = queue.SimpleQueue()
    outbox.put(play_pb2.BotMessage(hello=hello))

    def requests():
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
        grpc.channel_ready_future(channel).result(timeout=5)
        stream = play_pb2_grpc.PlayStub(channel).Connect(requests())
        try:
            for message in stream:
                if on_message:
                    on_message(message)
                kind = message.WhichOneof("body")
                if kind == "turn":
                    state = message.turn.state
                    move = choose(json.loads(state.view_json), list(state.legal_moves))
                    outbox.put(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                        match_id=state.match_id, version=state.version, move_id=move.id)))
                elif kind == "match_over":
                    results.append(json.loads(message.match_over.result_json))
                    if len(results) >= matches:
                        return True
        finally:
            outbox.put(None)
            stream.cancel()
    return False   # the stream ended early: reconnect
