"""bots/io_loop.py ready: a channel that connects is ready; a refused port is given up
(with other engines to try, at its first failed attempt, so that a bot whose engine was
killed goes on to the next address; docs/cluster.md has the failover figures)."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import grpc
import pytest

from bots.io_loop import ready

pytestmark = pytest.mark.timeout(30)


@contextlib.contextmanager
def refused_port():
    """A port that refuses connections: bound and never listening, and held bound while
    in use, so that nothing else can take it meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


async def _with_server(check):
    server = grpc.aio.server()
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        return await check(port)
    finally:
        await server.stop(None)


@pytest.mark.parametrize("several", [True, False])
def test_a_channel_to_a_live_engine_is_ready(several):
    async def check(port):
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            await ready(channel, several)
            return channel.get_state()
    assert asyncio.run(_with_server(check)) == grpc.ChannelConnectivity.READY


@pytest.mark.parametrize("several, timeout", [
    # with other engines to try, at once: not at a timeout far longer than the test's limit
    (True, 3600),
    # with one engine, at the timeout
    (False, 0.5),
])
def test_a_refused_port_is_given_up(several, timeout):
    async def check(port):
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.FutureTimeoutError):
                await ready(channel, several, timeout)
    with refused_port() as port:
        asyncio.run(check(port))
