"""The pacer of an engine's moves: unpaced while the loop is on time; paced at a rate cut
when the loop runs late and raised while it is on time; waiting moves let in first come
first served; no timer on an idle engine.

On an event loop of virtual time (support.run_in_virtual_time): the lateness is made, not
waited for, so nothing here depends on how loaded the machine is."""

import asyncio

import pytest

from engine_service.rpc import pacing
from engine_service.rpc.pacing import Pacer

from .support import run_in_virtual_time


async def settle():
    """Let the loop run what is due: the tick, when it ran late. (A task woken by
    sleep(0) is run before the timers that came due meanwhile; the second sleep(0) is
    queued behind them.)"""
    await asyncio.sleep(0)
    await asyncio.sleep(0)


def test_an_on_time_loop_lets_every_move_in_at_once_and_stops_its_timer_when_idle():
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.02)
        for _ in range(100):
            await pacer.admit()
        assert loop.time() == 0.0          # no move waited, not even a tick
        assert pacer.rate is None and pacer._ticking
        await asyncio.sleep(pacing.IDLE_AFTER_S + 2 * pacing.TICK_S)
        assert not pacer._ticking           # idle: no timer left
        await pacer.admit()                 # a move after the idle stretch starts it again
        assert pacer._ticking and loop.time() == pytest.approx(
            pacing.IDLE_AFTER_S + 2 * pacing.TICK_S)
    run_in_virtual_time(main)


def test_a_target_of_zero_never_paces():
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.0)
        await pacer.admit()
        loop.busy(1.0)
        await asyncio.sleep(0.1)
        for _ in range(10):
            await pacer.admit()
        assert pacer.rate is None and not pacer._ticking
    run_in_virtual_time(main)


def test_a_late_loop_paces_moves_first_come_first_served_and_skips_those_cancelled():
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.02)
        await pacer.admit()
        loop.busy(0.1)                      # a callback of 100 ms: the tick runs late
        await settle()
        assert pacer.rate == pacing.MIN_RATE     # it had let in next to nothing
        let_in = []

        async def move(i):
            await pacer.admit()
            let_in.append((i, loop.time()))

        start = loop.time()
        moves = [asyncio.create_task(move(i)) for i in range(20)]
        await asyncio.sleep(0)
        moves[5].cancel()                   # its bot went away while it waited
        await asyncio.gather(*moves, return_exceptions=True)
        assert [i for i, _ in let_in] == [i for i in range(20) if i != 5]
        # 19 moves at 50 a second and more (raised while the loop is on time): not at
        # once, and none held back longer than the least rate says.
        took = let_in[-1][1] - start
        assert 0.2 <= took <= 19 / pacing.MIN_RATE + 2 * pacing.TICK_S
        # On time again with no move waiting: unpaced.
        await asyncio.sleep(pacing.UNPACE_AFTER_S + 2 * pacing.TICK_S)
        assert pacer.rate is None
    run_in_virtual_time(main)


def test_the_rate_starts_under_what_the_loop_carried_is_cut_when_late_and_raised_on_time():
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.02)
        for _ in range(1000):               # 1,000 moves in the first 10 ms
            await pacer.admit()
        loop.busy(0.01)
        await settle()                       # the tick: on time, 1,000 moves seen
        assert pacer.rate is None
        for _ in range(1000):
            await pacer.admit()
        loop.busy(0.1)
        await settle()                       # the tick: late, paced
        first = pacer.rate
        assert pacing.MIN_RATE < first < 1000 / 0.01
        await asyncio.sleep(pacing.TICK_S * 1.5)   # the next tick, on time: raised
        raised = pacer.rate
        assert raised > first and raised == pytest.approx(first * pacing.RAISE)
        loop.busy(0.1)
        await settle()                       # late again, 0.1 s after the first cut: cut
        cut = pacer.rate
        assert cut < raised and cut == pytest.approx(raised * pacing.CUT)
        loop.busy(0.05)
        await settle()                       # late again within 0.1 s of that cut: not cut again
        assert pacer.rate == cut
    run_in_virtual_time(main)


def test_a_failing_tick_lets_every_waiting_move_in_and_paces_no_more(caplog):
    """No move may wait for good on a pacer that broke: it fails open, and says so."""
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.02)
        await pacer.admit()
        loop.busy(0.1)
        await settle()
        assert pacer.rate is not None
        pacer._let_in = None                # the next tick fails
        moves = [asyncio.create_task(pacer.admit()) for _ in range(5)]
        await asyncio.wait_for(asyncio.gather(*moves), 5)
        assert pacer.target == 0 and pacer.rate is None
        await pacer.admit()                 # and the next move is not paced
    run_in_virtual_time(main)
    assert "pacing the moves failed" in caplog.text


def test_the_rate_is_not_raised_past_twice_what_was_let_in():
    """Moves that come slower than the rate leave it where they can use it: raised
    without them, it would take many cuts to come back when the loop runs late."""
    async def main():
        loop = asyncio.get_running_loop()
        pacer = Pacer(0.02)
        await pacer.admit()
        loop.busy(0.1)
        await settle()                      # paced, at the least rate
        for _ in range(150):                # on time for 1.5 s, a move a tick at most
            await asyncio.sleep(pacing.TICK_S)
            await pacer.admit()
        # Raised 2 % a tick it would be 50 x 1.02^150, about 975 a second; at most 100
        # came a second.
        assert pacer.rate is not None and pacer.rate <= 200
    run_in_virtual_time(main)
