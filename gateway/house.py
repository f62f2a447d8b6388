"""House bots: bot processes enlisted in engine pools named after their strategy.

A REST seat {"kind": "bot", "strategy": "greedy"} becomes an engine pool seat of pool
"house-greedy"; `domino serve` starts bots enlisted there.
"""

from __future__ import annotations

PREFIX = "house-"
DEFAULT_STRATEGIES = ("random", "greedy", "heuristic")


def pool_of(strategy: str) -> str:
    return PREFIX + strategy


def strategy_of(pool: str) -> str | None:
    """The strategy of a house pool; None for a token seat (or a pool not of the house)."""
    return pool[len(PREFIX):] if pool.startswith(PREFIX) else None
