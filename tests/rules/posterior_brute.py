"""The posterior of the shuffle behind one seat's view, by brute force over deals, for the
world sampler's tests (test_world_posterior.py). It uses neither knowledge.py nor
worlds.py: only the rules engine (new_match, play, view) and plain sets.

The shuffle is a uniform permutation, so every deal (the dealt hands as sets and the stock
in its order) is equally likely before the seat sees anything. The seat's view then keeps
exactly the deals whose replay gives that view: the recorded moves, replayed on the deal
by the real engine, must all be legal and every event (each draw's count, each pass, the
seat's own tiles) and the final view must be the ones the seat saw. A world's posterior
chance is then the number of kept deals behind it, over the number of kept deals.

The deals behind a world W: each other seat's tiles are its hand in W and the tiles it
played (the history shows them); some were dealt to it and the others came, in some order,
from the stock positions of its draws (the history says when it drew and how many). Every
such choice, with the asking seat's own deal and draws as it saw them and the tiles W
leaves in the rest after them, is one candidate deal; the brute force replays them all.
The rest's order is fixed (ascending): no replay reads it (nobody drew it yet), so each of
its orders keeps the same deals and the count behind every world is multiplied alike.

To keep this fast the candidates are built draw by draw, and a branch is cut as soon as a
replay of it disagrees with the history before the next draw, or that draw is not the
same seat's: the engine reads the stock in order, so everything up to that point (whether
the next seat to draw has a tile to play, and so draws at all) depends only on the hands
dealt and the stock tiles chosen so far, whatever follows. And a seat only plays tiles it
holds, so the tiles it played before its first draw are in every dealt hand built for it.
``exhaustive=True`` builds every candidate and replays each in full instead (slow); the
tests check that both give the same tally.
"""

from __future__ import annotations

import json
from collections import Counter
from itertools import combinations, permutations, product

from engine_service.rules import IllegalMove, new_match
from engine_service.rules.tiles import TILES

ARMS = ("left", "right", "up", "down")
HAND_SIZE = {"hhl": 6, "domeng": 5}
REST_KEY = {"hhl": "stock", "domeng": "sleeping"}


def plain(obj):
    """A view or event as JSON gives it (tuples become lists, keys strings)."""
    return json.loads(json.dumps(obj))


def seen_tiles(view) -> set[str]:
    if view["variant"] == "hhl":
        laid = {x["tile"] for a in ARMS for x in view["arms"][a]["tiles"]}
        if view.get("spinner"):
            laid.add(view["spinner"])
    else:
        laid = {x["tile"] for x in view["line"]}
    return laid | set(view["hand"])


def hidden_worlds(view):
    """Every way to put the tiles the seat cannot see into the other hands (by count) and
    the rest, consistent or not: (hands by seat, the seat's own as it is; rest), as sorted
    tuples of tile text."""
    me, counts = view["seat"], view["counts"]
    hidden = sorted({str(t) for t in TILES} - seen_tiles(view))
    others = [s for s in range(len(counts)) if s != me]
    mine = tuple(sorted(view["hand"]))

    def go(i, left, hands):
        if i == len(others):
            yield tuple(hands.get(s, mine) for s in range(len(counts))), tuple(left)
            return
        for c in combinations(left, counts[others[i]]):
            chosen = set(c)
            yield from go(i + 1, [t for t in left if t not in chosen], {**hands, others[i]: c})
    yield from go(0, hidden, {})


class Replayer:
    """Replays the view's recorded moves on candidate deals and compares what comes out
    with the history the seat saw."""

    def __init__(self, variant: str, options: dict, view):
        self.variant, self.options = variant, options
        self.view = plain(view)
        self.me = view["seat"]
        self.history = self.view["history"]
        self.moves = [(e["seat"], {k: e[k] for k in ("play", "at", "mode") if k in e})
                      for e in self.history if e["kind"] == "play"]
        self.replays = 0

    def agrees(self, deal: dict, upto: int | None = None) -> bool:
        """Does replaying the moves on `deal` give the history up to the draw at index
        `upto`: every event before it, and a draw by that seat next (not its count, which
        depends on stock tiles the caller has not chosen yet)? With upto None: every
        event, and then the very view the seat saw."""
        self.replays += 1
        history, me = self.history, self.me
        want = len(history) if upto is None else upto + 1

        def seen(e, i):
            return (e["kind"], e.get("seat")) if i == upto else e

        m = new_match(self.variant, self.options, 0, deals=[deal])
        done, moves, new = 0, iter(self.moves), m.events
        while True:
            got = [e.to_dict(me) for e in new[:want - done]]   # plain dicts and lists already
            if [seen(e, done + j) for j, e in enumerate(got)] != \
                    [seen(e, done + j) for j, e in enumerate(history[done:done + len(got)])]:
                return False
            done += len(got)
            if done >= want:
                break
            move = next(moves, None)
            if move is None:
                return False
            try:
                new = m.play(*move)
            except IllegalMove:
                return False
        return upto is not None or (next(moves, None) is None and plain(m.view(me)) == self.view)


def posterior(variant: str, options: dict, view, exhaustive: bool = False):
    """(Counter: world -> the number of kept deals behind it, the number of replays)."""
    rp = Replayer(variant, options, view)
    me, counts, history = view["seat"], view["counts"], rp.history
    k = HAND_SIZE[variant]
    every = {str(t) for t in TILES}
    mine_dealt = next(e for e in history if e["kind"] == "deal_start")["tiles"]
    draws = [(i, e) for i, e in enumerate(history) if e["kind"] == "draw"]
    others = [s for s in range(len(counts)) if s != me]
    played = {s: [e["play"] for e in history if e["kind"] == "play" and e["seat"] == s]
              for s in others}
    # A seat plays only tiles it holds, so what it played before it first drew was dealt
    # to it: the other splits are not built (their replay would fail at that play).
    # ``exhaustive`` builds them all.
    first = {s: next((i for i, e in draws if e["seat"] == s), len(history)) for s in others}
    early = {s: {e["play"] for e in history[:first[s]] if e["kind"] == "play" and e["seat"] == s}
             for s in others}

    def deal_of(dealt, stock, rest):
        """The deal with these hands, its stock starting with `stock`, then the tiles no
        hand and no rest holds (in any order: no replay that is asked reads them), then
        the rest."""
        hands = [list(mine_dealt) if s == me else sorted(dealt[s]) for s in range(len(counts))]
        fill = sorted(every - {t for h in hands for t in h} - set(stock) - set(rest))
        return {"hands": hands, REST_KEY[variant]: list(stock) + fill + list(rest)}

    def dealt_hands(ever):
        """Every choice of each seat's dealt tiles among the tiles it ever held."""
        per_seat = []
        for s in others:
            sure = [] if exhaustive else sorted(early[s])
            maybe = [t for t in ever[s] if t not in sure]
            per_seat.append([tuple(sure) + c for c in combinations(maybe, k - len(sure))])
        for choice in product(*per_seat):
            yield dict(zip(others, choice, strict=True))

    def by_draws(j, dealt, pools, stock, rest) -> int:
        """The kept deals with these dealt hands whose stock starts with `stock`, the
        history up to the j-th draw agreeing already: the j-th draw's tiles are chosen
        (in order) from its seat's `pools`, and the history is then checked up to the next
        draw, the last time the stock is read before it (all of it after the last draw)."""
        i, e = draws[j]
        s, n = e["seat"], e["count"]
        choices = [tuple(e["tiles"])] if s == me else permutations(pools[s], n)
        upto = draws[j + 1][0] if j + 1 < len(draws) else None
        kept = 0
        for chosen in choices:
            left = pools if s == me else {**pools, s: [t for t in pools[s] if t not in chosen]}
            if upto is None and any(left.values()):
                continue        # a tile no draw of its seat took: not this world's deal
            trial = stock + list(chosen)
            if rp.agrees(deal_of(dealt, trial, rest), upto):
                kept += 1 if upto is None else by_draws(j + 1, dealt, left, trial, rest)
        return kept

    tally: Counter = Counter()
    for hands, rest in hidden_worlds(view):
        ever = {s: list(hands[s]) + played[s] for s in others}
        kept = 0
        for dealt in dealt_hands(ever):
            pools = {s: [t for t in ever[s] if t not in dealt[s]] for s in others}
            if exhaustive:
                kept += _every_order(rp, draws, me, pools, rest, dealt, deal_of)
            elif not draws:
                kept += rp.agrees(deal_of(dealt, [], rest))
            # the events before the first draw: the dealt hands alone decide them (and the
            # stock as a set, which they leave)
            elif rp.agrees(deal_of(dealt, [], rest), draws[0][0]):
                kept += by_draws(0, dealt, pools, [], rest)
        if kept:
            tally[(hands, rest)] = kept
    return tally, rp.replays


def _every_order(rp, draws, me, pools, rest, dealt, deal_of) -> int:
    """Every order of every seat's drawn tiles over its draws, each replayed in full."""
    others = sorted(pools)
    kept = 0
    for orders in product(*(permutations(pools[s]) for s in others)):
        queue = {s: list(o) for s, o in zip(others, orders, strict=True)}
        stock = []
        for _, e in draws:
            if e["seat"] == me:
                stock += e["tiles"]
            else:
                q = queue[e["seat"]]
                stock += q[:e["count"]]
                del q[:e["count"]]
        if any(queue.values()):
            continue
        kept += rp.agrees(deal_of(dealt, stock, rest))
    return kept
