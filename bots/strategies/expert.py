"""expert: the house bot that is hard to beat — inference about the other seats, exact
endgames, playouts for the rest. Seat-honest: it reads its view and its legal moves only,
so it plays over the wire like any bot (``domino bot --strategy expert``).

Each move:

1. **Inference** (bots/inference.py). The bot keeps a belief on each other seat's policy
   family (random, greedy, soft, sharp: bots/policies.py), updated by Bayes from the
   seat's plays, the posterior of one deal the prior of the next. It draws worlds (every
   hidden tile placed) from the exact posterior of the shuffle given its view
   (rules/worlds.py), mixed with the same posterior under the greedy seats' exclusions,
   and weighs each by how likely the seats' plays were in it under their families; each
   world also gets a family per seat, drawn from that world's posterior.
2. **Look-ahead** (bots/endgame.py), per world: an exact search to the end of the deal
   (the bot's own moves maximised, the others' averaged over their families' chances, the
   HHL stock's order averaged over) when it fits in ``exact_nodes`` positions; otherwise
   one playout per legal move, the others by their families and the bot itself greedy.
   The same worlds serve every move (common random numbers).
3. The move with the best weighted mean wins (ties to greedy's choice, as in search).

Budget: ``units`` of work per move, a deterministic count (a world drawn and weighed costs
WORLD_UNITS, an exact position NODE_UNITS, a playout PLAYOUT_UNITS: about a microsecond
each on one core of the reference machine), so that a move is reproducible from the seed
whatever the load; ``ms`` a wall-clock cap on top (None: none), for play over the wire.
The defaults keep a move within 200 ms at p99 on one core (``python -m benchmarks
expert``). ``ceiling`` (class Ceiling) is the same method with ten times the budget and
a deeper exact search: a yardstick of what more thinking would bring, not a house bot.
"""

from __future__ import annotations

import time

from engine_service.rules.playout import from_view

from ..endgame import Solver, TooBig, playout
from ..inference import Belief, OpponentModel
from ..policies import FAMILIES, GREEDY, RANDOM, SHARP
from ..strategy import Strategy
from .search import CAMAT_BONUS, WIN_BONUS, best_move

WORLD_UNITS = 60       # drawing a world and weighing it (inference.Belief.draw)
NODE_UNITS = 2         # one position of the exact search
PLAYOUT_UNITS = 25     # one playout to the end of the deal
DEFAULT_UNITS = 90_000
DEFAULT_WORLDS = 256   # worlds drawn at most per move
MIN_WORLDS = 24        # worlds evaluated at least, whatever the budget says (48 put p99 at 229 ms)
EXACT_NODES = 4_000    # positions of one world's exact search at most
CHANCE_MAX = 3         # HHL stock tiles up to which the exact search averages every draw order
ALL_WORLDS = 120       # the view's worlds up to which every one is searched (none sampled)
BATCH = 16             # worlds drawn at a time
ALL_GREEDY: dict = {}  # no family named: every seat plays greedy in the look-ahead


class Expert(Strategy):
    name = "expert"

    def __init__(self, seed=None, units=DEFAULT_UNITS, worlds=DEFAULT_WORLDS, exact_nodes=EXACT_NODES,
                 ms=200, camat_bonus=CAMAT_BONUS, inference=True, exact=True, chance_max=CHANCE_MAX,
                 exact_unseen=None, proxy=False, all_worlds=ALL_WORLDS):
        super().__init__(seed)
        self.exact_unseen, self.proxy, self.all_worlds = exact_unseen, proxy, all_worlds
        self.units, self.max_worlds, self.exact_nodes = units, worlds, exact_nodes
        self.chance_max = chance_max
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
        spent = 0
        totals = [0.0] * len(legal_moves)
        weight = 0.0
        evaluated = exact_worlds = 0
        order = None
        self._exact_now = self.exact and (self.exact_unseen is None
                                          or belief.facts.unseen.bit_count() <= self.exact_unseen)
        every = belief.every_world(self.all_worlds, self.rng) if self._exact_now else None
        while evaluated < self.max_worlds:
            if every is not None:
                batch, every = every, []          # the endgame: every world, once
                if not batch:
                    break
            else:
                batch = belief.draw(min(BATCH, self.max_worlds - evaluated), self.rng)
            spent += WORLD_UNITS * len(batch)
            for w in batch:
                evaluated += 1
                if w.weight <= 0:
                    continue
                p = from_view(view, w.world.hands, w.world.rest)
                if order is None:
                    order = _order(p.legal(), legal_moves)
                families = w.family if self.inference else ALL_GREEDY
                if self.proxy:
                    families = {s: f for s, f in families.items() if f not in (GREEDY, SHARP)}
                values, cost, was_exact = self._values(p, seat, families)
                spent += cost
                exact_worlds += was_exact
                weight += w.weight
                for i, j in enumerate(order):
                    totals[i] += w.weight * values[j]
            if every is None and evaluated >= MIN_WORLDS and (
                    spent >= self.units or (deadline is not None and time.perf_counter() > deadline)):
                break
        if self.inference:
            self.model.observe(belief.posterior())
        self.stats = {"worlds": evaluated, "exact": exact_worlds, "units": spent,
                      "ess": belief.effective_size()}
        if weight <= 0:
            return legal_moves[best_move(legal_moves, [0.0] * len(legal_moves))]
        return legal_moves[best_move(legal_moves, totals)]

    def _values(self, p, seat: int, families: dict[int, str]) -> tuple[list[float], int, bool]:
        """The value of each of p's legal moves in this world, its cost in units, and
        whether it was exact."""
        spent = 0
        if self._exact_now:
            solver = Solver(seat, families, self.bonus, self.exact_nodes, self.rng.getrandbits(32),
                            self.chance_max)
            try:
                return solver.solve(p), NODE_UNITS * solver.nodes, True
            except TooBig:
                spent = NODE_UNITS * solver.nodes
                self._exact_now = False
        legal = p.legal()
        values = []
        for k in range(len(legal)):
            q = p.copy()
            q.apply(k)
            values.append(playout(q, seat, families, self.rng, self.bonus))
        return values, spent + PLAYOUT_UNITS * len(legal), False

    def belief(self) -> dict[int, dict[str, float]]:
        """The bot's belief on every other seat's family (for tests and analysis)."""
        return self.model.belief()


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
    """The yardstick: the expert's method with ten times its budget and a deeper exact
    search, not time-limited. Seat-honest like the expert, so it may play over the wire,
    but it is listed with the yardsticks: too slow for a house bot."""

    name = "ceiling"

    def __init__(self, seed=None, **kw):
        kw.setdefault("units", 10 * DEFAULT_UNITS)
        kw.setdefault("worlds", 10 * DEFAULT_WORLDS)
        kw.setdefault("exact_nodes", 10 * EXACT_NODES)
        kw.setdefault("chance_max", 4)
        kw.setdefault("all_worlds", 10 * ALL_WORLDS)
        kw.setdefault("ms", None)
        super().__init__(seed, **kw)
