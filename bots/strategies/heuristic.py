"""heuristic: plays like a careful human, one move ahead, from its view alone.

Every legal move is scored by what the position looks like right after it, using what
the seat knows (engine_service/rules/knowledge.py): which numbers the others showed they
lack, how many unseen tiles show each number, its own remaining tiles.

HHL (scores in points, HHL-9: each own pip costs 75, each pip an opponent draws earns 25):
  * shed pips, but not at the price of being stuck: keep numbers it holds many of open,
    and count its tiles that still fit an open arm afterwards;
  * make the open arms hard for opponents: the chance each opponent holds a tile for
    some open arm, from the unseen tiles it may hold (its voids excluded) — an opponent
    that cannot play draws;
  * barricade (HHL-5) falls out of the two: closing an arm the bot cannot use itself,
    when an opponent could, scores; closing one it needs costs;
  * a sure block (no tile left anywhere for any open arm) is valued as its outcome.
Domeng (scores in stones, DOM-5..DOM-8):
  * going out wins; a MAPPAKULING finish (CEKI 3 / POLLO 5 stones to the CUCUQ) first;
  * with two tiles, keep the last one able to finish as a MAPPAKULING;
  * never leave ends the next seat can go out on (the bot would be its CUCUQ), least of
    all with a MAPPAKULING;
  * avoid a block it would lose as MANGUNO; make the others pass (each pass is a stone
    taken by them); keep tiles that fit, so as not to pass itself.
"""

from math import comb

from engine_service.rules import knowledge
from engine_service.rules.knowledge import numbers_mask_fits
from engine_service.rules.moves import ARMS, BARRICADE, ENDS
from engine_service.rules.tiles import FITS, HI, IS_DOUBLE, LO, OTHER, PIPS, tiles_of

from ..strategy import Strategy


def p_can_play(know, seat: int, numbers: int) -> float:
    """Chance that ``seat`` holds a tile showing one of ``numbers``: its tiles drawn
    uniformly from the unseen tiles it may hold (a hypergeometric estimate)."""
    n = know.counts[seat]
    if n == 0 or not numbers:
        return 0.0
    allowed = know.unseen & ~know.seats[seat].forbidden
    u = allowed.bit_count()
    live = (allowed & numbers_mask_fits(numbers)).bit_count()
    if live == 0:
        return 0.0
    if u - live < n:
        return 1.0
    return 1.0 - comb(u - live, n) / comb(u, n)


def _bits(ends) -> int:
    m = 0
    for e in ends:
        if e is not None:
            m |= 1 << e
    return m


def _mean_unseen_pips(know) -> float:
    tiles = tiles_of(know.unseen)
    return sum(PIPS[t] for t in tiles) / len(tiles) if tiles else 0.0


def _stuck(my_play: int) -> float:
    """Rough chance of having no play next turn with ``my_play`` fitting tiles now
    (others' plays change the ends, so even 0 is not certain)."""
    return (0.7, 0.3, 0.1)[my_play] if my_play < 3 else 0.0


class Heuristic(Strategy):
    name = "heuristic"

    def choose(self, view, legal_moves):
        if len(legal_moves) == 1:
            return legal_moves[0]
        know = knowledge.from_view(view)
        score = self._hhl if know.variant == "hhl" else self._domeng
        best = max(range(len(legal_moves)), key=lambda i: (score(know, legal_moves[i]), -i))
        return legal_moves[best]

    # ----- HHL -------------------------------------------------------------------------
    def _hhl(self, know, move) -> float:
        t = move.tile
        rest = know.hand & ~(1 << t)
        if not rest:
            return 1e6 + PIPS[t]  # domino! (HHL-7)
        ends = list(know.ends)
        i = ARMS.index(move.at)
        ends[i] = None if move.mode == BARRICADE else OTHER[t][ends[i]]
        numbers = _bits(ends)
        fit = numbers_mask_fits(numbers)
        my_play = (rest & fit).bit_count()
        support = sum((rest & FITS[e]).bit_count() for e in ends if e is not None)
        others = [s for s in range(know.num_seats) if s != know.seat]
        score = 40.0 * PIPS[t] - 450.0 * _stuck(my_play) + 10.0 * min(support, 6)
        for s in others:
            score += 150.0 * (1.0 - p_can_play(know, s, numbers))
        if not (know.unseen & fit) and not my_play:
            # A sure block (HHL-8): the hand ends now; value it as scored.
            mine = sum(PIPS[x] for x in tiles_of(rest))
            theirs = _mean_unseen_pips(know) * sum(know.counts[s] for s in others)
            score += 25.0 * (mine + theirs) - 100.0 * mine
        return score

    # ----- Domeng ------------------------------------------------------------------------
    def _domeng(self, know, move) -> float:
        t = move.tile
        rest = know.hand & ~(1 << t)
        if move.at is None:
            ends, mapp = [HI[t], LO[t]], False  # the lead is never a MAPPAKULING (DOM-6)
        else:
            ends = list(know.ends)
            i = ENDS.index(move.at)
            ends[i] = OTHER[t][ends[i]]
            mapp = ends[0] == ends[1]
        if not rest:
            return 100.0 + ((5 if IS_DOUBLE[t] else 3) if mapp else 1)  # FIRST CAPPU (DOM-7)
        me, n = know.seat, know.num_seats
        numbers = _bits(ends)
        fit = numbers_mask_fits(numbers)
        my_play = (rest & fit).bit_count()
        support = sum((rest & FITS[e]).bit_count() for e in ends)
        score = 0.05 * PIPS[t] + 0.3 * min(support, 4) - 1.5 * _stuck(my_play)
        others = [(me + k) % n for k in range(1, n)]
        p = {s: p_can_play(know, s, numbers) for s in others}
        # The next seat faces these ends first: its pass is a stone it takes (DOM-5).
        score += 1.0 * (1.0 - p[others[0]]) + 0.3 * sum(1.0 - p[s] for s in others[1:])
        nxt = others[0]
        if know.counts[nxt] == 1:
            # CUCUQ risk (DOM-7): its last tile is one of the unseen tiles it may hold.
            allowed = know.unseen & ~know.seats[nxt].forbidden
            u = allowed.bit_count()
            if u:
                loss = 0.0
                for x in tiles_of(allowed & fit):
                    lands_mapp = any(OTHER[x][ends[j]] == ends[1 - j] >= 0 for j in (0, 1))
                    loss += ((5 if IS_DOUBLE[x] else 3) if lands_mapp else 1)
                score -= 1.5 * loss / u
        if len(tiles_of(rest)) == 1:
            (last,) = tiles_of(rest)
            for j in (0, 1):
                o = OTHER[last][ends[j]]
                if o >= 0 and o == ends[1 - j]:
                    score += 1.0 + (1.0 if IS_DOUBLE[last] else 0.0)  # a MAPPAKULING finish waits
                    break
        if not my_play and all(p[s] == 0.0 for s in others):
            # A sure block with the bot as MANGUNO (DOM-8): it loses unless it has the fewest pips.
            mine = sum(PIPS[x] for x in tiles_of(rest))
            mean = _mean_unseen_pips(know)
            fewest = min(mean * know.counts[s] for s in others)
            score += 1.0 if mine < fewest - 2 else -5.0
        return score
