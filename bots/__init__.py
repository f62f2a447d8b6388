"""Bots: a bot is one function, ``choose(view, legal_moves) -> move``.

Strategies live in bots/strategies/ (one file each); bots/arena.py plays them against
each other in-process. A bot only ever sees its own seat's view.
"""
