from ..strategy import Strategy


class RandomBot(Strategy):
    """Any legal move, uniformly, from a seeded generator."""

    name = "random"
    inline = True

    def choose(self, view, legal_moves):
        return self.rng.choice(legal_moves)
