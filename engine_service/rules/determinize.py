"""Sampling the hidden tiles consistently with what a seat knows (knowledge.py): the
fast sampler the search bot draws hundreds of deals a move with (bots/strategies/search.py).

A sample gives every other seat exactly its count of tiles, each tile allowed by the
batch it is put in (voids, opening exclusions), and the rest to the HHL stock (in a
random draw order) or to the three Domeng sleeping tiles. The seat's own hand is its
own; no tile it can see (its hand, the table) is ever placed anywhere.

How: pick for each seat one split of its hand over its batches (knowledge.py
``compositions``), which turns the problem into *slots*, each with the tiles it may
not take. Fill the most constrained slot groups first, each with a uniformly random
choice among the tiles it may take; on a dead end start again. After a number of such
tries an exhaustive backtracking search settles the question: it either finds an
assignment or proves there is none, and then ``NoConsistentWorld`` is raised — never a
silent wrong sample. With no voids this is exactly a uniform deal; with voids it is
close to uniform (the order of filling tilts it slightly), which is enough for search.
Over worlds (hands and rest as sets, the glossary's word) a world comes out about as often
as its hand splits over the batches allow, so the law is near the posterior of the shuffle
that worlds.py draws exactly (SampleWorlds), not uniform over the consistent worlds.
"""

import random

from .knowledge import ALL_TILES, Knowledge, fits_batches
from .tiles import TILES, tiles_of

QUICK_TRIES = 30


class NoConsistentWorld(RuntimeError):
    """No placement of the unseen tiles satisfies the seat's knowledge."""


def _groups(know: Knowledge, rng: random.Random):
    """(owner, forbidden mask, size) for each slot group under a random composition;
    owner is a seat number or "rest"."""
    groups = []
    for s, k in enumerate(know.seats):
        if k is None or k.count == 0:
            continue
        comp = k.compositions[0] if len(k.compositions) == 1 else rng.choice(k.compositions)
        for b, c in zip(k.batches, comp, strict=True):
            if c:
                groups.append((s, b.forbidden, c))
    if know.rest_count:
        groups.append(("rest", 0, know.rest_count))
    return groups


def _quick(groups, unseen: int, rng: random.Random):
    """One randomized most-constrained-first fill; None on a dead end."""
    free = unseen
    out = []
    pending = list(groups)
    while pending:
        # most constrained: fewest allowed tiles per slot
        pending.sort(key=lambda g: (free & ~g[1]).bit_count() - g[2])
        owner, forbidden, size = pending.pop(0)
        allowed = tiles_of(free & ~forbidden)
        if len(allowed) < size:
            return None
        chosen = rng.sample(allowed, size)
        for t in chosen:
            free ^= 1 << t
        out.append((owner, forbidden, chosen))
    return out


def _exhaustive(know: Knowledge, unseen: int, rng: random.Random):
    """A complete search: for each combination of compositions, a bipartite matching of
    slots to tiles (augmenting paths, tiles tried in random order). An assignment, or
    None when no combination admits one."""
    from itertools import product

    seats = [(s, k) for s, k in enumerate(know.seats) if k is not None and k.count]
    order = tiles_of(unseen)
    for combo in product(*(k.compositions for _, k in seats)):
        slots = []
        for (s, k), comp in zip(seats, combo, strict=True):
            for b, c in zip(k.batches, comp, strict=True):
                slots.extend([(s, b.forbidden)] * c)
        rng.shuffle(order)
        got = _match(slots, order)
        if got is None:
            continue
        out = [(owner, forb, [t]) for (owner, forb), t in zip(slots, got, strict=True)]
        used = 0
        for t in got:
            used |= 1 << t
        if know.rest_count:
            out.append(("rest", 0, tiles_of(unseen & ~used)))
        return out
    return None


def _match(slots, order):
    """Kuhn's augmenting paths: a tile for every slot, or None."""
    owner_of = {}  # tile -> slot index
    for i in range(len(slots)):
        if not _augment(slots, order, owner_of, i, set()):
            return None
    got = [None] * len(slots)
    for t, i in owner_of.items():
        got[i] = TILES[t]
    return got


def _augment(slots, order, owner_of: dict, i: int, seen: set) -> bool:
    """A path that frees a tile for slot i (a module function, not a closure that calls
    itself: knowledge.py says why)."""
    forb = slots[i][1]
    for t in order:
        if forb >> t & 1 or t in seen:
            continue
        seen.add(t)
        j = owner_of.get(t)
        if j is None or _augment(slots, order, owner_of, j, seen):
            owner_of[t] = i
            return True
    return False


def _mix(placed, rng: random.Random, proposals: int):
    """Random swaps of two tiles between groups, each kept only if both tiles stay
    allowed where they land: a Markov chain whose stationary law is uniform over the
    deals consistent with the chosen split, which washes out the tilt of the
    most-constrained-first fill."""
    group, forb, tiles = [], [], []
    for g, (_, forbidden, chosen) in enumerate(placed):
        for t in chosen:
            group.append(g)
            forb.append(forbidden)
            tiles.append(t)
    n = len(tiles)
    if n < 2:
        return placed
    rand = rng.randrange
    for _ in range(proposals):
        i, j = rand(n), rand(n)
        if group[i] == group[j]:
            continue
        ti, tj = tiles[i], tiles[j]
        if not (forb[j] >> ti & 1 or forb[i] >> tj & 1):
            tiles[i], tiles[j] = tj, ti
    out = [(owner, forbidden, []) for owner, forbidden, _ in placed]
    for g, t in zip(group, tiles, strict=True):
        out[g][2].append(t)
    return out


def sample(know: Knowledge, rng: random.Random, swaps: int = 0) -> tuple[list[list], list]:
    """One guess of the hidden tiles: (hands for every seat, rest). The rest is the HHL
    stock in draw order or the Domeng sleeping tiles. ``swaps``: Markov-chain swap
    proposals per unseen tile after the fill (0: none). Raises NoConsistentWorld."""
    unseen = know.unseen
    placed = None
    for _ in range(QUICK_TRIES):
        placed = _quick(_groups(know, rng), unseen, rng)
        if placed is not None:
            break
    else:
        placed = _exhaustive(know, unseen, rng)
        if placed is None:
            raise NoConsistentWorld(
                f"seat {know.seat}: no placement of {unseen.bit_count()} unseen tiles fits the known voids"
            )
    if swaps:
        placed = _mix(placed, rng, swaps * unseen.bit_count())
    hands = [[] for _ in range(know.num_seats)]
    hands[know.seat] = tiles_of(know.hand)
    rest = []
    for owner, _, chosen in placed:
        if owner == "rest":
            rest.extend(chosen)
        else:
            hands[owner].extend(chosen)
    rng.shuffle(rest)  # the stock's draw order is unknown
    return hands, rest


def check(know: Knowledge, hands, rest) -> None:
    """Assert that a sample (hands, rest) agrees with the knowledge; for tests."""
    seen = know.hand | know.laid
    everything = 0
    for s, h in enumerate(hands):
        m = 0
        for t in h:
            assert not (m >> t & 1), f"tile {t} twice in seat {s}"
            m |= 1 << t
        assert len(h) == know.counts[s], f"seat {s} gets {len(h)} tiles, holds {know.counts[s]}"
        if s == know.seat:
            assert m == know.hand, "own hand changed"
        else:
            assert not m & seen, f"seat {s} gets a tile the seat can see"
            assert not m & know.seats[s].forbidden, f"seat {s} gets a tile it showed it lacks"
            assert fits_batches(know.seats[s], h), f"seat {s}'s tiles fit no split over its batches"
        assert not everything & m, "a tile placed twice"
        everything |= m
    r = 0
    for t in rest:
        r |= 1 << t
    assert len(rest) == know.rest_count and not r & everything and not r & seen
    assert everything | r | know.laid == ALL_TILES
