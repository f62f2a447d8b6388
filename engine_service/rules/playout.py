"""Lean positions for search playouts: an HHL hand (HHLPlayout) or a Domeng round
(DomengPlayout) with only what decides the rest of it. No events, no layout or line, no
views, no text, no checks: a search plays thousands of them per move.

    p = match.position.playout()                # the live deal (in-process bots)
    p = from_view(view, hands, rest)            # a seat's view plus a guessed world
    q = p.copy()                                # independent: p is left as it was
    q.legal()                                   # the legal moves, a tuple of Move, in
                                                #   Match.legal_moves' order
    q.apply(k)                                  # play the k-th, then the automatic draws
                                                #   and passes, as the rules do
    q.lay(q.turn, tile, place)                  # or lay a tile at an arm/end index directly
                                                #   (the position's own unchecked lay)
    q.over, q.turn                              # the seat to move, None once over
    q.result()                                  # once over: HHL, every seat's points
                                                #   (HHL-9); Domeng, settle_round's dict
                                                #   (stones, winner, CAMAT: DOM-7..DOM-10)

The result is what a search values a playout by, and no more: HHL points per seat (a
seat's pips alone can be read with ``pips()``), and for Domeng the round's settlement,
whose ``held`` minus the stones held before gives the stones a seat took in the round
(passes included: a playout's ``stones`` are its own and pay as the round goes).

A playout plays exactly like the Match API: the same legal moves in the same order at
every step, the same draws, passes, payments, end and result (tests/rules/test_playout.py,
over thousands of random games of both variants and their options).
"""

from .domeng import DomengPlayout, DomengPosition
from .hhl import HHLPlayout, HHLPosition

__all__ = ["DomengPlayout", "HHLPlayout", "from_view"]


def from_view(view: dict, hands, rest):
    """The playout of what ``view`` shows, the hidden tiles filled in as guessed:
    ``hands`` (every seat's tiles, matching the view's counts) and ``rest`` (the HHL
    stock in draw order, or the three sleeping Domeng tiles). As
    ``HHLPosition.from_view(...).playout()`` (or Domeng's), only faster."""
    if view["variant"] == "hhl":
        return HHLPlayout.from_view(view, hands, rest)
    return DomengPlayout.from_view(view, hands, rest)


def playout_of(position):
    """A live position (or a playout, copied) as a playout."""
    if isinstance(position, (HHLPosition, DomengPosition)):
        return position.playout()
    return position.copy()
