"""Every command of README.md's ```sh blocks, run as a reader would type it, so that the
README cannot drift from the product.

Each block runs in a temp directory of its own, in order, one command at a time through
bash, with .venv/bin first on PATH and DOMINO_ENGINE pointing at an engine of the block's
own (a command needing an engine finds it there, as the README says). Long-running commands
(`make run`, `domino serve`, `domino engine`, an arena bot) are started, checked and
stopped with Ctrl-C; the fixed ports of the README become port 0 here, so that parallel
tests never meet. Commands that need other programs or that would act on this very test
run are skipped, each with its reason (SKIP below)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.request

import pytest

from tests.engine.support import start_engine

from .support import ROOT

README = ROOT / "README.md"
BIN = ROOT / ".venv" / "bin"
TIMEOUT_S = 120

# (pattern, why it is not run here)
SKIP = [
    (r"^make test\b", "it runs this whole suite"),
    (r"^make bench\b", "every benchmark, ~15 min (each section's smoke run is in the suite)"),
    (r"^make lint\b", "it checks the repository, not a user's session (CI runs it)"),
    (r"^make proto\b", "it rewrites domino_proto/ under the tests that import it"),
    (r"^make clean\b", "it removes the .venv these tests run in"),
    (r"postgresql://", "needs a PostgreSQL server (tests/storage and tests/cluster start one)"),
]
# A block with a command that its own tests run (the Node.js and C++ bots, which need their
# packages installed or a build first) is skipped whole: its other commands lead up to that
# one (a `wait` for a bot that never comes, say).
SKIP_BLOCK = [
    (r"\bnode\b", "the Node.js bot, which its own tests install and run, the conformance "
                  "kit too (tests/bots_runner/test_node_bot.py, tests/cli/test_conformance.py)"),
    (r"cpp-bot", "the C++ bot, which its own test builds and runs "
                 "(tests/bots_runner/test_cpp_bot.py)"),
]


def blocks() -> list[list[str]]:
    """README.md's ```sh blocks, each as its commands: continuation lines joined, comment
    lines and blank lines left out (bash drops a trailing comment by itself)."""
    out, block, inside = [], None, False
    for line in README.read_text().splitlines():
        if line.strip() == "```sh":
            block, inside = [], True
        elif inside and line.strip() == "```":
            out.append(block)
            inside = False
        elif inside:
            if block and block[-1].endswith("\\"):
                block[-1] = block[-1][:-1] + " " + line.strip()
            elif line.strip() and not line.strip().startswith("#"):
                block.append(line.strip())
    return out


def skip_reason(block: list[str]) -> str | None:
    for command in block:
        for pattern, why in SKIP_BLOCK:
            if re.search(pattern, command):
                return f"{command.split('#')[0].strip()}: {why}"
    return None


def own_skip(command: str) -> str | None:
    for pattern, why in SKIP:
        if re.search(pattern, command):
            return why
    return None


class Session:
    """One reader's shell: a directory, an environment, an engine when one is needed."""

    def __init__(self, tmp_path):
        self.dir = tmp_path
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
                    "PYTHONPATH": str(ROOT)}
        self.engines: list[subprocess.Popen] = []
        self.background: list[tuple[str, subprocess.Popen]] = []
        self.key = None
        self.ran: list[str] = []

    def engine(self) -> None:
        proc, port = start_engine(self.dir / "engine.sqlite3", 0, self.dir / "engine.log")
        self.engines.append(proc)
        self.env["DOMINO_ENGINE"] = f"127.0.0.1:{port}"

    def run(self, command: str) -> subprocess.CompletedProcess:
        p = subprocess.run(["bash", "-c", command], cwd=self.dir, env=self.env, text=True,
                           capture_output=True, timeout=TIMEOUT_S)
        assert p.returncode == 0, f"{command}\nexit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}"
        self.ran.append(command)
        return p

    def start(self, command: str, cwd=None) -> subprocess.Popen:
        return subprocess.Popen(["bash", "-c", command], cwd=cwd or self.dir,
                                env=self.env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)

    def ready(self, proc: subprocess.Popen, pattern: str) -> re.Match:
        """The first stdout line that matches (the process's "listening" line)."""
        for line in proc.stdout:
            found = re.search(pattern, line)
            if found:
                return found
        raise AssertionError(f"it ended without {pattern!r}: {proc.wait()} {proc.stderr.read()}")

    def interrupt(self, command: str, proc: subprocess.Popen) -> None:
        """Ctrl-C, as a reader stops it: the whole process group."""
        assert proc.poll() is None, f"{command} ended by itself: {proc.returncode} {proc.stderr.read()}"
        os.killpg(proc.pid, signal.SIGINT)
        rc = proc.wait(60)
        err = proc.stderr.read()
        # 130: the command's own Ctrl-C exit; make, interrupted, dies of the signal itself
        assert rc in (0, 130) or (command.startswith("make ") and rc == -signal.SIGINT), \
            f"{command}: exit {rc}\n{err}"
        assert "Traceback" not in err, err
        self.ran.append(command)

    def close(self) -> None:
        for _, proc in self.background:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(60)
        for proc in self.engines:
            proc.terminate()
            proc.wait(60)


def serve_and_stop(s: Session, command: str, cwd=None) -> None:
    proc = s.start(command, cwd=cwd)
    url = s.ready(proc, r"serving on (http://127\.0\.0\.1:\d+/)").group(1)
    with urllib.request.urlopen(url, timeout=30) as r:
        assert r.status == 200 and b"Dominoes" in r.read()
    s.interrupt(command, proc)


def scenario(s: Session) -> None:
    """my-scenario.json: a record written by hand, as docs/records.md says: a simulated
    match's first deal, three plays into it, no result."""
    s.run("domino simulate --variant hhl --matches 1 --seed 3 --records scenario/")
    record = json.loads((s.dir / "scenario" / "hhl-000003.json").read_text())
    deal = record["deals"][0]
    plays = [m for m in deal["moves"] if "play" in m][:3]
    hand_written = {"format": record["format"], "variant": "hhl", "options": record["options"],
                    "deals": [{"hands": deal["hands"], "stock": deal["stock"], "moves": plays}]}
    (s.dir / "my-scenario.json").write_text(json.dumps(hand_written))


def finished_match(s: Session) -> str:
    """A finished match on the session's engine, for `domino record MATCH_ID`."""
    s.run("domino new-match --variant hhl --option hands=1 > made.json")
    s.run("domino bot --seats-file made.json --strategy greedy")
    return json.loads((s.dir / "made.json").read_text())["match_id"]


def without_comment(command: str) -> str:
    """The command without its trailing comment: arguments added after a `#` would be
    dropped by bash, and the command would run with the README's own ports."""
    return re.sub(r"\s+#.*$", "", command)


def run_command(s: Session, command: str) -> None:
    if own_skip(command):
        return
    if command.startswith("make run"):
        serve_and_stop(s, "make run SERVE_ARGS='--port 0 --engine-port 0 --bots random "
                       f"--no-arenas --db {s.dir}/run.sqlite3'", cwd=ROOT)
        return
    if command.startswith("domino serve"):
        serve_and_stop(s, without_comment(command).replace("--port 8080", "--port 0")
                       + f" --engine-port 0 --bots random --no-arenas --db {s.dir}/serve.sqlite3")
        return
    if command.startswith("domino engine"):
        proc = s.start(without_comment(command).replace("--port 50051", "--port 0")
                       + f" --db {s.dir}/own-engine.sqlite3")
        port = s.ready(proc, r"engine listening on 127\.0\.0\.1:(\d+)").group(1)
        s.env["DOMINO_ENGINE"] = f"127.0.0.1:{port}"
        s.background.append((command, proc))
        return
    if "domino bot --arena" in command:
        assert s.key, "no bot key printed before"
        proc = s.start(command.replace("dbk_...", s.key))
        s.background.append((command, proc))
        # Stopped once it plays (its first progress line), as its reader would: a Ctrl-C
        # while Python is still importing it (a loaded machine) interrupts the import.
        for line in proc.stderr:
            if line.startswith("domino bot:"):
                break
        return
    if "my-scenario.json" in command:
        scenario(s)
    if "MATCH_ID" in command:
        command = command.replace("MATCH_ID", finished_match(s))
    p = s.run(command)
    if "arena register" in command:
        s.key = re.search(r"dbk_\S+", p.stdout).group(0)


BLOCKS = blocks()


def test_the_readme_has_its_commands():
    commands = [c for b in BLOCKS for c in b]
    assert len(BLOCKS) >= 6 and len(commands) >= 25, BLOCKS
    assert any(c.startswith("domino fork records/") for c in commands)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{i}-{b[0].split('#')[0].strip()[:40]}"
                                                 for i, b in enumerate(BLOCKS)])
def test_a_readme_block_runs(block, tmp_path):
    why = skip_reason(block)
    if why:
        pytest.skip(why)
    runnable = [c for c in block if not own_skip(c)]
    if not runnable:
        pytest.skip("; ".join(f"{c.split('#')[0].strip()}: {own_skip(c)}" for c in block))
    s = Session(tmp_path)
    try:
        s.engine()
        for command in block:
            run_command(s, command)
        for command, proc in s.background:
            s.interrupt(command, proc)
        s.background.clear()
    finally:
        s.close()
    assert s.ran, block
