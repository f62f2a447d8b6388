"""The sampling work, as a worker process does it (plumbing/workers.py): the counting of a
view (rules/worlds.py Sampler), kept for the next call at the same view, and the draws.

Plain values in (the seat's view, the count, the seed) and out: the
worlds, whether the view had to be counted, and the CPU time the job took, which the
engine charges to its budgets (service.py). The counting of a new view is the expensive
part; it is in that time.
"""

from __future__ import annotations

import random
import time
from collections import OrderedDict

from ...rules import worlds

SAMPLERS_KEPT = 256          # views whose counting is kept (one per seat thinking)

_samplers: OrderedDict[tuple, tuple[dict, worlds.Sampler]] = OrderedDict()


def _sampler(key: tuple, view: dict) -> tuple[worlds.Sampler, bool]:
    kept = _samplers.get(key)
    if kept is not None and kept[0] == view:    # the same view: the same counting
        _samplers.move_to_end(key)
        return kept[1], False
    sampler = worlds.Sampler(view)
    _samplers[key] = (view, sampler)
    while len(_samplers) > SAMPLERS_KEPT:
        _samplers.popitem(last=False)
    return sampler, True


def sample(key: list, view: dict, count: int, seed: int):
    """(what the engine is told, the worlds): `key` names the seat ([match id, seat])."""
    began = time.process_time()
    sampler, counted = _sampler(tuple(key), view)
    rng = random.Random(seed)
    found = [sampler.draw(rng) for _ in range(count)]
    return {"exact": sampler.exact, "count": sampler.count or 0, "counted": counted,
            "began": began}, found


def draw(key: list, view: dict, count: int, seed: int) -> dict:
    """The worlds as [hands, rest] of tile indices."""
    told, found = sample(key, view, count, seed)
    told["worlds"] = [[[list(h) for h in w.hands], list(w.rest)] for w in found]
    return finished(told)


def finished(told: dict) -> dict:
    """`told`, with the CPU seconds since the job began as its cost."""
    told["cost"] = time.process_time() - told.pop("began")
    return told
