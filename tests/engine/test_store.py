"""The stores (SQLite, PostgreSQL): what they keep is exactly what replays a match."""

import json
import time

import pytest

from engine_service.core.engine import Engine
from engine_service.core.matches.referee import Referee
from engine_service.core.storage.factory import open_store
from engine_service.core.storage.rows import MatchRow, MoveRow
from engine_service.core.storage.sqlite import CHECKPOINT_S, SQLiteStore


def row(id_="m1", status="waiting"):
    return MatchRow(id_, "hhl", {"hands": 1, "minutes": None}, 5, None,
                    {"kinds": ["bot"] * 4, "names": [""] * 4, "clocks_ms": [10_000] * 4},
                    1000.0, status)


def test_a_match_its_seats_and_its_moves_survive_reopening_the_store(durable_db):
    path = durable_db
    store = open_store(path)
    store.add_match(row())
    assert store.claim_seat("m1", 0, "h0")
    assert not store.claim_seat("m1", 0, "other")     # a seat is claimed once
    store.append_move("m1", MoveRow(1, 2, "0-0", "seat", 1.0))
    store.append_move("m1", MoveRow(2, 3, "0-3 left", "timeout", 2.0))
    store.set_status("m1", "live")
    store.close()

    store = open_store(path)
    assert store.match("m1") == row(status="live")
    assert [r.id for r in store.unfinished()] == ["m1"]
    assert store.seat_hashes("m1") == {0: "h0"}
    assert store.moves("m1") == [MoveRow(1, 2, "0-0", "seat", 1.0),
                                 MoveRow(2, 3, "0-3 left", "timeout", 2.0)]
    store.set_status("m1", "over", {"totals": [0, 0, 0, 0]})
    assert store.unfinished() == []
    assert store.match("m1").result == {"totals": [0, 0, 0, 0]}
    assert store.match("nope") is None
    store.close()


def test_commits_never_checkpoint_the_wal_its_own_thread_does(tmp_path):
    """A checkpoint (copying pages, syncing the file) must not land on a commit: commits
    run on the engine's move path."""
    store = SQLiteStore(str(tmp_path / "s.sqlite3"))
    try:
        assert store._read("PRAGMA wal_autocheckpoint", ()) == [(0,)]
        store.add_match(row())
        for v in range(1, 301):
            store.append_move("m1", MoveRow(v, v % 4, "0-0", "seat", float(v)))
        deadline = time.monotonic() + 30    # a loaded machine may hold its thread back
        while store.last_checkpoint[0] < 300 and time.monotonic() < deadline:
            time.sleep(CHECKPOINT_S / 5)
        frames, done = store.last_checkpoint
        assert frames >= 300 and done == frames     # one frame per commit at least, all in
    finally:
        store.close()
    assert not store._checkpointer.is_alive()


def test_the_log_is_append_only_one_row_per_version(store_db):
    store = open_store(store_db)
    store.add_match(row())
    store.append_move("m1", MoveRow(1, 2, "0-0", "seat"))
    with pytest.raises(Exception, match="(?i)unique|duplicate"):
        store.append_move("m1", MoveRow(1, 2, "0-0", "seat"))
    assert store.moves("m1") == [MoveRow(1, 2, "0-0", "seat")]
    store.close()


def test_tokens_are_stored_only_as_hashes(store_db):
    engine = Engine.open(store_db)
    match = engine.create_match("hhl", {"hands": 1}, seed=1)
    token = match.claim(0)
    assert len(token) >= 40
    stored = engine.store.seat_hashes(match.id)[0]
    assert token not in stored and len(stored) == 64
    engine.close()


def test_restoring_replays_the_log_to_the_same_state_and_version(store_db):
    engine = Engine.open(store_db)
    referee = engine.create_match("domeng", {}, seed=9)
    for s in range(5):
        referee.claim(s)
    for _ in range(20):
        seat = referee.match.to_move
        referee.submit(seat, referee.version, move_id="0")
    again = Referee.restore(engine.store.match(referee.id), engine.store, None)
    assert again.version == referee.version == 20
    assert again.match.view(None) == referee.match.view(None)
    assert [again.match.view(s) for s in range(5)] == [referee.match.view(s) for s in range(5)]
    engine.close()


def test_the_hhl_time_limit_ends_the_match_after_the_hand_in_progress_and_replays(store_db):
    engine = Engine.open(store_db)
    referee = engine.create_match("hhl", {}, seed=2)    # default: a 60-minute limit
    for s in range(4):
        referee.claim(s)
    for _ in range(3):
        referee.submit(referee.match.to_move, referee.version, move_id="0")
    referee._time_up()                                  # what the clock does at 60 minutes
    assert referee.version == 4 and referee.history[-1].accepted.events[0].kind == "time_up"
    while not referee.match.over:
        referee.submit(referee.match.to_move, referee.version, move_id="0")
    assert len(referee.match.deals) == 1               # the hand in progress was the last
    again = Referee.restore(engine.store.match(referee.id), engine.store, None)
    assert again.match.over and again.match.record() == referee.match.record()
    engine.close()


def test_a_store_that_stops_answering_refuses_the_move_and_leaves_no_gap(store_db):
    """A write that fails while the store cannot be read either (PostgreSQL down): the
    move is refused (STORE_UNAVAILABLE, UNAVAILABLE over gRPC) and the match goes back to
    what its log holds, from the moves the referee kept, so no move is ever played on a
    state the log does not have."""
    from engine_service.core.errors import EngineError, Reason
    from engine_service.core.storage.rows import StoreUnavailable

    engine = Engine.open(store_db)
    if engine.cluster is not None:
        engine.join("127.0.0.1:1")
    try:
        referee = engine.create_match("hhl", {"hands": 1}, seed=3)
        tokens = [engine.claim_seat(referee.id, s) for s in range(4)]

        def play_first():
            seat = referee.match.to_move
            move = referee.match.legal_moves(seat)[0]
            return engine.submit(referee.id, tokens[seat], referee.version, "", str(move))

        play_first()
        store = engine.store
        down = StoreUnavailable("the store did not answer")

        def fail(*args, **kwargs):
            raise down

        saved = store.append_move, store.moves
        store.append_move = store.moves = fail   # the write fails, and so does the rebuild
        version = referee.version
        with pytest.raises(EngineError) as refused:
            play_first()
        assert refused.value.reason == Reason.STORE_UNAVAILABLE
        assert referee.version == version          # nothing changed
        store.append_move, store.moves = saved     # the store is back
        while not referee.match.over:
            play_first()
        versions = [m.version for m in store.moves(referee.id)]
        assert versions == list(range(1, referee.version + 1))   # no gap, none twice
        replayed = Referee.restore(store.match(referee.id), store, None)
        assert replayed.match.record() == referee.match.record()
    finally:
        engine.close()


@pytest.mark.parametrize("pooled", [False, True], ids=["by token", "pool seat, no-show"])
def test_a_claim_the_store_took_but_whose_answer_was_lost_is_taken_in(store_db, pooled):
    """A seat's claim reached the store but its answer did not (the store stopped answering
    after the write). The store is the truth: the next claim of the seat is refused as
    taken, and the referee holds the store's claim from then on, so that the match starts
    with its last seat instead of waiting for a claim that can never come. A pool seat whose
    bot never came is then played by the clock (a no-show), without an error."""
    from engine_service.core.errors import EngineError, Reason
    from engine_service.core.matches.referee import LIVE
    from engine_service.core.matches.seats import SeatSpec
    from engine_service.core.storage.rows import StoreUnavailable

    engine = Engine.open(store_db)
    if engine.cluster is not None:
        engine.join("127.0.0.1:1")
    try:
        seats = [SeatSpec(pool="p" if pooled and s == 0 else "") for s in range(4)]
        if pooled:
            engine.pools.define("p")
        referee = engine.create_match("hhl", {"hands": 1}, seed=3, seats=seats)
        store = engine.store
        taken = store.claim_seat

        def answer_lost(*args):
            taken(*args)
            raise StoreUnavailable("the store did not answer")

        store.claim_seat = answer_lost
        with pytest.raises(EngineError) as refused:
            referee.claim(0, by_pool=pooled)
        assert refused.value.reason == Reason.STORE_UNAVAILABLE
        store.claim_seat = taken
        assert not referee.seats[0].claimed          # the referee did not hear of it
        for seat in range(1, 4):
            engine.claim_seat(referee.id, seat)
        if pooled:
            referee.no_show(0)
            assert referee.seats[0].absent
        else:
            with pytest.raises(EngineError) as refused:
                engine.claim_seat(referee.id, 0)
            assert refused.value.reason == Reason.SEAT_TAKEN
        assert referee.seats[0].token_hash == store.seat_hashes(referee.id)[0]
        assert referee.status == LIVE
    finally:
        engine.close()


# A store file as version 2 left it: no owner or epoch on matches, and the ladders' tables
# made by the ladder store of their own that version had (here without its `error` column,
# as the oldest files have it).
VERSION_2 = """
CREATE TABLE matches (id TEXT PRIMARY KEY, variant TEXT NOT NULL, options TEXT NOT NULL,
  seed INTEGER NOT NULL, deals TEXT, settings TEXT NOT NULL, created REAL NOT NULL,
  status TEXT NOT NULL, result TEXT, version INTEGER NOT NULL DEFAULT 0,
  created_by TEXT NOT NULL DEFAULT '');
CREATE TABLE seats (match_id TEXT NOT NULL, seat INTEGER NOT NULL, token_hash TEXT NOT NULL,
  name TEXT NOT NULL DEFAULT '', PRIMARY KEY (match_id, seat));
CREATE TABLE moves (match_id TEXT NOT NULL, version INTEGER NOT NULL, seat INTEGER NOT NULL,
  move TEXT NOT NULL, cause TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (match_id, version))
  WITHOUT ROWID;
CREATE TABLE api_keys (name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE,
  quotas TEXT NOT NULL, created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE pools (name TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE ladders (id TEXT PRIMARY KEY, spec TEXT NOT NULL, status TEXT NOT NULL,
  created REAL NOT NULL);
CREATE TABLE ladder_matches (ladder_id TEXT NOT NULL, match_id TEXT NOT NULL,
  idx INTEGER NOT NULL, status TEXT NOT NULL, PRIMARY KEY (ladder_id, match_id));
CREATE TABLE ladder_results (ladder_id TEXT NOT NULL, idx INTEGER NOT NULL, row TEXT NOT NULL,
  PRIMARY KEY (ladder_id, idx));
PRAGMA user_version = 2;
"""


def test_a_version_2_sqlite_file_is_brought_up_to_date_and_its_live_match_restored(tmp_path):
    import json
    import sqlite3

    from engine_service.core.storage import sqlite as sqlite_module

    path = str(tmp_path / "old.sqlite3")
    db = sqlite3.connect(path)
    db.executescript(VERSION_2)
    r = row()
    db.execute("INSERT INTO matches VALUES (?, ?, ?, ?, NULL, ?, ?, 'live', NULL, 0, 'open')",
               (r.id, r.variant, json.dumps(r.options), r.seed, json.dumps(r.settings),
                r.created))
    db.executemany("INSERT INTO seats VALUES (?, ?, ?, '')",
                   [(r.id, s, f"h{s}") for s in range(4)])
    db.execute("INSERT INTO moves VALUES (?, 1, 3, '0-0', 'seat', 1.0)", (r.id,))   # its opening
    db.execute("INSERT INTO ladders VALUES ('L1', '{}', 'done', 5.0)")
    db.execute("INSERT INTO ladder_results VALUES ('L1', 0, '{\"a\": 1}')")
    db.commit()
    db.close()

    store = SQLiteStore(path)
    try:
        (version,), = store._read("PRAGMA user_version")
        assert version == sqlite_module.SCHEMA_VERSION == 3
        columns = {t: {c[1] for c in store._read(f"PRAGMA table_info({t})")}
                   for t in ("matches", "ladders")}
        assert {"owner", "epoch"} <= columns["matches"]
        assert {"owner", "epoch", "error"} <= columns["ladders"]
        assert store.ladders.ladder("L1") == ("L1", {}, "done", 5.0, "")
        assert store.ladders.results("L1") == [{"a": 1}]
        referee = Referee.restore(store.match(r.id), store, None)
        assert referee.version == 1 and referee.status == "live"
        assert store.moves(r.id) == [MoveRow(1, 3, "0-0", "seat", 1.0)]
    finally:
        store.close()


# A match row's seats as rows stored before per-seat objects hold them: parallel lists, the
# pools and yardsticks optional (matches/seats.py, seat_specs).
PARALLEL_SEATS = {"kinds": ["person", "bot", "bot", "bot"], "names": ["ann", "", "", ""],
                  "clocks_ms": [120_000, 10_000, 10_000, 10_000],
                  "pools": ["", "house-greedy", "", ""]}


def test_seats_stored_as_parallel_lists_restore_like_per_seat_objects(durable_db):
    from engine_service.core.matches.seats import PERSON, SeatSpec, hash_token

    engine = Engine.open(durable_db)
    engine.pools.define("house-greedy")
    try:
        made = engine.create_match("hhl", {"hands": 1}, seed=4, seats=[
            SeatSpec(PERSON, "ann"), SeatSpec(pool="house-greedy"), SeatSpec(), SeatSpec()])
        stored = engine.store.match(made.id).settings
        claims = [seat.pop("claim") for seat in stored["seats"]]
        assert stored == {"seats": [
            {"kind": "person", "name": "ann", "clock_ms": 120_000, "pool": "", "yardstick": "",
             "open": False},
            {"kind": "bot", "name": "", "clock_ms": 10_000, "pool": "house-greedy",
             "yardstick": "", "open": False},
            *[{"kind": "bot", "name": "", "clock_ms": 10_000, "pool": "", "yardstick": "",
               "open": False}] * 2]}
        # A token seat keeps its claim secret's sha256; a pool's seat has none.
        secrets = made.take_claim_secrets()
        assert claims[1] == secrets[1] == "" and made.take_claim_secrets() == []
        assert [len(c) for c in claims] == [64, 0, 64, 64]
        assert claims[0] == hash_token(secrets[0]) and secrets[0] not in json.dumps(stored)
        old = MatchRow("old1", "hhl", {"hands": 1, "minutes": None}, 4, None, PARALLEL_SEATS,
                       1000.0)
        engine.store.add_match(old)
        seats = [[(s.kind, s.name, s.clock_ms, s.pool) for s in r.seats]
                 for r in (Referee.restore(engine.store.match(i), engine.store, None)
                           for i in (made.id, old.id))]
        assert seats[0] == seats[1] == [("person", "ann", 120_000, ""),
                                        ("bot", "", 10_000, "house-greedy"),
                                        ("bot", "", 10_000, ""), ("bot", "", 10_000, "")]
    finally:
        engine.close()


def test_a_ladder_stored_in_the_former_words_reads_in_todays(durable_db):
    """Ladder rows written before "deals" and "voided" were settled (docs/glossary.md) say
    "hands" and "void" in each result and "void" as a match's status; they read back in
    today's words."""
    from engine_service.core.ladders.director import check_spec

    spec = check_spec({"variant": "hhl", "entrants": ["a", "b"], "matches": 2, "seed": 1})
    spec.update(key="ladder-old", created_by="open")
    engine = Engine.open(durable_db)
    store = engine.ladders.store
    store.add_ladder("old", spec, 5.0)
    store.add_match("old", "m0", 0)
    store.add_match("old", "m1", 1)
    store.set_match_status("old", "m0", "counted")
    store.set_match_status("old", "m1", "void")
    store.add_result("old", 0, {"index": 0, "set": 0, "set_size": 1, "seed": 7,
                                "lineup": ["a", "b", "a", "b"], "hands": 2,
                                "scores": [100, -100, 50, -50], "titles": [0] * 4,
                                "faults": {}, "void": False})
    store.set_status("old", "done")
    engine.close()

    engine = Engine.open(durable_db)
    try:
        engine.recover()
        ladder = engine.ladders.get("old")
        assert [(m["match_id"], m["status"]) for m in ladder.matches()] == [
            ("m0", "counted"), ("m1", "voided")]
        result = ladder.matches()[0]["result"]
        assert (result["deals"], result["voided"]) == (2, False)
        assert "hands" not in result and "void" not in result
        standings = ladder.standings()
        assert (standings["matches"], standings["voided"]) == (1, 1)
        assert {e["entrant"]: e["mean"] for e in standings["entries"]} == {"a": 37.5, "b": -37.5}
    finally:
        engine.close()


# ----- a store that fails under a move ---------------------------------------------------
def outage_error(store):
    """What the store's own driver raises when it cannot do a statement now: SQLite's
    disk full (an OperationalError with its code), a PostgreSQL connection gone."""
    import sqlite3

    import psycopg

    if store.kind == "sqlite":
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = sqlite3.SQLITE_FULL
        return error
    return psycopg.OperationalError("server closed the connection unexpectedly")


def store_answers(engine) -> None:
    """A probed store (PostgreSQL) marked down by the failure is up again: its probe saw
    the server answer (a SQLite store is never marked down)."""
    from tests.engine.support import wait_for

    wait_for(lambda: engine.store.health.up, timeout=30, what="the store's probe")


def seat_moves(engine, referee, tokens):
    def play_first():
        seat = referee.match.to_move
        return engine.submit(referee.id, tokens[seat], referee.version, "0")
    return play_first


@pytest.mark.parametrize("lands", [False, True], ids=["refused", "landed-anyway"])
def test_a_store_error_under_a_move_refuses_it_and_the_log_decides(store_db, lands):
    """The store's `_write` raises its driver's "not now" error under a move (SQLite: disk
    full or an I/O error; PostgreSQL: the connection lost). The move is refused with
    STORE_UNAVAILABLE, charged to no one, and the match is what its log holds: without
    the move when the write did not land; with it, as if just played, when it did (a
    frozen server commits what it had received when it thaws). Play then goes on with no
    version missing or logged twice."""
    from engine_service.core.errors import EngineError, Reason

    engine = Engine.open(store_db)
    if engine.cluster is not None:
        engine.join("127.0.0.1:1")
    try:
        referee = engine.create_match("hhl", {"hands": 1}, seed=3)
        tokens = [engine.claim_seat(referee.id, s) for s in range(4)]
        play_first = seat_moves(engine, referee, tokens)
        play_first()
        store, write = engine.store, engine.store._write

        def failing(sql, args=()):
            store._write = write                # once
            if lands:
                write(sql, args)
            raise outage_error(store)

        store._write = failing
        seat, version = referee.match.to_move, referee.version
        with pytest.raises(EngineError) as refused:
            play_first()
        assert refused.value.reason == Reason.STORE_UNAVAILABLE
        assert refused.value.code == "UNAVAILABLE"
        assert referee.version == version            # what the referee knows the log holds
        assert referee.faults[seat]["illegal"] == 0
        store_answers(engine)
        # The same move again, as a bot resubmits it: refused, it is played now; landed,
        # the log's move stands and the resubmission gets its answer.
        _, accepted = engine.submit(referee.id, tokens[seat], version, "0")
        assert accepted.version == version + 1
        while not referee.match.over:
            play_first()
        versions = [m.version for m in store.moves(referee.id)]
        assert versions == list(range(1, referee.version + 1))   # no gap, none twice
        replayed = Referee.restore(store.match(referee.id), store, None)
        assert replayed.match.record() == referee.match.record()
        assert sum(f["illegal"] for f in referee.faults) == 0
    finally:
        engine.close()


def test_a_full_sqlite_file_refuses_the_move_and_play_goes_on_once_it_has_room():
    """A real SQLITE_FULL (the database may not grow: max_page_count), not a stand-in."""
    from engine_service.core.errors import EngineError, Reason

    engine = Engine.open(":memory:")
    try:
        referee = engine.create_match("domeng", {}, seed=4)
        tokens = [engine.claim_seat(referee.id, s) for s in range(5)]
        play_first = seat_moves(engine, referee, tokens)
        (pages,), = engine.store._read("PRAGMA page_count")
        engine.store._read(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(EngineError) as refused:
            for _ in range(10_000):          # until the pages it has are full
                play_first()
        assert refused.value.reason == Reason.STORE_UNAVAILABLE
        assert "full" in refused.value.message
        version = referee.version
        engine.store._read(f"PRAGMA max_page_count = {pages * 1000}")
        play_first()
        assert referee.version == version + 1
        versions = [m.version for m in engine.store.moves(referee.id)]
        assert versions == list(range(1, referee.version + 1))
    finally:
        engine.close()


def test_a_turn_clock_that_cannot_write_waits_for_the_store_and_then_plays(store_db, caplog):
    """The clock runs out while the store fails every write: nothing is played, nothing
    is logged with a traceback, and the clock plays once the store answers (PostgreSQL:
    when its probe sees it back, the seat's clock starts again; SQLite: retried after
    RETRY_S)."""
    import logging

    from engine_service.core.matches.referee import RETRY_S
    from plumbing.alarms import ManualAlarms
    from tests.engine.support import wait_for

    alarms = ManualAlarms()
    engine = Engine.open(store_db, alarms=alarms)
    try:
        referee = engine.create_match("hhl", {"hands": 1}, seed=3, bot_clock_ms=1000)
        for s in range(4):
            engine.claim_seat(referee.id, s)
        assert RETRY_S == referee.seats[0].clock_ms / 1000   # the next try is due as soon
        store, write = engine.store, engine.store._write

        def failing(sql, args=()):
            raise outage_error(store)

        version = referee.version
        store._write = failing
        with caplog.at_level(logging.WARNING):
            alarms.advance(1.0)                       # the seat's clock runs out
            assert referee.version == version
            store._write = write
            store_answers(engine)
            wait_for(lambda: any(p <= 1.0 for p in alarms.pending()), timeout=30,
                     what="the clock armed again")
            alarms.advance(1.0)
        assert referee.version == version + 1
        assert referee.history[-1].accepted.events[0].kind == "timeout"
        assert not [r for r in caplog.records if r.exc_info], caplog.text
    finally:
        engine.close()


@pytest.mark.parametrize("given, bound", [("", 0.5), ("5000", 5.0), ("50", 0.05),
                                          ("60000", 60.0)])
def test_the_bound_of_a_wait_on_postgresql_is_the_default_or_what_the_environment_says(
        monkeypatch, given, bound):
    from engine_service.core.storage import postgres
    monkeypatch.setenv(postgres.WAIT_ENV, given)
    assert postgres.wait_bound() == bound


@pytest.mark.parametrize("given", ["abc", "49", "60001", "-5", "1.5", "\u00b2", "9" * 40])
def test_a_bound_out_of_range_is_refused_naming_the_variable(monkeypatch, given):
    from engine_service.core.storage import postgres
    from engine_service.core.storage.rows import StoreUnavailable
    monkeypatch.setenv(postgres.WAIT_ENV, given)
    with pytest.raises(StoreUnavailable, match="DOMINO_STORE_WAIT_MS must be a whole number"):
        postgres.wait_bound()
