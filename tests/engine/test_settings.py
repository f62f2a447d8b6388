"""The engine's whole-number settings from the environment: the default, the range's
ends, and every other value refused naming the variable."""

import os

import pytest

from engine_service.core.arena import spec
from engine_service.rpc import moves, pacing
from plumbing import collector
from plumbing.settings import BadSetting

ROOT = __file__.rsplit("/tests/", 1)[0]


# (the variable, how the engine reads it, what it says of its range)
SETTINGS = {
    "threads": (moves.THREADS_ENV, moves.threads, "threads from 0 to 64"),
    "polls": (spec.POLL_ENV, spec.polls, "milliseconds from 50 to 3600000"),
    "pacing": (pacing.LAG_ENV, pacing.target_s, "milliseconds from 0 to 1000"),
}


@pytest.mark.parametrize("setting, given, read", [
    ("threads", "", 8), ("threads", " ", 8), ("threads", "0", 0), ("threads", "1", 1),
    ("threads", "64", 64),
    ("polls", "", (0.25, 0.2)), ("polls", "50", (0.05, 0.05)),
    ("polls", "3600000", (3600.0, 3600.0)),
    ("pacing", "", 0.02), ("pacing", "0", 0.0), ("pacing", "1000", 1.0),
])
def test_a_setting_is_its_default_or_what_the_environment_says(monkeypatch, setting, given,
                                                              read):
    env, reader, _ = SETTINGS[setting]
    monkeypatch.setenv(env, given)
    assert reader() == read


@pytest.mark.parametrize("setting, given", [
    *[("threads", g) for g in ("65", "-1", "eight", "1.5", "\u00b2", "9" * 40)],
    *[("polls", g) for g in ("49", "3600001", "0", "fast")],
    *[("pacing", g) for g in ("1001", "-1", "fast", "2.5")],
])
def test_a_setting_out_of_range_is_refused_naming_the_variable(monkeypatch, setting, given):
    env, reader, says = SETTINGS[setting]
    monkeypatch.setenv(env, given)
    with pytest.raises(BadSetting, match=f"{env} must be a whole number of {says}"):
        reader()


def test_sqlite_moves_stay_on_the_loop_whatever_the_setting(monkeypatch):
    """A local commit takes microseconds: a thread's hop each way would cost more."""
    monkeypatch.setenv(moves.THREADS_ENV, "8")
    assert moves.Mover(remote_store=False)._pool is None
    monkeypatch.setenv(moves.THREADS_ENV, "0")
    assert moves.Mover(remote_store=True)._pool is None


@pytest.mark.parametrize("given, expected", [("", "(50000, 20, 10)"), ("700", "(700, 20, 10)")])
def test_a_started_engine_process_freezes_what_it_made_and_sets_the_collectors_pace(
        given, expected):
    """In a process of its own: freezing and the thresholds are the whole process's."""
    import subprocess
    import sys

    code = ("import gc; from plumbing import collector; before = gc.get_freeze_count(); "
            "collector.settle(); print(gc.get_threshold(), before, gc.get_freeze_count())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**os.environ, collector.YOUNG_ENV: given},
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    threshold, before, frozen = done.stdout.rsplit(" ", 2)
    assert threshold == expected
    assert int(before) == 0 < int(frozen)


@pytest.mark.parametrize("given", ["99", "10000001", "-1", "many", "\u00b2"])
def test_a_collector_pace_out_of_range_is_refused_naming_the_variable(monkeypatch, given):
    monkeypatch.setenv(collector.YOUNG_ENV, given)
    with pytest.raises(BadSetting, match=r"DOMINO_GC_YOUNG must be a whole number of "
                                         r"objects from 100 to 10000000"):
        collector.young()
