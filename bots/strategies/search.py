"""search: information-set Monte-Carlo search over determinized positions.

For each sample the hidden tiles are guessed consistently with what the seat knows
(engine_service/rules/knowledge.py and determinize.py: counts, the stock size, voids
shown by draws and passes), the position is rebuilt from the view with that guess as a
lean playout (engine_service/rules/playout.py ``from_view``: no events, no layout), and
every legal move is played out to the end of the hand/round with a fast greedy policy for
all seats. The same samples serve every move (common random
numbers), so moves are compared on equal deals. The move with the best mean wins.

Value of a playout, from the bot's seat:
  HHL:    its points for the hand, ``hand_points`` (HHL-9);
  Domeng: minus the stones it takes in the round (passes and settlement, net), plus
          half a stone for winning the round (it leads the next, DOM-3) and
          ``camat_bonus`` if it becomes CAMAT (DOM-10).

Beliefs: by default (``model=True``) the samples also assume that the other seats play
heaviest tile first, like greedy (rules/knowledge.py ``assume_heaviest_first``); when that
contradicts the view the bot falls back to the facts alone. ``swaps`` mixes each sample
towards the uniform law over consistent deals (engine_service/rules/determinize.py).

Worlds from the engine: with ``worlds=`` a world source (``bots.remote_worlds.RemoteWorlds``,
the Play service's SampleWorlds) the samples come over the wire instead, from the posterior
the facts give (docs/bots.md "SampleWorlds"), ``WORLDS_BATCH`` a call;
``model`` and ``swaps`` do not apply then. In-process the local sampler stays the default.

Budget: ``ms`` (wall clock per move, default 200) and/or ``iterations`` (samples per
move; each sample plays out every legal move once). With ``iterations`` alone the bot
is reproducible from its seed. One legal move is answered at once. It reads only the
view; it never touches a match.
"""

import time

from engine_service.rules import determinize, knowledge
from engine_service.rules.domeng import DomengPlayout, DomengPosition
from engine_service.rules.hhl import HHLPlayout, HHLPosition, hand_points
from engine_service.rules.moves import BARRICADE
from engine_service.rules.playout import from_view, playout_of
from engine_service.rules.tiles import PIPS, pips_of

from ..policies import greedy_lay as _greedy_choice
from ..strategy import Strategy

DEFAULT_MS = 200
SWAPS = 2  # Markov-chain swap proposals per unseen tile in each sample (engine_service/rules/determinize.py)
WORLDS_BATCH = 100  # worlds asked of a remote world source per call
CAMAT_BONUS = 5.0  # in stones: a CAMAT title is the first ranking key (DOM-11)
WIN_BONUS = 0.5  # in stones: the round's winner leads the next one (DOM-3)


def greedy_pick(moves):
    """The playout policy: the most pips, never a barricade (like strategies.greedy)."""
    best, best_pips = None, -1
    for m in moves:
        if m.mode == BARRICADE:
            continue
        p = PIPS[m.tile]
        if p > best_pips:
            best, best_pips = m, p
    return best if best is not None else moves[0]


mask_pips = pips_of  # the pips of a hand mask (two table lookups)




def run_greedy_hhl(state: HHLPosition | HHLPlayout) -> list[int]:
    """Finish the hand with every seat playing greedy; return the pips left per seat.
    Tiles go down through the rules' own ``lay`` (draws, passes and the end of the hand
    are the engine's: HHL-6..HHL-8); only the choice is computed here, from bit masks.
    The state (a playout, or a position) is used up: pass a copy."""
    hands = state.hands
    while not state.over:
        turn = state.turn
        t, i = _greedy_choice(state.ends, hands[turn] if state.drawn is None else 1 << state.drawn)
        state.lay(turn, t, i)
    return [mask_pips(h) for h in hands]


def run_greedy_domeng(state) -> None:
    """Finish the round with every seat playing greedy, through the rules' own ``lay``
    (passes, payments, MANGUNO and FIRST CAPPU are the engine's: DOM-5..DOM-8), leaving
    ``state`` (a playout, or a position) over and ready for its settlement. Pass a copy."""
    hands = state.hands
    while not state.over:
        turn = state.turn
        t, i = _greedy_choice(state.ends, hands[turn])
        state.lay(turn, t, i)


def playout_hhl(state, seat: int, move) -> float:
    """The value of ``seat`` playing ``move`` (one of the legal moves) in ``state``, a
    playout (used up: pass a copy) or a position: its points for the hand (HHL-9)."""
    p = state if isinstance(state, HHLPlayout) else playout_of(state)
    p.apply(p.legal().index(move))
    pips = p.pips() if p.over else run_greedy_hhl(p)
    return hand_points(pips)[seat]


def playout_domeng(state, seat: int, move, camat_bonus: float) -> float:
    """The value of ``seat`` playing ``move`` in ``state``, a playout (used up: pass a
    copy) or a position: minus the stones it takes in the round, plus the bonuses."""
    p = state if isinstance(state, DomengPlayout) else playout_of(state)
    before = p.stones.held[seat]
    p.apply(p.legal().index(move))
    if not p.over:
        run_greedy_domeng(p)
    result = p.result()
    value = -(result["held"][seat] - before)
    if result["winner"] == seat:
        value += WIN_BONUS
    if result["camat"] == seat:
        value += camat_bonus
    return value


def evaluate(base, seat: int, moves, totals: list, camat_bonus: float) -> None:
    """Play every move out once from ``base`` (a playout, or a position: its playout),
    copied per move, adding to ``totals``."""
    if isinstance(base, (HHLPosition, DomengPosition)):
        base = base.playout()
    if isinstance(base, HHLPlayout):
        for i, m in enumerate(moves):
            totals[i] += playout_hhl(base.copy(), seat, m)
    else:
        for i, m in enumerate(moves):
            totals[i] += playout_domeng(base.copy(), seat, m, camat_bonus)


def best_move(moves, totals):
    """Highest total; ties go to the move greedy would pick (then the first listed)."""
    g = greedy_pick(moves)
    return max(range(len(moves)), key=lambda i: (totals[i], moves[i] is g, -i))


class Search(Strategy):
    name = "search"

    def __init__(self, seed=None, ms=None, iterations=None, camat_bonus=CAMAT_BONUS, model=True, swaps=SWAPS,
                 worlds=None):
        super().__init__(seed)
        self.model, self.swaps = model, swaps
        self.worlds = worlds  # None: the local sampler; else worlds(view, count, seed) -> [(hands, rest)]
        if ms is None and iterations is None:
            ms = DEFAULT_MS
        self.ms, self.iterations, self.camat_bonus = ms, iterations, camat_bonus
        self.samples = 0  # samples used by the last choice (for benchmarks and tests)

    def _knowledge(self, view):
        if self.model:
            try:
                return knowledge.from_view(view, assume_heaviest_first=True)
            except knowledge.KnowledgeError:
                pass
        return knowledge.from_view(view)

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            self.samples = 0
            return legal_moves[0]
        start = time.perf_counter()
        deadline = None if self.ms is None else start + 0.95 * self.ms / 1000  # margin for the caller
        seat = view["seat"]
        know = None if self.worlds is not None else self._knowledge(view)
        build = from_view  # the view with the guessed tiles, as a playout (rules/playout.py)
        totals = [0.0] * len(legal_moves)
        n = 0
        fetched: list = []
        while True:
            t0 = time.perf_counter()
            if self.worlds is not None:
                if not fetched:
                    want = WORLDS_BATCH if self.iterations is None else min(WORLDS_BATCH, self.iterations - n)
                    fetched = self.worlds(view, want, self.rng.getrandbits(64))[::-1]
                    t0 = time.perf_counter()  # the round trip is not a sample's cost
                hands, rest = fetched.pop()
            else:
                try:
                    hands, rest = determinize.sample(know, self.rng, self.swaps)
                except determinize.NoConsistentWorld:
                    if not self.model:
                        raise
                    know = knowledge.from_view(view)  # the guess about the players failed
                    continue
            evaluate(build(view, hands, rest), seat, legal_moves, totals, self.camat_bonus)
            n += 1
            if self.iterations is not None and n >= self.iterations:
                break
            if deadline is not None:
                now = time.perf_counter()
                if now + 1.5 * (now - t0) > deadline:  # the next sample would overrun
                    break
        self.samples = n
        return legal_moves[best_move(legal_moves, totals)]
