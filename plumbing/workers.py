"""A few child processes for CPU work that must not hold up a server's threads.

Python runs one thread at a time: a request that computes for half a second on one of
the server's threads (replaying a long record, say) slows every other request of the
process, the event loop's moves first. Such work runs here instead, in child processes
of our own (`python -m plumbing.workers`): a clean interpreter that inherits none of the
parent's threads, locks or sockets, imports only the job's module, and exits when the
parent goes away (its stdin closes).

A job is a module-level function of plain values (str, bytes, numbers, lists, dicts)
returning one, named by its module and name; it travels pickled, as one length-prefixed
frame each way (pickle copies a megabyte of text in a blink, where JSON would escape it
character by character, holding up the parent's other threads). Both ends are this
module, of the same checkout: nothing else writes to these pipes. The pool is bounded twice:
`processes` jobs run at once and at most `waiting` more wait for a process; a job beyond
that is refused at once (Busy), so a flood costs the caller a refusal, not a queue. A
job that does not end within its timeout is refused too (Busy), and its process is
killed: one request's work is bounded in time as well as in size. A job that raises, or
whose process dies, fails (WorkerFailed, with the child's traceback). Processes start at
the first job, so a server that never needs them never pays for them.
"""

from __future__ import annotations

import importlib
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
import traceback

_LENGTH = struct.Struct("<Q")      # each frame: its length, then the pickle

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # where plumbing is


class Busy(Exception):
    """Every process is busy and the waiting room is full, or the job took too long."""


class WorkerFailed(Exception):
    """The job raised in its process, or the process died: the message says which."""


class _Child:
    """One worker process and its two pipes."""

    def __init__(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (_ROOT, env.get("PYTHONPATH"))))
        self.proc = subprocess.Popen([sys.executable, "-m", "plumbing.workers"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, cwd=_ROOT)
        self._out = self.proc.stdout.fileno()

    def call(self, frame: bytes, deadline: float):
        self.proc.stdin.write(frame)
        self.proc.stdin.flush()
        head = self._read(_LENGTH.size, deadline)
        return pickle.loads(self._read(_LENGTH.unpack(head)[0], deadline))

    def _read(self, n: int, deadline: float) -> bytes:
        chunks, got = [], 0
        while got < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self._out, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass


class Workers:
    def __init__(self, processes: int = 1, waiting: int = 4):
        if processes < 1 or waiting < 0:
            raise ValueError("a pool needs a process and a waiting room of 0 or more")
        self.processes, self.waiting = processes, waiting
        self._cond = threading.Condition()
        self._idle: list[_Child] = []
        self._children: set[_Child] = set()   # alive: idle or at work
        self._starting = 0
        self._in_flight = 0                   # jobs running or waiting
        self._closed = False

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def run(self, fn, *args, timeout: float):
        """fn(*args) in a child process: its value, or Busy / WorkerFailed."""
        frame = _framed((fn.__module__, fn.__qualname__, args))
        deadline = time.monotonic() + timeout
        with self._cond:
            if self._closed:
                raise Busy("the pool is closed")
            if self._in_flight >= self.processes + self.waiting:
                raise Busy(f"{self._in_flight} jobs are running or waiting")
            self._in_flight += 1
        try:
            child = self._take(deadline)
            try:
                reply = child.call(frame, deadline)
            except TimeoutError:
                self._lose(child)
                raise Busy(f"the job took more than {timeout:g} s") from None
            except (EOFError, OSError, pickle.UnpicklingError):
                self._lose(child)
                raise WorkerFailed(f"the worker process died (exit status "
                                   f"{child.proc.poll()})") from None
            self._give_back(child)
            if "error" in reply:
                raise WorkerFailed(reply["error"])
            return reply["value"]
        finally:
            with self._cond:
                self._in_flight -= 1

    def _take(self, deadline: float) -> _Child:
        """An idle child, a new one while fewer than `processes` live, or Busy at the
        deadline."""
        with self._cond:
            while not self._idle:
                if len(self._children) + self._starting < self.processes:
                    self._starting += 1
                    break
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise Busy("no worker process became free in time")
                self._cond.wait(left)
            else:
                return self._idle.pop()
        try:
            child = _Child()
        finally:
            with self._cond:
                self._starting -= 1
        with self._cond:
            self._children.add(child)
        return child

    def _give_back(self, child: _Child) -> None:
        with self._cond:
            if self._closed:
                child.kill()
                return
            self._idle.append(child)
            self._cond.notify()

    def _lose(self, child: _Child) -> None:
        child.kill()
        with self._cond:
            self._children.discard(child)
            self._cond.notify()    # a waiting job may start a new child now

    def close(self) -> None:
        with self._cond:
            self._closed = True
            children, self._children, self._idle = list(self._children), set(), []
            self._cond.notify_all()
        for child in children:
            child.kill()


def _framed(value) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def _serve() -> None:
    """The child: one job a frame on stdin, one reply a frame on stdout, until stdin ends."""
    jobs, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)      # a job that prints writes to stderr, never into the replies
    while len(head := jobs.read(_LENGTH.size)) == _LENGTH.size:
        try:
            module, name, args = pickle.loads(jobs.read(_LENGTH.unpack(head)[0]))
            reply = {"value": getattr(importlib.import_module(module), name)(*args)}
        except Exception:
            reply = {"error": traceback.format_exc(limit=8)}
        replies.write(_framed(reply))
        replies.flush()


if __name__ == "__main__":
    _serve()
