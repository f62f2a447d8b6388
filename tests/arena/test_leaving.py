"""A match leaves play all or none (matchmaker.py `_leave`): its result's number, its status
and its bots' freedom are one transaction. They were three: a store failure between the
status and the freeing left the bots seated in a match over, and no later cycle freed them
(the match was no longer in play to be looked at again). Here the store refuses one of
those writes, by a trigger of its own (a real failure of the statement, on each store),
and the next cycle must finish the work exactly once. On both stores."""

from __future__ import annotations

import time

import pytest

from engine_service.core.arena import spec
from engine_service.core.arena.matchmaker import Matchmaker
from engine_service.core.engine import Engine
from engine_service.core.storage.arena_sql import COUNTED, PLAYING, VOIDED
from engine_service.core.storage.factory import is_dsn

MATCHES = 3

# the writes a match's leaving makes, by table and column
WRITES = {"numbers": ("arena_results", "seq"),
          "statuses": ("arena_matches", "status"),
          "freed bots": ("arena_presence", "free_since")}


@pytest.fixture
def arena(store_db):
    """A matchmaker driven by the test alone: no arena thread runs its cycles."""
    engine = Engine.open(store_db)
    if engine.cluster is not None:
        engine.join("127.0.0.1:1")
    room = engine.arenas
    room.store.add_arena("hhl", spec.parse("hhl"), "secret")
    assert room.store.take_lease("hhl", 2.0) is not None
    try:
        yield engine, store_db
    finally:
        engine.close()


def lineup(m: int) -> list[tuple[str, str]]:
    return [(f"bot-{m}-{s}", "v1") for s in range(4)]


def in_play(engine, results: bool) -> Matchmaker:
    """MATCHES matches in play, their bots seated (and with `results`, each match over with
    its result in), and the matchmaker that reads them back as it starts."""
    store, now = engine.arenas.store, time.time()
    for m in range(MATCHES):
        for bot_id, version in lineup(m):
            store.connect(bot_id, "hhl", version, f"lobby-{bot_id}", now)
        store.count_seating([b for b, _ in lineup(m)], "hhl")
        store.add_matches("hhl", [(f"m{m}", lineup(m), "", now, 0, 0)])
        if results:
            store.add_result(f"m{m}", "hhl", now + m, {
                "match_id": f"m{m}", "arena": "hhl", "lineup": [list(k) for k in lineup(m)],
                "scores": [100, 0, -100, 0], "titles": [0] * 4, "deals": 1,
                "faults": [{}] * 4, "ended": now + m})
    found, secret = store.arena("hhl")
    mm = Matchmaker(engine.arenas, found, secret)
    mm.start()
    assert set(mm.playing) == {f"m{m}" for m in range(MATCHES)}
    return mm


class Refusal:
    """A trigger that makes the store refuse every update of one column of one table."""

    def __init__(self, engine, db: str, table: str, column: str):
        self.store, self.table, self.pg = engine.store, table, is_dsn(db)
        if self.pg:
            self.store.write("CREATE OR REPLACE FUNCTION refused() RETURNS trigger LANGUAGE "
                             "plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; "
                             "END $$")
            self.store.write(f"CREATE TRIGGER refusal BEFORE UPDATE OF {column} ON {table} "
                             f"FOR EACH ROW EXECUTE FUNCTION refused()")
        else:
            self.store.write(f"CREATE TRIGGER refusal BEFORE UPDATE OF {column} ON {table} "
                             f"BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")

    def lift(self) -> None:
        self.store.write("DROP TRIGGER refusal" + (f" ON {self.table}" if self.pg else ""))


def state(engine) -> dict:
    store = engine.arenas.store
    free = {b for b, *_ in store.present("hhl", 2.0, free=True)}
    return {f"m{m}": (store.arena_match(f"m{m}")[2],
                      store.results_of([f"m{m}"]).get(f"m{m}", {}).get("sequence"),
                      {b for b, _ in lineup(m)} <= free)
            for m in range(MATCHES)}


@pytest.mark.parametrize("refused", list(WRITES))
def test_a_count_the_store_refuses_midway_makes_nothing_and_the_next_makes_it_all(
        arena, refused):
    engine, db = arena
    mm = in_play(engine, results=True)
    refusal = Refusal(engine, db, *WRITES[refused])
    with pytest.raises(Exception, match="refused by the test"):
        mm.count(time.time())
    # nothing of it: no number, no status, every bot still seated, all of it remembered
    assert state(engine) == {f"m{m}": (PLAYING, None, False) for m in range(MATCHES)}
    assert len(mm.playing) == MATCHES and mm.board.last_sequence == 0
    refusal.lift()
    mm.count(time.time())
    numbers = sorted(seq for _, seq, _ in state(engine).values())
    assert numbers == list(range(1, MATCHES + 1))            # each counted once, in order
    assert {m: (st, free) for m, (st, _, free) in state(engine).items()} == \
        {f"m{m}": (COUNTED, True) for m in range(MATCHES)}
    assert mm.playing == {} and mm.board.last_sequence == MATCHES
    assert sum(e.matches for e in mm.board.entries.values()) == 4 * MATCHES
    mm.count(time.time())                                    # and nothing more
    assert mm.board.last_sequence == MATCHES


def test_a_void_the_store_refuses_midway_makes_nothing_and_the_next_makes_it_all(arena):
    engine, db = arena
    mm = in_play(engine, results=False)
    refusal = Refusal(engine, db, *WRITES["freed bots"])
    with pytest.raises(Exception, match="refused by the test"):
        mm.void("m0", time.time(), "the test")
    assert state(engine)["m0"] == (PLAYING, None, False) and "m0" in mm.playing
    refusal.lift()
    mm.void("m0", time.time(), "the test")
    assert state(engine) == {"m0": (VOIDED, None, True), "m1": (PLAYING, None, False),
                             "m2": (PLAYING, None, False)}
    assert "m0" not in mm.playing


def test_a_match_out_of_play_already_is_forgotten_and_its_bots_left_as_they_are(arena):
    """Another try whose answer was lost, or the engine that ran the arena before, ended it
    (and freed its bots then): voiding it again changes nothing in the store."""
    engine, _ = arena
    mm = in_play(engine, results=False)
    engine.arenas.store.set_match_status("hhl", ["m1"], VOIDED)
    engine.arenas.store.count_seating([b for b, _ in lineup(1)], "hhl")   # seated again
    mm.void("m1", time.time(), "the test")
    assert "m1" not in mm.playing
    assert state(engine)["m1"] == (VOIDED, None, False)
