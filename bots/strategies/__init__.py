"""The strategies by name. Adding one: a module here with a Strategy subclass, then
one line in STRATEGIES."""

from .expert import Ceiling, Expert
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
    "expert": Expert,
    "oracle": Oracle,
    "ceiling": Ceiling,
}
# The offline yardsticks: entered in ladders for what more information (oracle: every hand
# face up) or more thinking (ceiling: the expert with ten times its budget) is worth, never
# house bots (no arena residents, no house pools).
YARDSTICKS = ("oracle", "ceiling")


def make_strategy(name: str, seed: int | None = None):
    try:
        cls = STRATEGIES[name]
    except KeyError:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(STRATEGIES)}") from None
    return cls(seed)


__all__ = ["STRATEGIES", "YARDSTICKS", "Ceiling", "Expert", "Greedy", "Heuristic", "Oracle", "RandomBot",
           "Search", "make_strategy"]
