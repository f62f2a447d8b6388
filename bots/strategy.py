"""The one interface every bot implements."""

import random


class Strategy:
    """Subclass and implement ``choose``. ``view`` is the seat's view (a mapping, as
    ``Match.view(seat)`` returns); ``legal_moves`` is a non-empty list of Move values.
    Return one of them. ``on_event`` is an optional hook called with each event dict the
    seat may see.

    ``inline = True``, in the class that defines ``choose``, declares that it answers at
    once (microseconds, never blocking, no I/O): the bot runner then calls it on its I/O
    loop instead of on a worker thread under a fallback timer (bots/strategy_adapter.py
    ``runs_inline``). It is not inherited by a subclass that overrides ``choose``."""

    name = "strategy"
    inline = False

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, view, legal_moves):
        raise NotImplementedError

    def on_event(self, event: dict) -> None:
        pass
