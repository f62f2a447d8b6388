"""Positions with one clearly right move: the wrong move is marked a mistake (or a
blunder) in both games, the right one is not, and a loss within noise is never marked.

The positions are found, not written by hand: from seeded matches (the same every run),
a decision where one move beats every other by more than the mistake threshold and its
noise, seat-honest and with perfect information alike; the match is then played again
from there (rules/fork.py's deals and prefix) once with the right move and once with a
wrong one, greedy for everyone after, and both records are analysed."""

import pytest

from analysis import analyse
from analysis.positions import hands_of
from analysis.report import THRESHOLDS, mark
from analysis.values import value_moment
from bots.arena import play_match
from bots.strategies import make_strategy
from engine_service.rules import fork_of

from .support import played

WORLDS = 200


def clear_decision(variant, options, bots):
    for k in range(100):
        record = played(variant, options, k, bots)
        for seat in range(len(bots)):
            for h in hands_of(record, [seat]):
                for mo in h.decisions:
                    got = value_moment((0, mo, WORLDS, 0))
                    v, pi, best = got["honest"], got["pi"], got["best"]
                    margin = THRESHOLDS[variant]["mistake"]
                    others = [j for j in range(len(mo.legal)) if j != best]
                    if all(v[best] - v[j] > margin + 4 * got["se"][j] and pi[best] - pi[j] > margin
                           for j in others):
                        return record, mo, best, others[0]
    raise AssertionError("no clear decision found")


def replayed_with(record, mo, move_index):
    """The record played again from the moment, the given move made there, greedy after."""
    plays = sum(len([e for e in d["moves"] if "play" in e]) for d in record["deals"][:mo.deal])
    fork = fork_of(record, plays + mo.ply)
    prefix = [*fork.prefix, (mo.seat, mo.legal[move_index])]
    bots = [make_strategy("greedy", s) for s in range(len(record["seats"]))]
    m = play_match(fork.variant, {**fork.options, **_one_more(fork.variant, mo.deal)},
                   record["seed"], bots, deals=fork.deals, prefix=prefix)
    return m.record()


def _one_more(variant, deal):
    return {"hands": deal + 1} if variant == "hhl" else {"round_cap": deal + 1}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant, options, bots", [
    ("hhl", {"hands": 1}, ("random", "random", "greedy", "random")),
    ("domeng", {"round_cap": 1}, ("random", "random", "greedy", "random", "random"))])
def test_the_wrong_move_is_marked_and_the_right_one_is_not(variant, options, bots):
    record, mo, best, wrong = clear_decision(variant, options, bots)
    for index, marked in ((wrong, True), (best, False)):
        doc = analyse(replayed_with(record, mo, index), seats=[mo.seat], worlds=WORLDS)
        hand = doc["seats"][0]["hands"][mo.deal]
        (d,) = [d for d in hand["decisions"] if d["ply"] == mo.ply]
        assert d["played"] == mo.legal[index]
        assert d["best"] == mo.legal[best] and d["pi_best"] == mo.legal[best]
        assert (d["mark"] in ("mistake", "blunder")) is marked, d


def test_a_loss_within_its_noise_is_never_marked():
    big = THRESHOLDS["hhl"]["blunder"] * 2
    assert mark("hhl", big, se=0.0) == "blunder"
    assert mark("hhl", big, se=big / 1.9) is None        # within 2 standard errors
    assert mark("domeng", 1.0, se=0.1) == "mistake"
    assert mark("domeng", 0.4, se=0.0) is None           # below the threshold
