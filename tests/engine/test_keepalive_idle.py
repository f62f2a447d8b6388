"""The engine's ping policy, as docs/bots.md states it: a client may ping once a second or
less often, even on a connection with no call open, and is never sent away with
"too_many_pings". (Under a misspelt server option, gRPC kept its default of one ping in
5 minutes, and an idle client pinging every 10 s, as grpc-go bots do, was dropped after
its third ping.)"""

import pathlib
import threading

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc
from engine_service.rpc.server import SERVER_OPTIONS

from .conftest import serve

ROOT = pathlib.Path(__file__).resolve().parents[2]
PING_MS = 1200      # above the engine's 1 s; the Python client pings no faster than ~1 s
PINGS = 5           # the bad policy dropped the connection at the third or fourth


@pytest.fixture
def engine():
    yield from serve(":memory:")


def test_a_client_pinging_an_idle_connection_every_second_is_not_sent_away(engine):
    channel = grpc.insecure_channel(engine.address, [
        ("grpc.keepalive_time_ms", PING_MS), ("grpc.keepalive_timeout_ms", 3000),
        ("grpc.keepalive_permit_without_calls", 1), ("grpc.http2.max_pings_without_data", 0)])
    try:
        engine_pb2_grpc.EngineStub(channel).ListVariants(engine_pb2.ListVariantsRequest(),
                                                         timeout=5)     # connected, then idle
        states, dropped = [], threading.Event()

        def watch(state):
            states.append(state)
            if state != grpc.ChannelConnectivity.READY:
                dropped.set()
        channel.subscribe(watch)
        # Nothing but pings goes over the connection meanwhile; it must stay up.
        assert not dropped.wait(PINGS * PING_MS / 1000), states
    finally:
        channel.close()


def test_the_docs_state_the_engines_ping_options():
    options = dict(SERVER_OPTIONS)
    assert options["grpc.http2.min_ping_interval_without_data_ms"] == 1000
    assert options["grpc.keepalive_permit_without_calls"] == 1
    for doc in ("bots.md", "protocol.md"):
        text = (ROOT / "docs" / doc).read_text()
        for name in ("grpc.http2.min_ping_interval_without_data_ms",
                     "grpc.keepalive_permit_without_calls"):
            at = text.index(f"`{name}`") + len(name) + 2
            assert str(options[name]) in text[at:at + 8], (doc, name, text[at:at + 8])
