"""oracle: the search bot with every hand face up — the yardstick of what information is worth.

In-process only, never over the wire: ``bots.arena.play_match`` calls ``attach(match)``
once before play, and the oracle then reads ``match.position``: every seat's true tiles (and
so which tiles are in the stock, or sleep). It does not know the ORDER of the HHL stock:
that is future chance (the boneyard is shuffled; which tile comes next has not happened
yet), not hidden information about the present, so it averages over every order of the
stock tiles left (at most 4! = 24). It evaluates every legal move exactly as ``search``
does (bots/strategies/search.py: the same greedy playout, the same values) but from the
true hands instead of sampled guesses. Domeng has no stock: one playout per move is the
whole search.
"""

from itertools import permutations

from engine_service.rules.hhl import HHLPlayout
from engine_service.rules.playout import playout_of

from ..strategy import Strategy
from .search import CAMAT_BONUS, best_move, evaluate


def stock_orders(position):
    """The position, as a playout (engine_service/rules/playout.py), once for each order
    of the HHL stock tiles not yet drawn."""
    base = playout_of(position)
    if not isinstance(base, HHLPlayout):
        yield base
        return
    drawn, left = base.stock[:base.stock_pos], base.stock[base.stock_pos:]
    for order in set(permutations(left)):
        p = base.copy()
        p.stock = drawn + list(order)
        yield p


class Oracle(Strategy):
    name = "oracle"

    def __init__(self, seed=None, camat_bonus=CAMAT_BONUS):
        super().__init__(seed)
        self.camat_bonus = camat_bonus
        self.match = None

    def attach(self, match) -> None:
        self.match = match

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            return legal_moves[0]
        if self.match is None:
            raise RuntimeError("the oracle sees every hand: it plays only in-process, after attach(match)")
        seat = self.match.to_move  # the seat asked to choose; no view needed
        totals = [0.0] * len(legal_moves)
        for position in stock_orders(self.match.position):
            evaluate(position, seat, legal_moves, totals, self.camat_bonus)
        return legal_moves[best_move(legal_moves, totals)]
