"""The matchmaker's engine folds the results it has just numbered into its board from
memory (room.py `fold`): the numbers are its own, so reading them back from the store cost
its thread a round trip a cycle. When they do not follow the board's last (a count that
failed midway, a gap) the board reads what it has not folded. Either way the board is the
fold of every counted result, in sequence order."""

from __future__ import annotations

import json

import pytest

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from ladders.leaderboard import Board
from tests.arena.support import wait_until
from tests.arena.test_leaderboard import results, snapshot


@pytest.fixture
def room(monkeypatch):
    engine = Engine(arenas=[spec.parse("hhl")])
    engine.recover()
    room = engine.arenas
    # its matchmaker reads the board as it starts: started before the reads are counted
    wait_until(lambda: "hhl" in room.matchmakers, 60, "the arena's matchmaker")
    reads = []
    real = room.store.counted_after

    def counted_after(*args, **kwargs):
        reads.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(room.store, "counted_after", counted_after)
    room.reads = reads
    try:
        yield room
    finally:
        engine.close()


def stored(room, counted: list[dict]) -> None:
    """Counted results in the store, as the matchmaker leaves them (with their numbers)."""
    for r in counted:
        room.store._w("INSERT INTO arena_results (match_id, arena, seq, ended, row) VALUES "
                      "(?, ?, ?, ?, ?)", (r["match_id"], "hhl", r["sequence"], r["ended"],
                                           json.dumps({k: v for k, v in r.items()
                                                       if k != "sequence"})))


def test_results_that_follow_the_board_are_folded_without_a_read(room):
    every = results(40)
    board = room.board("hhl")
    stored(room, every[:15])      # what the store holds too, as the matchmaker wrote it
    room.reads.clear()
    assert room.fold("hhl", every[:10]) is board
    assert room.fold("hhl", every[5:15]) is board    # a reader's fold took some already
    assert room.reads == [] and board.last_sequence == 15
    assert snapshot(board) == snapshot(Board.of("hhl", every[:15]))


def test_results_that_do_not_follow_the_board_are_read_from_the_store(room):
    every = results(40)
    board = room.board("hhl")
    room.fold("hhl", every[:10])
    stored(room, every)
    room.reads.clear()
    # 11..20 were numbered by a count that failed before its fold: 21..25 do not follow
    assert room.fold("hhl", every[20:25]) is board
    assert room.reads and board.last_sequence == 40    # read: everything the store has
    assert snapshot(board) == snapshot(Board.of("hhl", every))
