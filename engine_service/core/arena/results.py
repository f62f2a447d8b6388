"""An arena result (ladders/leaderboard.py has its shape) from a finished match.

The engine that owned the match when it ended makes it from the referee, whose counters
hold the faults the move log does not show (refused moves, disconnects, no-shows, spam).
A match that ended while no engine was there to count it (its owner died between the
last move and the result) is read back from the store: its faults are then those of the
log alone (timeouts, and crashes for seats still absent at the end)."""

from __future__ import annotations

from ..matches.referee import Referee


def arena_result(referee: Referee, arena: str, lineup: list, ended: float, set_no: int = 0,
                 rotation: int = 0) -> dict:
    """The arena result of `referee`'s finished match; `lineup`: [[bot id, version] by seat]."""
    result = referee.match.result
    if referee.row.variant == "hhl":
        scores, titles = list(result["totals"]), [0] * len(lineup)
    else:
        scores, titles = list(result["stones"]), list(result["camat_titles"])
    return {"match_id": referee.id, "arena": arena, "lineup": [list(k) for k in lineup],
            "scores": scores, "titles": titles, "deals": len(referee.match.deals),
            "faults": referee.faults_by_seat(), "ended": ended, "set": set_no,
            "rotation": rotation}
