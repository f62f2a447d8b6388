"""The engine's whole-number settings from the environment: the default, the range's
ends, and every other value refused naming the variable."""

import os

import pytest

from engine_service.rpc import moves
from plumbing import collector
from plumbing.settings import BadSetting

ROOT = __file__.rsplit("/tests/", 1)[0]


@pytest.mark.parametrize("given, n", [("", 8), (" ", 8), ("0", 0), ("1", 1), ("64", 64)])
def test_the_threads_of_postgresql_moves_are_the_default_or_what_the_environment_says(
        monkeypatch, given, n):
    monkeypatch.setenv(moves.THREADS_ENV, given)
    assert moves.threads() == n


@pytest.mark.parametrize("given", ["65", "-1", "eight", "1.5", "\u00b2", "9" * 40])
def test_threads_out_of_range_are_refused_naming_the_variable(monkeypatch, given):
    monkeypatch.setenv(moves.THREADS_ENV, given)
    with pytest.raises(BadSetting, match=r"DOMINO_MOVE_THREADS must be a whole number of "
                                         r"threads from 0 to 64"):
        moves.threads()


def test_sqlite_moves_stay_on_the_loop_whatever_the_setting(monkeypatch):
    """A local commit takes microseconds: a thread's hop each way would cost more."""
    monkeypatch.setenv(moves.THREADS_ENV, "8")
    assert moves.Mover(remote_store=False)._pool is None
    monkeypatch.setenv(moves.THREADS_ENV, "0")
    assert moves.Mover(remote_store=True)._pool is None


@pytest.mark.parametrize("given, polls", [("", (0.25, 0.2)), ("50", (0.05, 0.05)),
                                          ("3600000", (3600.0, 3600.0))])
def test_the_arena_polls_are_the_default_or_what_the_environment_says(monkeypatch, given,
                                                                       polls):
    from engine_service.core.arena import spec
    monkeypatch.setenv(spec.POLL_ENV, given)
    assert spec.polls() == polls


@pytest.mark.parametrize("given", ["49", "3600001", "0", "fast"])
def test_arena_polls_out_of_range_are_refused_naming_the_variable(monkeypatch, given):
    from engine_service.core.arena import spec
    monkeypatch.setenv(spec.POLL_ENV, given)
    with pytest.raises(BadSetting, match=r"DOMINO_ARENA_POLL_MS must be a whole number of "
                                         r"milliseconds from 50 to 3600000"):
        spec.polls()


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
