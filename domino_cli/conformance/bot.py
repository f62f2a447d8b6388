"""The bot under test as a process: started once per scripted match, stopped for sure.

It runs in a session (process group) of its own, so that the kit can stop it and every
child it started (a shell wrapper's, say) at once, and so that a Ctrl-C at the terminal
reaches the kit alone, which then stops it. Its output goes to files in the kit's
working folder; the last line of its stderr explains a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import time

# Every variable the kit sets; the others of the kit's own environment are removed, so
# that a seat bot never sees a pool or an arena, and the other way round.
VARIABLES = ("DOMINO_ENGINE", "DOMINO_MATCH", "DOMINO_SEAT", "DOMINO_SEAT_TOKEN",
             "DOMINO_POOL", "DOMINO_POOL_SECRET", "DOMINO_POOL_NAME", "DOMINO_POOL_CAPACITY",
             "DOMINO_POOL_MATCHES", "DOMINO_ARENA", "DOMINO_BOT_VERSION", "DOMINO_BOT_KEY")
POLL_S = 0.02


def cannot_start(command: list[str]) -> str:
    """Why `command` cannot be started ("" if it can): checked once, before any case."""
    program = command[0]
    if os.sep in program:
        if not os.path.exists(program):
            return f"{program}: no such file"
        if os.path.isdir(program) or not os.access(program, os.X_OK):
            return f"{program}: not an executable file"
        return ""
    if shutil.which(program) is None:
        return f"{program}: command not found"
    return ""


class BotProcess:
    def __init__(self, command: list[str], env: dict[str, str], out_path: str, err_path: str,
                 registry: list):
        self.command, self.env = command, env
        self.out_path, self.err_path = out_path, err_path
        self.registry = registry     # every process the kit started, for the way out
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.exited_at: float | None = None
        self.error = ""

    def start(self) -> bool:
        """Start it (no await between the fork and the registry: an interrupt cannot
        leave it running unlisted). False, with `error`, when it cannot start."""
        env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
        env.update(self.env)
        try:
            with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
                self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=out,
                                             stderr=err, env=env, start_new_session=True)
        except OSError as e:
            self.error = f"cannot start {self.command[0]}: {e.strerror or e}"
            return False
        self.registry.append(self)
        self.started = time.monotonic()
        return True

    @property
    def running(self) -> bool:
        if self.proc is None:
            return False
        if self.proc.poll() is None:
            return True
        if self.exited_at is None:
            self.exited_at = time.monotonic()
        return False

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    async def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for it to exit; True if it did."""
        deadline = time.monotonic() + timeout
        while self.running:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(POLL_S)
        return True

    async def stop(self, grace: float = 3.0) -> None:
        """SIGTERM to its whole group, SIGKILL after `grace` seconds."""
        if not self.running:
            self._kill_group(signal.SIGKILL)     # children it may have left behind
            return
        self._kill_group(signal.SIGTERM)
        if not await self.wait(grace):
            self._kill_group(signal.SIGKILL)
            await self.wait(grace)

    def kill_now(self) -> None:
        """The synchronous way out (an interrupted kit): SIGKILL to its whole group."""
        self._kill_group(signal.SIGKILL)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(2)

    def _kill_group(self, sig: int) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def status(self) -> str:
        """How it ended, in words: "exited with status 1: <its last stderr line>"."""
        code = self.returncode
        if code is None:
            return "still running"
        what = (f"was stopped by signal {signal.Signals(-code).name}" if code < 0
                else f"exited with status {code}")
        last = self.last_error_line()
        return f"{what}: {last}" if last and code != 0 else what

    def last_error_line(self) -> str:
        try:
            with open(self.err_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4096))
                lines = [x.strip() for x in f.read().decode(errors="replace").splitlines()]
        except OSError:
            return ""
        lines = [x for x in lines if x]
        return lines[-1][:200] if lines else ""
