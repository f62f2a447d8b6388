"""Multiplayer ratings with openskill's Plackett-Luce model.

A match ranks its entrants (an entrant in several seats is ranked by its seats' mean
score); ties share a rank. The leaderboard orders by the conservative score mu - 3 sigma.
"""

from openskill.models import PlackettLuce


class Ratings:
    def __init__(self):
        self.model = PlackettLuce()
        self.by_name = {}

    def rating(self, name: str):
        if name not in self.by_name:
            self.by_name[name] = self.model.rating(name=name)
        return self.by_name[name]

    def update(self, ranking: list[list[str]]) -> None:
        """``ranking``: entrant names grouped by place, best first."""
        names = [n for group in ranking for n in group]
        ranks = [place + 1 for place, group in enumerate(ranking) for _ in group]
        teams = [[self.rating(n)] for n in names]
        for name, (new,) in zip(names, self.model.rate(teams, ranks=ranks), strict=True):
            self.by_name[name] = new

    def conservative(self, name: str) -> float:
        r = self.rating(name)
        return r.mu - 3 * r.sigma
