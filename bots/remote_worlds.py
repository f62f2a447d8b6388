"""Worlds from the engine: the Play service's SampleWorlds, as the search strategy's source
of guesses (bots/strategies/search.py ``worlds=``), the way a bot in any language may use it.

The engine draws them from this seat's own view, from the posterior of the shuffle given it
(docs/bots.md "SampleWorlds"); the view the strategy holds and the one the engine samples
from are the same version, so nothing is asked that the engine does not know already. The
local sampler (engine_service/rules/determinize.py) stays the default: it needs no round
trip and can assume how the other seats play (``model``), which the engine never does.
"""

from __future__ import annotations

import grpc

from domino_proto.domino.v1 import play_pb2, play_pb2_grpc
from engine_service.rules.tiles import Tile

MAX_PER_CALL = 1000     # the engine's bound (engine_service/core/sampling/service.py MAX_WORLDS)


class RemoteWorlds:
    """``worlds(view, count, seed) -> [(hands, rest)]`` over gRPC for one seat of one match:
    hands by seat (lists of tiles), rest the HHL stock in draw order or the Domeng sleeping
    tiles. Raises grpc.RpcError when the engine refuses (RATE_LIMITED, MATCH_OVER, ...)."""

    def __init__(self, target: str | grpc.Channel, match_id: str, seat_token: str,
                 timeout: float = 5.0):
        self._channel = grpc.insecure_channel(target) if isinstance(target, str) else target
        self._own_channel = isinstance(target, str)
        self._stub = play_pb2_grpc.PlayStub(self._channel)
        self.match_id, self.seat_token, self.timeout = match_id, seat_token, timeout
        self.calls = 0

    def __call__(self, view, count: int, seed: int) -> list[tuple[list, list]]:
        out = []
        while len(out) < count:
            n = min(MAX_PER_CALL, count - len(out))
            got = self._stub.SampleWorlds(play_pb2.SampleWorldsRequest(
                match_id=self.match_id, seat_token=self.seat_token, count=n,
                seed=(seed + len(out)) % 2**64), timeout=self.timeout)
            self.calls += 1
            if got.version != view.get("version", got.version) or got.seat != view["seat"]:
                raise ValueError(f"the engine sampled seat {got.seat} at version "
                                 f"{got.version}, not this view")
            out += [([[_TILES[t.high][t.low] for t in h.tiles] for h in w.hands],
                     [_TILES[t.high][t.low] for t in w.rest]) for w in got.worlds]
        return out

    def close(self) -> None:
        if self._own_channel:
            self._channel.close()


_TILES = [[Tile.of(h, lo) if lo <= h else None for lo in range(7)] for h in range(7)]
