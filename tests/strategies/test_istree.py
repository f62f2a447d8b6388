"""The information-set look-ahead (bots/istree.py): in one world it is the plain
perfect-information recursion; over several it never values a move above what seeing the
world would give (no strategy fusion), nor below playing the seat's later moves greedy;
its cross-fitted choices, its deadline and its bound on work."""

import random

import pytest

from bots.inference import PRIOR, Belief
from bots.istree import TooBig, World, move_values, value_of
from bots.policies import greedy_lay
from bots.strategies import make_strategy
from engine_service.rules import new_match, worlds
from engine_service.rules.hhl import HHLPlayout
from engine_service.rules.playout import from_view, playout_of

BONUS = (0.5, 5.0)
END = 64     # a depth no deal reaches
OPTIONS = {"hhl": {"hands": 1}, "domeng": {"round_cap": 1}}
LATE = {"hhl": 10, "domeng": 12}   # tiles in hands from which a position is searched to the end


def brute(p, seat: int, before: int) -> float:
    """The seat's best value from p, its own moves maximised, every other seat greedy, the
    HHL stock in the order it has: the plain recursion."""
    if p.over:
        return value_of(p, seat, before, BONUS)
    if p.turn != seat:
        q = p.copy()
        hhl = isinstance(q, HHLPlayout)
        t, i = greedy_lay(q.ends, 1 << q.drawn if hhl and q.drawn is not None else q.hands[q.turn])
        q.lay(q.turn, t, i)
        return brute(q, seat, before)
    best = None
    for k in range(len(p.legal())):
        q = p.copy()
        q.apply(k)
        v = brute(q, seat, before)
        best = v if best is None else max(best, v)
    return best


def late_positions(variant: str, seeds=range(30), late=None):
    """(match, seat, view) at every late position with a choice (at most ``late`` tiles in
    hands), in greedy matches."""
    late = late or LATE[variant]
    greedy = make_strategy("greedy")
    for seed in seeds:
        m = new_match(variant, OPTIONS[variant], seed)
        while not m.over:
            s = m.to_move
            legal = m.legal_moves(s)
            view = m.view(s)
            if len(legal) > 1 and sum(view["counts"]) <= late:
                yield m, s, view
            m.play(s, greedy.choose(view, legal))


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_in_one_world_the_exact_look_ahead_is_the_plain_recursion(variant):
    checked = 0
    for m, s, _ in late_positions(variant):
        p = playout_of(m.position)      # the true hands, the stock in its order
        got = move_values([World(p, 1.0, {})], s, BONUS, END, exact=True).values
        before = 0 if variant == "hhl" else p.stones.held[s]
        want = []
        for k in range(len(p.legal())):
            q = p.copy()
            q.apply(k)
            want.append(brute(q, s, before))
        assert got == pytest.approx(want)
        checked += 1
    assert checked > 20


# (variant, seeds, tiles in hands at most, worlds at most): positions whose every world is
# listed; in these Domeng ones greedy follow-ups happen to be the best, so the strict
# gaps are asked of HHL only.
SPREAD = {"hhl": (range(40), 14, 300), "domeng": (range(8), 12, 2000)}


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_over_several_worlds_it_sits_between_greedy_follow_ups_and_seeing_the_world(variant):
    """Every seat greedy but the one looking ahead, exact over every world the view allows
    (their exact weights): each move's value is at least what playing its later moves
    greedy gives, and at most the weighted mean of what it would make seeing each world
    (the perfect-information recursion, which fuses strategies); strictly below that
    somewhere, where the best follow-up depends on tiles the seat cannot see."""
    rng = random.Random(5)
    below = above = checked = 0
    seeds, late, most = SPREAD[variant]
    for _, s, view in late_positions(variant, seeds, late):
        every = Belief(view, {o: dict(PRIOR) for o in range(len(view["counts"])) if o != s}
                       ).every_world(most, rng)
        if not every or len(every) < 2:
            continue
        ws = [World(from_view(view, w.world.hands, w.world.rest), w.weight, {}) for w in every]
        tree = move_values(ws, s, BONUS, END, exact=True).values
        greedy = move_values(ws, s, BONUS, 0, exact=True).values
        total = sum(w.weight for w in ws)
        seeing = [[w.weight * v for v in move_values([w], s, BONUS, END, exact=True).values]
                  for w in ws]
        fused = [sum(v) / total for v in zip(*seeing, strict=True)]
        checked += 1
        for g, t, f in zip(greedy, tree, fused, strict=True):
            assert g - 1e-9 <= t <= f + 1e-9
            below += t < f - 1e-9
            above += t > g + 1e-9
    assert checked >= 3
    if variant == "hhl":
        assert below > 0 and above > 0


def test_a_choice_is_made_on_the_other_folds_worlds_and_greedy_where_there_are_none():
    """Sampled worlds (not exact): a world's later choices are those the worlds of the
    other fold make at the same position, so one world alone has none to learn from and
    plays its later moves greedy, as depth 0 does."""
    for variant in ("hhl", "domeng"):
        for m, s, _ in late_positions(variant, range(6)):
            one = [World(playout_of(m.position), 1.0, {})]
            assert move_values(one, s, BONUS, END).values == move_values(one, s, BONUS, 0).values


def test_a_deadline_past_plays_out_every_choice_not_made_and_the_work_is_bounded():
    m, s, view = next(late_positions("hhl"))
    sampler = worlds.Sampler(view)
    rng = random.Random(2)
    ws = [World(from_view(view, w.hands, w.rest), 1.0, {}) for w in (sampler.draw(rng) for _ in range(8))]
    late = move_values(ws, s, BONUS, 3, deadline=0.0)
    assert late.cut and late.values == move_values(ws, s, BONUS, 0).values
    full = move_values(ws, s, BONUS, 3)
    assert not full.cut and full.work > 0
    with pytest.raises(TooBig):
        move_values(ws, s, BONUS, 3, limit=full.work // 2)
