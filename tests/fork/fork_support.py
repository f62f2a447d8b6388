"""Records to fork: whole matches played in-process by the house strategies."""

from bots.arena import play_match
from bots.strategies import make_strategy

HHL_BOTS = ["greedy", "random", "heuristic", "greedy"]
DOMENG_BOTS = ["greedy", "random", "greedy", "random", "heuristic"]


def recorded(variant="hhl", seed=5, options=None, names=None) -> dict:
    names = names or (HHL_BOTS if variant == "hhl" else DOMENG_BOTS)
    options = options or ({"hands": 2} if variant == "hhl" else {"cycles": 1})
    bots = [make_strategy(n, seed * 10 + s) for s, n in enumerate(names)]
    return play_match(variant, options, seed, bots).record(seats=names)


def plays(record: dict) -> list[dict]:
    """The record's play entries, counted across deals (what --at counts)."""
    return [e for d in record["deals"] for e in d["moves"] if "play" in e]
