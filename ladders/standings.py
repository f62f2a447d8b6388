"""Standings, recomputed from a ladder's immutable results.

A ladder result (one counted match, ladders/results.py) is a dict:
  {"index": n, "set": k, "set_size": matches in a complete set (1 for rotation),
   "seed": s, "lineup": [entrant by seat], "deals": deals played (HHL hands, Domeng rounds),
   "scores": [per seat: HHL total points | Domeng stones over the match],
   "titles": [per seat: Domeng CAMAT titles; zeros for HHL],
   "faults": {entrant: {"timeouts": n, "illegal": n, "disconnects": n, "crashes": n,
              "spam": n}},
   "voided": false}
A voided result (a match broken by the engine itself) is kept for the log but counts for
nothing; the scheduler plays that match again.

The standings are a list of entries, one per entrant, best first.

A yardstick entrant (the oracle, which sees every hand: docs/ladders.md) is rated like any
other and marked as such. When the field has both the entrant named "greedy" and the
oracle, each entry's "gap closed" places its mean between them: 0 is greedy's mean, 1 the
oracle's (None when either is missing, has no match yet, or the two means are equal).
Both ends are measured in the same ladder, so against the same field; docs/ladders.md says
what 1 stands for when that field is not greedy.
"""

from collections import defaultdict

from .ratings import Ratings
from .stats import mean_ci, separated

FAULT_KINDS = ("timeouts", "illegal", "disconnects", "crashes", "spam")
GREEDY, ORACLE = "greedy", "oracle"   # the two ends of "gap closed"


def merit_per_deal(variant: str, result: dict) -> dict[str, float]:
    """Each entrant's result in one match, per deal, higher is better: HHL points per
    hand; Domeng minus the stones taken per round."""
    seats = defaultdict(list)
    for seat, name in enumerate(result["lineup"]):
        seats[name].append(result["scores"][seat])
    sign = 1 if variant == "hhl" else -1
    deals = max(result["deals"], 1)
    return {n: sign * sum(v) / len(v) / deals for n, v in seats.items()}


def match_ranking(variant: str, result: dict) -> list[list[str]]:
    """Entrants grouped by place in one match: HHL by points; Domeng by CAMAT titles,
    then fewer stones (DOM-11). An entrant in several seats counts its seats' mean."""
    seats = defaultdict(list)
    for seat, name in enumerate(result["lineup"]):
        seats[name].append(seat)

    def key(name):
        s = seats[name]
        score = sum(result["scores"][i] for i in s) / len(s)
        if variant == "hhl":
            return (-score,)
        return (-sum(result["titles"][i] for i in s) / len(s), score)

    keys = {n: key(n) for n in seats}
    return [[n for n in seats if keys[n] == k] for k in sorted(set(keys.values()))]


def gap_closed(means: dict[str, float | None], yardsticks) -> dict[str, float | None]:
    """Each entrant's mean as a fraction of the way from greedy's (0) to the oracle's (1);
    None for all when the field lacks either end or they cannot be told apart."""
    low, high = means.get(GREEDY), means.get(ORACLE) if ORACLE in yardsticks else None
    if low is None or high is None or high == low:
        return dict.fromkeys(means)
    return {n: None if m is None else (m - low) / (high - low) for n, m in means.items()}


def set_merits(variant: str, played: list[dict]) -> dict[int, dict[str, list[float]]]:
    """set -> entrant -> its merit per deal in each of its matches of that set, for the
    complete sets only (every match of the set's deal played): the units of a paired
    comparison, in which the luck of a duplicate set's deal cancels out."""
    merits: dict = defaultdict(lambda: defaultdict(list))
    count: dict = defaultdict(int)
    size = {}
    for result in played:
        count[result["set"]] += 1
        size[result["set"]] = result.get("set_size", 1)
        for name, value in merit_per_deal(variant, result).items():
            merits[result["set"]][name].append(value)
    return {k: m for k, m in merits.items() if count[k] >= size[k]}


def compute(variant: str, entrants: list[str], results: list[dict], yardsticks=()) -> dict:
    """The leaderboard: ordered by mu - 3 sigma, with games, mean merit and its 95% CI,
    faults, and whether each entrant is separated from the next one down (a paired test
    over complete sets: in the duplicate format a set's matches share one deal, so the
    luck of the deal cancels out of the difference). Results count in schedule order."""
    ratings = Ratings()
    for name in entrants:
        ratings.rating(name)
    per_match = defaultdict(list)
    faults = {n: dict.fromkeys(FAULT_KINDS, 0) for n in entrants}
    played = sorted((r for r in results if not r.get("voided")), key=lambda r: r["index"])
    history = []
    for result in played:
        ratings.update(match_ranking(variant, result))
        history.append({"index": result["index"],
                        "scores": {n: round(ratings.conservative(n), 3) for n in entrants}})
        for name, value in merit_per_deal(variant, result).items():
            per_match[name].append(value)
        for name, f in result.get("faults", {}).items():
            for kind in FAULT_KINDS:
                faults.setdefault(name, dict.fromkeys(FAULT_KINDS, 0))[kind] += f.get(kind, 0)
    order = sorted(entrants, key=lambda n: -ratings.conservative(n))
    means = {n: mean_ci(per_match[n]) for n in entrants}
    gaps = gap_closed({n: means[n][0] if per_match[n] else None for n in entrants}, yardsticks)
    complete = set_merits(variant, played).values()
    table = []
    for place, name in enumerate(order):
        r = ratings.rating(name)
        mean, half = means[name]
        entry = {"place": place + 1, "entrant": name, "mu": r.mu, "sigma": r.sigma,
                 "score": r.mu - 3 * r.sigma, "matches": len(per_match[name]),
                 "mean": mean, "ci95": half, "faults": faults[name],
                 "yardstick": name in yardsticks, "gap_closed": gaps[name]}
        if place + 1 < len(order):
            below = order[place + 1]
            diffs = [sum(m[name]) - sum(m[below]) for m in complete if name in m and below in m]
            entry["separated_from_next"] = separated(diffs)
        table.append(entry)
    return {"variant": variant, "matches": len(played), "voided": len(results) - len(played),
            "entries": table,
            "separated": all(e.get("separated_from_next", True) for e in table),
            "history": history}
