"""R - V0 = skill + luck, exactly, on every hand of 1,000 recorded matches of both games
(few worlds per value: the identity is exact by construction whatever their number), and
the document's own figures add up the same way."""

from fractions import Fraction

import pytest

from analysis import analyse

from .support import played

HHL_BOTS = ("random", "greedy", "heuristic", "random")
DOMENG_BOTS = ("random", "greedy", "random", "heuristic", "greedy")


def check(doc) -> int:
    """Every hand of the document: R - V0 = skill + luck exactly (its fractions), and its
    rounded figures agree with them."""
    hands = 0
    for s in doc["seats"]:
        for h in s["hands"]:
            ex = h["_exact"]
            assert h["result"] - ex["v0"] == ex["skill"] + ex["luck"]
            assert abs(float(ex["skill"]) + sum(d["loss"] for d in h["decisions"])) < 0.01
            assert abs(h["skill"] + h["luck"] - (h["result"] - h["v0"])) < 0.01
            hands += 1
    return hands


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant, options, bots", [
    ("hhl", {"hands": 1}, HHL_BOTS), ("domeng", {"round_cap": 1}, DOMENG_BOTS)])
def test_the_split_adds_up_exactly_on_every_hand(variant, options, bots):
    from analysis.positions import hands_of
    from analysis.report import split
    from analysis.run import moments_of
    from analysis.values import value_moment

    n = len(bots)
    hands_seen = 0
    for k in range(500):
        record = played(variant, options, k, bots)
        seat = k % n
        hands = hands_of(record, [seat])
        moments = moments_of(hands)
        got = [value_moment((i, mo, 1, k)) for i, mo in enumerate(moments)]
        i = 0
        for h in hands:
            start, decisions = got[i], got[i + 1:i + 1 + len(h.decisions)]
            i += 1 + len(h.decisions)
            v0 = start["honest"][0]
            pairs = [(g["honest"][g["best"]], g["honest"][mo.played])
                     for mo, g in zip(h.decisions, decisions, strict=True)]
            s = split(v0, pairs, h.result)
            assert h.result - v0 == s["skill"] + s["luck"]   # Fractions: exact
            assert s["skill"] == -sum((v - p for v, p in pairs), Fraction(0))
            assert all(v >= p for v, p in pairs)             # the best is the best
            hands_seen += 1
    assert hands_seen >= 500


def test_the_document_carries_the_same_split():
    record = played("hhl", {"hands": 2}, 3, HHL_BOTS)
    doc = analyse(record, worlds=4, seed=1, exact=True)
    assert check(doc) == 8
    for s in doc["seats"]:
        sm = s["summary"]
        assert sm["hands"] == 2
        assert sm["decisions"] == sum(len(h["decisions"]) for h in s["hands"])
