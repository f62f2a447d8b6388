"""The garbage collector's pace in a long-running engine process.

CPython collects its youngest generation every 700 net new container objects, and an object
that outlives two such collections lands in the oldest one, whose full passes walk the
whole heap with the GIL held. Measured at 1,000 arena bots on 2 cores (docs/arena.md),
each engine's collector ran 80-120 times in every 5 s, with a full pass of 0.24-0.43 s
about every 5 s: it held the GIL about a ninth of the time, and the event loop, which
takes the GIL to take every new call, woke up to 0.7 s late while seat streams waited
seconds to be taken. With a young generation of 50,000 it ran about once in 5-10 s, and an
object reaches the oldest generation only once it has outlived a young collection and a
middle one (20 young ones later).

The objects made while starting (modules, descriptors, the engine itself: about 60,000)
live as long as the process: they are frozen out of every pass."""

from __future__ import annotations

import gc

from . import settings

YOUNG_ENV = "DOMINO_GC_YOUNG"
YOUNG = 50_000          # new container objects between two young collections
YOUNG_RANGE = (100, 10_000_000)   # 700 is CPython's own
OLDER = (20, 10)        # young collections per middle one; middle ones per full pass


def young() -> int:
    """YOUNG_ENV, else YOUNG; BadSetting naming the variable."""
    return settings.whole_number(YOUNG_ENV, YOUNG, *YOUNG_RANGE, "objects")


def settle() -> None:
    """Once the process has started: freeze what it made so far, and set the pace."""
    gc.collect()    # what starting left as garbage is not frozen with the rest
    gc.freeze()
    gc.set_threshold(young(), *OLDER)
