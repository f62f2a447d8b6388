"""An arena's leaderboard, pure: ratings, statistics and rating histories folded from its
arena results one at a time, in the order they were counted (their sequence numbers).

An arena result (the immutable row one counted arena match leaves) is a dict:
  {"match_id": id, "arena": arena id, "sequence": n (1, 2, ... in counting order),
   "lineup": [[bot id, version] by seat], "scores": [by seat: HHL points | Domeng stones],
   "titles": [by seat: Domeng CAMAT titles; zeros for HHL], "deals": deals played,
   "faults": [by seat: {"timeouts", "illegal", "disconnects", "crashes", "spam"}],
   "ended": Unix seconds, "set": duplicate set (0), "rotation": its rotation (0)}

A (bot, version) is rated on its own: openskill's Plackett-Luce model, as ladders rate
(ratings.py), ranking a match's seats by ladders' rule (standings.match_ranking). Folding
is incremental and deterministic: a board built result by result over any number of
restarts equals one built from all the results at once (tests/arena/test_leaderboard.py).
The update is openskill's own arithmetic for teams of one (`plackett_luce`), written out
so that it costs a few tens of microseconds instead of openskill's generic 0.2 ms (checks,
copies, teams of many): a test holds it equal to openskill's, bit for bit.
The rows are ordered by mu - 3 sigma, the conservative score; a row is provisional below
PROVISIONAL_BELOW counted matches. Its mean result per deal (HHL points per hand, Domeng
minus stones per round) comes with the half-width of its 95% interval (stats.py).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

from openskill.models import PlackettLuce

from .standings import FAULT_KINDS, match_ranking, merit_per_deal
from .stats import t95

PROVISIONAL_BELOW = 10
Key = tuple[str, str]   # (bot id, version)


@dataclass
class Entry:
    """One (bot, version) of the board."""
    mu: float
    sigma: float
    matches: int = 0
    merit_sum: float = 0.0
    merit_squares: float = 0.0
    faults: dict = field(default_factory=lambda: dict.fromkeys(FAULT_KINDS, 0))
    last_played: float = 0.0    # Unix seconds of its latest counted match's end
    last_sequence: int = 0
    # The rating after each counted match, for a chart: compact arrays, 32 bytes a point.
    h_sequence: array = field(default_factory=lambda: array("q"))
    h_time: array = field(default_factory=lambda: array("d"))
    h_mu: array = field(default_factory=lambda: array("d"))
    h_sigma: array = field(default_factory=lambda: array("d"))

    @property
    def score(self) -> float:
        return self.mu - 3 * self.sigma

    def mean_ci(self) -> tuple[float, float]:
        """(mean merit per deal, half-width of its 95% interval; inf below 2 matches)."""
        n = self.matches
        if n == 0:
            return 0.0, math.inf
        mean = self.merit_sum / n
        if n < 2:
            return mean, math.inf
        var = max(self.merit_squares - n * mean * mean, 0.0) / (n - 1)
        return mean, t95(n - 1) * math.sqrt(var / n)


def plackett_luce(model: PlackettLuce, mus: list[float], sigmas: list[float],
                  ranks: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) of one-player teams given by rank order (`ranks` ascending, ties
    equal): the same operations, in the same order, as `model.rate(teams, ranks=ranks)`
    (openskill 6, Weng-Lin Algorithm 4, default gamma, no weights, no balance, no sigma
    limit), so the same floats come out."""
    tau_squared = model.tau * model.tau
    beta_squared = model.beta ** 2
    sigma = [math.sqrt(s * s + tau_squared) for s in sigmas]
    sigma_squared = [(s * 1.0) ** 2 for s in sigma]
    total = 0.0
    for s2 in sigma_squared:
        total += s2 + beta_squared
    c = math.sqrt(total)
    n = len(mus)
    sum_q = [0.0] * n
    exps = [math.exp(mu / c) for mu in mus]
    for i in range(n):
        for q in range(n):
            if ranks[i] >= ranks[q]:
                sum_q[q] += exps[i]
    a = [sum(1 for r in ranks if r == rq) for rq in ranks]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            p = exps[i] / sum_q[q]
            if ranks[q] <= ranks[i]:
                delta += p * (1 - p) / a[q]
                if q == i:
                    omega += (1 - p) / a[q]
                else:
                    omega -= p / a[q]
        omega *= sigma_squared[i] / c
        delta *= sigma_squared[i] / c ** 2
        delta *= math.sqrt(sigma_squared[i]) / c
        ratio = sigma[i] ** 2 / sigma_squared[i]
        mu = mus[i] + ratio * omega * 1.0 if omega >= 0 else mus[i] + ratio * omega / 1.0
        shrink = 1 - ratio * delta * 1.0 if omega >= 0 else 1 - ratio * delta / 1.0
        out.append((mu, sigma[i] * math.sqrt(max(shrink, model.kappa))))
    return out


class Board:
    """The leaderboard of one arena of `variant`, folded from its results."""

    def __init__(self, variant: str):
        self.variant = variant
        self.model = PlackettLuce()
        self.entries: dict[Key, Entry] = {}
        self.last_sequence = 0
        self.matches = 0

    @classmethod
    def of(cls, variant: str, results) -> Board:
        """A board recomputed from every result (any order: they are sorted)."""
        board = cls(variant)
        for r in sorted(results, key=lambda r: r["sequence"]):
            board.add(r)
        return board

    def entry(self, key: Key) -> Entry:
        e = self.entries.get(key)
        if e is None:
            r = self.model.rating()
            e = self.entries[key] = Entry(r.mu, r.sigma)
        return e

    def add(self, result: dict) -> bool:
        """Fold one result in; False (and nothing changed) for one counted already. Results
        must come in sequence order: one out of order is a bug of the caller."""
        seq = result["sequence"]
        if seq <= self.last_sequence:
            return False
        lineup = [tuple(k) for k in result["lineup"]]
        shaped = {"lineup": lineup, "scores": result["scores"], "titles": result["titles"],
                  "deals": result["deals"]}
        ranking = match_ranking(self.variant, shaped)
        keys = [k for group in ranking for k in group]
        ranks = [place + 1 for place, group in enumerate(ranking) for _ in group]
        entries = [self.entry(k) for k in keys]
        rated = plackett_luce(self.model, [e.mu for e in entries], [e.sigma for e in entries],
                              ranks)
        ended = float(result.get("ended", 0.0))
        merit = merit_per_deal(self.variant, shaped)
        for k, e, (mu, sigma) in zip(keys, entries, rated, strict=True):
            e.mu, e.sigma = mu, sigma
            e.matches += 1
            e.merit_sum += merit[k]
            e.merit_squares += merit[k] * merit[k]
            e.last_played, e.last_sequence = ended, seq
            e.h_sequence.append(seq)
            e.h_time.append(ended)
            e.h_mu.append(mu)
            e.h_sigma.append(sigma)
        for k, faults in zip(lineup, result["faults"], strict=False):
            charged = self.entries[k].faults
            for kind, n in faults.items():
                if n and kind in charged:
                    charged[kind] += int(n)
        self.last_sequence = seq
        self.matches += 1
        return True

    def ordered(self, keys=None) -> list[tuple[Key, Entry]]:
        """(key, entry) of `keys` (default: every entry), best first by mu - 3 sigma, ties
        by more matches, then by key."""
        chosen = self.entries if keys is None else {k: self.entry(k) for k in keys}
        return sorted(chosen.items(), key=lambda kv: (-kv[1].score, -kv[1].matches, kv[0]))

    def latest_versions(self) -> dict[str, str]:
        """Each bot's latest version: the one of its most recent counted match."""
        best: dict[str, tuple[int, str]] = {}
        for (bot, version), e in self.entries.items():
            if e.matches and (bot not in best or e.last_sequence > best[bot][0]):
                best[bot] = (e.last_sequence, version)
        return {bot: v for bot, (_, v) in best.items()}

    def history(self, key: Key, limit: int = 0) -> list[tuple[int, float, float, float]]:
        """(sequence, time, mu, sigma) after each counted match of `key`, oldest first;
        the latest `limit` only when given."""
        e = self.entries.get(key)
        if e is None:
            return []
        start = max(len(e.h_sequence) - limit, 0) if limit else 0
        return list(zip(e.h_sequence[start:], e.h_time[start:], e.h_mu[start:],
                        e.h_sigma[start:], strict=True))
