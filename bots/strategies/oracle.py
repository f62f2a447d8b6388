"""oracle: a perfect-information search with every hand face up — the yardstick of what
information is worth.

In-process only, never over the wire: ``bots.arena.play_match`` calls ``attach(match)``
once before play (the engine does the same for a ladder's yardstick seats), and the oracle
then reads ``match.position``: every seat's true tiles (and so which tiles are in the
stock, or sleep). It does not know the ORDER of the HHL stock: that is future chance, and
the search averages over every order of the stock tiles left.

Each move is valued by bots/pisearch.py (``move_values``): an expectimax search over the
plays left, the oracle's own later moves chosen to its best, the other seats modelled by
``model`` (pisearch.MODELS), to the depth ``nodes`` allows, then greedy playouts; exact to
the end of the deal when it fits. The best value wins; ties go to the move greedy would
pick. Values are the search bot's: HHL points for the hand, Domeng minus the stones taken
in the round plus the win and CAMAT bonuses.
"""

from .. import pisearch
from ..strategy import Strategy
from .search import CAMAT_BONUS, best_move


class Oracle(Strategy):
    name = "oracle"

    # model and nodes default to pisearch's DEFAULT_MODEL and DEFAULT_NODES, read when the
    # bot is made: pisearch imports this package (the playout policy), so this module
    # must not read pisearch while it is imported.
    def __init__(self, seed=None, camat_bonus=CAMAT_BONUS, model=None, nodes=None, ms=None, depth=None,
                 leaf_orders=None):
        super().__init__(seed)
        self.camat_bonus = camat_bonus
        self.model = pisearch.DEFAULT_MODEL if model is None else model
        self.nodes = pisearch.DEFAULT_NODES if nodes is None else nodes
        self.ms, self.depth, self.leaf_orders = ms, depth, leaf_orders
        self.match = None
        self.last = None  # the last choice's pisearch.Values (for benchmarks and tests)

    def attach(self, match) -> None:
        self.match = match

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            return legal_moves[0]
        if self.match is None:
            raise RuntimeError("the oracle sees every hand: it plays only in-process, after attach(match)")
        r = pisearch.move_values(self.match.position, model=self.model, nodes=self.nodes, ms=self.ms,
                                 depth=self.depth, camat_bonus=self.camat_bonus,
                                 leaf_orders=self.leaf_orders, seed=self.rng.getrandbits(32))
        self.last = r
        value = dict(zip(r.moves, r.values, strict=True))
        return legal_moves[best_move(legal_moves, [value[m] for m in legal_moves])]
