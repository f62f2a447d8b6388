"""A crowd of Server-Sent-Events clients for the gateway benchmark and its capacity tests.

Every client is a coroutine on one asyncio loop in a thread of its own, with a plain
socket connection (no HTTP library: a thousand of them must be cheap). Clients connect from
several loopback addresses (127.0.0.1 .. 127.0.0.k are all this machine), as a crowd
comes from many addresses; each records when every message arrived.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import defaultdict


class Crowd:
    def __init__(self, port: int, path: str, n: int, addresses: int = 8):
        self.port, self.path, self.n, self.addresses = port, path, n, addresses
        self.arrivals: dict[tuple[str, int | None], list[float]] = defaultdict(list)
        self.snapshots = 0
        self.closed = 0             # streams the server ended
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._tasks: list[asyncio.Task] = []
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(60)

    async def _start(self) -> None:
        for i in range(self.n):
            self._tasks.append(asyncio.ensure_future(self._client(i)))
            if i % 50 == 49:
                await asyncio.sleep(0)      # let the server accept as we go

    async def _client(self, i: int) -> None:
        source = f"127.0.0.{1 + i % self.addresses}"
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port,
                                                           local_addr=(source, 0))
        except OSError as e:
            with self._lock:
                self.refused.append(str(e))
            return
        writer.write(f"GET {self.path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        try:
            status = await reader.readline()
            if b" 200 " not in status:
                with self._lock:
                    self.refused.append(status.decode(errors="replace").strip())
                return
            while (await reader.readline()).strip():
                pass                         # the response headers
            pending = b""
            while chunk := await reader.read(65536):
                now = time.monotonic()      # when the bytes arrived, before any parsing
                pending += chunk
                *messages, pending = pending.split(b"\n\n")
                for message in messages:
                    self._note(message, now)
            with self._lock:
                self.closed += 1
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    def _note(self, message: bytes, now: float) -> None:
        """One SSE message ("id: 7\nevent: events\ndata: {...}", chunked transfer
        framing lines in between) noted by kind and version."""
        kind = version = None
        for line in message.split(b"\n"):
            if line.startswith(b"id: "):
                version = int(line[4:])
            elif line.startswith(b"event: "):
                kind = line[7:].decode().strip()
            elif line.startswith(b"data: ") and kind == "keepalive":
                json.loads(line[6:])
        if kind:
            with self._lock:
                self.arrivals[(kind, version)].append(now)
                self.snapshots += kind == "snapshot"

    def count(self, kind: str, version: int | None) -> int:
        with self._lock:
            return len(self.arrivals[(kind, version)])

    def times(self, kind: str, version: int | None) -> list[float]:
        with self._lock:
            return list(self.arrivals[(kind, version)])

    def close(self) -> None:
        async def stop():
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
