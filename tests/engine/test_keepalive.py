"""A stalled engine never kicks a correct client.

The server says it accepts a ping a second without data (rpc/server.py SERVER_OPTIONS).
While its event loop is stalled (a long call on it, as the store outages once made) it
sends nothing, so every ping of a client arrives "without data": the server must still
keep to its word, not answer GOAWAY "too_many_pings" at the third one (gRPC's default
policy, one ping per 5 minutes, is what applied while the option had a wrong name).
"""

from __future__ import annotations

import queue
import threading
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server

# A client at the edge of the policy: a ping every 1.1 s, as many as it likes.
EAGER_CLIENT = [("grpc.keepalive_time_ms", 1100), ("grpc.keepalive_timeout_ms", 20000),
                ("grpc.keepalive_permit_without_calls", 1),
                ("grpc.http2.max_pings_without_data", 0)]
STALL_S = 6.0     # five pings at least, where the third early one used to be the last


def test_a_stalled_engine_keeps_a_client_that_pings_as_often_as_it_allows():
    engine = Engine.open(":memory:")
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=8)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=EAGER_CLIENT)
    try:
        stub = health_pb2_grpc.HealthStub(channel)
        stream = stub.Watch(health_pb2.HealthCheckRequest(service=""), timeout=60)
        assert next(stream).status == health_pb2.HealthCheckResponse.SERVING
        heard: queue.SimpleQueue = queue.SimpleQueue()

        def read():
            try:
                for message in stream:
                    heard.put(message.status)
            except grpc.RpcError as e:
                heard.put(e)
        threading.Thread(target=read, daemon=True).start()
        stalled = threading.Event()

        def stall():
            stalled.set()
            time.sleep(STALL_S)    # what a call blocking the loop does: nothing is sent
        server._loop.call_soon_threadsafe(stall)
        assert stalled.wait(10)
        # Answered once the loop runs again, on the same connection the pings went on.
        check = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=STALL_S + 30)
        assert check.status == health_pb2.HealthCheckResponse.SERVING
        server.not_serving()       # and the stream is still there to hear of it
        assert heard.get(timeout=30) == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        channel.close()
        server.stop(0).wait()
        engine.close()
