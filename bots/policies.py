"""The policy families the expert bot models the other seats with (bots/inference.py) and
plays them with in its look-ahead (bots/istree.py, bots/strategies/expert.py).

A family says how likely each legal move is, given the seat's hand and the open ends:

* ``random``: every legal move alike (what strategies.random does);
* ``greedy``: the first listed move with the most pips, never a barricade (exactly what
  strategies.greedy does: a deterministic player, so one move has all the chance);
* ``soft``, ``sharp``: a softmax over the pips of the tile laid, ``exp(BETA * pips)``
  (a double's two modes alike): players that lean towards shedding pips without being
  greedy, as search-like and heuristic players do, ``soft`` a little, ``sharp`` much.

Moves are the rules' Move values in the order the rules list them (rules/playout.py
``legal()``), so an index into that tuple is a move.
"""

from math import exp

from engine_service.rules.moves import BARRICADE
from engine_service.rules.tiles import FITS, PIPS

RANDOM, GREEDY, SOFT, SHARP = "random", "greedy", "soft", "sharp"
FAMILIES = (RANDOM, GREEDY, SOFT, SHARP)
BETA = {RANDOM: 0.0, SOFT: 0.3, SHARP: 1.0}   # per pip; a tile has 0..12 pips
# WEIGHT[family][t]: exp(BETA * pips of tile t), built once
WEIGHT = {f: tuple(exp(b * PIPS[t]) for t in range(28)) for f, b in BETA.items()}


def greedy_index(legal) -> int:
    """The index greedy plays: the first listed move with the most pips, never a
    barricade (strategies.greedy)."""
    best, best_pips = 0, -1
    for k, m in enumerate(legal):
        if m.mode == BARRICADE:
            continue
        p = PIPS[m.tile]
        if p > best_pips:
            best, best_pips = k, p
    return best


def sample(family: str, legal, rng) -> int:
    """One index drawn from the family's chances over the legal moves."""
    return pick(family, legal, rng.random()) if len(legal) > 1 else 0


def pick(family: str, legal, u: float) -> int:
    """The index the family's chances over the legal moves put at ``u`` in [0, 1) (its
    quantile): greedy's one move; random's any alike; a softmax family's by the weights
    of the tiles laid."""
    n = len(legal)
    if family == GREEDY:
        return greedy_index(legal)
    if family == RANDOM:
        return min(int(u * n), n - 1)
    w = WEIGHT[family]
    ws = [w[m.tile] for m in legal]
    x = u * sum(ws)
    for k, wk in enumerate(ws):
        x -= wk
        if x < 0:
            return k
    return n - 1


def _top_table() -> dict:
    """TOP[mask] = (pips, tile) of the tile greedy lays first out of ``mask``, for every
    set of tiles that all show one number (what ``hand & FITS[v]`` can be): the most
    pips, ties to the lowest tile (the rules list tiles ascending)."""
    top = {}
    for v in range(7):
        tiles = [t for t in range(28) if FITS[v] >> t & 1]
        for k in range(1, 1 << len(tiles)):
            chosen = [t for j, t in enumerate(tiles) if k >> j & 1]
            top[sum(1 << t for t in chosen)] = (PIPS[max(chosen, key=lambda t: (PIPS[t], -t))],
                                                max(chosen, key=lambda t: (PIPS[t], -t)))
    return top


TOP = _top_table()


def greedy_lay(ends, cand: int) -> tuple[int, int]:
    """(tile, end index) greedy lays out of the tiles ``cand`` on the open ``ends`` (a
    closed HHL arm is -1): the most pips, ties to the first end and the lowest tile (the
    rules' listing order), never a barricade; what ``greedy_index`` picks, from masks."""
    best_pips, bt, bi = -1, -1, -1
    for i, v in enumerate(ends):
        if v >= 0:
            x = cand & FITS[v]
            if x:
                p, t = TOP[x]
                if p > best_pips:
                    best_pips, bt, bi = p, t, i
    return bt, bi
