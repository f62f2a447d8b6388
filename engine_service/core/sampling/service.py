"""SampleWorlds: worlds for one seat, drawn from that seat's own view (rules/worlds.py).

The sampler is given the view the seat itself receives (its SeatView, the history cut for
it), never the match, so a world cannot carry anything the seat has not seen. Calls are
bounded (count 1..MAX_WORLDS) and rated per seat by a token bucket counted in worlds, since
the worlds are CPU time of the engine (docs/security.md). A view's counting is kept for the
next call at the same view: a bot asks again and again while it thinks.
"""

from __future__ import annotations

import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from ...rules import worlds
from ..errors import EngineError, Reason
from ..matches.referee import Referee
from ..security import limits
from ..security.rate import TokenBuckets

MAX_WORLDS = 1000            # per call
WORLDS_PER_S = 2000          # per seat, sustained
WORLDS_BURST = 5000          # per seat, at once (five full calls)
SEED_MAX = 2**64 - 1         # the proto's uint64
SAMPLERS_KEPT = 256          # views whose counting is kept (one per seat thinking)


class WorldService:
    def __init__(self, rate: float = WORLDS_PER_S, burst: float = WORLDS_BURST,
                 now: Callable[[], float] = time.monotonic):
        self.buckets = TokenBuckets(rate, burst, now)
        self._samplers: OrderedDict[tuple, tuple[dict, worlds.Sampler]] = OrderedDict()
        self._lock = threading.Lock()   # the map above; calls run on the server's threads

    @staticmethod
    def check(count: int, seed: int) -> None:
        """The request's numbers, before anything is looked up."""
        limits.integer(count, "count", 1, MAX_WORLDS)
        limits.integer(seed, "seed", 0, SEED_MAX)

    def sample(self, referee: Referee, seat: int, count: int, seed: int):
        """(the SeatView the worlds agree with, the worlds, the sampler)."""
        seen = referee.seat_view(seat)
        if seen.view.get("over"):
            raise EngineError(Reason.MATCH_OVER, "the match is over; its record shows every "
                              "tile", seen.version)
        wait = self.buckets.take((referee.id, seat), count)
        if wait:
            raise EngineError(Reason.RATE_LIMITED, f"seat {seat} asked for more worlds than "
                              f"its rate ({self.buckets.rate:g} a second, {self.buckets.burst:g} "
                              f"at once); try again in {max(1, round(wait * 1000))} ms",
                              referee.version)
        view = seat_view_dict(seen)
        sampler = self._sampler(referee.id, seat, view)
        rng = random.Random(seed)
        return seen, [sampler.draw(rng) for _ in range(count)], sampler

    def _sampler(self, match_id: str, seat: int, view: dict) -> worlds.Sampler:
        key = (match_id, seat)
        with self._lock:
            kept = self._samplers.get(key)
            if kept is not None and kept[0] == view:    # the same view: the same counting
                self._samplers.move_to_end(key)
                return kept[1]
        sampler = worlds.Sampler(view)     # outside the lock: it takes milliseconds
        with self._lock:
            self._samplers[key] = (view, sampler)
            while len(self._samplers) > SAMPLERS_KEPT:
                self._samplers.popitem(last=False)
        return sampler


def seat_view_dict(seen) -> dict:
    """The rules' view dict of a SeatView, its history cut for the seat: what
    Match.view(seat) gives, less the legal moves (the worlds do not need them). The
    engine's events are left out: the rules' reasoning reads a draw and the play of the
    drawn tile as neighbours, and a timeout may stand between them."""
    return {**seen.view, "history": [e.to_dict(seen.seat) for e in seen.rules_history]}
