from ..strategy import Strategy


class RandomBot(Strategy):
    """Any legal move, uniformly, from a seeded generator."""

    name = "random"
    inline = True

    def choose(self, view, legal_moves):
        # self.rng.choice(legal_moves), the very same draws (Random._randbelow: k random
        # bits, again while out of range) without choice's two Python frames, since
        # simulate asks on every move. tests/strategies/test_fast_bots.py checks it.
        n = len(legal_moves)
        if not n:
            raise IndexError("Cannot choose from an empty sequence")
        bits, k = self.rng.getrandbits, n.bit_length()
        r = bits(k)
        while r >= n:
            r = bits(k)
        return legal_moves[r]
