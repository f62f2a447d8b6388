"""expert: the house bot that is hard to beat — inference about the other seats, and a
look-ahead in which its own later choices see only what it will have seen. Seat-honest: it
reads its view and its legal moves only, so it plays over the wire like any bot
(``domino bot --strategy expert``).

Each move:

1. **Inference** (bots/inference.py). The bot keeps a belief on each other seat's policy
   family (random, greedy, soft, sharp: bots/policies.py), updated by Bayes from the
   seat's plays, the posterior of one deal the prior of the next. It draws worlds (every
   hidden tile placed) from the exact posterior of the shuffle given its view
   (rules/worlds.py), mixed with the same posterior under the greedy seats' exclusions,
   and weighs each by how likely the seats' plays were in it under their families; each
   world also gets a family per seat, drawn from that world's posterior.
2. **Look-ahead** (bots/istree.py), over all the worlds at once: every legal move is
   played in every world, the others answering by their families; where the bot is to
   move again the worlds are grouped by what it would then see, and it makes one choice
   per group (``depth`` such choices), then every world is played out. Its later choices
   are thus made from what it will know, not from the world (no strategy fusion), and
   not by a fixed policy either (search plays its own later moves greedy).
3. **Exact endgames.** When few worlds remain (up to ``all_worlds`` consistent with the
   view, each with its exact posterior weight, the HHL stock's orders of up to
   ``chance_max`` tiles each as a world of its own) the same look-ahead runs over every
   one of them to the end of the deal: nothing sampled, nothing played out, the exact
   best against the families. One that would apply more than ``exact_nodes`` moves falls
   back to sampled worlds.
4. The move with the best weighted mean wins (ties to greedy's choice, as in search).

Budget: ``units`` of work per move, a deterministic count (a world drawn and weighed costs
WORLD_UNITS, a move applied in the look-ahead MOVE_UNITS: about a microsecond each on one
core of the reference machine), so that a move is reproducible from the seed whatever the
load: the worlds drawn are as many as the budget allows for the look-ahead the position
needs (at least MIN_WORLDS, at most ``worlds``); ``ms`` a wall-clock cap on top (None:
none): past it the look-ahead plays out the choices it has not made yet. The defaults
keep a move within 200 ms at p99 on one core (``python -m benchmarks expert``).
``ceiling`` (class Ceiling) is the same method with ten times the budget, one choice more
in its look-ahead and a larger exact endgame: a yardstick of what more thinking would
bring, not a house bot.
"""

from __future__ import annotations

import math
import time
from itertools import permutations

from engine_service.rules.hhl import HHLPlayout
from engine_service.rules.playout import from_view

from ..inference import Belief, OpponentModel
from ..istree import TooBig, World, move_values
from ..policies import FAMILIES, GREEDY, RANDOM
from ..strategy import Strategy
from .search import CAMAT_BONUS, WIN_BONUS, best_move

WORLD_UNITS = 60       # drawing a world and weighing it (inference.Belief.draw)
MOVE_UNITS = 2         # one move applied in the look-ahead
DEFAULT_UNITS = 80_000
DEFAULT_WORLDS = 256   # worlds drawn at most per move
MIN_WORLDS = 24        # worlds looked ahead in at least, whatever the budget says
DEPTH = 1              # the bot's own later choices made in the look-ahead, by groups
EXACT_NODES = 20_000   # moves the exact endgame may apply at most
CHANCE_MAX = 3         # HHL stock tiles up to which the exact endgame takes every order
ALL_WORLDS = 120       # the view's worlds up to which the endgame is exact (none sampled)
BATCH = 16             # worlds drawn at a time
TO_THE_END = 64        # a depth no deal reaches: the look-ahead never plays out
ALL_GREEDY: dict = {}  # no family named: every seat plays greedy in the look-ahead


class Expert(Strategy):
    name = "expert"

    def __init__(self, seed=None, units=DEFAULT_UNITS, worlds=DEFAULT_WORLDS, depth=DEPTH,
                 exact_nodes=EXACT_NODES, ms=200, camat_bonus=CAMAT_BONUS, inference=True,
                 exact=True, chance_max=CHANCE_MAX, all_worlds=ALL_WORLDS):
        super().__init__(seed)
        self.units, self.max_worlds, self.depth = units, worlds, depth
        self.exact_nodes, self.chance_max, self.all_worlds = exact_nodes, chance_max, all_worlds
        self.ms, self.bonus = ms, (WIN_BONUS, camat_bonus)
        self.inference, self.exact = inference, exact
        self.model = OpponentModel()
        self.stats: dict = {}      # what the last choice did (benchmarks and tests)

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            self.stats = {"worlds": 0}
            return legal_moves[0]
        start = time.perf_counter()
        deadline = None if self.ms is None else start + 0.9 * self.ms / 1000
        seat = view["seat"]
        prior = self.model.prior_for(view) if self.inference else _no_model(view)
        belief = Belief(view, prior)
        found = self._exact(view, belief, seat) if self.exact else None
        if found is None:
            found = self._sampled(view, belief, seat, len(legal_moves), deadline)
        if self.inference:
            self.model.observe(belief.posterior())
        self.stats["ess"] = belief.effective_size()
        if found is None:
            return legal_moves[best_move(legal_moves, [0.0] * len(legal_moves))]
        look, listed = found
        self.stats.update(work=look.work, cut=look.cut)
        order = _order(listed, legal_moves)
        return legal_moves[best_move(legal_moves, [look.values[j] for j in order])]

    def _families(self, w) -> dict:
        """The families the look-ahead plays the other seats with in world w: random where
        the world's draw says random, else greedy. The softmax families weigh worlds (they
        say how likely a seat's plays were) but make poor players to look ahead with: the
        seats they fit shed heavy tiles on purpose, and playing them as draws measurably
        weakened the bot against greedy seats."""
        if not self.inference:
            return ALL_GREEDY
        return {s: RANDOM for s, f in w.family.items() if f == RANDOM}

    def _exact(self, view, belief, seat):
        """The exact endgame over every world the view allows: (Look, the moves as listed),
        or None (too many worlds, or too big a tree)."""
        every = belief.every_world(self.all_worlds, self.rng)
        if not every:
            return None
        worlds = []
        for w in every:
            if w.weight > 0:
                worlds += _stock_orders(from_view(view, w.world.hands, w.world.rest), w.weight,
                                        self._families(w), self.chance_max)
        if not worlds:
            return None
        try:
            look = move_values(worlds, seat, self.bonus, TO_THE_END, exact=True,
                               limit=self.exact_nodes, salt=self.rng.getrandbits(32))
        except TooBig:
            return None
        self.stats = {"worlds": len(every), "exact": True}
        return look, worlds[0].p.legal()

    def _sampled(self, view, belief, seat, moves: int, deadline):
        """The look-ahead over worlds drawn as the budget allows: (Look, the moves as
        listed), or None when every world drawn had no weight (the plays seen contradict
        every model)."""
        left = sum(view["counts"])      # the tiles in hands bound the moves of a playout
        per_world = WORLD_UNITS + MOVE_UNITS * moves * (2 ** self.depth) * left
        wanted = max(MIN_WORLDS, min(self.max_worlds, self.units // per_world))
        worlds: list[World] = []
        drawn = 0
        while drawn < wanted:
            batch = belief.draw(min(BATCH, wanted - drawn), self.rng)
            drawn += len(batch)
            worlds += [World(from_view(view, w.world.hands, w.world.rest), w.weight,
                             self._families(w)) for w in batch if w.weight > 0]
            if drawn >= MIN_WORLDS and deadline is not None and time.perf_counter() > deadline:
                break
        self.stats = {"worlds": len(worlds), "exact": False}
        if not worlds:
            return None
        look = move_values(worlds, seat, self.bonus, self.depth, deadline=deadline,
                           salt=self.rng.getrandbits(32))
        return look, worlds[0].p.legal()

    def belief(self) -> dict[int, dict[str, float]]:
        """The bot's belief on every other seat's family (for tests and analysis)."""
        return self.model.belief()


def _stock_orders(p, weight: float, families: dict, most: int) -> list[World]:
    """The world once for every order of the HHL stock not yet drawn, each with its share
    of the weight, when at most ``most`` tiles are left (chance, averaged exactly); else
    once, in the order it has (one draw of the shuffle)."""
    left = len(p.stock) - p.stock_pos if isinstance(p, HHLPlayout) else 0
    if left < 2 or left > most:
        return [World(p, weight, families)]
    drawn, rest = p.stock[:p.stock_pos], p.stock[p.stock_pos:]
    share = weight / math.factorial(left)
    out = []
    for order in permutations(rest):
        q = p.copy()
        q.stock = drawn + list(order)
        out.append(World(q, share, families))
    return out


def _order(listed, legal_moves) -> list[int]:
    """For each of the strategy's legal moves, its index in the playout's listing (the
    same order, rules/playout.py; looked up in case a caller reordered them)."""
    if tuple(listed) == tuple(legal_moves):
        return list(range(len(legal_moves)))
    return [listed.index(m) for m in legal_moves]


def _no_model(view) -> dict[int, dict[str, float]]:
    """Inference off: the search bot's fixed guess that every other seat plays greedy
    (knowledge.py ``assume_heaviest_first``), never updated; a seat whose plays contradict
    it is weighed as random (search falls back to the facts alone)."""
    guess = dict.fromkeys(FAMILIES, 0.0)
    guess[GREEDY], guess[RANDOM] = 0.999, 0.001
    return {s: dict(guess) for s in range(len(view["counts"])) if s != view["seat"]}


class Ceiling(Expert):
    """The yardstick: the expert's method with ten times its budget, one choice more in its
    look-ahead and a larger exact endgame, not time-limited. Seat-honest like the expert,
    so it may play over the wire, but it is listed with the yardsticks: too slow for a
    house bot."""

    name = "ceiling"

    def __init__(self, seed=None, **kw):
        kw.setdefault("units", 10 * DEFAULT_UNITS)
        kw.setdefault("worlds", 10 * DEFAULT_WORLDS)
        kw.setdefault("depth", DEPTH + 1)
        kw.setdefault("exact_nodes", 10 * EXACT_NODES)
        kw.setdefault("chance_max", 4)
        kw.setdefault("all_worlds", 10 * ALL_WORLDS)
        kw.setdefault("ms", None)
        super().__init__(seed, **kw)
