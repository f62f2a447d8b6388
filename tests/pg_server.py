"""A real PostgreSQL server for the tests and benchmarks, started and stopped by them.

Debian's binaries (/usr/lib/postgresql/*/bin): `initdb` into a temporary folder and
`pg_ctl` on a free port of 127.0.0.1, trust authentication, nothing listening elsewhere.
PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user (its
folder is made theirs). Each test gets a database of its own (`database()`).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
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
        # workers at once), the start fails on the port and is tried on another.
        for attempt in range(5):
            self.port = _free_port()
            options = {"listen_addresses": "127.0.0.1", "port": self.port,
                       "unix_socket_directories": self.root, "max_connections": 300,
                       "shared_buffers": "64MB", **(settings or {})}
            flags = " ".join(f"-c {k}={v}" for k, v in options.items())
            try:
                self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60", "-o",
                          flags, "start")
                return
            except RuntimeError as e:
                if "already in use" not in str(e) or attempt == 4:
                    raise

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
        try:
            self._run("pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
