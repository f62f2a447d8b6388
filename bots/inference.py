"""Inference about the other seats: which policy family each one plays, and which worlds
its plays make likely. Seat-honest: it reads the view dict alone (docs/views.md), like any
bot over the wire.

The model. Each other seat s plays one policy family m_s of bots/policies.py (random,
greedy, soft, sharp), the same for the whole match. Before this deal the bot believes
``prior[s][m]`` (the posterior after the deals before; uniform at the match's start).
A world w (every hidden tile placed, rules/worlds.py) has its chance under the shuffle
alone, q0(w) (the exact posterior of the shuffle given the view: worlds.Sampler); the
seat's plays in this deal then have a likelihood L_s(w, m) under each family, the product
over its plays of the chance that m picks the move it picked, from the hand it held then
in w. So, by Bayes,

    P(w, m_1, m_2, ... | view)  ∝  q0(w) · Π_s prior[s][m_s] · L_s(w, m_s)

and the worlds the bot searches are drawn from that, by importance sampling.

Likelihoods. A seat's hand when it played is its hand now in w, plus the tiles it played
since, minus the tiles it drew since (HHL-6) and kept. Which of its tiles came with which
draw is not in w: a split of its tiles over its batches (knowledge.py) is drawn uniformly
among those that fit, each world then counting once for the split it got (an unbiased
estimate of the likelihood averaged over the splits, which is what q0 weighs worlds by).
For ``greedy`` the average over the splits is computed exactly instead: a greedy seat
held no playable tile heavier than the one it laid (knowledge.py ``assume_heaviest_first``,
which binds the batches held at each play), so L_s(w, greedy) is the share of w's splits
that obey those exclusions: knowledge.arrangements under the guess over arrangements under
the facts. A play the seat could not choose (the HHL opening, the first Domeng lead, HHL-2
and DOM-2) tells nothing; a play of the tile it just drew tells only the arm it chose.
Some plays contradict greedy whatever the world: a barricade, a tile laid on a later arm
than one it fits, the drawn tile laid elsewhere than greedy would.

The proposal. Drawing from q0 and weighting by the likelihoods wastes almost every world
on a greedy seat, whose exclusions rule out most of q0 after a few plays. So each world is
drawn from a mixture: for each seat that may be greedy, with chance alpha_s (its greedy
belief, capped at ALPHA_MAX), from the shuffle's posterior *with* the seat's exclusions
(an exact worlds.Sampler over that knowledge), else without. A subset G of seats thus
constrained gives q_G(w) = q0(w) · (W0 / W_G) · Π_{s in G} r_s(w), where W are the
samplers' exact total weights and r_s(w) = L_s(w, greedy); the mixture is the sum over G
(the balance heuristic), so every world's weight is exact:

    weight(w) = Π_s Lbar_s(w) / Σ_G P(G) (W0 / W_G) Π_{s in G} r_s(w),
    Lbar_s(w) = Σ_m prior[s][m] L_s(w, m).

The posterior on the families after this deal's plays, P(m_s = m | view), is the weighted
mean over the worlds of prior[s][m] L_s(w, m) / Lbar_s(w); each world also comes with a
family drawn for every seat from that ratio, which the look-ahead plays it with.
"""

from __future__ import annotations

import dataclasses
import math
import random
from itertools import combinations

from engine_service.rules import knowledge, worlds
from engine_service.rules.knowledge import SeatKnowledge, arrangements
from engine_service.rules.tiles import FITS, HI, IS_DOUBLE, LO, OTHER, PIPS, Tile, mask_of, tiles_of

from .policies import BETA, FAMILIES, GREEDY, RANDOM, SHARP, SOFT, WEIGHT

ALPHA_MAX = 0.95     # at most this share of worlds drawn under the greedy seats' exclusions
GREEDY_PROPOSED = 0.2   # a seat believed greedy at least this much is proposed greedy
FLOOR = 1e-3         # no family's belief falls below this between deals (a seat may change)
# The belief at a match's start: most bots shed heavy tiles first, and a greedy seat's
# plays exclude so many worlds that missing it costs more than missing any other family.
PRIOR = {RANDOM: 0.15, GREEDY: 0.55, SOFT: 0.15, SHARP: 0.15}
NO_WORLD = object()  # a guess that no world agrees with
ENUMERATION_TRIES = 20  # deals tried per world wanted, at most, when listing every world
_BETA_SOFT, _BETA_SHARP = BETA[SOFT], BETA[SHARP]
WEIGHT_SOFT, WEIGHT_SHARP = WEIGHT[SOFT], WEIGHT[SHARP]


def _sums(double_modes: bool) -> dict[int, tuple[int, float, float]]:
    """SUMS[mask] = (moves, Σ exp(β_soft·pips), Σ exp(β_sharp·pips)) of laying the tiles of
    ``mask`` on one end, for every set of tiles that all show one number (what
    ``hand & FITS[v]`` can be); an HHL double counts twice (normal and barricade, HHL-5)."""
    out = {}
    for v in range(7):
        showing = tiles_of(FITS[v])
        for k in range(1 << len(showing)):
            n, z1, z2, mask = 0, 0.0, 0.0, 0
            for j, t in enumerate(showing):
                if k >> j & 1:
                    c = 2 if double_modes and IS_DOUBLE[t] else 1
                    mask |= 1 << t
                    n += c
                    z1 += c * math.exp(_BETA_SOFT * PIPS[t])
                    z2 += c * math.exp(_BETA_SHARP * PIPS[t])
            out[mask] = (n, z1, z2)
    return out


SUMS = {"hhl": _sums(True), "domeng": _sums(False)}
PLACES = {"hhl": ("left", "right", "up", "down"), "domeng": ("left", "right")}


@dataclasses.dataclass
class Play:
    """One choice of another seat, as the view shows it."""
    tile: int
    fits: tuple[int, ...]   # per open end at that moment: the tiles that fit it (FITS), or () for a free lead
    lead: bool              # a free lead (DOM-3): any tile of the hand
    order: int              # its place among the seat's plays out of its batches (knowledge ``played``)
    batches: int            # the seat's batches when it played (its deal, then kept draws)


@dataclasses.dataclass
class SeatPlays:
    """What one other seat chose in this deal: the plays whose chance depends on its hand,
    the log chance of the rest under each family, and whether greedy is still possible."""
    seat: int
    plays: list[Play] = dataclasses.field(default_factory=list)
    public: dict = dataclasses.field(default_factory=lambda: dict.fromkeys(FAMILIES, 0.0))
    greedy_ok: bool = True


def read_plays(view) -> dict[int, SeatPlays]:
    """Every other seat's choices in this deal's history (docs/views.md), with the open ends
    replayed as knowledge.py does (HHL-3..HHL-6, DOM-4)."""
    variant, me = view["variant"], view["seat"]
    places = PLACES[variant]
    hhl = variant == "hhl"
    history = view["history"]
    out = {s: SeatPlays(s) for s in range(len(view["counts"])) if s != me}
    ends: list[int | None] = [None] * len(places)
    batches = dict.fromkeys(out, 1)
    order = dict.fromkeys(out, 0)
    drawn_play: set[int] = set()
    for idx, e in enumerate(history):
        kind, seat = e.get("kind"), e.get("seat")
        rec = out.get(seat)
        if kind == "draw" and rec is not None:
            after = knowledge.next_rules_event(history, idx)   # past the engine's events
            nxt = None if after is None else history[after]
            count = e["count"]
            if nxt is not None and nxt.get("kind") == "play" and nxt.get("seat") == seat:
                drawn_play.add(after)
                if count > 1:
                    batches[seat] += 1
            else:
                batches[seat] += 1
            continue
        if kind != "play":
            continue
        t = Tile.parse(e["play"])
        at = e.get("at")
        barricade = e.get("mode") == "barricade"
        if rec is not None:
            _note(rec, t, at, barricade, idx in drawn_play, ends, places, hhl, view, order, batches)
        if at is None:
            ends = [HI[t]] * 4 if hhl else [HI[t], LO[t]]   # HHL-3; DOM-4: high-low
        else:
            i = places.index(at)
            ends[i] = None if barricade else OTHER[t][ends[i]]
    return out


def _note(rec: SeatPlays, t, at, barricade, drawn, ends, places, hhl, view, order, batches) -> None:
    seat = rec.seat
    if not drawn:
        order[seat] += 1
    if at is None:
        if hhl or view["deal_number"] == 0:
            return                 # HHL-2 / DOM-2: the lead is forced, no choice made
        rec.plays.append(Play(t, (), True, order[seat] - 1, batches[seat]))
        return
    i = places.index(at)
    open_fits = tuple(FITS[v] if v is not None else 0 for v in ends)
    if drawn:
        # HHL-6: the drawn tile must be played; only its arm (and a double's mode) is chosen.
        arms = [j for j, f in enumerate(open_fits) if f >> t & 1]
        n = len(arms) * (2 if IS_DOUBLE[t] else 1)
        for f in (RANDOM, SOFT, SHARP):
            rec.public[f] -= math.log(n)        # the same tile in every option
        if barricade or arms[0] != i:
            rec.greedy_ok = False
        return
    if barricade:
        rec.greedy_ok = False                   # greedy never barricades
    if any(open_fits[j] >> t & 1 for j in range(i)):
        rec.greedy_ok = False                   # greedy lays a tile on the first end it fits
    rec.plays.append(Play(t, open_fits, False, order[seat] - 1, batches[seat]))


def assumed_seats(view) -> list[SeatKnowledge | None]:
    """Each seat's knowledge under the heaviest-first guess about it alone (knowledge.py
    ``assume_heaviest_first``), or None where the guess contradicts its plays. The seats'
    knowledge is independent of each other's, so it is built for all at once, as
    knowledge.from_view does, only that a contradiction is kept per seat instead of
    refusing the whole view."""
    layout = knowledge.LAYOUTS[view["variant"]]
    me, counts = view["seat"], list(view["counts"])
    seats: list[SeatKnowledge | None] = [
        None if s == me else SeatKnowledge(counts[s], [knowledge.Batch(layout.hand_size)])
        for s in range(len(counts))]
    history = view["history"]
    knowledge._exclude_undealt_leads(view, history, seats)
    walk = knowledge._Walk(view, layout, seats, [True] * len(counts))
    for idx, e in enumerate(history):
        walk.event(idx, e)
    out: list[SeatKnowledge | None] = []
    for k in seats:
        if k is not None:
            k.compositions = knowledge._compositions(k)
            if not k.compositions:
                k = None
        out.append(k)
    return out


class KnownSampler(worlds.Sampler):
    """worlds.Sampler over a given Knowledge (the facts with some seats' heaviest-first
    exclusions) instead of the facts alone: the exact posterior of the shuffle restricted
    to the worlds and splits those exclusions allow."""

    def __init__(self, view, know):     # not super().__init__: it would read the facts again
        self.know = know
        self.variant, self.seat = know.variant, know.seat
        self.hhl = know.variant == "hhl"
        self.checks = worlds._extra_facts(view, know)
        self._consistent = worlds.checker(view, know)
        self.exact = True
        try:
            self.parts = [(p, p.weight) for p in worlds._problems(view, know)]
        except (worlds._TooBig, worlds._NotNested):
            self.exact, self.parts = False, []
        self.count = sum(p.count for p, _ in self.parts) if self.exact else None
        self.weight = sum(w for _, w in self.parts) if self.exact else None
        if self.exact and not self.weight:
            raise worlds.NoWorld(f"seat {know.seat}: no world agrees with the view and the guess")


@dataclasses.dataclass
class Weighted:
    """A world with its importance weight (not normalised) and, per other seat, the family
    drawn for it from that world's posterior (for the look-ahead)."""
    world: worlds.World
    weight: float
    family: dict[int, str]


class Belief:
    """The worlds of one view under the opponents' models: ``draw(n, rng)`` gives n
    weighted worlds; ``posterior()`` then the belief on each seat's family."""

    def __init__(self, view, prior: dict[int, dict[str, float]]):
        self.view = view
        self.sums = SUMS[view["variant"]]
        self.prior = prior
        self.records = read_plays(view)
        self.facts = knowledge.from_view(view)
        self.base = worlds.Sampler(view)
        assumed = assumed_seats(view)
        self.greedy_k: dict[int, SeatKnowledge] = {
            s: assumed[s] for s, rec in self.records.items()
            if rec.greedy_ok and assumed[s] is not None and prior[s][GREEDY] > 0}
        self._pri = {s: tuple(prior[s][m] for m in FAMILIES) for s in self.records}
        self._prep = {s: self._prepare(s, rec) for s, rec in self.records.items()}
        self._memo: dict = {}
        self._proposal()
        self._acc = {s: [0.0] * len(FAMILIES) for s in self.records}
        self._total = self._sq = 0.0

    # ----- the proposal -------------------------------------------------------------
    def _proposal(self) -> None:
        """The mixture the worlds are drawn from: with chance ``alpha``, under the
        heaviest-first exclusions of the seats ``greedy`` (those believed greedy at least
        GREEDY_PROPOSED, whose exclusions admit a world), else under the facts alone."""
        self.greedy: frozenset = frozenset()
        self.alpha, self.ratio, self.guessed = 0.0, 1.0, None
        if not self.base.exact:
            return
        seats = {s for s in self.greedy_k if self.prior[s][GREEDY] >= GREEDY_PROPOSED}
        sampler = self._sampler(frozenset(seats)) if seats else None
        if sampler is NO_WORLD:
            # Some seat's exclusions admit no world: try each alone, keep those that do.
            for s in sorted(seats):
                one = self._sampler(frozenset([s]))
                if one is NO_WORLD:
                    del self.greedy_k[s]
                    seats.discard(s)
                elif one is None:
                    seats.discard(s)
            sampler = self._sampler(frozenset(seats)) if seats else None
        if sampler is None or sampler is NO_WORLD:
            return
        self.greedy, self.guessed = frozenset(seats), sampler
        self.alpha = max(0.5, min(ALPHA_MAX, min(self.prior[s][GREEDY] for s in seats)))
        self.ratio = self.base.weight / sampler.weight

    def _sampler(self, g: frozenset):
        """The exact sampler of the worlds with the seats of ``g`` greedy; NO_WORLD when
        there is none; None when its counting gave way (the mixture does without it)."""
        know = dataclasses.replace(self.facts, seats=[
            self.greedy_k[s] if s in g else k for s, k in enumerate(self.facts.seats)])
        try:
            sampler = KnownSampler(self.view, know)
        except (worlds.NoWorld, knowledge.KnowledgeError):
            return NO_WORLD
        return sampler if sampler.exact else None

    # ----- likelihoods --------------------------------------------------------------
    def _prepare(self, s: int, rec: SeatPlays):
        """What the likelihoods of seat s need, computed once per view: per play the masks
        of the open ends, the weights of the tile laid, and where its hand then came from."""
        k0 = self.facts.seats[s]
        played = [t for t, _ in k0.played]
        later = [0] * (len(played) + 1)
        for j in range(len(played) - 1, -1, -1):
            later[j] = later[j + 1] | 1 << played[j]
        plays = [(tuple(f for f in p.fits if f), WEIGHT_SOFT[p.tile], WEIGHT_SHARP[p.tile], p.lead,
                  p.order, p.batches) for p in rec.plays]
        public = tuple(math.exp(rec.public[m]) for m in (RANDOM, SOFT, SHARP))
        return plays, later, played, public, len(k0.batches) == 1

    def _greedy_ratio(self, s: int, hand: int, tiles) -> float:
        """L_s(w, greedy): the share of the world's splits of seat s that obey its
        heaviest-first exclusions."""
        kg = self.greedy_k.get(s)
        if kg is None:
            return 0.0
        k0 = self.facts.seats[s]
        if len(k0.batches) == 1:
            return 0.0 if hand & kg.batches[0].forbidden else 1.0
        a0 = arrangements(k0, tiles)
        return arrangements(kg, tiles) / a0 if a0 else 0.0

    def _likelihood(self, s: int, tiles, rng) -> tuple[float, float, float, float]:
        """L_s(w, m) for the families in FAMILIES' order, for seat s holding ``tiles``."""
        hand = mask_of(tiles)
        plays, later, played, (pr, p1, p2), single = self._prep[s]
        key = (s, hand)
        if single:
            got = self._memo.get(key)
            if got is not None:
                return got
            held = [hand | later[order] for _, _, _, _, order, _ in plays]
        else:
            held = self._held_split(s, tiles, played, plays, rng)
        sums = self.sums
        lr, l1, l2 = pr, p1, p2
        for (fits, w1, w2, lead, _, _), h in zip(plays, held, strict=True):
            if lead:
                n = h.bit_count()
                z1 = sum(WEIGHT_SOFT[t] for t in tiles_of(h))
                z2 = sum(WEIGHT_SHARP[t] for t in tiles_of(h))
            else:
                n, z1, z2 = 0, 0.0, 0.0
                for f in fits:
                    c, a, b = sums[h & f]
                    n += c
                    z1 += a
                    z2 += b
            lr /= n
            l1 *= w1 / z1
            l2 *= w2 / z2
        g = self._greedy_ratio(s, hand, tiles) if self.records[s].greedy_ok else 0.0
        out = (lr, g, l1, l2)
        if single:
            self._memo[key] = out
        return out

    def _held_split(self, s: int, tiles, played, plays, rng) -> list[int]:
        """The seat's hand at each of its plays, for a split of its tiles over its batches
        drawn uniformly (it kept tiles it drew: which came when is not in the world)."""
        batch_of = _split(self.facts.seats[s], tiles, rng)
        items = list(tiles) + played
        n = len(tiles)
        out = []
        for _, _, _, _, order, batches in plays:
            m = 0
            for j, t in enumerate(items):
                if batch_of is None or (batch_of[j] < batches and (j < n or j - n >= order)):
                    m |= 1 << t
            out.append(m)
        return out

    # ----- drawing -------------------------------------------------------------------
    def draw(self, n: int, rng: random.Random) -> list[Weighted]:
        """n worlds from the mixture, each with its weight and a family per seat."""
        out = []
        pri, acc = self._pri, self._acc
        for _ in range(n):
            guessed = self.guessed is not None and rng.random() < self.alpha
            world = (self.guessed if guessed else self.base).draw(rng)
            w = 1.0
            g_part = self.alpha * self.ratio if self.guessed is not None else 0.0
            posts = {}
            for s in self.records:
                lik = self._likelihood(s, world.hands[s], rng)
                ps = pri[s]
                terms = [p * x for p, x in zip(ps, lik, strict=True)]
                lbar = sum(terms)
                w *= lbar
                posts[s] = (terms, lbar)
                if s in self.greedy:
                    g_part *= lik[1]
            d = g_part + (1 - self.alpha)
            w = w / d if d > 0 else 0.0
            family = {}
            for s, (terms, lbar) in posts.items():
                if lbar > 0:
                    a = acc[s]
                    for j, x in enumerate(terms):
                        a[j] += w * x / lbar
                    family[s] = _pick(terms, lbar, rng)
                else:
                    family[s] = RANDOM
            self._total += w
            self._sq += w * w
            out.append(Weighted(world, w, family))
        return out

    def every_world(self, most: int, rng: random.Random) -> list[Weighted] | None:
        """Every world the view allows, each weighed by its exact posterior chance (the
        shuffle's, worlds.Sampler.weight_of, times the seats' likelihoods), with each seat's
        most likely family in it; None when there are more than ``most`` (or the counting
        gave way). For endgames: nothing sampled, nothing left out."""
        base = self.base
        if not base.exact or base.count > most:
            return None
        know = self.facts
        me = know.seat
        seats = [s for s, k in enumerate(know.seats) if k is not None and k.count]
        allowed = {s: know.unseen & ~know.seats[s].forbidden for s in seats}
        own = tuple(tiles_of(know.hand))
        found: list[tuple[worlds.World, int]] = []
        tries = [0]

        def deal(i: int, free: int, hands: dict) -> None:
            if i == len(seats):
                tries[0] += 1
                rest = tiles_of(free)
                if base.hhl:
                    rng.shuffle(rest)     # an order for a stock the search does not average
                world = worlds.World(tuple(own if s == me else tuple(hands.get(s, ())) for s in
                                           range(know.num_seats)), tuple(rest))
                w = base.weight_of(world)
                if w:
                    found.append((world, w))
                return
            s = seats[i]
            for combo in combinations(tiles_of(free & allowed[s]), know.counts[s]):
                hands[s] = combo
                deal(i + 1, free & ~mask_of(combo), hands)
                if tries[0] > ENUMERATION_TRIES * most:
                    return
        deal(0, know.unseen, {})
        # It calls itself through its own closure: a cycle that would keep every world
        # found for the cyclic collector (engine_service/rules/knowledge.py says why).
        deal = None
        if tries[0] > ENUMERATION_TRIES * most:
            return None
        out = []
        pri, acc = self._pri, self._acc
        for world, w_shuffle in found:
            w = float(w_shuffle) / float(base.weight)
            family = {}
            posts = []
            for s in self.records:
                lik = self._likelihood(s, world.hands[s], rng)
                terms = [p * x for p, x in zip(pri[s], lik, strict=True)]
                lbar = sum(terms)
                w *= lbar
                posts.append((s, terms, lbar))
            for s, terms, lbar in posts:
                if lbar > 0:
                    for j, x in enumerate(terms):
                        acc[s][j] += w * x / lbar
                family[s] = FAMILIES[max(range(len(terms)), key=terms.__getitem__)]
            self._total += w
            self._sq += w * w
            out.append(Weighted(world, w, family))
        return out

    def posterior(self) -> dict[int, dict[str, float]]:
        """Each seat's belief on the families after this deal's plays (the prior when no
        world had any weight)."""
        if self._total <= 0:
            return {s: dict(p) for s, p in self.prior.items()}
        return {s: {m: v / self._total for m, v in zip(FAMILIES, acc, strict=True)}
                for s, acc in self._acc.items()}

    def effective_size(self) -> float:
        """Kish's effective number of worlds, (Σw)² / Σw²."""
        return self._total ** 2 / self._sq if self._sq else 0.0


def _split(k: SeatKnowledge, tiles, rng) -> list[int] | None:
    """A split of the seat's tiles (its hand, then the tiles it played out of its batches)
    over its batches, uniformly among those that fit (each batch its size, each tile a batch
    that allows it): batch index per item, or None when none fits."""
    slots = [tuple(i for i, b in enumerate(k.batches) if not (b.forbidden >> t & 1)) for t in tiles]
    slots += [fits for _, fits in k.played]
    room = tuple(b.size for b in k.batches)
    memo: dict = {}
    if not knowledge.placings_from(slots, memo, 0, room):
        return None
    out, left = [], room
    for i in range(len(slots)):
        options = [(b, knowledge.placings_from(slots, memo, i + 1,
                                               left[:b] + (left[b] - 1,) + left[b + 1:]))
                   for b in slots[i] if left[b]]
        x = rng.random() * sum(c for _, c in options)
        for b, c in options:
            x -= c
            if x < 0 or b == options[-1][0]:
                break
        out.append(b)
        left = left[:b] + (left[b] - 1,) + left[b + 1:]
    return out


def _pick(terms, total: float, rng) -> str:
    """A family drawn with chances proportional to ``terms`` (FAMILIES' order)."""
    x = rng.random() * total
    for m, t in zip(FAMILIES, terms, strict=True):
        x -= t
        if x < 0:
            return m
    return FAMILIES[max(range(len(terms)), key=terms.__getitem__)]


class OpponentModel:
    """A seat's belief about the other seats' families over a match: the posterior after a
    deal is the prior of the next (deals are independent given the families), floored at
    FLOOR so that no family is ruled out for good (a seat's player may change hands)."""

    def __init__(self):
        self.deal: tuple | None = None
        self.prior: dict[int, dict[str, float]] = {}
        self.latest: dict[int, dict[str, float]] = {}

    def prior_for(self, view) -> dict[int, dict[str, float]]:
        """The prior for this view's deal (the last belief of the deal before, once it is over)."""
        deal = (view.get("deal_number"), len(view["counts"]))
        if deal != self.deal:
            if self.deal is not None:
                self.prior = {s: _floored(p) for s, p in self.latest.items()}
            self.deal = deal
        me = view["seat"]
        for s in range(len(view["counts"])):
            if s != me and s not in self.prior:
                self.prior[s] = dict(PRIOR)
        self.latest = {s: dict(p) for s, p in self.prior.items()}
        return self.prior

    def observe(self, posterior: dict[int, dict[str, float]]) -> None:
        self.latest = {s: dict(p) for s, p in posterior.items()}

    def belief(self) -> dict[int, dict[str, float]]:
        """The latest belief on every other seat's family."""
        return {s: dict(p) for s, p in self.latest.items()}


def _floored(p: dict[str, float]) -> dict[str, float]:
    q = {m: max(v, FLOOR) for m, v in p.items()}
    z = sum(q.values())
    return {m: v / z for m, v in q.items()}
