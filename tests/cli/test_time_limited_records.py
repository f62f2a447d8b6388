"""A time-limited HHL record (no `hands` option) in `domino replay` and `domino fork`, with
and without a top-level result (docs/records.md, Replay): with one, its time ran out in
its last recorded hand and the match ends there; without one, nothing says so and the
replayed match goes on (the next hand dealt from the seed), while a fork always ends with
the record's last recorded hand. And a record as REST sends it (its seed a decimal
string) reads the same as the file."""

import json

import pytest

from bots.arena import play_match
from bots.strategies import make_strategy

from .support import run

HANDS = 2      # the record's time ran out in its second hand


@pytest.fixture(scope="module")
def finished() -> dict:
    """A 60-minute HHL match whose time was up in its second hand, played to its end."""
    def time_up_in_hand_two(m, *_):
        if len(m.deals) >= HANDS and not m.over:
            m.time_up()
    m = play_match("hhl", {}, 4, [make_strategy("greedy", s) for s in range(4)],
                   on_move=time_up_in_hand_two)
    record = m.record(seats=["greedy"] * 4)
    assert record["options"] == {"minutes": 60, "hands": None, "profile": "rulings",
                                 "dead_stock": "stop"} and "result" in record
    assert len(record["deals"]) == HANDS
    return record


def replay(tmp_path, record, *args, **kw):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return run("replay", str(path), *args, **kw)


def test_with_a_result_the_match_ends_with_its_last_recorded_hand(tmp_path, finished):
    said = replay(tmp_path, finished).stdout
    assert f"hand {HANDS}: " in said and "in progress" not in said and "match: " in said
    again = json.loads(replay(tmp_path, finished, "--json").stdout)
    assert len(again["deals"]) == HANDS and again["result"] == finished["result"]


def test_without_a_result_the_match_goes_on_past_its_last_recorded_hand(tmp_path, finished):
    live = {k: v for k, v in finished.items() if k != "result"}
    said = replay(tmp_path, live).stdout
    assert f"hand {HANDS + 1}: in progress, seat " in said and "match: " not in said
    assert "record OK" in said
    again = json.loads(replay(tmp_path, live, "--json").stdout)
    assert len(again["deals"]) == HANDS + 1 and "result" not in again
    dealt = again["deals"][HANDS]
    assert dealt["moves"] == [] and "result" not in dealt     # dealt from the seed, unplayed
    # Cut mid-hand, it stops there: the hand in progress is the last recorded one.
    cut = json.loads(json.dumps(live))
    cut["deals"][-1]["moves"] = cut["deals"][-1]["moves"][:5]
    del cut["deals"][-1]["result"]
    said = replay(tmp_path, cut).stdout
    assert f"hand {HANDS}: in progress, seat " in said and f"hand {HANDS + 1}" not in said


@pytest.mark.parametrize("with_result", [True, False])
def test_a_fork_ends_with_the_records_last_hand_either_way(tmp_path, finished, with_result):
    record = finished if with_result else {k: v for k, v in finished.items() if k != "result"}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = run("fork", str(path), "--at", "3", "--bots", "random", "--json")
    new = json.loads(done.stdout)
    assert len(new["deals"]) == HANDS and "result" in new


def test_a_record_as_rest_sends_it_reads_the_same(tmp_path, finished):
    rest = {**finished, "seed": str(finished["seed"])}
    assert replay(tmp_path, rest).stdout == replay(tmp_path, finished).stdout
    assert json.loads(replay(tmp_path, rest, "--json").stdout) == finished
    path = tmp_path / "rest.json"
    path.write_text(json.dumps(rest))
    assert json.loads(run("fork", str(path), "--at", "3", "--bots", "random", "--json")
                      .stdout)["seed"] == finished["seed"]
    bad = replay(tmp_path, {**finished, "seed": "4.0"}, check=False)
    assert bad.returncode == 2 and "seed" in bad.stderr
