"""The world sampler (engine_service/rules/worlds.py, served as Play.SampleWorlds).

* consistency: over thousands of random positions of both games, every world drawn for
  every seat agrees with that seat's view, checked here with plain sets (sizes, no tile
  twice, no tile the seat sees, the voids of passes and draws, the union is exactly the
  hidden tiles) and by ``worlds.consistent``; the true deal is always consistent too;
  while no other seat has drawn, every consistent world weighs the same (uniform);
* exactness: on small positions the counted number of worlds equals a brute-force count,
  and the counted total weight the sum of the weights of the enumerated worlds;
* the draws follow the weights: a chi-square test on small positions where every
  consistent world can be enumerated (that the weights are the posterior's, deal by
  deal, is test_world_posterior.py's);
* it reads the view only: the same view and seed give the same worlds;
* under each rules profile (the view's options say which): the truth is always among the
  worlds, and so is every world drawn.
"""

import json
import random
from collections import Counter
from itertools import combinations
from math import comb

import pytest
from rules_helpers import CHI2_999

from bots.strategies.greedy import Greedy
from engine_service.rules import new_match, worlds
from engine_service.rules.tiles import TILES, Tile, tiles_of

ARMS = ("left", "right", "up", "down")

def positions(variant, seed, greedy_share=0.5, profile="rulings"):
    """Every position of a short random/greedy match, as the match (mutated in place)."""
    m = new_match(variant, {"hands": 1, "profile": profile} if variant == "hhl"
                  else {"round_cap": 2, "profile": profile}, seed)
    rng, greedy = random.Random(seed), Greedy()
    while not m.over:
        yield m
        s = m.to_move
        legal = m.legal_moves(s)
        m.play(s, greedy.choose(None, legal) if rng.random() < greedy_share else rng.choice(legal))


def truth(m) -> worlds.World:
    live = m.position
    rest = live.stock[live.stock_pos:] if m.variant == "hhl" else sorted(live.sleeping)
    return worlds.World(tuple(tuple(tiles_of(h)) for h in live.hands), tuple(rest))


def seen_tiles(view) -> set[str]:
    if view["variant"] == "hhl":
        laid = {x["tile"] for a in ARMS for x in view["arms"][a]["tiles"]}
        if view.get("spinner"):
            laid.add(view["spinner"])
    else:
        laid = {x["tile"] for x in view["line"]}
    return laid | set(view["hand"])


def shows(tile: str, numbers) -> bool:
    return any(int(x) in numbers for x in tile.split("-"))


def plain_check(view, w: worlds.World) -> None:
    """The world against the view, with sets and the history alone (not knowledge.py)."""
    me, counts = view["seat"], view["counts"]
    hands = [[str(TILES[t]) for t in h] for h in w.hands]
    rest = [str(TILES[t]) for t in w.rest]
    assert sorted(hands[me]) == sorted(view["hand"]), "the own hand changed"
    for s, h in enumerate(hands):
        assert len(h) == counts[s], f"seat {s}: {len(h)} tiles, holds {counts[s]}"
    assert len(rest) == (view["stock"] if view["variant"] == "hhl" else 3)
    placed = [t for s, h in enumerate(hands) if s != me for t in h] + rest
    assert len(placed) == len(set(placed)), "a tile placed twice"
    every = {str(t) for t in TILES}
    assert set(placed) == every - seen_tiles(view), "the placed tiles are not the hidden ones"
    # Voids: a seat that passed, or drew, on ends E holds no tile showing E from then, unless
    # it drew since (HHL: a later draw may bring such a tile; knowledge.py keeps batches).
    history = view["history"]
    ends: list = []
    for i, e in enumerate(history):
        if e["kind"] == "play":
            t = Tile.parse(e["play"])
            hi, lo = (int(x) for x in str(t).split("-"))
            if e.get("at") is None:
                ends = [hi] * 4 if view["variant"] == "hhl" else [hi, lo]
            else:
                k = (ARMS if view["variant"] == "hhl" else ("left", "right")).index(e["at"])
                if e.get("mode") == "barricade":
                    ends[k] = None
                else:
                    ends[k] = lo if ends[k] == hi else hi
        elif e["kind"] in ("pass", "draw") and ends and e["seat"] != me:
            s = e["seat"]
            if any(x["kind"] == "draw" and x["seat"] == s for x in history[i + 1:]):
                continue
            if e["kind"] == "draw" and i + 1 < len(history) or (e["kind"] == "draw"
                                                                and view["turn"] == s):
                continue    # it drew a playable tile (played next, or to play now)
            numbers = {v for v in ends if v is not None}
            bad = [t for t in hands[s] if shows(t, numbers)]
            assert not bad, f"seat {s} passed on {sorted(numbers)} but holds {bad}"


@pytest.mark.parametrize("profile", ["rulings", "literal"])
def test_every_world_agrees_with_the_view_over_thousands_of_positions(profile):
    views = 0
    for variant in ("hhl", "domeng"):
        for seed in range(16 if variant == "hhl" else 9):
            for m in positions(variant, seed, profile=profile):
                real = truth(m)
                for seat in range(m.num_seats):
                    view = json.loads(json.dumps(m.view(seat)))
                    consistent = worlds.checker(view)
                    assert consistent(real)                    # the truth is possible
                    sampler = worlds.Sampler(view)
                    assert sampler.exact and sampler.count >= 1
                    if not any(e["kind"] == "draw" and e["seat"] != seat for e in view["history"]):
                        assert sampler.weight == sampler.count    # one deal behind each world
                    rng = random.Random(seed * 7 + seat)
                    w = sampler.draw(rng)
                    plain_check(view, w)
                    assert consistent(w) and sampler.weight_of(w) >= 1
                    views += 1
    assert views >= 3000, views


def enumerate_worlds(view):
    """Every assignment of the hidden tiles with the right sizes (consistent or not)."""
    me, counts = view["seat"], view["counts"]
    hidden = sorted({Tile(str(t)) for t in TILES} - {Tile.parse(x) for x in seen_tiles(view)})
    others = [s for s in range(len(counts)) if s != me]
    mine = tuple(sorted(Tile.parse(x) for x in view["hand"]))

    def go(i, left, hands):
        if i == len(others):
            yield worlds.World(tuple(hands.get(s, mine) for s in range(len(counts))),
                               tuple(left))
            return
        for c in combinations(left, counts[others[i]]):
            taken = set(c)
            yield from go(i + 1, [t for t in left if t not in taken], {**hands, others[i]: c})
    yield from go(0, hidden, {})


def assignments(view) -> int:
    n = len(set(str(t) for t in TILES) - seen_tiles(view))
    out = 1
    for s, c in enumerate(view["counts"]):
        if s != view["seat"]:
            out *= comb(n, c)
            n -= c
    return out


def small_positions(limit):
    """(view, its consistent worlds by brute force) for `limit` small positions of each
    game that the knowledge narrows to 3..31 worlds (so the table below has their df)."""
    found = []
    for variant, most in (("hhl", 300), ("domeng", 840)):   # Domeng: 7 hidden tiles at least
        mine = 0
        for seed in range(400):
            for m in positions(variant, seed):
                for seat in range(m.num_seats):
                    view = json.loads(json.dumps(m.view(seat)))
                    n = assignments(view)
                    if n > most or not 3 <= worlds.Sampler(view).count <= min(n - 1, 31):
                        continue
                    consistent = worlds.checker(view)
                    found.append((view, [w for w in enumerate_worlds(view) if consistent(w)]))
                    mine += 1
                    break           # one seat per match: more kinds of position
                if mine == limit or len(found) and found[-1][0] is view:
                    break
            if mine == limit:
                break
    return found


def key(w: worlds.World, hhl: bool):
    return (w.hands, tuple(sorted(w.rest)) if hhl else w.rest)


def test_the_counts_are_the_brute_force_ones_and_the_draws_follow_the_weights():
    """The draws used to be uniform over the consistent worlds; they now follow the
    posterior, each world in proportion to its weight (the deals behind it), so the
    expected count of a world is its share of the total weight, not 1/k. Uniform is the
    special case where every weight is the same (no other seat has drawn, or its draws
    weigh every world alike); some of these positions are not."""
    tested = uneven = 0
    for view, good in small_positions(limit=8):
        hhl = view["variant"] == "hhl"
        sampler = worlds.Sampler(view)
        assert sampler.exact and sampler.count == len(good), (sampler.count, len(good))
        weights = {key(w, hhl): sampler.weight_of(w) for w in good}
        assert min(weights.values()) >= 1 and sum(weights.values()) == sampler.weight
        uneven += len(set(weights.values())) > 1
        k, total = len(good), sampler.weight
        n = 60 * total // min(weights.values())   # 60 expected for the least likely world
        rng = random.Random(k)
        seen = Counter(key(sampler.draw(rng), hhl) for _ in range(n))
        assert set(seen) <= set(weights)
        stat = sum((seen.get(w, 0) - n * x / total) ** 2 / (n * x / total) for w, x in weights.items())
        assert stat < CHI2_999[k - 2], f"chi-square {stat:.1f} with {k - 1} df: not the weights"
        tested += 1
    assert tested == 16 and uneven >= 1, (tested, uneven)


def test_the_stock_order_is_uniform():
    """HHL: the stock's draw order is unknown to every seat; each order is alike."""
    m = new_match("hhl", {"hands": 1}, 5)
    view = json.loads(json.dumps(m.view(0)))
    sampler, rng = worlds.Sampler(view), random.Random(3)
    firsts = Counter()
    for _ in range(4000):
        w = sampler.draw(rng)
        firsts[w.rest[0] == min(w.rest)] += 1
    # the smallest of the four is drawn first a quarter of the time: 1000 expected, sd ~27
    assert 850 < firsts[True] < 1150, firsts


def test_the_same_view_and_seed_give_the_same_worlds():
    for m in positions("domeng", 3):
        if len(m.position.events) > 6:
            break
    view = json.loads(json.dumps(m.view(1)))
    a = worlds.sample_worlds(view, 50, 12345)
    b = worlds.sample_worlds(json.loads(json.dumps(view)), 50, 12345)
    c = worlds.sample_worlds(view, 50, 12346)
    assert a == b and a != c


@pytest.mark.parametrize("profile", ["rulings", "literal"])
def test_past_its_bound_the_counting_gives_way_to_the_fast_sampler(monkeypatch, profile):
    monkeypatch.setattr(worlds, "MAX_STATES", -1)     # no programme fits
    for variant in ("hhl", "domeng"):
        for m in positions(variant, 4, profile=profile):
            if len(m.position.events) > 8:
                break
        view = json.loads(json.dumps(m.view(m.to_move)))
        sampler = worlds.Sampler(view)
        assert not sampler.exact and sampler.count is None and sampler.weight is None
        consistent, rng = worlds.checker(view), random.Random(2)
        for _ in range(50):
            w = sampler.draw(rng)
            plain_check(view, w)
            assert consistent(w)


def test_DOM_2_read_literally_a_lead_tells_nothing_of_the_doubles():
    """first_lead=any: the first leader holds the highest of 6-6..3-3 dealt but may lead a
    lower one (or any tile). Here it leads the lowest of those it holds, with a higher one
    still in its hand: the ruling's inference (the doubles above the lead sleep) would be
    false, and the truth must stay among the worlds of every seat, as play goes on; the
    leader alone knows which sleep (those above its own highest)."""
    order = ("6-6", "5-5", "4-4", "3-3")
    checked = 0
    for seed in range(200):
        if checked >= 40:
            break
        m = new_match("domeng", {"round_cap": 1, "first_lead": "any"}, seed)
        leader = m.to_move
        mine = [d for d in order if d in m.view(leader)["hand"]]
        if len(mine) < 2:
            continue
        m.play(leader, mine[-1])
        rng = random.Random(seed)
        for _ in range(4):
            real = truth(m)
            for seat in range(5):
                view = json.loads(json.dumps(m.view(seat)))
                assert worlds.checker(view)(real)
                sampler = worlds.Sampler(view)
                for _ in range(5):
                    plain_check(view, sampler.draw(rng))
                if seat == leader:      # the doubles above its own highest sleep
                    above = order[:order.index(mine[0])]
                    for _ in range(20):
                        w = sampler.draw(rng)
                        held = {str(TILES[t]) for s, h in enumerate(w.hands) if s != seat for t in h}
                        assert not held & set(above)
                checked += 1
            if m.over or len(m.deals) > 1:
                break
            m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    assert checked >= 40, checked
