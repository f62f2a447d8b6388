"""The shortcuts on simulate's path change nothing a bot or a summary sees."""

import random

from bots.arena import play_match
from bots.strategies import make_strategy
from bots.strategies.random import RandomBot
from bots.strategy import Strategy


def test_the_random_bot_draws_what_random_choice_draws():
    for seed in range(300):
        bot, ref = RandomBot(seed), random.Random(seed)
        for n in (1, 2, 3, 5, 8, 9, 17):
            moves = list(range(n))
            assert bot.choose(None, moves) == ref.choice(moves)
        assert bot.rng.getstate() == ref.getstate()


class Reader(Strategy):
    """Reads its view every other move, and checks it is the view of now."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.calls = self.reads = 0
        self.match = None

    def attach(self, match):
        self.match = match

    def choose(self, view, legal_moves):
        self.calls += 1
        if self.calls % 2:
            self.reads += 1
            seat = self.match.to_move
            assert dict(view) == self.match.view(seat)
        return legal_moves[0]


def test_every_view_a_bot_reads_is_the_view_of_its_move():
    for variant, seats in (("hhl", 4), ("domeng", 5)):
        bots = [Reader(s) if s % 2 else make_strategy("random", s) for s in range(seats)]
        play_match(variant, {"hands": 6} if variant == "hhl" else {"round_cap": 6}, 5, bots)
        assert all(b.reads > 5 for b in bots if isinstance(b, Reader))
