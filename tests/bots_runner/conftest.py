"""A real engine process per test, on 127.0.0.1 with port 0, restartable on its port."""

import subprocess

import pytest

from .support import DOMINO, Client, start_engine


class EngineProcess:
    def __init__(self, tmp_path, db=None):
        """`db`: the store (a SQLite file in tmp_path unless given, e.g. a PostgreSQL DSN)."""
        self.db = db or tmp_path / "engine.sqlite3"
        self.log = tmp_path / "engine.log"
        self.proc, self.port = start_engine(self.db, 0, self.log)
        self.client = Client(self.port)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def wait_logged(self, text: str, timeout: float = 30) -> None:
        """Until the engine's log has a line with `text` (e.g. "plays match M seat 0": a
        bot's stream is connected and seated)."""
        import time

        deadline = time.monotonic() + timeout
        while text not in self.log.read_text():
            assert time.monotonic() < deadline, f"the engine never logged {text!r}"
            time.sleep(0.02)

    def define_pool(self, name: str) -> str:
        """`domino pools create NAME` on this engine's store; returns the enlist secret."""
        done = subprocess.run([*DOMINO, "pools", "create", name, "--db", str(self.db)],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def kill(self) -> None:
        """kill -9: nothing is flushed or said goodbye."""
        self.client.close()
        self.proc.kill()
        self.proc.wait(60)

    def restart(self) -> None:
        """Start again on the same store and port."""
        self.proc, _ = start_engine(self.db, self.port, self.log)
        self.client = Client(self.port)

    def stop(self) -> None:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(60)


@pytest.fixture
def engine(tmp_path):
    e = EngineProcess(tmp_path)
    yield e
    e.stop()
