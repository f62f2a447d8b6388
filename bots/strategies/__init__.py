"""The strategies by name. Adding one: a module here with a Strategy subclass, then
one line in STRATEGIES."""

from .greedy import Greedy
from .heuristic import Heuristic
from .oracle import Oracle
from .random import RandomBot
from .search import Search

STRATEGIES = {
    "random": RandomBot,
    "greedy": Greedy,
    "heuristic": Heuristic,
    "search": Search,
    "oracle": Oracle,
}


def make_strategy(name: str, seed: int | None = None):
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}") from None
    return cls(seed)


__all__ = ["STRATEGIES", "Greedy", "Heuristic", "Oracle", "RandomBot", "Search", "make_strategy"]
