"""The lines `domino bot` prints on stderr while it plays, from the messages the runner
hands it (bots/runner.py's on_message), without an engine: the subprocess tests in
test_matches_and_bots.py cover the real thing."""

import io
import time

from domino_cli.bot_progress import Progress, describe
from domino_proto.domino.v1 import play_pb2
from domino_wire.names import VARIANT


def _wait_for(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _turn(match_id, version, view):
    """A TurnRequest whose typed view holds what the progress line reads."""
    m = play_pb2.EngineMessage()
    state = m.turn.state
    state.match_id, state.version = match_id, version
    state.view.variant = VARIANT.number(view["variant"])
    state.view.seat, state.view.deal_number = view.get("seat", -1), view["deal_number"]
    state.view.hhl.totals[:] = view["totals"]
    return m


def test_no_word_from_the_engine_is_said_once_with_what_to_do():
    out = io.StringIO()
    p = Progress("127.0.0.1:9", every=0, give_up=None, notice_after=0.05, out=out).start()
    try:
        _wait_for(lambda: out.getvalue())
    finally:
        p.stop()
    assert out.getvalue() == ("domino bot: cannot reach the engine at 127.0.0.1:9: start one with "
                              "`domino engine`, or give --engine HOST:PORT; trying again until "
                              "interrupted (--give-up 0)\n")


def test_a_reached_engine_gets_no_notice_and_a_line_only_when_the_match_moved_on():
    out = io.StringIO()
    p = Progress("e", every=3600, give_up=120, notice_after=0.01, out=out)
    welcome = play_pb2.EngineMessage()
    welcome.welcome.match_id, welcome.welcome.seat = "m1", 2
    p.on_message(welcome)
    view = {"variant": "hhl", "seat": 2, "deal_number": 4, "totals": [100, -100, 0, 0]}
    p.on_message(_turn("m1", 40, view))
    p.on_message(_turn("m1", 38, view))        # an older state never replaces a newer one
    p.report()
    p.report()                                  # nothing new: no second line
    assert out.getvalue().splitlines() == [
        "domino bot: match m1 seat 2: version 40, hand 5, totals +100 -100 +0 +0 (0 s)"]
    over = play_pb2.EngineMessage()
    over.match_over.match_id = "m1"
    p.on_message(_turn("m1", 41, view))
    p.on_message(over)                          # over: its last state said once, then no more
    p.report()
    p.report()
    assert out.getvalue().splitlines()[1:] == [
        "domino bot: match m1 seat 2: version 41, hand 5, totals +100 -100 +0 +0 (0 s)"]


def test_a_domeng_line_names_the_round_the_cycle_and_the_stones():
    view = {"variant": "domeng", "deal_number": 0, "cycle": 1, "held": [1, 2, 3, 4, 5],
            "table": 10}
    assert describe("m", {0, 1, 2, 3, 4}, 7, view, 12.4) == (
        "match m seats 0-4: version 7, round 1 (cycle 2), STONES held 1 2 3 4 5, table 10 (12 s)")
