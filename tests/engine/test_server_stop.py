"""An engine that stops under open streams (Ctrl-C, a drain, a restart) ends each of them
for its client, which reconnects, and writes nothing alarming to its log: no traceback,
no error, whatever state each stream was in."""

import asyncio
import logging
import queue
import threading

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, play_pb2, play_pb2_grpc
from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from plumbing import inbox

from .support import Served, wait_for

STREAMS = 4


def tasks_on(server) -> int:
    """How many tasks the server's event loop runs (a call's handler is one of them)."""
    async def count():
        return len(asyncio.all_tasks())
    return asyncio.run_coroutine_threadsafe(count(), server._loop).result(5)


def open_stream(served: Served, kind: str, i: int):
    """A stream of `kind`, open and live on the server; returns (call, its request queue)."""
    requests = queue.SimpleQueue()
    play = play_pb2_grpc.PlayStub(served.channel)
    if kind == "watch":
        match_id, _ = served.new_match(claim=False)
        call = served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id), timeout=60)
        assert call.next().WhichOneof("body") == "snapshot"
        return call, requests
    if kind == "waiting for its Hello":
        before = tasks_on(served.server)
        call = play.Connect(iter(requests.get, None), timeout=60)
        wait_for(lambda: tasks_on(served.server) > before, what="the call on the server")
        return call, requests
    if kind == "pool":
        secret = served.engine.pools.define(f"p{i}")
        requests.put(play_pb2.BotMessage(hello=play_pb2.Hello(pool=play_pb2.PoolEnlist(
            pool=f"p{i}", name="idle", secret=secret))))
        call = play.Connect(iter(requests.get, None), timeout=60)
        assert call.next().WhichOneof("body") == "keepalive"
        return call, requests
    match_id, tokens = served.new_match()
    requests.put(play_pb2.BotMessage(hello=play_pb2.Hello(
        seat=play_pb2.SeatAuth(match_id=match_id, seat_token=tokens[1]))))
    call = play.Connect(iter(requests.get, None), timeout=60)
    assert call.next().WhichOneof("body") == "welcome"
    return call, requests


def read_to_the_end(call) -> None:
    try:
        for _ in call:
            pass
    except grpc.RpcError:
        pass


@pytest.mark.parametrize("kind", ["waiting for its Hello", "pool", "seat", "watch"])
@pytest.mark.parametrize("grace", [0, 0.2])
def test_an_engine_stopped_under_an_open_stream_ends_it_and_logs_no_traceback(
        kind, grace, caplog, monkeypatch):
    monkeypatch.setattr(inbox, "KEEPALIVE_S", 0.1)
    engine = Engine.open(":memory:")
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=8)
    served = Served(engine, server, port)
    streams, readers = [], []
    try:
        with caplog.at_level(logging.DEBUG):
            # Several at once: whether one is still unwinding when the loop stops is a
            # race, and each stream is one more chance to lose it.
            for i in range(STREAMS):
                call, requests = open_stream(served, kind, i)
                streams.append((call, requests))
                readers.append(threading.Thread(target=read_to_the_end, args=(call,),
                                                daemon=True))
                readers[-1].start()
            assert server.stop(grace).wait(30), "the server did not stop"
            for reader in readers:
                reader.join(30)
                assert not reader.is_alive(), "a client's stream did not end"
    finally:
        for _, requests in streams:
            requests.put(None)
        served.channel.close()
        engine.close()
    for call, _ in streams:
        assert call.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED,
                               grpc.StatusCode.OK), call.code()
    alarming = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not alarming, "\n".join(r.getMessage() for r in alarming)
