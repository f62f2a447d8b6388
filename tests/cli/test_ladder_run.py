"""`domino ladder run` as users run it: nothing left in the temporary directory however it
ends, a live bar on a terminal, and the engine's numbers rounded only where shown."""

import fcntl
import json
import os
import re
import signal
import struct
import termios

import grpc
import pytest

from domino_proto.domino.v1 import ladder_pb2, ladder_pb2_grpc

from .support import assert_one_line_failure, run, start

SMALL = ("ladder", "run", "--variant", "hhl", "--bots", "random,greedy", "--option", "hands=1",
         "--seed", "5")


@pytest.fixture
def tmpdir_env(tmp_path):
    """A TMPDIR of the test's own, to see what a run leaves in it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder, {"TMPDIR": str(folder)}


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:          # EIO: the other side of the terminal closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_a_run_on_a_terminal_shows_a_live_bar_and_leaves_no_temporary_files(tmpdir_env, tmp_path):
    folder, extra = tmpdir_env
    log = tmp_path / "kept.log"
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    p = start(*SMALL, "--matches", "4", "--log", str(log), stderr=slave,
              extra_env={**extra, "TERM": "xterm"})
    os.close(slave)
    try:
        shown = _read_all(master)
        out, _ = p.communicate(timeout=60)
    finally:
        os.close(master)
        p.kill()
    assert p.returncode == 0, shown
    assert "ETA" in shown and "leader" in shown and "4/4" in shown, shown
    assert "\x1b[" in shown                                  # drawn, not printed line by line
    # stdout is no terminal: the plain table, which scripts read
    assert re.search(r"^ 1 (random|greedy) ", out, re.M), out
    assert "4 matches counted, 0 voided" in out
    assert list(folder.iterdir()) == []
    assert "match" in log.read_text()                        # --log kept the engine's log


def test_json_means_are_the_engines_own_and_rounded_only_in_tables(engine, tmpdir_env):
    folder, extra = tmpdir_env
    p = run(*SMALL, "--matches", "6", "--engine", engine.address, "--json", extra_env=extra)
    printed = json.loads(p.stdout)
    assert list(folder.iterdir()) == []
    with grpc.insecure_channel(engine.address) as channel:
        s = ladder_pb2_grpc.LadderStub(channel).GetStandings(
            ladder_pb2.GetLadderRequest(ladder_id=printed["ladder_id"]), timeout=10)
    engine_rows = {e.entrant: e for e in s.entries}
    assert {r["entrant"] for r in printed["entries"]} == set(engine_rows)
    for row in printed["entries"]:
        e = engine_rows[row["entrant"]]
        assert (row["mean"], row["mu"], row["sigma"], row["score"]) == (e.mean, e.mu, e.sigma, e.score)
    table = run("ladder", "standings", printed["ladder_id"], "--engine", engine.address).stdout
    for name, e in engine_rows.items():
        row = next(line for line in table.splitlines() if re.match(rf"^ *\d+ {name} ", line))
        assert row.split()[6] == f"{e.mean:.2f}", row      # the mean column, rounded once
        assert row.split()[2] == f"{e.score:.2f}", row


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_stops_its_engine_and_bots_and_leaves_nothing(tmpdir_env, sig, status):
    folder, extra = tmpdir_env
    p = start(*SMALL, "--matches", "2000", extra_env=extra)
    try:
        first = p.stderr.readline()        # the ladder exists and its bots are starting
        assert re.search(r" on 127\.0\.0\.1:(\d+):", first), first
        ladder_id = re.search(r"^ladder (\w+) ", first).group(1)
        p.send_signal(sig)                 # while its bots start: none may be left behind
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == status, err
    assert "Traceback" not in err, err
    assert list(folder.iterdir()) == []
    # The engine it started is gone (found by its store, in the run's folder: its port may
    # be another process's by now in a parallel run), and so are its bots.
    assert not _processes_naming(str(folder)), "the run's engine is still running"
    assert not _processes_naming(ladder_id), "a bot of the run is still running"


def _processes_naming(text: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and "pytest" not in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


def test_a_refused_ladder_says_why_in_one_line_and_leaves_nothing(tmpdir_env):
    folder, extra = tmpdir_env
    p = run(*SMALL, "--matches", "2", "--clock-ms", "5", check=False, extra_env=extra)
    assert_one_line_failure(p, "ladder run", "the engine refused: MALFORMED_REQUEST", "clock_ms")
    assert list(folder.iterdir()) == []


def test_a_log_that_cannot_be_written_is_one_line(tmpdir_env, tmp_path):
    folder, extra = tmpdir_env
    p = run(*SMALL, "--matches", "2", "--log", str(tmp_path / "no" / "such" / "ladder.log"),
            check=False, extra_env=extra)
    assert_one_line_failure(p, "ladder run", "ladder.log", "No such file")
    assert list(folder.iterdir()) == []
