"""A match another engine took over leaves no clock behind on the engine that lost it.

Two Engine objects on one PostgreSQL database, each on its own ManualAlarms: B takes a
match of A's (a compare-and-set on its epoch, as a failover does) while A still holds it,
as when A was paused past its lease. A's next alarm of that match (the turn clock, a
yardstick's turn) writes, is fenced and drops the match; every alarm of it must be gone
from A then (the time limit, a retry), and nothing is logged but the drop itself. An
alarm that was already on its way when the match was dropped does nothing, quietly.
"""

from __future__ import annotations

import logging
import time

import pytest

from bots.strategies import Oracle
from engine_service import rules
from engine_service.core.engine import Engine
from engine_service.core.matches.seats import SeatSpec
from plumbing.alarms import ManualAlarms


@pytest.fixture
def engines(pg_dsn):
    a = Engine.open(pg_dsn, alarms=ManualAlarms(), yardsticks={"oracle": Oracle})
    b = Engine.open(pg_dsn, alarms=ManualAlarms(), yardsticks={"oracle": Oracle})
    # Members of one cluster without their heartbeat threads: the test decides who owns what.
    a.store.join("engine-a", "127.0.0.1:1", time.time())
    b.store.join("engine-b", "127.0.0.1:2", time.time())
    yield a, b
    b.close()
    a.close()


def new_match(engine: Engine, seed: int, yardstick: bool = False):
    """An HHL match with its default 60-minute limit (HHL-10), every seat claimed; with
    `yardstick` the seat to move first is the engine's own oracle (its turn: an alarm at
    once)."""
    seats = None
    if yardstick:
        first = rules.new_match("hhl", {}, seed=seed).to_move
        seats = [SeatSpec(yardstick="oracle" if s == first else "") for s in range(4)]
    referee = engine.create_match("hhl", {}, seed=seed, seats=seats)
    for s in range(4):
        if not referee.seats[s].claimed:
            engine.claim_seat(referee.id, s)
    return referee


def take_over(a: Engine, b: Engine, match_id: str) -> None:
    assert b.store.take("matches", match_id, a.store.epochs[match_id]) is not None
    assert b.adopt_match(match_id)


def complaints(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.ERROR or r.exc_info]


@pytest.mark.parametrize("yardstick", [False, True], ids=["turn-clock", "yardstick-turn"])
def test_the_alarm_that_finds_its_match_taken_drops_it_and_every_alarm_of_it(
        engines, caplog, yardstick):
    a, b = engines
    referee = new_match(a, seed=11, yardstick=yardstick)
    version = referee.version
    assert len(a.alarms.pending()) == 2          # the seat's turn, and the time limit
    take_over(a, b, referee.id)
    with caplog.at_level(logging.INFO):
        a.alarms.advance(referee.seats[referee.match.to_move].clock_ms / 1000)  # it fires
        assert referee.released and referee.id not in a.live_ids()
        assert a.alarms.pending() == []           # no retry, no time limit, no turn
        a.alarms.advance(3600)                    # an hour on: nothing wakes
    assert a.alarms.pending() == []
    assert complaints(caplog) == []
    dropped = [r for r in caplog.records if "dropped" in r.getMessage()]
    assert len(dropped) == 1, [r.getMessage() for r in caplog.records]
    # B plays it on, from A's last committed version.
    assert b.get(referee.id).version == version


def test_an_alarm_already_on_its_way_when_the_match_is_dropped_does_nothing(engines, caplog):
    """The heartbeat sees the new owner first (cluster/membership.py _drop_lost) and drops
    the match; callbacks of its alarms that were already taken off the heap (a timer
    thread that popped them) must then do nothing: no write, no log, no new alarm."""
    a, b = engines
    referee = new_match(a, seed=12)
    turn, limit = referee._alarm.callback, referee._time_alarm.callback
    take_over(a, b, referee.id)
    moves = len(a.store.moves(referee.id))
    with caplog.at_level(logging.INFO):
        a.drop_match(referee.id, "another engine owns the match now")
        caplog.clear()
        turn()
        limit()
    assert a.alarms.pending() == []
    assert caplog.records == []
    assert len(a.store.moves(referee.id)) == moves
