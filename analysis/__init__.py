"""Computer analysis of a finished match: for each seat, each decision's loss against the
best move by the reference policy's values, seat-honest (over the worlds the seat's view
allows) and with perfect information; per hand, the result split into skill and luck.

    from analysis import analyse
    doc = analyse(record, seats=[0], worlds=100, seed=0, processes=None)

It uses the rules core (engine_service.rules: replay, views, the world sampler, lean
playouts) and the greedy policy of bots/strategies; nothing of the engine's core, so the
engine gets it from the composition root (domino_cli), as it gets its yardsticks.
docs/analysis.md describes the document.
"""

from .policy import POLICY
from .report import FORMAT, THRESHOLDS
from .run import DEFAULT_WORLDS, analyse

__all__ = ["DEFAULT_WORLDS", "FORMAT", "POLICY", "THRESHOLDS", "analyse"]
