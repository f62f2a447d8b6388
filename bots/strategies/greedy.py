from engine_service.rules.moves import BARRICADE

from ..strategy import Strategy


class Greedy(Strategy):
    """Sheds the most pips first; never barricades (it keeps every arm for itself).
    Ties go to the first listed move, so it is deterministic."""

    name = "greedy"
    inline = True

    def choose(self, view, legal_moves):
        best = None
        for m in legal_moves:
            if m.mode == BARRICADE:
                continue
            if best is None or m.tile.pips > best.tile.pips:
                best = m
        return best if best is not None else legal_moves[0]
