"""Engines that need API keys (`domino engine --keys`), as real processes on 127.0.0.1, on
SQLite (one engine: a SQLite file is one engine's) or PostgreSQL (two engines of a
cluster on one database), and what the hostile tests of keys ask of them."""

from __future__ import annotations

import contextlib
import subprocess

import grpc

from domino_proto.domino.v1 import engine_pb2_grpc, ladder_pb2_grpc
from engine_service.core.security.keys import Keys, Quotas
from engine_service.core.storage.factory import open_store
from tests.cluster.support import EngineCluster
from tests.engine.support import start_engine


def make_key(db: str, name: str, **quotas) -> str:
    """A new API key in the store (as `domino keys create` makes it); the key."""
    store = open_store(db)
    try:
        return Keys(store, required=True).create(name, Quotas(**quotas))
    finally:
        store.close()


def as_key(key: str) -> tuple:
    """The call metadata that sends `key`."""
    return (("authorization", f"Bearer {key}"),) if key else ()


class KeyedEngines:
    """`domino engine --keys` on `db`: one engine on a SQLite file, two on PostgreSQL (a
    cluster: each request below is sent to the engine the test picks, `here`)."""

    def __init__(self, db: str, log_path: str):
        self.db = db
        self._cluster = None
        self._procs: list[subprocess.Popen] = []
        if db.startswith("postgresql://"):
            self._cluster = EngineCluster(db, 2, log_path, extra=("--keys",))
            self.addresses = [self._cluster.address(i) for i in range(2)]
        else:
            proc, port = start_engine(db, log_path=log_path, extra=("--keys",))
            self._procs.append(proc)
            self.addresses = [f"127.0.0.1:{port}"]
        self._channels = [grpc.insecure_channel(a) for a in self.addresses]
        self.engines = [engine_pb2_grpc.EngineStub(c) for c in self._channels]
        self.ladders = [ladder_pb2_grpc.LadderStub(c) for c in self._channels]

    def engine(self, i: int):
        """The Engine stub of engine i (round robin over the engines there are)."""
        return self.engines[i % len(self.engines)]

    def ladder(self, i: int):
        return self.ladders[i % len(self.ladders)]

    def close(self) -> None:
        for c in self._channels:
            c.close()
        if self._cluster is not None:
            self._cluster.close()
        for proc in self._procs:
            with contextlib.suppress(Exception):
                proc.terminate()
                proc.wait(10)
