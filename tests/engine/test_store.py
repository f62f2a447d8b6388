"""The stores (SQLite, PostgreSQL): what they keep is exactly what replays a match."""

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
