"""The stream inbox: ordered, fillable from any thread, KEEPALIVE only when idle, bounded.

The keepalive timing is checked on an event loop of virtual time (a loaded machine can
stretch a real 50 ms sleep past the keepalive interval): the loop's clock moves only when
the loop would otherwise wait, and then straight to its next timer."""

import asyncio
import threading

from plumbing import inbox as inbox_module
from plumbing.inbox import KEEPALIVE, OVERFLOWED, Inbox

from .support import run_in_virtual_time


def test_items_come_in_order_from_the_loop_and_from_other_threads():
    async def main():
        inbox = Inbox()
        try:
            inbox.put(1)
            thread = threading.Thread(target=lambda: [inbox.put(i) for i in (2, 3)])
            thread.start()
            got = [await inbox.get() for _ in range(3)]
            thread.join()
            return got
        finally:
            inbox.close()
    assert asyncio.run(main()) == [1, 2, 3]


def test_keepalive_only_after_an_idle_stretch(monkeypatch):
    monkeypatch.setattr(inbox_module, "KEEPALIVE_S", 0.2)

    async def main():
        loop = asyncio.get_running_loop()
        inbox = Inbox()
        try:
            got = []
            for i in range(6):               # busy for 0.3 s: no keepalive among the items
                inbox.put(i)
                got.append(await inbox.get())
                await asyncio.sleep(0.05)
            start = loop.time()
            got.append(await inbox.get())    # then idle: a keepalive within 0.2 s
            waited = loop.time() - start
            return got, waited
        finally:
            inbox.close()
    got, waited = run_in_virtual_time(main)
    assert got == [0, 1, 2, 3, 4, 5, KEEPALIVE]
    # Idle since the last item was read, 0.05 s before `start`: the keepalive is due
    # 0.2 s after that read, and the timer checks at most 0.2 s apart.
    assert 0.1 <= waited <= 0.2


def test_a_closed_inbox_leaves_no_timer_behind(monkeypatch):
    monkeypatch.setattr(inbox_module, "KEEPALIVE_S", 0.05)

    async def main():
        inbox = Inbox()
        inbox.close()
        await asyncio.sleep(0.2)
        return list(inbox._items)
    assert run_in_virtual_time(main) == []


def test_a_bounded_inbox_overflows_once_and_takes_nothing_more():
    async def main():
        called = []
        inbox = Inbox(limit=3, on_overflow=lambda: called.append(True))
        for i in range(3):
            inbox.put(i)
        assert [await inbox.get() for _ in range(2)] == [0, 1]
        for i in range(10):
            inbox.put(i)         # 2, then 0 1 2 fill it to 3; the next overflows it
        assert inbox.overflowed and called == [True]
        assert await inbox.get() is OVERFLOWED and await inbox.get() is OVERFLOWED
        inbox.close()
    asyncio.run(main())
