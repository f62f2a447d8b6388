"""A ladder's standings carry each entrant's skill figures from the analyses of its first
counted matches, asked of the engine's analysis queue by the director as each is counted;
through the Ladder service and its wire too (0 analysed: no figures)."""

import time

from analysis import analyse
from bots.strategies import Greedy, Oracle
from domino_cli.ladder_view import format_standings
from domino_wire import ladders as wire_ladders
from engine_service.core.engine import Engine
from engine_service.core.ladders.director import DONE
from engine_service.rpc.ladder_service import standings as standings_pb


def small(record, seats, worlds, progress):
    return analyse(record, seats=seats, worlds=3, processes=1, progress=progress)


def wait_until(condition, timeout=300.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_standings_show_the_analysed_sample():
    engine = Engine(yardsticks={"oracle": Oracle, "greedy": Greedy}, analyser=small)
    try:
        d, _ = engine.ladders.create({"variant": "hhl", "options": {"hands": 1}, "entrants": [],
                                   "yardsticks": ["oracle", "greedy"], "matches": 3, "seed": 2})
        wait_until(lambda: d.status == DONE)
        wait_until(lambda: all(e["analysed"] == 3 for e in d.standings()["entries"]))
        entries = d.standings()["entries"]
        for e in entries:
            assert e["mean_loss"] >= 0 and 0 <= e["luck_share"] <= 1
        wire = wire_ladders.standings(standings_pb(d))
        assert [(e["entrant"], e["analysed_matches"], e["mean_loss"]) for e in wire["entries"]] \
            == [(e["entrant"], 3, e["mean_loss"]) for e in entries]
        text = format_standings({**wire, "ladder_id": d.id}, "hhl")
        assert "loss/dec" in text and "(3)" in text
    finally:
        engine.close()


def test_without_an_analyser_the_figures_are_absent():
    engine = Engine(yardsticks={"oracle": Oracle, "greedy": Greedy})
    try:
        d, _ = engine.ladders.create({"variant": "hhl", "options": {"hands": 1}, "entrants": [],
                                   "yardsticks": ["oracle", "greedy"], "matches": 1, "seed": 2})
        wait_until(lambda: d.status == DONE)
        wire = wire_ladders.standings(standings_pb(d))
        assert all(e["analysed_matches"] == 0 and e["mean_loss"] is None for e in wire["entries"])
        assert "loss/dec" not in format_standings({**wire, "ladder_id": d.id}, "hhl")
    finally:
        engine.close()
