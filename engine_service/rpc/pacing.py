"""Pacing the moves of an engine so that its event loop answers everything else in time.

One event loop carries all of an engine's streams and calls (server.py). Bots that answer
at once send moves as fast as the loop can carry them, and then the loop's queue of ready
callbacks holds the work of every table: every callback waits behind all of it. At 1,000
arena bots on 2 cores that was half a second for a health check and a second for a
GetLeaderboard, calls that take microseconds of their own (docs/arena.md).

The pacer moves that wait out of the loop's queue. A move read from a bot waits at
`admit` while moves are paced, and moves are let in at a rate that keeps the loop on
time: it is raised a little at each tick the loop is on time, and cut when the loop runs
later than the target (the way TCP finds its window: grow slowly, back off at once). A
late tick may be a pause of the whole process (the collector, or a machine with more work
than cores) rather than a queue; it is cut for all the same: waiting for a second late
tick, to tell the two apart, left the loop later (docs/arena.md, "Pacing"). The moves
wait about as long as they did, since the loop's work is the same; the other calls no
longer wait behind them. Unpaced (no lateness seen for a while), `admit` costs a counter.

The lateness is the loop's own: how late the pacer's tick, a timer, ran. The tick runs
only while moves come; an idle engine has no timer.

DOMINO_LOOP_LAG_MS (0..1000, default TARGET_MS; 0: never pace) is the target.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from plumbing import settings

log = logging.getLogger(__name__)

LAG_ENV = "DOMINO_LOOP_LAG_MS"
TARGET_MS = 20
TARGET_RANGE = (0, 1000)

TICK_S = 0.01        # how often the loop's lateness is taken and moves are let in
RAISE = 1.02         # the rate's growth per tick the loop is on time (x2 in 0.35 s),
                     # up to twice the moves a second let in
CUT = 0.75           # the rate's cut when the loop runs late ...
CUT_EVERY_S = 0.1    # ... at most this often: a cut shows in the lateness only later
MIN_RATE = 50.0      # moves a second: paced, an engine still plays this many
UNPACE_AFTER_S = 2.0   # on time this long with no move waiting: moves are no longer paced
IDLE_AFTER_S = 1.0     # no move for this long: the tick stops


def target_s() -> float:
    """LAG_ENV in seconds (0: never pace); BadSetting."""
    return settings.whole_number(LAG_ENV, TARGET_MS, *TARGET_RANGE, "milliseconds") / 1000


class Pacer:
    """Used on one event loop; made anywhere (the loop is the first `admit`'s)."""

    def __init__(self, target: float):
        self.target = target
        self.rate: float | None = None    # moves a second while paced; None: unpaced
        self._tokens = 0.0
        self._waiters: deque[asyncio.Future] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ticking = False
        self._due = self._last = 0.0      # when the tick should run; when it last ran
        self._admitted = 0                # moves let in since the last tick
        self._seen_rate = 0.0             # moves a second let in, smoothed
        self._last_move = self._cut_at = self._late_at = 0.0

    async def admit(self) -> None:
        """Returns when the move may be played."""
        if not self.target:
            return
        if not self._ticking:
            self._start()
        self._last_move = self._loop.time()
        if self.rate is None or (self._tokens >= 1 and not self._waiters):
            if self.rate is not None:
                self._tokens -= 1
            self._admitted += 1
            return
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        await waiter      # cancelled: the tick skips it

    def _start(self) -> None:
        self._loop = self._loop or asyncio.get_running_loop()
        self._ticking = True
        now = self._last = self._late_at = self._loop.time()
        self._due = now + TICK_S
        self._loop.call_at(self._due, self._tick)

    def _tick(self) -> None:
        try:
            self._pace()
        except Exception:   # never silent, and never a move left waiting for good
            log.exception("pacing the moves failed; they are no longer paced")
            self.target, self.rate, self._ticking = 0.0, None, False
            while self._waiters:
                waiter = self._waiters.popleft()
                if not waiter.done():
                    waiter.set_result(None)

    def _pace(self) -> None:
        now = self._loop.time()
        late, elapsed = now - self._due, now - self._last
        self._last = now
        if elapsed > 0:
            self._seen_rate += (self._admitted / elapsed - self._seen_rate) * 0.2
        self._admitted = 0
        if late > self.target:
            self._late_at = now
            if self.rate is None:
                # Paced from what the loop carried: a little under it.
                self.rate = max(MIN_RATE, self._seen_rate * CUT)
                self._tokens, self._cut_at = 0.0, now
            elif now - self._cut_at >= CUT_EVERY_S:
                self.rate, self._cut_at = max(MIN_RATE, self.rate * CUT), now
        elif self.rate is not None:
            if not self._waiters and now - self._late_at >= UNPACE_AFTER_S:
                self.rate = None
            else:
                # Never past twice what was let in: a rate the moves did not use says
                # nothing of what the loop can carry, and would take many cuts to undo.
                self.rate = min(self.rate * RAISE, max(MIN_RATE, 2 * self._seen_rate))
        if self.rate is not None:
            self._let_in(elapsed)
        if not self._waiters and now - self._last_move >= IDLE_AFTER_S:
            self._ticking, self.rate = False, None
            return
        self._due = now + TICK_S
        self._loop.call_at(self._due, self._tick)

    def _let_in(self, elapsed: float) -> None:
        # At most two ticks' worth at once: a burst is what pacing is there to prevent.
        self._tokens = min(self._tokens + self.rate * elapsed,
                           max(1.0, self.rate * TICK_S * 2))
        while self._waiters and self._tokens >= 1:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                self._tokens -= 1
                self._admitted += 1
