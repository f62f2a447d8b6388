"""The arena's store work in few round trips (engine_service/core/storage/arena_sql.py): a
cycle's matches, their seats, their rows, their statuses and its results' sequence numbers
go in a few statements whatever their number, each under the parameters one statement may
take, each write fenced by the arena's lease as a single one was; every arena's lease is
kept with one read. On both stores."""

from __future__ import annotations

import threading

import pytest

from engine_service.core.engine import Engine
from engine_service.core.storage import arena_sql
from engine_service.core.storage.arena_sql import COUNTED, PLAYING, VOIDED, ArenaStore
from engine_service.core.storage.rows import AlreadyDone, Fenced, MatchRow

MATCHES = 150            # 1,200 values of matches and 3,600 of seats: several statements each
SEATS = 4


class Counted:
    """The statements a real store runs, and their parameters. Only the test's own count:
    on PostgreSQL the engine is a cluster member, whose heartbeat and arena threads use the
    same store meanwhile (and on a loaded machine one of them did, between a mark and its
    check)."""

    def __init__(self, monkeypatch, store):
        self.statements: list[tuple[int, int]] = []     # (thread, parameters)
        for name in ("read", "write"):
            monkeypatch.setattr(store, name, self._counted(getattr(store, name)))

    def _counted(self, real):
        def run(sql, args=()):
            self.statements.append((threading.get_ident(), len(args)))
            return real(sql, args)
        return run

    def since(self, mark: int) -> list[int]:
        """The parameters of each statement this thread ran after `mark`."""
        me = threading.get_ident()
        return [n for thread, n in self.statements[mark:] if thread == me]


@pytest.fixture
def arena(store_db, monkeypatch):
    engine = Engine.open(store_db)
    if engine.cluster is not None:
        engine.join("127.0.0.1:1")
    store = ArenaStore(engine.store)
    store.ensure()
    store.add_arena("hhl", {"variant": "hhl"}, "secret")
    assert store.take_lease("hhl", 2.0) is not None
    try:
        yield store, Counted(monkeypatch, engine.store)
    finally:
        engine.close()


def lineup(m: int) -> list[tuple[str, str]]:
    return [(f"bot-{m}-{s}", "v1") for s in range(SEATS)]


def made(store, ids):
    """The tables of `ids` as a matchmaker makes them: together."""
    with store.together() as tx:
        tx.add_matches("hhl", [(m, lineup(i), "", 100.0 + i, 0, 0) for i, m in enumerate(ids)])
        tx.add_match_rows([(MatchRow(m, "hhl", {"hands": 1}, i, None, {}, 100.0 + i,
                                     "waiting", created_by="arena"), None, 0)
                           for i, m in enumerate(ids)])


def test_a_cycles_matches_seats_and_rows_go_in_a_few_statements(arena):
    store, counted = arena
    ids = [f"m{m:04d}" for m in range(MATCHES)]
    mark = len(counted.statements)
    made(store, ids)
    assert store.set_match_status("hhl", ids, COUNTED) == MATCHES
    statements = counted.since(mark)
    # 150 matches, a few statements each, were 600 round trips; each under the bound
    assert len(statements) <= 12, statements
    assert max(statements) <= arena_sql.PARAMETERS
    assert {m: st for m, _, st, *_ in store._r("SELECT match_id, lineup, status FROM "
                                              "arena_matches")} == dict.fromkeys(ids, COUNTED)
    assert all(store.store.match(m).seed == i for i, m in enumerate(ids))
    seats = set(store._r("SELECT match_id, seat, bot_id FROM arena_seats"))
    assert seats == {(m, s, b) for i, m in enumerate(ids) for s, (b, _) in enumerate(lineup(i))}
    # a status only from the ones named: none of them is in play any more
    assert store.set_match_status("hhl", ids, PLAYING) == 0


def test_a_cycles_tables_are_one_batch_of_writes(arena, monkeypatch):
    """The tables go to the store as one batch (SQLStore.batch: on PostgreSQL pipelined,
    BEGIN and every write in one round trip, the COMMIT in another), not a statement at
    a time; a read inside it is a bug."""
    store, _ = arena
    batches, alone = [], []
    real_batch, real_write = store.store._batch, store.store.write
    monkeypatch.setattr(store.store, "_batch", lambda writes: (batches.append(len(writes)),
                                                               real_batch(writes))[1])
    # (the cluster's heartbeat writes on its own thread meanwhile: only the arena's count)
    monkeypatch.setattr(store.store, "write", lambda sql, args=(): (
        alone.append(sql) if "arena_" in sql or "INTO matches" in sql else None,
        real_write(sql, args))[1])
    made(store, [f"m{m:04d}" for m in range(MATCHES)])
    assert alone == [] and len(batches) == 1 and batches[0] >= 3
    assert len(store.matches_in_play("hhl")) == MATCHES
    with pytest.raises(RuntimeError, match="read inside together"), store.together() as tx:
        tx.matches_in_play("hhl")


def test_tables_are_made_all_or_none(arena):
    """A failure while a cycle's tables are written (the store away, the lease taken)
    leaves none of them half made: no arena match without its row, nothing to void."""
    store, _ = arena
    ids = [f"m{m:04d}" for m in range(MATCHES)]
    ids[-1] = ids[0]      # its row's key taken by the first one: the last insert fails
    with pytest.raises(store.store.conflicts):
        made(store, ids)
    assert store.matches_in_play("hhl") == []
    assert store._r("SELECT count(*) FROM arena_seats") == [(0,)]
    assert store.store.match(ids[0]) is None
    made(store, ids[1:-1])     # the store goes on
    assert len(store.matches_in_play("hhl")) == MATCHES - 2


def test_results_are_numbered_in_one_go_and_never_twice(arena):
    store, counted = arena
    ids = [f"r{m:04d}" for m in range(MATCHES)]
    for i, m in enumerate(ids):
        store.add_result(m, "hhl", 200.0 + i, {"match_id": m, "ended": 200.0 + i})
    mark = len(counted.statements)
    store.count_results("hhl", [(m, i + 1) for i, m in enumerate(ids)])
    assert len(counted.since(mark)) <= 2
    assert [r["sequence"] for r in store.counted_after("hhl", 0)] == list(range(1, MATCHES + 1))
    assert [r["match_id"] for r in store.counted_after("hhl", 0)] == ids
    # numbered already: not again, whatever number is asked for, and said
    with pytest.raises(AlreadyDone):
        store.count_results("hhl", [(ids[0], 999), (ids[1], 1000)])
    assert store.counted_after("hhl", MATCHES) == []


def test_a_matchmaker_whose_lease_was_taken_writes_nothing(arena):
    store, _ = arena
    store.add_result("late", "hhl", 1.0, {"match_id": "late"})
    # another engine took the lease (its epoch moved on)
    store._w("UPDATE arenas SET epoch = epoch + 1 WHERE id = ?", ("hhl",))
    with pytest.raises(Fenced):
        made(store, ["m1"])
    assert store.matches_in_play("hhl") == []
    with pytest.raises(AlreadyDone):        # (the matchmaker then finds its lease gone)
        store.count_results("hhl", [("late", 1)])
    assert store._r("SELECT seq FROM arena_results WHERE match_id = 'late'") == [(None,)]


def test_the_results_to_count_are_those_of_matches_in_play_in_the_order_they_ended(arena):
    """A voided match is never counted, even when its result came in after all (its engine
    finished it as it was voided): the read leaves it out, once and for all, instead of the
    matchmaker looking each such match up again at every cycle."""
    store, _ = arena
    made(store, ["a", "b", "c"])
    for m, ended in (("a", 3.0), ("b", 1.0), ("c", 2.0)):
        store.add_result(m, "hhl", ended, {"match_id": m})
    assert store.set_match_status("hhl", ["c"], VOIDED) == 1
    assert [m for m, _, _ in store.uncounted("hhl")] == ["b", "a"]


def test_the_matches_placed_a_moment_ago_are_read_in_one_go(arena):
    """What an engine holds the matches placed on it from: the rows of those nothing has
    claimed or played in yet, in one read; one with a claimed seat or a logged move is left
    to a restore from its log."""
    store, counted = arena
    ids = [f"p{m:04d}" for m in range(MATCHES)]
    made(store, ids)
    store._w("INSERT INTO seats (match_id, seat, token_hash, name) VALUES (?, 0, 'h', '')",
             (ids[0],))
    store._w("INSERT INTO moves (match_id, version, seat, move, cause, at) VALUES "
             "(?, 1, 0, '6-6', 'seat', 1.0)", (ids[1],))
    mark = len(counted.statements)
    fresh = store.fresh_rows(ids)
    assert len(counted.since(mark)) == 1
    assert sorted(fresh) == ids[2:]
    assert all(fresh[m] == store.store.match(m) for m in ids[2:])


def test_every_arenas_lease_is_read_at_once(arena):
    store, counted = arena
    store.add_arena("domeng", {"variant": "domeng"}, "secret")
    mark = len(counted.statements)
    leases = store.leases(["hhl", "domeng", "nowhere"], 2.0)
    assert len(counted.since(mark)) == 1
    assert set(leases) == {"hhl", "domeng"}
    owner, epoch, alive = leases["hhl"]
    assert (owner, epoch, alive) == (store.engine_id, store.epochs["hhl"], True)
    assert leases["domeng"] == (None, 0, False)
    assert store.holds_lease("hhl", leases["hhl"]) and len(counted.since(mark)) == 1
    assert store.take_lease("hhl", 2.0, leases["hhl"]) == epoch   # held already: kept
    assert store.take_lease("domeng", 2.0, leases["domeng"]) == 1
    assert len(counted.since(mark)) == 2        # the compare and set, and nothing else
    # a lease read before another engine moved the epoch on: the compare and set loses
    store._w("UPDATE arenas SET epoch = epoch + 1 WHERE id = ?", ("domeng",))
    assert store.take_lease("domeng", 2.0, (None, 1, False)) is None
    assert not store.holds_lease("domeng", store.leases(["domeng"], 2.0)["domeng"])
    assert store.lease_holder("hhl", 2.0) == store.engine_id


def test_the_matchmaker_reads_only_the_bots_free_in_the_store(arena):
    """At a thousand bots nearly all are seated at any moment: the matchmaker's read of the
    free ones leaves out the seated (from their seating until their match is over) and the
    paused, in the store, instead of reading every lobby at every cycle."""
    store, _ = arena
    live_s = 60.0    # the engine's heartbeat counts as live however loaded the machine
    for bot in ("a", "b", "c", "d"):
        store.connect(bot, "hhl", "v1", f"session-{bot}", 10.0)
    with store.together() as tx:
        tx.count_seating(["a", "b"], "hhl")
    store.pause("c", "hhl", "no_show")
    assert [r[0] for r in store.present("hhl", live_s, free=True)] == ["d"]
    assert sorted(r[0] for r in store.present("hhl", live_s)) == ["a", "b", "c", "d"]   # online
    store.set_free([("a", "v1")], "hhl", 20.0)          # its match is over
    assert sorted((r[0], r[2]) for r in store.present("hhl", live_s, free=True)) == [
        ("a", 20.0), ("d", 10.0)]
