"""A key that races its quotas across the engines of a cluster (docs/security.md, "Quotas").

The attack that worked: quotas counted in each engine's memory, so a key with
live_matches=4 split over two engines got 8, and matches_per_minute=5 gave 10. Here many
CreateMatch (and CreateLadder) calls with one key start at once, split over two real
engines on one PostgreSQL database (on SQLite: one engine, many threads, the same code
path), and never more than the quota succeed; the store agrees.
"""

from __future__ import annotations

import threading

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, game_pb2, ladder_pb2
from domino_wire import game
from engine_service.core.storage.factory import open_store
from engine_service.core.storage.rows import StoreUnavailable
from tests.engine.support import refusal, wait_for
from tests.hostile.keyed import KeyedEngines, as_key, make_key

ATTEMPTS = 24   # calls started together, half on each engine


@pytest.fixture
def engines(durable_db, tmp_path):
    e = KeyedEngines(durable_db, str(tmp_path / "engines.log"))
    yield e
    e.close()


def race(calls) -> tuple[int, list[str]]:
    """Start every call at the same moment (a barrier); (how many succeeded, the reasons
    of the refusals)."""
    barrier = threading.Barrier(len(calls))
    done, refused, lock = [], [], threading.Lock()

    def one(call):
        barrier.wait()
        try:
            call()
            with lock:
                done.append(1)
        except grpc.RpcError as err:
            code, r = refusal(err)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, (code, r.reason, r.message)
            with lock:
                refused.append(r.reason)
    threads = [threading.Thread(target=one, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    return len(done), refused


def create_match(engines, i, key):
    request = engine_pb2.CreateMatchRequest(variant=game_pb2.VARIANT_HHL, here=True,
                                            options=game.options_pb("hhl", {"hands": 1}))
    return lambda: engines.engine(i).CreateMatch(request, timeout=20, metadata=as_key(key))


def live_in_store(db: str, name: str) -> int:
    store = open_store(db)
    try:
        return sum(1 for row in store.unfinished() if row.created_by == name)
    finally:
        store.close()


def test_live_matches_hold_across_engines(engines, durable_db):
    key = make_key(durable_db, "racer", live_matches=4, matches_per_minute=1000)
    made, refused = race([create_match(engines, i, key) for i in range(ATTEMPTS)])
    assert (made, len(refused)) == (4, ATTEMPTS - 4)
    assert set(refused) == {"QUOTA_EXCEEDED"}
    assert live_in_store(durable_db, "racer") == 4
    made, _ = race([create_match(engines, i, key) for i in range(4)])   # still full
    assert made == 0


def test_matches_per_minute_hold_across_engines(engines, durable_db):
    key = make_key(durable_db, "burst", live_matches=1000, matches_per_minute=5)
    made, refused = race([create_match(engines, i, key) for i in range(ATTEMPTS)])
    assert (made, set(refused)) == (5, {"QUOTA_EXCEEDED"})
    assert live_in_store(durable_db, "burst") == 5


def test_running_ladders_hold_across_engines(engines, durable_db):
    key = make_key(durable_db, "ladders", ladders=2)

    def create_ladder(i):
        request = ladder_pb2.CreateLadderRequest(
            variant=game_pb2.VARIANT_HHL, entrants=["a", "b"], matches=50,
            options=game.options_pb("hhl", {"hands": 1}))
        return lambda: engines.ladder(i).CreateLadder(request, timeout=20, metadata=as_key(key))
    made, refused = race([create_ladder(i) for i in range(12)])
    assert (made, set(refused)) == (2, {"QUOTA_EXCEEDED"})
    running = [d for lad in engines.ladders
               for d in lad.ListLadders(ladder_pb2.ListLaddersRequest(), timeout=5).ladders
               if d.created_by == "ladders"]
    assert len({d.ladder_id for d in running}) == 2


def test_the_store_counts_a_quota_in_one_transaction(durable_db):
    """Below the engines (whose own lock lets one creation at a time through each): 32
    threads charging one principal through two stores on one database, as two engines'
    stores are, at once. Exactly the quota gets in."""
    from engine_service.core.storage.rows import MatchRow

    stores = [open_store(durable_db) for _ in range(2)]
    made, failed, barrier = [], [], threading.Barrier(32)

    def charge(i):
        row = MatchRow(f"m{i:03d}", "hhl", {"hands": 1}, i, None, {"seats": []}, 0.0,
                       "waiting", created_by="thief")
        barrier.wait()
        answer = []

        def attempt():
            # StoreUnavailable: 32 transactions queued on one principal's lock can outwait
            # the store's bounds on a loaded machine. A client told UNAVAILABLE tries again.
            try:
                answer.append(stores[i % 2].add_charged_match(
                    row, {"live_matches": 4, "matches_per_minute": 1000}, 1000.0))
            except StoreUnavailable:
                return False
            return True
        try:
            wait_for(attempt, timeout=60, what=f"charge {i} answered")
        except BaseException as e:   # a thread must not die unseen: the test reads it
            failed.append(repr(e))
            return
        if answer[0] is None:
            made.append(i)
    try:
        threads = [threading.Thread(target=charge, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        assert failed == []
        assert len(made) == 4
        assert live_in_store(durable_db, "thief") == 4
    finally:
        for s in stores:
            s.close()
