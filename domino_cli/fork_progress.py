"""What `domino fork` says on stderr while its bots play on (a search bot takes seconds a
move): a live line on a terminal, redrawn as the moves come; in a pipe, a plain line at the
start, one every ``every`` seconds, and one at the end.

``on_move`` has bots/arena.play_match's signature: it runs after each move, in process, so
it only counts and now and then prints.
"""

from __future__ import annotations

import sys
import time

REDRAW_S = 0.2   # a terminal line is redrawn at most this often


class ForkProgress:
    def __init__(self, variant: str, every: float, out=None):
        self.variant, self.every = variant, every
        self.out = out or sys.stderr
        self.live = self.out.isatty()
        self.moves = 0
        self.started = time.monotonic()
        self._last = None

    def _line(self, m) -> str:
        unit = "round" if self.variant == "domeng" else "hand"
        return (f"fork: {unit} {len(m.deals)}, {self.moves} move{'' if self.moves == 1 else 's'} "
                f"played ({time.monotonic() - self.started:.0f} s)")

    def on_move(self, m, seat, move, events) -> None:
        if not self.every:
            return
        if seat is not None:
            self.moves += 1
        now = time.monotonic()
        wait = REDRAW_S if self.live else self.every
        if self._last is not None and now - self._last < wait:
            return
        self._last = now
        if self.live:
            print(f"\r{self._line(m)}\033[K", end="", file=self.out, flush=True)
        else:
            print(self._line(m), file=self.out, flush=True)

    def done(self, m) -> None:
        if not self.every:
            return
        line = f"{self._line(m)}: over"
        print(f"\r{line}\033[K" if self.live else line, file=self.out, flush=True)
