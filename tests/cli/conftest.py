"""Real `domino engine` processes for the command-line tests, one of each kind per run."""

import pytest

from domino_cli.processes import stop_processes
from tests.engine.support import Client, start_engine


class Engine:
    def __init__(self, tmp, extra=()):
        self.db = tmp / "engine.sqlite3"
        self.proc, self.port = start_engine(self.db, 0, tmp / "engine.log", extra=extra)
        self.address = f"127.0.0.1:{self.port}"
        self.client = Client(self.port)

    def stop(self):
        self.client.channel.close()
        stop_processes([self.proc])


@pytest.fixture(scope="session")
def engine(tmp_path_factory):
    e = Engine(tmp_path_factory.mktemp("cli-engine"))
    yield e
    e.stop()


@pytest.fixture(scope="session")
def keyed_engine(tmp_path_factory):
    """An engine that wants an API key to create matches and ladders, even on 127.0.0.1."""
    e = Engine(tmp_path_factory.mktemp("cli-keyed-engine"), extra=("--keys",))
    yield e
    e.stop()
