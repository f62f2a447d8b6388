"""``make bench``: throughput and latency figures, printed side by side with yardsticks.

Every section has a smoke mode (``python -m benchmarks --smoke SECTION``): the same code
at tiny sizes, a few seconds, so that a test in ``make test`` runs each section to its end
and a benchmark cannot rot between two full runs. A section sizes itself with ``sized``;
the mode is the environment variable SMOKE_ENV, so the processes a section starts (bots,
engines, servers) are as small as their parent.
"""

from __future__ import annotations

import inspect
import os

SMOKE_ENV = "DOMINO_BENCH_SMOKE"
_sized_in: set[str] = set()   # the modules that asked for a size (have a smoke mode)


def smoke() -> bool:
    """True when the benchmarks run in smoke mode."""
    return os.environ.get(SMOKE_ENV) == "1"


def sized(full, tiny):
    """`full` in a real run, `tiny` in smoke mode. Calling it marks the calling module as
    having a smoke mode (python -m benchmarks --smoke refuses a section that has none)."""
    caller = inspect.currentframe().f_back
    _sized_in.add(caller.f_globals.get("__name__", ""))
    return tiny if smoke() else full


def has_smoke_mode(module_name: str) -> bool:
    return module_name in _sized_in
