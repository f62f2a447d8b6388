"""What every bot connection of the process shares: one I/O event loop, one timer thread,
and the gRPC channel options.

Every connection is a coroutine on the one loop (grpc.aio), so a message costs no thread
hand-over however many seats the process plays; callers on other threads wait for it with
``on_io``. Every turn's fallback answer is an alarm on the one timer thread (a turn costs a
heap push, not a thread). Both are made on first use and live as long as the process
(daemon threads: a hung strategy or stream never keeps it from exiting).
"""

from __future__ import annotations

import asyncio
import threading

import grpc

from plumbing.alarms import Alarms

# Ping the engine every 5 s so a dead engine is noticed within seconds even when the
# operating system does not tell us (a pulled cable rather than a killed process).
CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 5000),
    ("grpc.keepalive_timeout_ms", 3000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]

# A channel shared by several streams (play_seats) outlives engine restarts: it must try
# again about as soon as the runner's own backoff would, not after gRPC's default (up to
# 120 s between attempts).
SHARED_CHANNEL_OPTIONS = CHANNEL_OPTIONS + [
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2000),
]


async def ready(channel, several: bool, timeout: float | None = None) -> None:
    """Wait for the channel to connect; grpc.FutureTimeoutError when it does not. With one
    engine only, wait up to 5 s: there is nowhere else to go. With other engines to try,
    give up on this one at its first failed attempt (a killed engine's port refuses until
    it is back; waiting out a timeout there held a failover up by a second), or after 1 s.
    ``timeout`` replaces those 1 and 5 s."""
    async def watch():
        state = channel.get_state(try_to_connect=True)
        while state != grpc.ChannelConnectivity.READY:
            if several and state == grpc.ChannelConnectivity.TRANSIENT_FAILURE:
                raise grpc.FutureTimeoutError()
            await channel.wait_for_state_change(state)
            state = channel.get_state(try_to_connect=True)
    try:
        await asyncio.wait_for(watch(), timeout or (1 if several else 5))
    except TimeoutError:
        raise grpc.FutureTimeoutError() from None


_io: asyncio.AbstractEventLoop | None = None
_alarms: Alarms | None = None
_singletons = threading.Lock()   # guards the lazily made I/O loop and timer


def io_loop() -> asyncio.AbstractEventLoop:
    """The process's one event loop for every bot connection (grpc.aio), on a daemon
    thread: a message costs no thread hand-over, however many seats the process plays."""
    global _io
    with _singletons:
        if _io is None:
            _io = asyncio.new_event_loop()
            threading.Thread(target=_io.run_forever, name="bot-io", daemon=True).start()
        return _io


def on_io(coro):
    """Run `coro` on the I/O loop and wait for its result (from any other thread)."""
    return asyncio.run_coroutine_threadsafe(coro, io_loop()).result()


def deadlines() -> Alarms:
    """The process's one timer thread for every turn's fallback answer (a turn costs a
    heap push, not a thread)."""
    global _alarms
    with _singletons:
        if _alarms is None:
            _alarms = Alarms()
        return _alarms


async def new_channel(address: str, options: list) -> grpc.aio.Channel:
    """A channel bound to the I/O loop (grpc.aio channels belong to the loop they are made
    on): await it there, e.g. ``on_io(new_channel(address, SHARED_CHANNEL_OPTIONS))``."""
    return grpc.aio.insecure_channel(address, options=options)
