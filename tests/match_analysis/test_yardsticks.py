"""The losses rank the players as they should: a player choosing the argmax of the
perfect-information values loses exactly 0 by them (the reference policy being the
continuation), and per decision a random bot loses more than greedy, greedy more than
search (seat-honest values; the benchmark gives the figures with intervals)."""

from statistics import mean

import pytest

from analysis import analyse
from analysis.positions import Moment
from analysis.values import perfect
from bots.arena import play_match
from bots.strategies import make_strategy
from bots.strategies.search import Search
from bots.strategy import Strategy
from engine_service.rules.tiles import tiles_of


class PerfectArgmax(Strategy):
    """Plays the move of the highest perfect-information value (the analysis's own), ties
    to the first listed: in-process only, it reads the true hands (attach)."""

    def attach(self, match):
        self.match = match

    def choose(self, view, legal_moves):
        m, seat = self.match, view["seat"]
        pos = m.position
        rest = list(pos.stock[pos.stock_pos:]) if m.variant == "hhl" else list(pos.sleeping)
        # Domeng's value is the stones held at the deal minus those held after: the first
        # term is the same for every move, so the argmax needs none.
        held = [0] * m.num_seats
        mo = Moment(0, 0, seat, m.view(seat), [tiles_of(h) for h in pos.hands], rest, held,
                    [str(x) for x in legal_moves], 0)
        pi = perfect(mo)
        return legal_moves[max(range(len(pi)), key=lambda k: (pi[k], -k))]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("variant, options, n", [("hhl", {"hands": 3}, 4),
                                                 ("domeng", {"round_cap": 4}, 5)])
def test_the_perfect_information_argmax_loses_nothing_by_those_values(variant, options, n):
    decisions = 0
    for k in range(3):
        bots = [PerfectArgmax(0)] + [make_strategy("random", k * 10 + s) for s in range(1, n)]
        record = play_match(variant, options, k, bots).record()
        doc = analyse(record, seats=[0], worlds=2)
        for h in doc["seats"][0]["hands"]:
            for d in h["decisions"]:
                assert d["pi_loss"] == 0, d
                decisions += 1
    assert decisions >= 10


def per_decision_losses(variant, options, names, matches):
    losses = {}
    for k in range(matches):
        bots = [Search(k * 10 + s, iterations=40) if name == "search"
                else make_strategy(name, k * 10 + s) for s, name in enumerate(names)]
        doc = analyse(play_match(variant, options, 100 + k, bots).record(), worlds=30, seed=k)
        for s in doc["seats"]:
            losses.setdefault(names[s["seat"]], []).extend(
                d["loss"] for h in s["hands"] for d in h["decisions"])
    return losses


@pytest.mark.timeout(900)
def test_random_loses_more_than_greedy_and_greedy_more_than_search():
    got = per_decision_losses("hhl", {"hands": 2}, ("random", "greedy", "search", "random"), 4)
    assert mean(got["random"]) > mean(got["greedy"]) > mean(got["search"]), \
        {k: mean(v) for k, v in got.items()}
