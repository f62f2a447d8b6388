"""The runner answers before the deadline whatever the strategy does: too slow, failing,
or choosing something that is not a legal move. No turn is left to the engine's clock."""

import random
import threading
import time

import pytest

from bots.play import play
from bots.runner import Backoff
from bots.strategies import make_strategy
from bots.strategy import Strategy
from bots.strategy_adapter import think_time

# The seat's clock, and how long before its deadline the runner answers for a strategy
# that has not: half the clock, so a loaded machine that is slow to carry the answer to
# the engine (the default margin is a tenth of the clock) still gets it there in time.
# What the default margin is, think_time's test says.
CLOCK_MS = 3000
MARGIN_S = 1.5


class Slow(Strategy):
    """Thinks far longer than the clock allows."""

    def __init__(self, seconds):
        super().__init__()
        self.seconds, self.calls = seconds, 0

    def choose(self, view, legal_moves):
        self.calls += 1
        time.sleep(self.seconds)
        return legal_moves[-1]


def failing(view, legal_moves):
    raise RuntimeError("a bug in the bot")


def illegal(view, legal_moves):
    return "6-6 sideways"


def test_slow_failing_and_illegal_strategies_are_answered_for_before_the_deadline(engine):
    client = engine.client
    match_id, tokens = client.new_match("hhl", {"hands": 1}, seed=7, clock_ms=CLOCK_MS)
    events, runners, results = [], {}, {}
    bots = {0: Slow(3 * CLOCK_MS / 1000), 1: failing, 2: illegal,
            3: make_strategy("greedy")}

    def seat(s):
        def run():
            results[s] = play(engine.address, match_id, tokens[s], bots[s], margin=MARGIN_S,
                              on_message=lambda m: runners.setdefault(s, []).append(m))
        return run

    threads = [threading.Thread(target=f, daemon=True)
               for f in [lambda: client.watch(match_id, events), *map(seat, range(4))]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not any(t.is_alive() for t in threads)
    assert events[-1]["kind"] == "match_over"
    assert [e for e in events if e["kind"] in ("timeout", "absent")] == []
    summary = client.summary(match_id)
    assert all(s.timeouts_in_a_row == 0 for s in summary.seats)
    assert len({str(r) for r in results.values()}) == 1
    assert bots[0].calls >= 1
    # Every answer of seats 0-2 was the fallback, the first legal move: check the moves.
    record = client.record(match_id)
    turns = {s: [m.turn.state for m in runners[s] if m.WhichOneof("body") == "turn"]
             for s in range(3)}
    plays = [e for e in record["deals"][0]["moves"] if "play" in e]
    for s in range(3):
        assert turns[s], f"seat {s} never had a turn"
        firsts = [st.legal_moves[0].text for st in turns[s]]
        made = [" ".join(x for x in (e["play"], e.get("at"), e.get("mode")) if x)
                for e in plays if e["seat"] == s]
        assert made == firsts
    refused = [m.answer.refusal.reason for s in range(4) for m in runners[s]
               if m.WhichOneof("body") == "answer" and not m.answer.accepted]
    assert refused == []


def test_think_time_keeps_a_margin_and_waits_without_a_clock():
    now = 1000.0

    def at(seconds):
        return int((now + seconds) * 1000)
    assert think_time(0, 10_000, now) is None                           # no clock runs
    assert think_time(at(10), 10_000, now) == pytest.approx(9.0)        # 10 s clock: 1 s margin
    assert think_time(at(0.9), 900, now) == pytest.approx(0.65)         # 0.25 s at least
    assert think_time(at(0.3), 300, now) == pytest.approx(0.15)         # never under half
    assert think_time(at(-1), 300, now) == 0.0                          # late: answer now
    assert think_time(at(5), 10_000, now, margin=0.5) == pytest.approx(4.5)


def test_backoff_grows_is_capped_jittered_and_resets():
    b = Backoff(first=0.2, cap=5.0, rng=random.Random(1))
    waits = [b.next() for _ in range(10)]
    for n, w in enumerate(waits):
        d = min(5.0, 0.2 * 2 ** n)
        assert d / 2 <= w <= d
    assert max(waits) <= 5.0 and len(set(waits)) == len(waits)
    b.reset()
    assert b.next() <= 0.2
