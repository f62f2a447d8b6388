"""The engine is killed mid-match and started again on the same SQLite file and port: the
runner reconnects with backoff, resumes with its tokens from a fresh snapshot, and the
match ends exactly as if nothing had happened."""

import json
import time

from bots.strategies import make_strategy
from engine_service import rules

from .support import domino_bot, outputs, replays


def uninterrupted(variant, options, seed):
    """The same match in-process, every seat greedy (greedy is deterministic)."""
    m = rules.new_match(variant, options, seed=seed)
    greedy = make_strategy("greedy")
    while not m.over:
        m.play(m.to_move, greedy.choose(m.view(m.to_move), m.legal_moves(m.to_move)))
    return m.record()


def test_runner_reconnects_after_an_engine_restart_and_finishes(engine, tmp_path):
    options, seed = {"hands": 2}, 41
    match_id, tokens = engine.client.new_match("hhl", options, seed=seed)
    seats_file = tmp_path / "seats.json"
    seats_file.write_text(json.dumps([{"match_id": match_id, "seat": s, "seat_token": t}
                                      for s, t in tokens.items()]))
    # One process plays all four seats, slowly enough to be caught mid-match.
    bot = domino_bot(engine.address, "--strategy", "greedy", "--seats-file", str(seats_file),
                     "--delay", "0.05", "--give-up", "30")
    deadline = time.monotonic() + 30
    while (version := engine.client.summary(match_id).version) < 10:
        assert time.monotonic() < deadline, "the bots did not start playing"
        time.sleep(0.02)
    engine.kill()
    engine.restart()             # while the new process starts, the bots find nobody there
    restored = engine.client.summary(match_id)
    assert restored.version >= version and restored.status == 2
    lines = outputs([bot], timeout=60)
    assert len(lines) == 4
    record = engine.client.record(match_id)
    for line in lines:
        assert line["result"] == record["result"]
        assert line["stats"]["reconnects"] >= 1
        assert line["stats"]["fallbacks"] == 0
    assert record == uninterrupted("hhl", options, seed)
    replays(record, tmp_path)
