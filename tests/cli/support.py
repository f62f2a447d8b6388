"""Running the domino command as users run it: a real subprocess of `python -m domino_cli`."""

import os
import pathlib
import socket
import subprocess
import sys

DOMINO = [sys.executable, "-m", "domino_cli"]
ROOT = pathlib.Path(__file__).resolve().parents[2]
TIMEOUT_S = 120


def env(**extra) -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), **extra}


def run(*args, check=True, timeout=TIMEOUT_S, extra_env=None, stdin=None):
    p = subprocess.run([*DOMINO, *args], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout, env=env(**(extra_env or {})), input=stdin)
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}\nstdout:{p.stdout}\nstderr:{p.stderr}")
    return p


def start(*args, extra_env=None, **popen) -> subprocess.Popen:
    """The command in the background, its output in pipes (text)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([*DOMINO, *args], cwd=ROOT, text=True,
                            env=env(**(extra_env or {})), **popen)


_HELD: list[socket.socket] = []


def dead_port() -> int:
    """A port nothing listens on, and nothing can start listening on while the tests run:
    bound and held, never listening (a connection to it is refused). A port bound and let
    go could be taken by any process of a parallel run meanwhile."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    _HELD.append(s)
    return s.getsockname()[1]


def assert_one_line_failure(p, command: str, *needles: str) -> None:
    """Exit status non-zero, no traceback, and one line on stderr, from `domino COMMAND`,
    naming the problem."""
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode != 0, f"exit 0\nstdout:{p.stdout}\nstderr:{p.stderr}"
    assert "Traceback" not in p.stderr, p.stderr
    assert len(lines) == 1, f"{len(lines)} lines on stderr:\n{p.stderr}"
    assert lines[0].startswith(f"domino {command}:" if command else "domino:"), lines[0]
    for needle in needles:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
