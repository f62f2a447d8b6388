"""`domino bot` processes play whole matches of both games through the runner, several
seats per process, and the records replay."""

import json

import pytest

from .support import domino_bot, outputs, replays


@pytest.mark.parametrize("variant, options, first", [("hhl", {"hands": 2}, "search"),
                                                      ("domeng", {}, "heuristic")])
def test_bot_processes_play_a_full_match_and_the_record_replays(engine, tmp_path, variant,
                                                                options, first):
    client = engine.client
    match_id, tokens = client.new_match(variant, options, seed=23)
    seats_file = tmp_path / "seats.json"
    seats_file.write_text(json.dumps({"match_id": match_id, "seat_tokens": list(tokens.values())}))
    rest = [str(s) for s in range(2, len(tokens))]
    bots = [
        # Seats 0 and 1 in one process, from --seat/--seat-token pairs.
        domino_bot(engine.address, "--strategy", first, "--seed", "1", "--match", match_id,
                   # --seat-token=T: a token may start with "-".
                   "--seat", "0", f"--seat-token={tokens[0]}", "--seat", "1", f"--seat-token={tokens[1]}"),
        # The other seats in another, from the file `domino new-match` would print.
        domino_bot(engine.address, "--strategy", "random", "--seed", "5", "--seats-file",
                   str(seats_file), *(a for s in rest for a in ("--seat", s))),
    ]
    lines = outputs(bots, timeout=80)
    record = client.record(match_id)
    assert sorted(line["seat"] for line in lines) == list(range(len(tokens)))
    for line in lines:
        assert line["match_id"] == match_id and line["result"] == record["result"]
        assert line["stats"]["fallbacks"] == 0 and line["stats"]["refusals"] == []
        assert line["stats"]["moves"] > 0
    summary = client.summary(match_id)
    assert summary.status == 3
    assert all(s.timeouts_in_a_row == 0 and not s.absent for s in summary.seats)
    replays(record, tmp_path)
    assert not any(t in engine.log.read_text() for t in tokens.values()), "a token was logged"


def test_the_bot_refuses_what_cannot_work(engine):
    match_id, tokens = engine.client.new_match("hhl", {"hands": 1}, seed=2)
    cases = [
        (["--strategy", "oracle", "--match", match_id, "--seat", "0", f"--seat-token={tokens[0]}"],
         "only in-process"),
        (["--strategy", "nosuch", "--pool", "p"], "unknown strategy"),
        (["--match", match_id, "--seat", "0", "--seat", "1", f"--seat-token={tokens[0]}"],
         "give them in pairs"),
        (["--match", match_id], "no seat token for match"),   # and names where one goes
        (["--seat", "0"], "--seats-file, or --pool"),
    ]
    for args, message in cases:
        p = domino_bot(engine.address, *args, env={"DOMINO_SEAT_TOKEN": ""})
        _, stderr = p.communicate(timeout=30)
        assert p.returncode != 0 and message in stderr, stderr
    # A wrong token is refused for good: no retrying, one line saying so, exit status 1.
    p = domino_bot(engine.address, "--match", match_id, "--seat", "0",
                   env={"DOMINO_SEAT_TOKEN": "not-the-token"})
    stdout, _ = p.communicate(timeout=30)
    (line,) = [json.loads(x) for x in stdout.splitlines()]
    assert p.returncode == 1 and "UNAUTHENTICATED" in line["error"]
    assert line["stats"]["reconnects"] == 0
