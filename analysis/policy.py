"""The reference policy of every continuation, and what a hand is worth to a seat.

Every value the analysis reports is "the seat's final result of the hand if every seat
played the reference policy from here on". The policy is ``greedy`` (bots/strategies/
greedy.py: the most pips first, never a barricade, ties to the first listed move), played
through the rules' own lean playouts (engine_service/rules/playout.py) by the search bot's
loop (bots/strategies/search.py ``run_greedy_hhl`` / ``run_greedy_domeng``), so the draws,
passes, payments and ends are the rules' and a new rules profile needs nothing here.

Why greedy and not heuristic: heuristic reads a seat's view (knowledge.py) at every step,
and a playout has no views; a whole HHL hand played by heuristic through a Match costs
about 80 times a greedy playout's (some 3 ms against 35 us: ``python -m benchmarks
analysis`` prints both), so at the speed target (2 s of one core per HHL hand and seat)
heuristic continuations would allow some 15 worlds per decision where greedy allows
over a thousand. The policy's name is in every analysis (``policy``).

Result of a hand for seat S (higher is better):
  HHL:    its points for the hand, P = 25*C - 100*R (HHL-9);
  Domeng: minus the stones S took in the round, passes and settlement net (DOM-5..DOM-8):
          its stones held when the round is settled minus those it held when the round was
          dealt, negated. No bonus for winning or for a CAMAT title: the result only.
"""

from bots.strategies.search import greedy_pick, run_greedy_domeng, run_greedy_hhl
from engine_service.rules.hhl import HHLPlayout, hand_points

POLICY = "greedy"
UNITS = {"hhl": "points", "domeng": "stones"}


def _open(p) -> None:
    """The first play of a hand, when it is still to make (no ends yet): the HHL opening
    double (HHL-2), the Domeng lead (DOM-2, or DOM-3's free lead, chosen greedily)."""
    if p.ends is None and not p.over:
        legal = p.legal()
        p.apply(legal.index(greedy_pick(legal)))


def finish(p, seat: int, held_at_deal) -> int:
    """Play the playout ``p`` (used up: pass a copy) to the end of its hand with the
    reference policy; return ``seat``'s result (module doc). ``held_at_deal``: Domeng, the
    stones every seat held when the round was dealt (unused in HHL)."""
    _open(p)
    if isinstance(p, HHLPlayout):
        pips = p.pips() if p.over else run_greedy_hhl(p)
        return hand_points(pips)[seat]
    if not p.over:
        run_greedy_domeng(p)
    return held_at_deal[seat] - p.result()["held"][seat]


def after_move(p, k: int, seat: int, held_at_deal) -> int:
    """The result for ``seat`` of playing the k-th legal move of ``p`` (copied) and then the
    reference policy for all."""
    q = p.copy()
    q.apply(k)
    return finish(q, seat, held_at_deal)
