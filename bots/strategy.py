"""The one interface every bot implements."""

import random


class Strategy:
    """Subclass and implement ``choose``. ``view`` is the seat's view (a mapping, as
    ``Match.view(seat)`` returns); ``legal_moves`` is a non-empty list of Move values.
    Return one of them. ``on_event`` is an optional hook called with each event dict the
    seat may see."""

    name = "strategy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view, legal_moves):
        raise NotImplementedError

    def on_event(self, event: dict) -> None:
        pass
