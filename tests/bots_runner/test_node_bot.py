"""The Node.js example bot (bots/js), which loads only our .proto files, plays a real
match against Python bots to the end; the record replays and shows it played greedy. In
arena mode it finds a table with the residents alone and shows on the leaderboard."""

import json
import shutil

import pytest

from .support import (
    domino_bot,
    ensure_node_modules,
    greedy_seat_moves,
    node_bot,
    outputs,
    replays,
)

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed: the Node.js bot cannot run")


@pytest.mark.parametrize("variant, options, node_seat", [("hhl", {"hands": 2}, 1),
                                                          ("domeng", {}, 3)])
def test_node_bot_plays_a_match_against_python_bots(engine, tmp_path, variant, options,
                                                    node_seat):
    ensure_node_modules()
    client = engine.client
    match_id, tokens = client.new_match(variant, options, seed=17)
    others = [a for s, t in tokens.items() if s != node_seat
              for a in ("--seat", str(s), f"--seat-token={t}")]   # a token may start with "-"
    procs = [node_bot(engine.address, "--verbose", "--match", match_id, "--seat", str(node_seat),
                      env={"DOMINO_SEAT_TOKEN": tokens[node_seat]}),
             domino_bot(engine.address, "-v", "--strategy", "heuristic", "--seed", "3",
                        "--match", match_id, *others)]
    lines = outputs(procs, timeout=80)
    record = client.record(match_id)
    assert lines[0] == {"match_id": match_id, "seat": node_seat, "result": record["result"]}
    assert all(line["result"] == record["result"] for line in lines[1:])
    replays(record, tmp_path)
    pairs = greedy_seat_moves(record, node_seat)
    assert pairs and all(made == greedy for made, greedy in pairs), pairs
    summary = client.summary(match_id)
    assert all(s.timeouts_in_a_row == 0 for s in summary.seats)
    json.dumps(record)


def test_node_arena_bot_alone_finds_a_table_with_residents(engine, tmp_path):
    from tests.arena.support import ArenaClient

    ensure_node_modules()
    arena = ArenaClient(engine.address)
    try:
        key = arena.register("node-arena").bot_key
        bot = node_bot(engine.address, "--verbose", "--arena", "hhl", "--version", "n1",
                       "--matches", "1", env={"DOMINO_BOT_KEY": key})
        (line,) = outputs([bot], timeout=240)
        assert line["bot"] == "node-arena" and line["arena"] == "hhl" and line["version"] == "n1"
        (match_id,) = line["matches"]
        record = engine.client.record(match_id)
        assert line["results"] == [record["result"]]
        (played,) = arena.matches("node-arena")
        assert played.match_id == match_id
        names = [e.name for e in played.lineup]
        assert "node-arena" in names and all(
            n == "node-arena" or n.startswith("house-") for n in names)   # the residents
        row = arena.row("node-arena", version="n1")
        assert row is not None and row.matches == 1 and not row.resident
        replays(record, tmp_path)
        # a wrong key is refused at once: exit 1, saying why, the key never printed
        wrong = node_bot(engine.address, "--arena", "hhl", "--version", "n1",
                         env={"DOMINO_BOT_KEY": "dbk_" + "x" * 43})
        out, err = wrong.communicate(timeout=60)
        assert wrong.returncode == 1 and "UNAUTHENTICATED" in err and "dbk_x" not in err + out
    finally:
        arena.close()
