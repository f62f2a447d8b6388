"""Quotas that hold across the cluster: what a principal has, counted in the shared store.

A principal (an API key, or "open") has quotas (keys.Quotas): matches not over
(live_matches), matches made in any 60 seconds (matches_per_minute), ladders running
(ladders). They are counted in the store, never in an engine's memory, in the same
transaction that adds the match or the ladder, holding a lock of that principal
(storage/sql.py, SQLStore.add_charged). Two engines of a cluster charging one key at once
take turns on the lock, so whichever engines a key asks, it never has more than its quota.
A match stops counting as live the moment its row says it is over, a ladder once it stops:
nothing is decremented, so nothing drifts when an engine dies.

Whatever creates work for a principal charges it here, one call: `charge_match` for a
match (Engine.create_match), `charge_ladder` for a ladder (Ladders.create). The arena's
matchmaker creates its tables for registered bots, whose own bounds are the arena's
(docs/security.md, "Quotas and bounds of work"); work an API key asks of the arena would
be charged here the same way.
"""

from __future__ import annotations

from ..errors import EngineError, Reason
from .keys import Principal


def charge_match(store, who: Principal, row, now: float, per_minute: bool = True) -> None:
    """Store `row`, a new match created by `who`, if `who` is within its match quotas;
    QUOTA_EXCEEDED (nothing stored) if not. `store` is the SQLStore. per_minute=False: its
    minute was charged already (charge_work), only its live quota is counted now."""
    q = who.quotas
    refused = store.add_charged_match(row, {
        "live_matches": q.live_matches,
        "matches_per_minute": q.matches_per_minute if per_minute else None}, now)
    _refuse(who, refused)


def charge_work(store, who: Principal, match_id: str, now: float) -> None:
    """Charge `who` for a match before the work of making it (a fork's replay), which it
    costs even when refused: QUOTA_EXCEEDED if over either match quota, else the charge
    counts in its minute from now; charge_match(..., per_minute=False) then stores the
    match under the same id, counted once."""
    q = who.quotas
    _refuse(who, store.add_charged("match", match_id, who.name, now, q.live_matches,
                                   q.matches_per_minute, None))


def _refuse(who: Principal, refused: tuple[str, int] | None) -> None:
    q = who.quotas
    if refused is not None and refused[0] == "per_minute":
        raise EngineError(Reason.QUOTA_EXCEEDED, f"{who.name} created {refused[1]} matches "
                          f"in the last minute, its quota is {q.matches_per_minute}; try again "
                          "shortly")
    if refused is not None:
        raise EngineError(Reason.QUOTA_EXCEEDED, f"{who.name} has {refused[1]} live matches, "
                          f"its quota is {q.live_matches}")


def charge_ladder(ladder_store, who: Principal, ladder_id: str, spec: dict,
                  created: float) -> None:
    """Store a new ladder of `who`'s if `who` runs fewer than its quota of ladders;
    QUOTA_EXCEEDED (nothing stored) if not. `ladder_store` is the SQLLadderStore."""
    refused = ladder_store.add_charged_ladder(ladder_id, spec, created, who.name,
                                              who.quotas.ladders)
    if refused is not None:
        raise EngineError(Reason.QUOTA_EXCEEDED, f"{who.name} runs {refused[1]} ladders, "
                          f"its quota is {who.quotas.ladders}")
