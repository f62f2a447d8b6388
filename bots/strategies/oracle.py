"""oracle: the search bot with the cards face up — the yardstick of what information is worth.

In-process only, never over the wire: ``bots.arena.play_match`` calls ``attach(match)``
once before play, and the oracle then reads ``match.hand`` — every seat's true tiles and
the true stock *in its true draw order* (it knows the stock order too; this is the full
upper bound, not a partial one). It evaluates every legal move exactly as ``search`` does
(bots/strategies/search.py: the same greedy playout, the same values) but from the true
position instead of sampled guesses. The playouts are deterministic, so one playout per
move is the whole search: more iterations would repeat it.
"""

from ..strategy import Strategy
from .search import CAMAT_BONUS, best_move, evaluate


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
        evaluate(self.match.hand.fork(), seat, legal_moves, totals, self.camat_bonus)
        return legal_moves[best_move(legal_moves, totals)]
