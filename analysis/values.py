"""The values of one moment (positions.Moment): every legal move's seat-honest and
perfect-information value, with standard errors. One function of plain data, run in a
worker process; its randomness comes from the moment's own seed alone, so the figures do
not depend on how many processes share the work.

Seat-honest: ``worlds`` worlds drawn from engine_service.rules.worlds.Sampler on the seat's
view (the exact posterior of the shuffle that SampleWorlds serves, the stock's order
included), each one the start of one continuation per legal move (the same worlds for
every move: their differences are paired). The value of a move is the mean of its
results; its standard error the sample standard deviation over sqrt(worlds); the loss's
standard error is that of the paired differences (best minus played).

Perfect information: the true hands; in HHL the stock's order, future chance, is averaged
over every distinct order of the tiles not yet drawn (at most 4! = 24: exact); Domeng has
no stock, so one continuation is exact. Standard error 0.

Values are exact fractions (sums of whole results over a count): the skill/luck identity
(report.py) then holds exactly, whatever the number of worlds.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import permutations
from math import sqrt

from engine_service.rules.playout import from_view
from engine_service.rules.worlds import Sampler

from .policy import after_move, finish

MAX_WORLDS = 10_000   # per moment, at the edges that take a number of worlds


def moment_seed(seed: int, deal: int, ply: int, seat: int) -> str:
    """The seed of one moment's worlds: the analysis seed and where the moment is (a string
    seeds random.Random through SHA-512: the same in every process)."""
    return f"analysis/{seed}/{deal}/{ply}/{seat}"


def _se(xs, mean: Fraction) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    m = float(mean)
    return sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)


def honest(mo, worlds: int, seed: int) -> dict:
    """Seat-honest values: {"values": [Fraction per move], "se": [...], "samples": [[result
    per world] per move]}; at the deal (no legal moves listed), one entry, the value of
    the position itself."""
    sampler = Sampler(mo.view)
    rng = random.Random(moment_seed(seed, mo.deal, mo.ply, mo.seat))
    n_moves = len(mo.legal) or 1
    samples: list[list[int]] = [[] for _ in range(n_moves)]
    for _ in range(worlds):
        w = sampler.draw(rng)
        base = from_view(mo.view, w.hands, w.rest)
        if mo.legal:
            for k in range(n_moves):
                samples[k].append(after_move(base, k, mo.seat, mo.held_at_deal))
        else:
            samples[0].append(finish(base, mo.seat, mo.held_at_deal))
    values = [Fraction(sum(xs), len(xs)) for xs in samples]
    return {"values": values, "se": [_se(xs, v) for xs, v in zip(samples, values, strict=True)],
            "samples": samples, "exact_posterior": sampler.exact}


def _true_bases(mo):
    """The true position as playouts: one per distinct order of the undrawn HHL stock."""
    if mo.view["variant"] != "hhl":
        yield from_view(mo.view, mo.hands, mo.rest)
        return
    for order in sorted(set(permutations(mo.rest))):
        yield from_view(mo.view, mo.hands, list(order))


def perfect(mo) -> list[Fraction]:
    """Perfect-information values, one per legal move (at the deal: one, the position's)."""
    n_moves = len(mo.legal) or 1
    totals, count = [0] * n_moves, 0
    for base in _true_bases(mo):
        count += 1
        for k in range(n_moves):
            totals[k] += (after_move(base, k, mo.seat, mo.held_at_deal) if mo.legal
                          else finish(base.copy(), mo.seat, mo.held_at_deal))
    return [Fraction(t, count) for t in totals]


def value_moment(job) -> dict:
    """Both values of one moment. ``job``: (index, moment, worlds, seed); the answer keeps
    the index (workers answer out of order)."""
    index, mo, worlds, seed = job
    h = honest(mo, worlds, seed)
    out = {"index": index, "honest": h["values"], "se": h["se"], "pi": perfect(mo),
           "exact_posterior": h["exact_posterior"]}
    if mo.legal:
        best = max(range(len(mo.legal)), key=lambda k: (h["values"][k], -k))
        diffs = [b - p for b, p in zip(h["samples"][best], h["samples"][mo.played], strict=True)]
        out["best"] = best
        out["loss_se"] = 0.0 if best == mo.played else _se(diffs, Fraction(sum(diffs), len(diffs)))
    return out
