"""SampleWorlds's work as its worker process does it, the worlds serialized there too.

A thousand worlds take about as long to serialize as to draw: done in the worker, the
engine's own threads only join the answer's head to these bytes (codec.worlds_response).
"""

from __future__ import annotations

from ..core.sampling import jobs
from .codec import worlds_bytes


def draw_serialized(key: list, view: dict, count: int, seed: int) -> dict:
    told, found = jobs.sample(key, view, count, seed)
    told["worlds"] = worlds_bytes(found)
    return jobs.finished(told)
