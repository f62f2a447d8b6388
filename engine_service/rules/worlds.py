"""Worlds: the hidden tiles as they may be, drawn from the posterior that one seat's view
gives them. What the engine serves (Play.SampleWorlds, docs/bots.md "SampleWorlds").

A *world* gives every seat a hand (the asking seat's own as it is) and the rest: the HHL
stock in a draw order, or the three Domeng sleeping tiles. It is *consistent* with the
seat's view when

* every seat holds its count of tiles and the rest its count, and no tile the seat can
  see (its hand, the table) is placed anywhere;
* every other seat's hand agrees with what it showed (knowledge.py): a seat that drew or
  passed held no tile showing an open end then (HHL-6, DOM-5); in HHL that binds only the
  tiles it held at that moment, and the tiles it drew before the playable one lacked those
  numbers too; the opening lead tells which doubles were not dealt (HHL-2, DOM-2);
* the seat to move, when it is another, can play: the rules only stop at a seat holding a
  tile for an open end. In HHL, right after its draw, that tile is the one it drew, and
  its other tiles lack the ends;
* before the deal's first play: the leader holds the lowest double dealt, every lower one
  being in the stock (HHL-2); in a match's first Domeng round it holds the highest of
  6-6..3-3 dealt, the higher ones sleeping (DOM-2).

Distribution: the posterior of the shuffle given the view. The shuffle is a uniform
permutation, so before anything is seen every *deal* (the dealt hands as sets, the stock in
its order) is equally likely; the rules are deterministic given the deal and the moves
chosen, and no assumption is made about how the seats choose, so the view keeps exactly
the deals on which the recorded moves replay to it, each with the same chance. A world's
chance is therefore proportional to the number of deals behind it.

Behind a world, a deal says in addition how each seat's tiles arrived. Take a seat's
*batches* (knowledge.py): its deal, and for each draw the tiles drawn before the playable
one (the playable tile, drawn last, sits at a known place: it was played at once, or it is
the drawn tile the seat must play now; a draw that emptied the stock is one batch). The
seat's tiles are its hand in the world and the tiles it played out of its batches; a deal
is, per other seat, a split of those tiles over its batches, each batch getting exactly its
size, a hand tile only a batch whose voids and exclusions it satisfies, a played tile only a
batch it may have come from when it was played (knowledge.py ``played``); and then an order
within each draw batch and of the stock left. Every such choice replays to the view
(within a draw batch none of the tiles fit, so any order does) and different choices are
different deals. The orders multiply every world by the same number, and so does a seat
with no tile left (its split involves public tiles only), so they are dropped: the *weight*
of a world is the product over the other seats of the number of splits
(knowledge.arrangements), and its chance is its weight over the sum of all weights.

Nothing else in the view weighs: every other fact it shows is true or false of a world
whatever the split. The seat to move can play (its hand now, or the drawn tile alone). The
hand was never found blocked (HHL-8), which follows from the rest: after every turn some
seat played on the same ends, or is to move holding a tile for them. The opening (HHL-2,
DOM-2) is a fact about batch 0, so it narrows the splits and is counted inside the weight
(a lower double in a hand came from a draw). The asking seat's own tiles arrived one known
way. DOM-3 leads tell nothing of the tiles. In Domeng, and in HHL before any draw, every
seat has one batch and every consistent world one deal: uniform. The stock left is in a
uniformly random order.

Counting: exact, the consistent worlds are counted with their weights, not searched. The
unseen tiles fall into a few *types* (the tiles each seat may hold, and in which of its
batches), and the tiles of a type are interchangeable; a memoised programme (_Programme)
counts, type by type and within a type seat by seat, the ways to give the tiles out (C(r,
c) for c of the r tiles left), and a world is then drawn stage by stage with probabilities
from those counts (whole numbers: no rounding). A seat's batches are nested (a void binds
the tiles held at that moment, so an older batch lacks at least every number a newer one
lacks), so a tile's *level* (the oldest batch that may hold it) says every batch it may sit
in, and a world's weight depends only on how many tiles of each level each hand holds
(_Seat.weight); the counting keeps those numbers per seat and weighs each end state by
them. Before the first play the worlds split by the leader's opening double, each part
counted alike.

Bounded: a programme of more than MAX_STATES states (never seen in play; the test suite
watches for it) gives way to determinize.py's fast sampler, each of its worlds checked for
consistency. Then ``exact`` is False and the law is determinize.py's: one split of each
hand over its batches chosen uniformly among those that fit the plays, then the tiles
dealt into the batches near uniformly; that weighs a world roughly by its splits, so it is
near the posterior (test_world_posterior.py measures it) but not exactly it.

Rules profiles (rules/options.py; the view's ``options`` say which): every fact above holds
under both readings of HHL-8, since a dead stock is drawn (dead_stock=draw) only in the
step that ends the hand, so no view of a hand in play shows such a draw, and the hand goes
on, under either, exactly while some tile can be laid. DOM-8's reading moves stones only,
which the view shows. DOM-2 read literally (first_lead=any) frees the first lead: the
opening fact then binds the leader's dealt tiles, its hand and what it laid (_lead_order,
_opening_cases), through the whole first round, and knowledge.py reads no sign from the lead.

It reads the view alone (a dict as ``Match.view(seat)`` makes it), never a match: two true
deals behind one view give the same worlds for the same seed.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from . import determinize
from .domeng import FIRST_LEAD
from .knowledge import ALL_TILES, Knowledge, arrangements, from_view, numbers_mask_fits, placings
from .options import of_view
from .tiles import DOUBLE_OF, TILES, Tile, tiles_of

MAX_STATES = 200_000     # counting states, at most, before the fast sampler takes over
FALLBACK_TRIES = 1000    # draws of the fast sampler per world before giving up
FIRST_LEADS = (DOUBLE_OF[6], DOUBLE_OF[5], DOUBLE_OF[4], DOUBLE_OF[3])   # DOM-2
NONE, AT_LEAST_ONE, PENDING = 0, 1, 2   # what a seat must hold of its `fit` tiles


class NoWorld(RuntimeError):
    """No world agrees with the view: the view contradicts itself (or a bug)."""


@dataclass(frozen=True)
class World:
    """Every seat's hand (tile indices, ascending) and the rest (HHL: the stock in draw
    order; Domeng: the sleeping tiles, ascending)."""
    hands: tuple[tuple[int, ...], ...]
    rest: tuple[int, ...]


class _Seat:
    """One other seat, as the counting sees it: its tile count, the allowed mask of each of
    its batches (oldest first; nested) and their sizes, the splits of its count over them
    (knowledge.py ``compositions``), the tiles it played out of them, and what it must hold
    of the tiles showing an open end (`fit`): nothing, at least one (it is to move), or
    exactly one, the tile it just drew (HHL-6)."""

    def __init__(self, seat: int, count: int, allowed: list[int], sizes: list[int],
                 comps: list[tuple], played: list[tuple], mode: int = NONE, fit: int = 0):
        self.seat, self.count, self.mode, self.fit = seat, count, mode, fit
        self.allowed, self.sizes, self.comps, self.played = allowed, sizes, comps, played
        # For each split of the hand, the ways the played tiles go back into the room it
        # leaves: the same whatever the hand holds, so counted once per split.
        slots = [fits for _, fits in played]
        back = ((c, placings(slots, [n - x for n, x in zip(sizes, c, strict=True)]))
                for c in comps)
        self.back = [(c, n) for c, n in back if n]
        self._weights: dict[tuple, int] = {}

    def restricted(self, allowed: list[int]) -> _Seat:
        """The same seat with narrower batches (an opening case), holding what it held."""
        return _Seat(self.seat, self.count, allowed, self.sizes, self.comps, self.played,
                     self.mode, self.fit)

    def tile_class(self, t: int):
        """(level, shows an open end) of tile t for this seat, or None if it cannot hold it;
        the level is the oldest batch that may hold it. Under PENDING the drawn tile's class
        is "drawn"."""
        if self.mode == PENDING and self.fit >> t & 1:
            return "drawn"
        for level, mask in enumerate(self.allowed):
            if mask >> t & 1:
                return level, self.mode == AT_LEAST_ONE and bool(self.fit >> t & 1)
        return None

    def weight(self, levels: tuple, flag: int) -> int:
        """In how many ways a hand with `levels[i]` tiles of level i (`flag`: it shows an
        open end under AT_LEAST_ONE, holds the drawn tile under PENDING) and the played
        tiles can have arrived in the batches, each batch getting its size: the sum over
        the splits of the hand of the ways to spread the hand (_spreads) times the ways the
        played tiles go back (knowledge.placings). 0: no such hand."""
        if self.mode != NONE and flag != 1:
            return 0
        w = self._weights.get(levels)
        if w is None:
            w = self._weights[levels] = sum(_spreads(levels, c) * n for c, n in self.back)
        return w


def _spreads(levels: tuple, comp: tuple) -> int:
    """The ways to put a hand of distinct tiles, `levels[l]` of level l, into batches with
    `comp[j]` tiles each, when a tile of level l may sit in any batch j >= l (nested
    batches). Batch j takes its comp[j] from the tiles of level <= j not yet placed (a
    pool that only grows by the tiles of level j), so the count is the product of
    C(pool_j, comp_j), pool_j = sum(levels[:j+1]) - sum(comp[:j]); a pool smaller than its
    batch, or tiles left over, give 0."""
    ways, pool = 1, 0
    for have, take in zip(levels, comp, strict=True):
        pool += have
        if take > pool:
            return 0
        ways *= _COMB[pool][take]
        pool -= take
    return ways if pool == 0 else 0


_COMB = tuple(tuple(comb(n, k) for k in range(n + 1)) for n in range(len(TILES) + 1))


class _Programme:
    """The count of the worlds of one problem (the seats, the rest's count, and each unseen
    tile's class per seat and whether the rest may take it) with their total weight, and
    drawing from them by weight.

    The tiles of one type are interchangeable, so a world is, type after type, how many of
    its tiles each seat takes (and which ones: C(r, c) ways), the rest taking what is left.
    The programme has one *stage* per (type, seat that may take it) and one per (type, the
    rest); a state is every seat's tiles per level and flag, the rest's tile count and the
    tiles of the current type still to give. Counting is memoised on (stage, state); an end
    state weighs the product of the seats' weights (_Seat.weight)."""

    def __init__(self, seats: list[_Seat], rest_count: int, tiles: list[int], rest_ok: int):
        self.seats, self.rest_count = seats, rest_count
        by_type: dict[tuple, list[int]] = {}
        for t in tiles:
            sig = (tuple(s.tile_class(t) for s in seats), bool(rest_ok >> t & 1))
            by_type.setdefault(sig, []).append(t)
        self.types = sorted(by_type.items(), key=lambda kv: kv[1][0])
        self.stages: list[tuple[int, int | None]] = []     # (type, seat index | None: rest)
        for i, ((classes, _), _) in enumerate(self.types):
            self.stages += [(i, k) for k, c in enumerate(classes) if c is not None]
            self.stages.append((i, None))
        # tiles of the types after i that each seat (and the rest) may take: for pruning
        n_types = len(self.types)
        self.after = [[0] * len(seats) for _ in range(n_types + 1)]
        self.after_rest = [0] * (n_types + 1)
        for i in range(n_types - 1, -1, -1):
            (classes, ok), group = self.types[i]
            for k, c in enumerate(classes):
                self.after[i][k] = self.after[i + 1][k] + (len(group) if c is not None else 0)
            self.after_rest[i] = self.after_rest[i + 1] + (len(group) if ok else 0)
        self.after = [self.after[i + 1] for i in range(n_types)]
        self.after_rest = [self.after_rest[i + 1] for i in range(n_types)]
        self.pending = [s.mode == PENDING for s in seats]
        self._memo: dict[tuple, tuple[int, int]] = {}
        self._draws: dict[tuple, tuple] = {}
        start = tuple(((0,) * len(s.allowed), 0) for s in seats)
        self.start = (0, start, 0, len(self.types[0][1]) if self.types else 0)
        self.count, self.weight = self._count(self.start)

    def _held(self, k: int, h: tuple, f: int) -> int:
        return sum(h) + (f if self.pending[k] else 0)

    def _options(self, key):
        """Each way on from `key` = (stage, seat states, rest's tiles, tiles left of this
        type): (tiles given at this stage, the number of ways, the next key)."""
        j, state, rest, r = key
        i, k = self.stages[j]
        if k is None:                       # the rest takes what is left of the type
            (_, rest_ok), _ = self.types[i]
            rest += r
            if (r and not rest_ok) or rest > self.rest_count \
                    or self.rest_count - rest > self.after_rest[i]:
                return
            after = self.after[i]
            for k2, (s, (h, f)) in enumerate(zip(self.seats, state, strict=True)):
                if s.count - self._held(k2, h, f) > after[k2]:
                    return                  # that seat can no longer be filled
            nxt_r = len(self.types[i + 1][1]) if i + 1 < len(self.types) else 0
            yield r, 1, (j + 1, state, rest, nxt_r)
            return
        (classes, _), _ = self.types[i]
        seat, (h, f) = self.seats[k], state[k]
        room = seat.count - self._held(k, h, f)
        lo, hi = max(0, room - self.after[i][k]), min(r, room)
        cls = classes[k]
        if cls == "drawn":
            hi = min(hi, 1 - f)             # one tile was drawn last, not two
        ways = _COMB[r]
        for c in range(lo, hi + 1):
            if not c:
                yield 0, 1, (j + 1, state, rest, r)
                continue
            if cls == "drawn":
                new = (h, f + c)
            else:
                level, shows = cls
                new = (h[:level] + (h[level] + c,) + h[level + 1:], 1 if shows else f)
            yield c, ways[c], (j + 1, state[:k] + (new,) + state[k + 1:], rest, r - c)

    def _count(self, key) -> tuple[int, int]:
        """(the worlds on from `key`, the sum of their weights): both in one pass, the
        count for ``Sampler.count``, the weights for drawing."""
        got = self._memo.get(key)
        if got is not None:
            return got
        if len(self._memo) > MAX_STATES:
            raise _TooBig()
        if key[0] == len(self.stages):
            weight = 1
            for s, (h, f) in zip(self.seats, key[1], strict=True):
                weight *= s.weight(h, f)
                if not weight:
                    break
            total = (1 if weight else 0, weight)
        else:
            worlds = weight = 0
            for _, ways, nxt in self._options(key):
                n, w = self._count(nxt)
                worlds += ways * n
                weight += ways * w
            total = (worlds, weight)
        self._memo[key] = total
        return total

    def _weighted(self, key):
        """The ways on from `key` with their running total of weight, kept: a call draws up
        to a thousand worlds through the same few states."""
        got = self._draws.get(key)
        if got is None:
            moves, bounds, total = [], [], 0
            for c, ways, nxt in self._options(key):
                weight = ways * self._count(nxt)[1]
                if weight:
                    total += weight
                    moves.append((c, nxt))
                    bounds.append(total)
            got = self._draws[key] = (moves, bounds, total)
        return got

    def draw(self, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """One world of this problem, with a probability proportional to its weight:
        (tiles per seat, rest). Each stage's share is drawn with a probability proportional
        to the weight of the worlds it leaves (whole numbers, so exact); each type's tiles
        are then shuffled into the shares (the tiles of a type are interchangeable, so
        every world of the same shares has the same weight)."""
        key = self.start
        hands: list[list[int]] = [[] for _ in self.seats]
        rest: list[int] = []
        tiles, at = [], 0
        while key[0] < len(self.stages):
            i, k = self.stages[key[0]]
            if at == 0 and not tiles:
                tiles = list(self.types[i][1])
                if len(tiles) > 1:
                    rng.shuffle(tiles)
            moves, bounds, total = self._weighted(key)
            c, key = moves[bisect_right(bounds, rng.randrange(total))]
            (rest if k is None else hands[k]).extend(tiles[at:at + c])
            at += c
            if k is None:
                tiles, at = [], 0
        return hands, rest


def _choose(rng: random.Random, weighted: list[tuple]):
    """One item of [(item, weight)], with a probability proportional to its weight (exact:
    the weights are whole numbers, however large)."""
    pick = rng.randrange(sum(w for _, w in weighted))
    for item, weight in weighted:
        if pick < weight:
            return item
        pick -= weight
    raise AssertionError("unreachable")


class _TooBig(Exception):
    pass


class Sampler:
    """The worlds of one view, counted once; ``draw(rng)`` gives one, with the probability
    the posterior gives it (``probability``).

    ``count``: the number of consistent worlds (hands and rest as sets, stock orders not
    counted), whatever their weights. ``weight``: the sum of their weights, a world's
    weight being the number of ways its seats' tiles can have arrived (``weight_of``; up
    to a factor common to every world of the view, the number of deals behind it). Both
    are None when ``exact`` is False: the fast sampler had to stand in (MAX_STATES)."""

    def __init__(self, view):
        self.know = know = from_view(view)
        self.variant, self.seat = know.variant, know.seat
        self.hhl = know.variant == "hhl"
        self.checks = _extra_facts(view, know)
        self._consistent = checker(view, know)
        self.exact = True
        try:
            self.parts = [(p, p.weight) for p in _problems(view, know)]
        except (_TooBig, _NotNested):
            self.exact, self.parts = False, []
        self.count = sum(p.count for p, _ in self.parts) if self.exact else None
        self.weight = sum(w for _, w in self.parts) if self.exact else None
        if self.exact and not self.weight:
            raise NoWorld(f"seat {know.seat}: no world agrees with the view")

    def weight_of(self, world: World) -> int:
        """The world's weight: 0 when it is not consistent, else the product over the other
        seats holding tiles of the ways their tiles can have arrived
        (knowledge.arrangements). Computed from the knowledge directly, not by the
        counting, so that the two can check each other."""
        if not self._consistent(world):
            return 0
        weight = 1
        for s, k in enumerate(self.know.seats):
            if k is not None and k.count:
                weight *= arrangements(k, world.hands[s])
        return weight

    def probability(self, world: World) -> Fraction:
        """The chance that ``draw`` gives this world (stock order aside), exactly; only
        when ``exact``."""
        if not self.exact:
            raise ValueError("the fast sampler stood in: no exact probability")
        return Fraction(self.weight_of(world), self.weight)

    def draw(self, rng: random.Random) -> World:
        know = self.know
        hands = [[] for _ in range(know.num_seats)]
        hands[know.seat] = tiles_of(know.hand)
        if self.exact:
            problem = _choose(rng, self.parts)
            got, rest = problem.draw(rng)
            for s, tiles in zip(problem.seats, got, strict=True):
                hands[s.seat] = sorted(tiles)
        else:
            hands, rest = self._fallback(rng)
        if self.hhl:
            rng.shuffle(rest)    # the stock's order is not known: every order alike
        else:
            rest.sort()
        return World(tuple(tuple(TILES[t] for t in h) for h in hands), tuple(TILES[t] for t in rest))

    def _fallback(self, rng: random.Random):
        for _ in range(FALLBACK_TRIES):
            hands, rest = determinize.sample(self.know, rng, swaps=2)
            if all(check([set(h) for h in hands]) for check in self.checks):
                return [sorted(h) for h in hands], list(rest)
        raise NoWorld(f"seat {self.know.seat}: no world found in {FALLBACK_TRIES} draws")


class _NotNested(Exception):
    pass


def _seat_models(know: Knowledge, to_move: int | None, pending: bool, fit: int) -> list[_Seat]:
    seats = []
    for s, k in enumerate(know.seats):
        if k is None or k.count == 0:
            continue
        batches = k.batches
        comps = k.compositions
        mode = NONE
        if s == to_move:
            mode = PENDING if pending else AT_LEAST_ONE
        if mode == PENDING:
            # The tile just drawn is the last batch, always one tile (knowledge.py).
            if any(c[-1] != 1 for c in comps):
                raise _NotNested()
            batches, comps = batches[:-1], [c[:-1] for c in comps]
        allowed = [know.unseen & ~b.forbidden for b in batches]
        if any(a & ~b for a, b in zip(allowed, allowed[1:], strict=False)):
            raise _NotNested()   # never with the facts alone; a guard, not a case
        sizes = [b.size for b in batches]
        if any(i >= len(sizes) for _, fits in k.played for i in fits):
            raise _NotNested()   # a tile played out of the draw it must still play: never
        seats.append(_Seat(s, k.count, allowed, sizes, comps, k.played, mode, fit))
    return seats


def _opened(view) -> bool:
    return any(e.get("kind") == "play" for e in view["history"])


def _leader(view) -> int:
    """The deal's leader, as its start told (before the first play, the seat to move)."""
    start = next((e for e in view["history"] if e.get("kind") == "deal_start"), None)
    return view["turn"] if start is None or start.get("leader") is None else start["leader"]


def _lead_order(view, know: Knowledge):
    """The doubles whose first dealt names the leader, in that order, while that fact is
    the sampler's to weigh (None: it is not): HHL's lowest first (HHL-2) and a match's
    first Domeng round's highest of 6-6..3-3 (DOM-2), before the deal's first play; and,
    DOM-2 read literally (first_lead=any), through the whole first round, since its lead
    says nothing of the doubles. Once a forced opening is played, knowledge.py reads it."""
    if know.variant == "hhl":
        return None if _opened(view) else [DOUBLE_OF[v] for v in range(7)]
    if view["deal_number"] != 0:
        return None                                          # DOM-3: any tile, no fact
    if _opened(view) and of_view(view, FIRST_LEAD) != FIRST_LEAD.literal:
        return None
    return list(FIRST_LEADS)


def _opening_cases(view, know: Knowledge):
    """[(the double that named the leader, tiles that must be in the rest)], one per way
    the deal can have named the leader (_lead_order); None when no such fact is weighed.
    The leader was dealt that double (it holds it, or laid it) and every double ranking
    before it is in the rest."""
    order = _lead_order(view, know)
    if order is None:
        return None
    leader, mine = _leader(view), know.hand
    laid_by = {Tile.parse(e["play"]): e["seat"] for e in view["history"] if e.get("kind") == "play"}
    cases = []
    for i, d in enumerate(order):
        if mine >> d & 1:
            if leader == know.seat:
                cases = [(d, order[:i])]
            break     # a double of mine ranks below this: the leader holds an earlier one
        if not know.unseen >> d & 1:     # on the table: the leader may have laid it
            if laid_by.get(d) == leader:
                cases.append((d, order[:i]))
            break     # seen, it is in no rest: no later double can have named the leader
        if leader != know.seat:
            cases.append((d, order[:i]))
    return cases


def _to_move(view, know: Knowledge) -> tuple[int | None, bool]:
    """The other seat to move once the deal is opened (None: none, or no fact to add), and
    whether it must play the tile it just drew (HHL-6: its draw is the last event)."""
    turn = view["turn"]
    if turn is None or turn == know.seat or view.get("over") or not _opened(view):
        return None, False
    history = view["history"]
    last = history[-1] if history else {}
    return turn, know.variant == "hhl" and last.get("kind") == "draw" and last.get("seat") == turn


def _problems(view, know: Knowledge) -> list[_Programme]:
    openings = _opening_cases(view, know)
    fit = numbers_mask_fits(know.open_numbers())
    to_move, pending = _to_move(view, know)
    seats = _seat_models(know, to_move, pending, fit)
    unseen = tiles_of(know.unseen)
    if openings is None:
        return [_Programme(seats, know.rest_count, unseen, ALL_TILES)]
    out = []
    leader = next((s for s in seats if s.seat == _leader(view)), None)
    for lead, lower in openings:
        rest_only = sum(1 << t for t in lower)
        case = []
        for s in seats:
            allowed = [a & ~rest_only for a in s.allowed]
            if s is not leader:
                allowed = [a & ~(1 << lead) for a in allowed]
            case.append(s.restricted(allowed))
        rest_ok = ALL_TILES & ~(1 << lead if leader is not None else 0)
        out.append(_Programme(case, know.rest_count, unseen, rest_ok))
    return out


def _extra_facts(view, know: Knowledge) -> list:
    """The facts beyond knowledge.py, as checks of a guess of every seat's tiles (sets): the
    opening rule before the first play; the seat to move can play (right after its draw:
    with the drawn tile alone). For the fast sampler, and for tests."""
    checks = []
    openings = _opening_cases(view, know)
    fit = numbers_mask_fits(know.open_numbers())
    to_move, pending = _to_move(view, know)
    if openings:
        lower_of = dict(openings)
        leader = _leader(view)
        laid = {Tile.parse(e["play"]) for e in view["history"]
                if e.get("kind") == "play" and e.get("seat") == leader}

        def opening(hands):
            dealt = hands[leader] | laid          # no draw before the facts apply
            lead = next((d for d in lower_of if d in dealt), None)
            return lead is not None and not any(t in h for h in hands for t in lower_of[lead])
        checks.append(opening)
    if to_move is not None:
        def can_play(hands):
            showing = sum(fit >> t & 1 for t in hands[to_move])
            return showing == 1 if pending else showing >= 1
        checks.append(can_play)
    return checks


def consistent(view, world: World) -> bool:
    """Does the world agree with the view (everything the module docstring lists)?"""
    return checker(view)(world)


def checker(view, know: Knowledge | None = None):
    """consistent(view, .) as a function of the world, the view read once (for tests)."""
    know = from_view(view) if know is None else know
    facts = _extra_facts(view, know)

    def check(world: World) -> bool:
        try:
            determinize.check(know, [list(h) for h in world.hands], list(world.rest))
        except AssertionError:
            return False
        hands = [set(h) for h in world.hands]
        return all(fact(hands) for fact in facts)
    return check


def sample_worlds(view, count: int, seed: int) -> tuple[list[World], bool]:
    """`count` worlds for the seat whose view this is, from `seed` (the same view and seed
    give the same worlds); and whether they were drawn exactly from the posterior."""
    sampler = Sampler(view)
    rng = random.Random(seed)
    return [sampler.draw(rng) for _ in range(count)], sampler.exact
