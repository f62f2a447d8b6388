"""The alarm clocks themselves: the manual one tests use, and the real one's thread."""

import threading

from plumbing.alarms import Alarms, ManualAlarms


def test_a_manual_clock_runs_due_alarms_in_order_and_skips_cancelled_ones():
    clock, fired = ManualAlarms(start=100.0), []
    clock.set(2.0, lambda: fired.append("b"))
    clock.set(1.0, lambda: fired.append("a"))
    late = clock.set(3.0, lambda: fired.append("never"))
    clock.set(5.0, lambda: fired.append("c"))
    late.cancel()
    assert clock.pending() == [1.0, 2.0, 5.0]
    clock.advance(1.5)
    assert fired == ["a"] and clock.now() == 101.5
    clock.advance(10)
    assert fired == ["a", "b", "c"] and clock.pending() == []


def test_an_alarm_set_by_an_alarm_runs_when_its_time_comes_within_the_same_advance():
    clock, fired = ManualAlarms(), []
    clock.set(1.0, lambda: clock.set(1.0, lambda: fired.append(clock.now())))
    start = clock.now()
    clock.advance(3.0)
    assert fired == [start + 2.0]


def test_the_real_clock_survives_a_failing_callback_and_an_alarm_far_in_the_future():
    clock = Alarms()
    try:
        done = threading.Event()
        clock.set(10.0 ** 12, lambda: None)          # past threading.TIMEOUT_MAX
        clock.set(0.0, lambda: 1 / 0)                # a bug in one match's callback
        clock.set(0.01, done.set)
        assert done.wait(5), "the timer thread died"
    finally:
        clock.stop()
