"""Starting and stopping the product's own processes (engine, bots) from a command."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time

DOMINO = [sys.executable, "-m", "domino_cli"]


def start_engine(host: str, port: int, db: str, log=None, extra: tuple = (),
                 env: dict | None = None) -> tuple[subprocess.Popen, int]:
    """Start `domino engine` (with `extra` arguments, and `env` added to the environment);
    returns the process and its port (port 0 picks one). Its log goes to ``log`` (a file
    object; default: this process's stderr). The line it printed once listening is kept as
    the process's `ready_line` (metrics_port_of reads it)."""
    proc = subprocess.Popen([*DOMINO, "engine", "--host", host, "--port", str(port), "--db", db,
                             *extra], stdout=subprocess.PIPE, stderr=log, text=True,
                            env={**os.environ, **(env or {})})
    line = proc.stdout.readline()
    if not line.startswith("engine listening on "):
        proc.kill()
        proc.wait()
        why = line.removeprefix("engine failed: ").strip() or f"it exited with {proc.returncode}"
        raise SystemExit(f"domino: the engine did not start: {why}")
    proc.ready_line = line
    threading.Thread(target=_drain, args=(proc.stdout, log), daemon=True).start()
    return proc, int(line.split()[3].rsplit(":", 1)[1])


def metrics_port_of(ready_line: str) -> int | None:
    """The metrics port in an engine's "engine listening on ..." line (None: no metrics)."""
    _, found, rest = ready_line.partition("; metrics on ")
    return int(rest.split(")")[0].rsplit(":", 1)[1]) if found else None


@contextlib.contextmanager
def signals_held(signums=(signal.SIGINT, signal.SIGTERM)):
    """SIGINT and SIGTERM wait until the block is over, then arrive as usual. Start a child
    and put it on the list that stops it inside one such block: a signal in between would
    otherwise leave the child running, on no list, after the command is gone."""
    if threading.current_thread() is not threading.main_thread():
        yield      # signals reach the main thread only: nothing to hold here
        return
    pending = []
    previous = {s: signal.signal(s, lambda signum, _: pending.append(signum)) for s in signums}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for s in pending:
            signal.raise_signal(s)


def _drain(stream, log) -> None:
    """Keep the engine's stdout flowing (it would block on a full pipe)."""
    out = log or sys.stdout
    for line in stream:
        if not out.closed:
            out.write(line)


def stop_processes(procs: list[subprocess.Popen], grace: float = 5.0) -> None:
    """SIGTERM each, then SIGKILL whatever is still running after ``grace`` seconds."""
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
