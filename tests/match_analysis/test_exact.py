"""The analysis agrees with the exact values of small positions: late in a hand, every
consistent world enumerated with its exact posterior weight (Sampler.weight_of) and, in
HHL, every order of the stock; each value within its stated error (4 standard errors)."""

import pytest

from analysis.positions import hands_of
from analysis.values import honest, perfect
from engine_service.rules.worlds import Sampler

from .support import exact_values, played

MAX_UNSEEN = 8   # tiles to enumerate, at most: a few thousand worlds


def late_moments(variant, options, bots, want: int):
    """Decisions with few unseen tiles, from seeded matches (the same every run)."""
    found = []
    for k in range(200):
        record = played(variant, options, k, bots)
        for seat in range(len(bots)):
            for h in hands_of(record, [seat]):
                for mo in h.decisions:
                    if Sampler(mo.view).know.unseen.bit_count() <= MAX_UNSEEN:
                        found.append(mo)
                        break
        if len(found) >= want:
            return found[:want]
    raise AssertionError(f"only {len(found)} late decisions found")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant, options, bots", [
    ("hhl", {"hands": 1}, ("greedy", "random", "greedy", "random")),
    ("domeng", {"round_cap": 1}, ("greedy", "random", "greedy", "random", "greedy"))])
def test_seat_honest_values_agree_with_brute_force(variant, options, bots):
    checked = 0
    for mo in late_moments(variant, options, bots, 6):
        exact = exact_values(mo)
        got = honest(mo, 400, seed=5)
        for k in range(len(mo.legal)):
            err = abs(float(got["values"][k] - exact[k]))
            assert err <= 4 * got["se"][k] + 1e-9, (mo.legal[k], float(exact[k]), got)
            checked += 1
    assert checked >= 12


def test_perfect_information_values_are_the_true_hands_exactly():
    """One world, the true one: the enumeration restricted to it is the PI value."""
    mo = late_moments("hhl", {"hands": 1}, ("greedy", "random", "greedy", "random"), 1)[0]
    from fractions import Fraction
    from itertools import permutations

    from analysis.policy import after_move
    from engine_service.rules.playout import from_view

    orders = sorted(set(permutations(mo.rest)))
    want = [Fraction(sum(after_move(from_view(mo.view, mo.hands, list(o)), k, mo.seat, [])
                         for o in orders), len(orders)) for k in range(len(mo.legal))]
    assert perfect(mo) == want
