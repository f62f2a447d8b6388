"""Strategies known to choose at once run on the connection's own loop (runs_inline), with
no worker and no timer: they are answered for like any other strategy when they fail or
choose something that is not a legal move."""

import pytest

from bots import strategy_adapter as adapter
from bots.play import seat_hello
from bots.runner import Runner
from bots.strategies import make_strategy
from bots.strategies.greedy import Greedy
from domino_proto.domino.v1 import common_pb2, game_pb2

LEGAL = ("6-6", "6-5 left", "5-5 right")


class Sink:
    """An outbox that keeps what the runner sends."""

    def __init__(self):
        self.items = []

    def put(self, item) -> None:
        self.items.append(item)


def failing(view, legal_moves):
    raise RuntimeError("a bug in the bot")


def answer(choose) -> tuple[list, Runner]:
    """What an inline seat sends for one TurnRequest offering LEGAL (the seat is made
    inline here whatever `choose` is, to reach every branch of the inline path)."""
    runner = Runner("127.0.0.1:1", seat_hello("m1", "token"), lambda m, s: None)
    runner._seated["m1"] = adapter.Seated("m1", 2, "hhl", adapter.as_strategy(choose), worker=None,
                                     inline=True)
    state = common_pb2.SeatState(
        match_id="m1", seat=2, version=7, to_move=2,
        view=game_pb2.View(variant=game_pb2.VARIANT_HHL, seat=2, hhl=game_pb2.HHLView()),
        legal_moves=[common_pb2.LegalMove(id=f"id{i}", text=t) for i, t in enumerate(LEGAL)])
    outbox = Sink()
    runner._turn(state, {}, outbox)
    return outbox.items, runner


@pytest.mark.parametrize("choose, move_id, fallbacks", [
    (lambda view, moves: moves[1], "id1", 0),            # a legal move, as offered
    (lambda view, moves: "5-5 right", "id2", 0),         # a legal move, as text
    (failing, "id0", 1),                                 # the strategy raised
    (lambda view, moves: "6-6 sideways", "id0", 1),      # not a move at all
    (lambda view, moves: "4-4 left", "id0", 1),          # a move, but not a legal one
])
def test_an_inline_seat_answers_each_turn_once(choose, move_id, fallbacks):
    sent, runner = answer(choose)
    assert [(m.move.match_id, m.move.version, m.move.move_id) for m in sent] == [
        ("m1", 7, move_id)]
    assert (runner.stats.moves, runner.stats.fallbacks) == (1, fallbacks)


def test_only_known_quick_strategies_run_inline():
    assert adapter.runs_inline(make_strategy("greedy", 1))
    assert adapter.runs_inline(make_strategy("random", 1))
    assert adapter.runs_inline(adapter.FirstLegal())
    assert not adapter.runs_inline(make_strategy("heuristic", 1))

    class Wrapped(Greedy):      # an overridden choose may take its time
        def choose(self, view, legal_moves):
            return super().choose(view, legal_moves)

    class Listening(Greedy):    # a listener's calls stay on its worker, in order
        def on_event(self, event):
            pass

    assert not adapter.runs_inline(Wrapped(1))
    assert not adapter.runs_inline(Listening(1))
