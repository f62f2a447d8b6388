"""The gateway's kept leaderboards (gateway/leaderboard_cache.py), on a clock of the test's own and
a read that the test holds or fails at will: a reader is served without waiting on the
engine, one read renews a board (a board too old is served while it is on its way), a
refusal reaches the reader when the board is too old to serve and its renewal failed, and
nothing is kept of an arena the engine refused. The REST route over a real
engine is in test_arena_rest.py."""

from __future__ import annotations

import json
import logging
import threading

import pytest
from gateway_support import wait_for

from gateway.leaderboard_cache import LeaderboardCache, encoded


class Unknown(Exception):
    pass


class Engine:
    """A read that counts its calls, can be held at a gate, and answers board `version`."""

    def __init__(self):
        self.version = 1
        self.calls = 0
        self.gate = threading.Event()
        self.gate.set()
        self.fail: Exception | None = None

    def read(self, arena_id: str, versions: str) -> dict:
        self.calls += 1
        if arena_id != "hhl":
            raise Unknown(arena_id)
        assert self.gate.wait(30)
        if self.fail is not None:
            raise self.fail
        return {"arena_id": arena_id, "versions": versions, "last_sequence": str(self.version),
                "rows": [{"place": i + 1, "name": f"bot{i}", "v": self.version}
                         for i in range(5)]}


@pytest.fixture
def setup():
    now = [100.0]
    engine = Engine()
    cache = LeaderboardCache(engine.read, max_age_s=0.5, max_stale_s=5.0, clock=lambda: now[0])
    return now, engine, cache


def in_thread(fn):
    """fn() on a thread, and whether it returned within 10 s: a call that waited on the held
    read would not."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    t.start()
    t.join(10)
    return out[0] if out else None


def board(cache, limit=0) -> dict:
    return json.loads(cache.get("hhl", "latest", limit)[0])


def test_a_fresh_board_is_served_without_another_read_and_sliced_by_limit(setup):
    now, engine, cache = setup
    text, tag, _ = cache.get("hhl", "latest", 0)
    body = json.loads(text)
    assert engine.calls == 1 and len(body["rows"]) == 5 and (text, tag) == encoded(body)
    now[0] += 0.4
    top_text, top_tag, _ = cache.get("hhl", "latest", 2)
    top = json.loads(top_text)
    assert engine.calls == 1
    assert top["rows"] == body["rows"][:2] and top["last_sequence"] == "1"
    assert top_tag == encoded(top)[1] != tag
    assert cache.get("hhl", "latest", 2)[:2] == (top_text, top_tag)
    cache.get("hhl", "all", 0)
    assert engine.calls == 2          # each view is a board of its own


def test_each_answer_says_how_long_ago_its_board_was_read(setup):
    now, engine, cache = setup
    assert cache.get("hhl", "latest", 0).age_s == 0.0
    engine.gate = threading.Event()           # the renewal held
    now[0] += 1.0
    assert in_thread(lambda: cache.get("hhl", "latest", 0)).age_s == 1.0   # renewal begun
    now[0] += 6.0
    assert in_thread(lambda: cache.get("hhl", "latest", 3)).age_s == 7.0
    engine.gate.set()
    wait_for(lambda: cache.get("hhl", "latest", 0).age_s == 0.0, timeout=10)


def test_a_stale_board_is_served_at_once_while_one_read_renews_it(setup):
    now, engine, cache = setup
    first, *_ = cache.get("hhl", "latest", 0)
    engine.version, engine.gate = 2, threading.Event()    # the engine now slow to answer
    now[0] += 1.0
    served = in_thread(lambda: cache.get("hhl", "latest", 0))
    assert served is not None and served[0] == first, "the reader waited on the engine"
    assert in_thread(lambda: cache.get("hhl", "latest", 0))[0] == first
    assert engine.calls == 2          # one renewal for both stale reads
    engine.gate.set()
    wait_for(lambda: board(cache)["last_sequence"] == "2", timeout=10)
    assert engine.calls == 2


def test_a_failed_renewal_keeps_the_board_and_is_logged(setup, caplog):
    now, engine, cache = setup
    first, tag, _ = cache.get("hhl", "latest", 0)
    engine.fail = RuntimeError("engine unavailable")
    now[0] += 1.0
    with caplog.at_level(logging.WARNING, logger="gateway.leaderboard_cache"):
        assert cache.get("hhl", "latest", 0)[:2] == (first, tag)
        wait_for(lambda: "was not renewed: RuntimeError" in caplog.text, timeout=10)
    wait_for(lambda: not cache._renewing, timeout=10)
    engine.fail = None
    now[0] += 1.0                     # the next stale read renews it again
    cache.get("hhl", "latest", 0)
    wait_for(lambda: engine.calls == 3, timeout=10)


def test_a_board_too_old_to_serve_is_read_in_the_request_and_its_refusal_reaches_the_reader(
        setup):
    now, engine, cache = setup
    cache.get("hhl", "latest", 0)
    engine.fail = RuntimeError("engine unavailable")
    now[0] += 6.0
    with pytest.raises(RuntimeError, match="engine unavailable"):
        cache.get("hhl", "latest", 0)
    engine.fail, engine.version = None, 3
    assert board(cache)["last_sequence"] == "3"


def test_a_board_too_old_is_still_served_while_its_renewal_is_on_its_way(setup):
    """An engine slow to answer (not refusing) keeps its readers served from the board
    they had; once the renewal fails, the next reader reads in its request and gets the
    engine's refusal."""
    now, engine, cache = setup
    first, *_ = cache.get("hhl", "latest", 0)
    engine.gate = threading.Event()           # the engine answers, but slowly
    now[0] += 1.0
    assert in_thread(lambda: cache.get("hhl", "latest", 0))[0] == first   # renewal begun
    now[0] += 9.0                             # past max_stale_s, the renewal still out
    served = in_thread(lambda: cache.get("hhl", "latest", 0))
    assert served is not None and served[0] == first, "the reader waited on the engine"
    assert engine.calls == 2
    engine.fail = RuntimeError("deadline exceeded")
    engine.gate.set()                         # the renewal fails
    wait_for(lambda: not cache._renewing, timeout=10)
    with pytest.raises(RuntimeError, match="deadline exceeded"):
        cache.get("hhl", "latest", 0)


class TooLate(Exception):
    """A read whose deadline passed (the gateway's 504)."""


def test_a_board_whose_renewal_ran_out_of_time_is_served_up_to_max_slow_s_old(setup):
    """An engine too busy to answer within the deadline is not gone: its readers keep
    the board they had, each one starting the next renewal, until the board is
    max_slow_s old; then the reader reads in its request and gets the engine's answer.
    Another failure (the engine refusing, or away) sends the next reader to the engine at
    once."""
    now, engine, _ = setup
    cache = LeaderboardCache(engine.read, max_age_s=0.5, max_stale_s=5.0, max_slow_s=60.0,
                             slow=lambda err: isinstance(err, TooLate), clock=lambda: now[0])
    first, *_ = cache.get("hhl", "latest", 0)
    engine.fail = TooLate()
    now[0] += 1.0
    assert cache.get("hhl", "latest", 0)[0] == first           # a renewal, which fails
    wait_for(lambda: not cache._renewing, timeout=10)
    now[0] += 20.0                            # past max_stale_s: still served, renewed
    assert in_thread(lambda: cache.get("hhl", "latest", 0))[0] == first
    wait_for(lambda: engine.calls == 3 and not cache._renewing, timeout=10)
    now[0] += 40.0                            # 61 s old: read in the request
    with pytest.raises(TooLate):
        cache.get("hhl", "latest", 0)
    engine.fail, engine.version = None, 2
    assert board(cache)["last_sequence"] == "2"

    engine.fail = RuntimeError("engine unavailable")     # not slowness: no grace
    now[0] += 1.0
    cache.get("hhl", "latest", 0)
    wait_for(lambda: not cache._renewing, timeout=10)
    now[0] += 5.0
    with pytest.raises(RuntimeError, match="engine unavailable"):
        cache.get("hhl", "latest", 0)


def test_an_arena_the_engine_refuses_is_refused_every_time_and_never_kept(setup):
    _, engine, cache = setup
    for _ in range(3):
        with pytest.raises(Unknown):
            cache.get("chess", "latest", 0)
    assert engine.calls == 3 and not cache._boards


@pytest.mark.parametrize("code, slow", [("DEADLINE_EXCEEDED", True), ("UNAVAILABLE", False),
                                        ("NOT_FOUND", False), ("INTERNAL", False)])
def test_only_a_read_that_ran_out_of_time_counts_as_the_engine_being_slow(code, slow):
    """The gateway's predicate, on the error its engine client raises for each gRPC code."""
    import grpc

    from gateway.api.arenas import ran_out_of_time
    from gateway.engine_client import api_error

    class Failed(grpc.RpcError):
        def code(self):
            return getattr(grpc.StatusCode, code)

        def details(self):
            return ""

        def trailing_metadata(self):
            return ()

    assert ran_out_of_time(api_error(Failed())) is slow
