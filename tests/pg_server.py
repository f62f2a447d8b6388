"""A real PostgreSQL server for the tests and benchmarks, started and stopped by them.

Debian's binaries (/usr/lib/postgresql/*/bin): `initdb` into a temporary folder and
`pg_ctl` on a free port of 127.0.0.1, trust authentication, nothing listening elsewhere.
PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user (its
folder is made theirs). Each test gets a database of its own (`database()`).

For outages (tests/hostile/test_store_outage.py): `halt()` stops the server and `start()`
starts it again on the same port and data (a stopped server: connections refused), and
`freeze()` stops every process of it with SIGSTOP until `thaw()` (a network black hole:
the kernel still accepts connections and data, nothing answers).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import uuid

STORES = ("sqlite", "postgres")   # the stores a test runs on, in this order


def binaries() -> str | None:
    """The folder of the newest installed PostgreSQL's binaries, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                   key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit() else 0)
    found = [p for p in found if os.path.exists(os.path.join(p, "pg_ctl"))]
    if found:
        return found[-1]
    pg_ctl = shutil.which("pg_ctl")
    return os.path.dirname(pg_ctl) if pg_ctl else None


def why_not() -> str | None:
    """Why no server can be started here (None when one can)."""
    if binaries() is None:
        return ("no PostgreSQL binaries (apt-get install postgresql; .ci/run installs them): "
                "the PostgreSQL tests cannot run")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run PostgreSQL as"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    def __init__(self, settings: dict | None = None):
        self.bin = binaries()
        self.root = tempfile.mkdtemp(prefix="domino-pg-")   # /tmp: reachable by postgres
        self.data = os.path.join(self.root, "data")
        self.log = os.path.join(self.root, "server.log")
        self._user = {}
        if os.geteuid() == 0:
            pg = pwd.getpwnam("postgres")
            os.chown(self.root, pg.pw_uid, pg.pw_gid)
            self._user = {"user": pg.pw_uid, "group": pg.pw_gid, "extra_groups": []}
        self._run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                  "--no-sync")
        # PostgreSQL cannot be told to pick a port and say which: a free one is found, let
        # go, and given to it; if another process took it meanwhile (tests run in several
        # workers at once), the start fails on the port and is tried on another. A
        # restart (halt, then start) keeps the port it got.
        self._frozen: list[int] = []
        for attempt in range(5):
            self.port = _free_port()
            options = {"listen_addresses": "127.0.0.1", "port": self.port,
                       "unix_socket_directories": self.root, "max_connections": 300,
                       "shared_buffers": "64MB", **(settings or {})}
            self._flags = " ".join(f"-c {k}={v}" for k, v in options.items())
            try:
                self.start()
                break
            except RuntimeError as e:
                if "already in use" not in str(e) or attempt == 4:
                    raise

    def start(self) -> None:
        """Start the server (again, after halt(): same port, same data)."""
        self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                  self._flags, "start")

    def halt(self) -> None:
        """Stop the server, keeping its data (fast: its clients are disconnected)."""
        self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "-t", "60", "stop")

    def processes(self) -> list[int]:
        """The postmaster's pid, then its children's (backends, checkpointer, ...)."""
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        # pid (comm) state ppid ...: comm may hold spaces, not ")"
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue    # gone meanwhile
                if ppid == postmaster:
                    children.append(int(entry))
        return [postmaster, *children]

    def freeze(self) -> None:
        """SIGSTOP every process of the server, the postmaster first (so it forks no new
        backend meanwhile): it answers nothing until thaw()."""
        assert not self._frozen, "frozen already"
        os.kill(self.processes()[0], signal.SIGSTOP)
        pids = self.processes()
        for pid in pids[1:]:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        self._frozen = pids

    def thaw(self) -> None:
        for pid in self._frozen:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._frozen = []

    def _run(self, tool: str, *args: str) -> None:
        p = subprocess.run([os.path.join(self.bin, tool), *args], capture_output=True,
                           text=True, cwd=self.root, **self._user)
        if p.returncode != 0:
            log = open(self.log).read()[-2000:] if os.path.exists(self.log) else ""
            raise RuntimeError(f"{tool} failed: {p.stderr[-2000:]}\n{log}")

    def dsn(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def database(self) -> str:
        """A new, empty database; its DSN."""
        import psycopg
        name = "t_" + uuid.uuid4().hex[:16]
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def stop(self) -> None:
        """Stop the server for good and remove its folder. Immediate: a clean shutdown's
        checkpoint syncs every file of every test's database (37,000 files, 94 s after
        tests/engine on this machine), for data removed right after."""
        if self._frozen:
            self.thaw()
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
