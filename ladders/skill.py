"""Skill figures of entrants, from the analyses of a sample of their matches
(docs/analysis.md): mean seat-honest loss per decision, and the share of their results'
swings that luck explains. Generic: a ladder's standings use it (engine_service/core/
ladders/director.py), and so can any leaderboard that has analyses of its matches (the
arena's: hand it the documents of a sample of each bot's matches, with the seat names
the bots' names).

An analysis document (domino-analysis/1) lists its seats, each with its ``name`` and
``summary`` (decisions, mean_loss, skill, luck, luck_share); a seat's figures are folded
into its name's. Pure: no I/O.
"""

from __future__ import annotations

from collections import defaultdict


def skill_figures(docs) -> dict[str, dict]:
    """name -> {"analysed": matches analysed, "decisions": n, "mean_loss": loss per
    decision (None without decisions), "luck_share": sum |luck| / (sum |luck| + sum
    |skill|) over its hands (None when both are 0)}."""
    matches: dict[str, set] = defaultdict(set)
    decisions: dict[str, int] = defaultdict(int)
    loss: dict[str, float] = defaultdict(float)
    luck: dict[str, float] = defaultdict(float)
    skill: dict[str, float] = defaultdict(float)
    for k, doc in enumerate(docs):
        for seat in doc.get("seats", []):
            name, sm = seat["name"], seat["summary"]
            matches[name].add(k)
            decisions[name] += sm["decisions"]
            loss[name] += sm["mean_loss"] * sm["decisions"]
            for hand in seat.get("hands", []):
                luck[name] += abs(hand["luck"])
                skill[name] += abs(hand["skill"])
    out = {}
    for name in matches:
        n, swing = decisions[name], luck[name] + skill[name]
        out[name] = {"analysed": len(matches[name]), "decisions": n,
                     "mean_loss": round(loss[name] / n, 3) if n else None,
                     "luck_share": round(luck[name] / swing, 3) if swing else None}
    return out
