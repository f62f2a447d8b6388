"""`domino fork RECORD --at N`: the first N plays are the original's, the new record
replays, and every mistake is one line."""

import json
import subprocess
import sys

import pytest

from domino_cli.main import main
from engine_service.rules import replay_record
from tests.bots_runner.support import replays
from tests.fork.fork_support import plays, recorded

DOMINO = [sys.executable, "-m", "domino_cli"]


@pytest.fixture(scope="module")
def hhl_record():
    return recorded("hhl")


def write(tmp_path, record, name="record.json"):
    path = tmp_path / name
    path.write_text(json.dumps(record) if not isinstance(record, str) else record)
    return str(path)


def fork(capsys, *args) -> tuple[int, str, str]:
    """A refused fork, in-process (it stops before any bot plays)."""
    status = main(["fork", *args])
    out, err = capsys.readouterr()
    return status, out, err


def fork_process(*args) -> subprocess.CompletedProcess:
    """A fork that plays: as its own process, so it runs this checkout's bots (in a test
    process `bots` may name tests/bots, its modules found elsewhere)."""
    return subprocess.run([*DOMINO, "fork", *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_fork_shares_the_first_n_plays_and_its_record_replays(variant, tmp_path):
    original = recorded(variant)
    path = write(tmp_path, original)
    n = len(plays(original)) // 2
    out = tmp_path / "fork.json"
    done = fork_process(path, "--at", str(n), "--bots", "random", "--seed", "9", "--out", str(out))
    assert done.returncode == 0, done.stderr
    new = json.loads(out.read_text())
    assert new["format"] == "domino-record/1" and new["variant"] == variant
    assert plays(new)[:n] == plays(original)[:n]
    assert plays(new) != plays(original)        # random bots play on differently
    # the hidden tiles are as dealt: every deal the original recorded, the fork keeps
    for old, forked in zip(original["deals"], new["deals"], strict=False):
        assert forked["hands"] == old["hands"]
        rest = "stock" if variant == "hhl" else "sleeping"
        assert forked[rest] == old[rest]
    assert new["seats"] == ["random"] * len(new["seats"]) and "result" in new
    replay_record(new)
    replays(new, tmp_path)


def test_the_same_strategies_by_default_at_both_ends_of_the_range(hhl_record, tmp_path):
    path = write(tmp_path, hhl_record)
    last = len(plays(hhl_record)) - 1
    for n in (0, last):
        done = fork_process(path, "--at", str(n), "--json")
        assert done.returncode == 0, done.stderr
        new = json.loads(done.stdout)
        assert new["seats"] == hhl_record["seats"]
        assert plays(new)[:n] == plays(hhl_record)[:n]
        replay_record(new)
    # the same bots, seeds and deals from the last play on: the original's very end
    assert new["result"] == hhl_record["result"]


@pytest.mark.parametrize("args, says", [
    (["missing.json", "--at", "1"], "cannot read missing.json"),
    (["BAD", "--at", "1"], "is not JSON"),
    (["NOT_A_RECORD", "--at", "1"], "malformed: record format"),
    (["RECORD", "--at", "100000"], "must be 0.."),
    (["RECORD", "--at", "2", "--bots", "greedy,nobody"], "unknown bot 'nobody'"),
    (["RECORD", "--at", "2", "--bots", "greedy,random"], "hhl has 4 seats; --bots lists 2"),
])
def test_mistakes_are_one_line_and_no_traceback(args, says, hhl_record, tmp_path, capsys,
                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    files = {"BAD": write(tmp_path, "{not json", "bad.json"),
             "NOT_A_RECORD": write(tmp_path, {"hello": 1}, "other.json"),
             "RECORD": write(tmp_path, hhl_record)}
    status, out, err = fork(capsys, *[files.get(a, a) for a in args])
    assert status == 2 and not out
    assert err.startswith("domino fork: ") and says in err and err.count("\n") == 1, err
    if "must be 0.." in says:
        last = len(plays(hhl_record)) - 1
        assert f"must be 0..{last} (the record has {last + 1} plays)" in err


def test_a_record_of_people_needs_bots(hhl_record, tmp_path, capsys):
    path = write(tmp_path, {**hhl_record, "seats": ["ann", "bob", "cy", "di"]})
    status, _, err = fork(capsys, path, "--at", "3")
    assert status == 2 and "seat 0 of the record is 'ann'" in err and "--bots" in err
    done = fork_process(path, "--at", "3", "--bots", "greedy")
    assert done.returncode == 0 and done.stdout.startswith("forked at play 3 of "), done.stderr


def test_a_time_limited_hhl_fork_ends_with_the_records_last_hand(tmp_path):
    from bots.arena import play_match
    from bots.strategies import make_strategy

    def three_hands(m, *_):   # the record's time was up in its third hand
        if len(m.deals) >= 3:
            m.time_up()
    original = play_match("hhl", {"minutes": 1}, 3, [make_strategy("greedy", s) for s in range(4)],
                          on_move=three_hands).record(seats=["greedy"] * 4)
    assert original["options"]["hands"] is None and len(original["deals"]) == 3
    done = fork_process(write(tmp_path, original), "--at", "5", "--bots", "random", "--json")
    assert done.returncode == 0, done.stderr
    new = json.loads(done.stdout)
    assert len(new["deals"]) == 3 and "result" in new
    replay_record(new)


def test_a_fork_says_how_far_it_got_while_it_plays(hhl_record, tmp_path):
    """In a pipe: a plain line at the start and one at the end (and one every
    --progress-every seconds between); stdout keeps only the record. 0: no lines."""
    path = write(tmp_path, hhl_record)
    done = fork_process(path, "--at", "3", "--bots", "greedy", "--json")
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    lines = done.stderr.splitlines()
    assert lines[0].startswith("fork: hand 1, 0 moves played ("), lines
    assert lines[-1].startswith("fork: hand ") and lines[-1].endswith(": over"), lines
    assert all(line.startswith("fork: ") for line in lines), lines
    assert "\r" not in done.stderr           # a pipe gets plain lines, no redrawn line
    quiet = fork_process(path, "--at", "3", "--bots", "greedy", "--json", "--progress-every", "0")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_on_a_terminal_a_fork_redraws_one_live_line(hhl_record, tmp_path):
    import os

    path = write(tmp_path, hhl_record)
    master, slave = os.openpty()
    p = subprocess.Popen([*DOMINO, "fork", path, "--at", "3", "--bots", "greedy", "--json"],
                         stdout=subprocess.PIPE, stderr=slave, text=True)
    os.close(slave)
    chunks = []
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:          # EIO: the other side of the terminal closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        out, _ = p.communicate(timeout=60)
    finally:
        os.close(master)
        p.kill()
    shown = b"".join(chunks).decode(errors="replace")
    assert p.returncode == 0, shown
    json.loads(out)
    assert shown.startswith("\rfork: hand 1, 0 moves played (") and "\x1b[K" in shown, shown
    assert shown.rstrip().endswith(": over\x1b[K") and shown.count("\n") == 1, shown  # one line
