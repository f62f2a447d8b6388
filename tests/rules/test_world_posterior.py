"""The worlds' law is the posterior of the shuffle (engine_service/rules/worlds.py, served
as Play.SampleWorlds), checked against a brute force that does not use knowledge.py or
worlds.py (posterior_brute.py: every deal behind every world, replayed through the rules
engine, kept when it gives the seat's very view).

* exact: on late HHL positions where another seat drew more than once (HHL-6), and right
  after a draw (the drawer must play the drawn tile), the sampler's probability of every
  world is the brute force's, as a fraction; the uniform law over the consistent worlds
  (what SampleWorlds drew before) is not, so these positions tell the two apart;
* drawn: the draws follow those probabilities (chi-square at p = 0.001), and fail the
  uniform law on the same draws;
* Domeng (nobody draws) stays uniform, by the same brute force;
* past its bound (MAX_STATES) the fallback draws near the posterior: nearer than the
  uniform law is;
* the brute force's shortcut (a branch is cut at the first draw its replay disagrees
  with) cuts no kept deal: the same tally as replaying every candidate in full.

The positions are fixed deals and move lists (found by a search over random and greedy
matches for positions where the posterior is far from uniform and the brute force cheap).
"""

import random
from collections import Counter
from fractions import Fraction

import pytest
from posterior_brute import plain, posterior
from rules_helpers import CHI2_999

from engine_service.rules import new_match, worlds
from engine_service.rules.tiles import Tile

OPTIONS = {"hhl": {"hands": 1}, "domeng": {"round_cap": 2}}

# variant, deal (hands by seat, then the stock in draw order or the sleeping tiles), the
# plays in order (each by the seat to move)
SCENARIOS = {
    "hhl-87": ("hhl", ["2-2 3-3 5-0 4-2 3-2 3-1", "2-0 4-3 5-2 4-4 1-1 1-0",
                       "6-1 5-5 6-6 0-0 5-1 6-5", "6-3 6-4 5-3 4-1 2-1 3-0"], "6-2 6-0 5-4 4-0",
               "0-0, 3-0 left, 3-3 left normal, 1-0 down, 5-1 down, 5-3 left, 5-0 left, 2-0 left, "
               "5-5 down normal, 2-1 left, 3-1 left, 5-2 down, 6-2 down, 6-4 down, 4-2 down, "
               "4-3 left, 6-0 up, 6-3 up, 2-2 down barricade, 4-4 left barricade, 4-0 right"),
    "hhl-208": ("hhl", ["5-0 4-1 0-0 5-4 1-1 4-2", "3-1 6-5 6-1 6-2 4-0 3-0",
                        "2-2 2-0 5-5 5-1 4-3 5-3", "3-2 6-3 6-6 4-4 3-3 1-0"], "6-0 6-4 5-2 2-1",
                "0-0, 3-0 up, 2-0 down, 3-2 up, 4-2 down, 4-0 right, 2-2 up normal, "
                "4-4 down barricade, 4-1 right, 6-1 right, 6-0 left, 6-6 left normal, 6-4 left, "
                "6-2 up, 4-3 left, 3-3 left barricade, 6-5 right, 5-1 right, 6-3 up, 1-1 right normal"),
    "hhl-617": ("hhl", ["4-0 6-4 4-3 6-3 3-3 1-0", "6-2 5-0 5-2 3-1 1-1 6-6",
                        "3-0 5-4 6-1 6-5 6-0 5-5", "2-2 0-0 5-1 5-3 2-0 4-1"], "2-1 3-2 4-2 4-4",
                "0-0, 4-0 up, 5-0 down, 6-5 down, 4-1 up, 6-3 down, 1-1 up barricade, 6-0 right, "
                "5-3 down, 6-4 right, 5-2 down, 5-4 right, 2-0 left, 2-1 left, 6-2 down, "
                "5-5 right normal, 5-1 left, 6-6 down normal, 6-1 down, 1-0 down"),
    "hhl-1": ("hhl", ["5-4 6-5 5-1 4-1 4-4 1-0", "5-0 6-6 4-3 2-2 3-1 6-2",
                      "5-2 0-0 1-1 6-3 6-0 6-1", "5-3 3-2 4-2 3-0 2-1 2-0"], "6-4 5-5 3-3 4-0",
              "0-0, 3-0 left, 1-0 right, 4-3 left, 6-1 right, 4-2 left, 6-5 right, 6-2 left, "
              "6-0 up, 5-3 right, 6-4 up, 6-6 left barricade, 6-3 right, 2-0 down, 5-4 up, "
              "5-0 up, 5-2 down, 5-5 down barricade, 4-0 up, 4-4 up normal, 4-1 up, 3-1 up, 3-2 up"),
    "hhl-309": ("hhl", ["5-3 6-4 6-1 6-2 6-3 4-3", "6-6 5-1 3-2 6-5 4-1 3-3",
                        "3-0 5-2 5-5 2-2 2-1 5-0", "1-0 4-2 4-4 5-4 1-1 6-0"], "4-0 0-0 3-1 2-0",
                "1-1, 6-1 left, 6-6 left normal, 2-1 right, 6-0 left, 6-2 right, 6-5 right, "
                "5-5 right barricade, 1-0 up, 4-0 left, 5-1 down, 3-0 up, 5-4 down, 4-3 up, "
                "4-1 left, 3-1 left, 4-4 down barricade, 6-4 up, 3-3 left normal"),
    "domeng-59": ("domeng", ["3-0 6-4 6-6 4-1 6-0", "2-2 3-3 1-0 5-1 5-0", "6-3 6-5 4-4 2-1 5-2",
                             "6-2 6-1 4-2 5-5 4-3", "5-4 3-1 4-0 0-0 3-2"], "5-3 2-0 1-1",
                  "6-6, 6-5 right, 5-5 right, 5-4 right, 6-0 left, 5-0 left, 4-4 right, 4-3 right, "
                  "3-2 right, 5-1 left, 5-2 right, 6-1 left, 6-4 left, 4-2 left, 2-2 left, "
                  "2-1 left, 3-1 left, 3-0 left, 1-0 left"),
    "domeng-11": ("domeng", ["6-5 3-1 6-1 5-1 2-2", "4-1 6-3 5-4 5-3 0-0", "2-1 1-0 2-0 4-0 1-1",
                             "3-0 4-3 4-2 4-4 5-0", "6-0 3-3 5-2 5-5 6-6"], "6-4 6-2 3-2",
                  "6-6, 6-5 right, 6-3 left, 3-0 left, 5-5 right, 5-1 right, 4-1 right, 4-0 left, "
                  "4-4 left, 5-4 left, 4-2 right, 5-2 left, 2-2 left, 2-1 left, 6-1 left, "
                  "2-0 right, 5-0 right, 6-0 left, 5-3 right"),
}

# (scenario, plays made, asking seat, the draws of the other seats by then, seat by seat)
HHL_POSITIONS = [
    ("hhl-87", 21, 0, {2: [1, 1, 2]}),            # seat 2 drew three times
    ("hhl-87", 20, 0, {2: [1, 1, 2]}),            # ... and must now play the tile it drew
    ("hhl-208", 20, 2, {0: [1, 2]}),              # seat 0 drew twice, then passed
    ("hhl-617", 20, 1, {0: [1, 3]}),              # drew one, later three, and passed
    ("hhl-1", 23, 1, {0: [1, 2], 3: [1]}),        # two seats drew
    ("hhl-309", 19, 0, {2: [2, 1]}),
]
DOMENG_POSITIONS = [("domeng-59", 19, 4), ("domeng-11", 19, 2)]


def options_of(variant: str, profile: str) -> dict:
    return {**OPTIONS[variant], "profile": profile}


def position(name: str, plays: int, seat: int, profile: str = "rulings"):
    """The seat's view after the scenario's first `plays` plays, under that rules profile."""
    variant, hands, rest, moves = SCENARIOS[name]
    deal = {"hands": [h.split() for h in hands],
            ("stock" if variant == "hhl" else "sleeping"): rest.split()}
    m = new_match(variant, options_of(variant, profile), 0, deals=[deal])
    for move in moves.split(", ")[:plays]:
        m.play(m.to_move, move)
    assert not m.over
    return plain(m.view(seat))


def draws_of_others(view) -> dict:
    out: dict = {}
    for e in view["history"]:
        if e["kind"] == "draw" and e["seat"] != view["seat"]:
            out.setdefault(e["seat"], []).append(e["count"])
    return out


def as_world(key) -> worlds.World:
    hands, rest = key
    return worlds.World(tuple(tuple(Tile.parse(t) for t in h) for h in hands),
                        tuple(Tile.parse(t) for t in rest))


def key_of(w: worlds.World):
    return (tuple(tuple(sorted(str(t) for t in h)) for h in w.hands),
            tuple(sorted(str(t) for t in w.rest)))


_BRUTE: dict = {}


def brute(name, plays, seat, profile="rulings"):
    """The brute-force posterior of a position, as {world key: Fraction}, computed once: its
    deals replayed under the same profile."""
    if (name, plays, seat, profile) not in _BRUTE:
        view = position(name, plays, seat, profile)
        tally, _ = posterior(view["variant"], options_of(view["variant"], profile), view)
        total = sum(tally.values())
        _BRUTE[name, plays, seat, profile] = {k: Fraction(n, total) for k, n in tally.items()}
    return _BRUTE[name, plays, seat, profile]


# HHL-8 read literally (dead_stock=draw) changes no view of a hand in play (worlds.py: a
# dead stock is drawn only in the step that ends the hand), so the same positions under
# the literal profile keep the same law; the cheapest one checks it, by the letter's replay.
@pytest.mark.parametrize("name,plays,seat,drew,profile",
                         [(*p, "rulings") for p in HHL_POSITIONS]
                         + [(*HHL_POSITIONS[2], "literal")])
def test_every_world_has_its_posterior_chance_exactly(name, plays, seat, drew, profile):
    view = position(name, plays, seat, profile)
    assert draws_of_others(view) == drew            # the position is still the one meant
    exact = brute(name, plays, seat, profile)
    if profile != "rulings":
        assert exact == brute(name, plays, seat)    # the same law as the ruling's
    sampler = worlds.Sampler(view)
    assert sampler.exact and sampler.count == len(exact)
    for k, p in exact.items():
        assert sampler.probability(as_world(k)) == p, k
    # the sampler puts no chance elsewhere: its probabilities over these worlds sum to 1
    assert sum(sampler.probability(as_world(k)) for k in exact) == 1
    # and the uniform law, 1/count for every consistent world, is not this one
    assert max(exact.values()) > Fraction(1, len(exact)) > min(exact.values())


def test_the_weights_differ_up_to_tenfold_on_these_positions():
    """How far from uniform the posterior gets here: up to ten to one. In hhl-208 seat 0
    drew a tile on open 2s and 6s (so none of its dealt tiles shows a 2), later drew two
    more and passed. A world giving it both 2-1 and 5-2 has them as its two drawn tiles:
    one way. A world giving it neither has its two drawn tiles among its four, or one of
    them the 1-1 it played after: ten ways."""
    ratios = {}
    for name, plays, seat, _ in HHL_POSITIONS:
        exact = brute(name, plays, seat)
        ratios[name, plays] = max(exact.values()) / min(exact.values())
    assert max(ratios.values()) == 10, ratios
    assert all(r > 1 for r in ratios.values()), ratios


def chi_square(seen: Counter, n: int, law: dict) -> float:
    return sum((seen.get(k, 0) - n * p) ** 2 / (n * p) for k, p in law.items())


@pytest.mark.parametrize("name,plays,seat,drew", HHL_POSITIONS)
def test_the_draws_follow_the_posterior_and_not_the_uniform_law(name, plays, seat, drew):
    view = position(name, plays, seat)
    exact = brute(name, plays, seat)
    k = len(exact)
    n = int(20 / min(exact.values())) + 1          # at least 20 expected for every world
    sampler, rng = worlds.Sampler(view), random.Random(k)
    seen = Counter(key_of(sampler.draw(rng)) for _ in range(n))
    assert set(seen) <= set(exact)
    stat = chi_square(seen, n, exact)
    assert stat < CHI2_999[k - 2], f"chi-square {stat:.1f} with {k - 1} df: not the posterior"
    uniform = {key: Fraction(1, k) for key in exact}
    assert chi_square(seen, n, uniform) > CHI2_999[k - 2]   # the old law fails these draws


@pytest.mark.parametrize("profile", ["rulings", "literal"])
@pytest.mark.parametrize("name,plays,seat", DOMENG_POSITIONS)
def test_domeng_worlds_stay_uniform(name, plays, seat, profile):
    """Nobody draws in Domeng: one deal behind every consistent world. Under the literal
    profile the first round's lead is free (DOM-2 read literally), so the sampler weighs
    the opening fact (the leader was dealt the highest of 6-6..3-3) through the whole
    round, and the brute force replays the deals by the letter (DOM-8's paid closing pass
    too): the same law."""
    view = position(name, plays, seat, profile)
    assert view["options"]["profile"] == profile and view["deal_number"] == 0
    assert sum(e["kind"] == "pass" for e in view["history"]) >= 9   # many voids shown
    exact = brute(name, plays, seat, profile)
    sampler = worlds.Sampler(view)
    assert sampler.exact and sampler.count == len(exact) and sampler.weight == sampler.count
    assert set(exact.values()) == {Fraction(1, len(exact))}
    for k in exact:
        assert sampler.probability(as_world(k)) == Fraction(1, len(exact))


def test_the_brute_force_shortcut_cuts_no_kept_deal():
    """On the cheapest position (the others replay 10 to 100 times as many deals in full;
    they agree too, checked when the positions were chosen)."""
    view = position("hhl-208", 20, 2)
    cut, cut_replays = posterior("hhl", OPTIONS["hhl"], view)
    full, full_replays = posterior("hhl", OPTIONS["hhl"], view, exhaustive=True)
    assert cut == full and cut_replays < full_replays


def test_past_its_bound_the_fallback_draws_near_the_posterior(monkeypatch):
    """The fallback (determinize.py: a split of each hand over its batches, then the tiles
    dealt into them near uniformly) is not exact, but it leans the right way: over many
    draws its frequencies are far nearer the posterior than the uniform law (total
    variation; here about 0.07 against 0.3)."""
    monkeypatch.setattr(worlds, "MAX_STATES", -1)     # no programme fits
    name, plays, seat = "hhl-208", 20, 2
    exact = brute(name, plays, seat)
    sampler, rng = worlds.Sampler(position(name, plays, seat)), random.Random(5)
    assert not sampler.exact
    n = 3000
    seen = Counter(key_of(sampler.draw(rng)) for _ in range(n))
    assert set(seen) <= set(exact)

    def distance(law):
        return sum(abs(Fraction(seen.get(k, 0), n) - p) for k, p in law.items()) / 2
    uniform = {k: Fraction(1, len(exact)) for k in exact}
    assert distance(exact) < distance(uniform) / 3, (float(distance(exact)), float(distance(uniform)))
