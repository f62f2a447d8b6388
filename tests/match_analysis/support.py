"""Matches played in-process for the analysis tests (as `domino simulate --records` makes
them), and the exact values of a position by brute force."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, permutations

from analysis.policy import after_move
from bots.arena import play_match
from bots.strategies import make_strategy
from engine_service.rules.playout import from_view
from engine_service.rules.tiles import TILES, tiles_of
from engine_service.rules.worlds import Sampler, World


def played(variant: str, options: dict, seed: int, names) -> dict:
    """The record of one match played by the named strategies (seeded per seat)."""
    bots = [make_strategy(n, seed * 10 + s) for s, n in enumerate(names)]
    return play_match(variant, options, seed, bots).record(seats=list(names))


def _splits(tiles: list[int], sizes: list[int]):
    """Every way to give the tiles out in groups of the given sizes (groups in order)."""
    if not sizes:
        yield []
        return
    for group in combinations(tiles, sizes[0]):
        left = [t for t in tiles if t not in group]
        for more in _splits(left, sizes[1:]):
            yield [list(group), *more]


def exact_values(mo) -> list[Fraction]:
    """Every legal move's seat-honest value at a moment, by brute force: every world
    consistent with the seat's view with its exact posterior weight (Sampler.weight_of),
    and in HHL every order of the stock, each continuation the reference policy."""
    view, seat = mo.view, mo.seat
    sampler = Sampler(view)
    assert sampler.exact
    unseen = tiles_of(sampler.know.unseen)
    others = [s for s in range(len(view["counts"])) if s != seat]
    rest_count = view["stock"] if view["variant"] == "hhl" else 3
    sizes = [view["counts"][s] for s in others] + [rest_count]
    totals = [Fraction(0)] * len(mo.legal)
    weight_sum = 0
    for groups in _splits(unseen, sizes):
        hands = [None] * len(view["counts"])
        hands[seat] = tuple(TILES[t] for t in mo.hands[seat])
        for s, g in zip(others, groups, strict=False):
            hands[s] = tuple(TILES[t] for t in sorted(g))
        rest = [TILES[t] for t in groups[-1]]
        w = sampler.weight_of(World(tuple(hands), tuple(sorted(rest))))
        if not w:
            continue
        weight_sum += w
        orders = sorted(set(permutations(rest))) if view["variant"] == "hhl" else [tuple(rest)]
        for k in range(len(mo.legal)):
            got = sum(after_move(from_view(view, hands, list(o)), k, seat, mo.held_at_deal)
                      for o in orders)
            totals[k] += w * Fraction(got, len(orders))
    return [t / weight_sum for t in totals]
