"""What `domino bot` says on stderr while it plays: a line per match now and then (a
60-minute HHL match is hundreds of hands, and the JSON lines come only at its end), and a
word when the engine cannot be reached at first.

The runner hands every EngineMessage to ``on_message`` on its I/O loop; that only keeps
the latest state of each match. A thread of its own decodes and prints, every ``every``
seconds, so a move costs a dictionary store and the lines come however fast the bots play.
"""

from __future__ import annotations

import sys
import threading
import time

from domino_wire import game

from .failures import unreachable


def _seats(seats: set[int]) -> str:
    ordered = sorted(seats)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"seats {ordered[0]}-{ordered[-1]}"
    return ("seat " if len(ordered) == 1 else "seats ") + ",".join(map(str, ordered))


def describe(match_id: str, seats: set[int], version: int, view: dict, seconds: float) -> str:
    """One progress line from a seat's view (docs/views.md): the deal in play and the
    score so far, in the game's own words. Deals and cycles are numbered from 1, as the web
    page and `domino demo` number them for people (views and records count from 0)."""
    head = f"match {match_id} {_seats(seats)}: version {version}"
    if view.get("variant") == "hhl":
        totals = " ".join(f"{t:+d}" for t in view.get("totals", []))
        body = f"hand {view.get('deal_number', 0) + 1}, totals {totals}"
    else:
        held = " ".join(str(h) for h in view.get("held", []))
        body = (f"round {view.get('deal_number', 0) + 1} (cycle {view.get('cycle', 0) + 1}), "
                f"STONES held {held}, table {view.get('table', '?')}")
    return f"{head}, {body} ({seconds:.0f} s)"


class Progress:
    """Progress lines for the matches a `domino bot` process plays (see the module doc).
    ``every`` <= 0: no lines. ``notice_after``: seconds without any word from the engine
    before saying that it cannot be reached (yet)."""

    def __init__(self, address: str, every: float, give_up: float | None,
                 notice_after: float = 5.0, out=None):
        self.address, self.every, self.give_up = address, every, give_up
        self.notice_after = notice_after
        self.out = out or sys.stderr
        self.heard = False                    # any message from the engine yet
        self._lock = threading.Lock()
        self._latest: dict[str, object] = {}  # match id -> its latest SeatState
        self._seats: dict[str, set[int]] = {}
        self._shown: dict[str, int] = {}      # match id -> version of its last line
        self._started: dict[str, float] = {}
        self._ended: set[str] = set()          # over, forgotten after their last line
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_open(self) -> None:
        """A stream to the engine is open: it can be reached (a pool bot waiting to be
        seated hears nothing else)."""
        self.heard = True

    def on_message(self, message) -> None:
        """Called by the runner for every EngineMessage, on its I/O loop: keep, never work."""
        self.heard = True
        kind = message.WhichOneof("body")
        if kind == "turn" or kind == "snapshot":
            state = getattr(message, kind).state
            with self._lock:
                kept = self._latest.get(state.match_id)
                if kept is None or kept.version <= state.version:
                    self._latest[state.match_id] = state
        elif kind == "welcome":
            w = message.welcome
            with self._lock:
                self._seats.setdefault(w.match_id, set()).add(w.seat)
                self._started.setdefault(w.match_id, time.monotonic())
        elif kind == "match_over":
            # Its last state is still said once if it moved on since its last line: an
            # arena bot's matches are often shorter than the interval, and a bot that
            # plays them one after another would otherwise never print a line.
            with self._lock:
                self._ended.add(message.match_over.match_id)

    def start(self) -> Progress:
        self._thread = threading.Thread(target=self._run, name="bot-progress", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)

    def _say(self, line: str) -> None:
        print(f"domino bot: {line}", file=self.out, flush=True)

    def _run(self) -> None:
        started = time.monotonic()
        # No notice when the bot gives up before it would come: its failure line says it.
        noticed = self.give_up is not None and self.give_up <= self.notice_after
        while True:
            waits = [] if noticed else [started + self.notice_after - time.monotonic()]
            if self.every > 0:
                waits.append(self.every)
            if not waits or self._stop.wait(max(0.0, min(waits))):
                return
            if not noticed and time.monotonic() - started >= self.notice_after:
                noticed = True
                if not self.heard:
                    wait = (f"trying again for up to {self.give_up:.0f} s (--give-up)"
                            if self.give_up else "trying again until interrupted (--give-up 0)")
                    self._say(f"{unreachable(self.address)}; {wait}")
            if self.every > 0:
                self.report()

    def report(self) -> None:
        """A line for each match that moved on since its last line."""
        now = time.monotonic()
        with self._lock:
            due = [(m, s, set(self._seats.get(m, ())), now - self._started.get(m, now))
                   for m, s in self._latest.items() if self._shown.get(m) != s.version]
            for match_id, state, _, _ in due:
                self._shown[match_id] = state.version
            for match_id in self._ended:
                for kept in (self._latest, self._seats, self._shown, self._started):
                    kept.pop(match_id, None)
            self._ended.clear()
        for match_id, state, seats, seconds in due:
            view = game.LazyView(state)   # reads only the keys a line shows
            self._say(describe(match_id, seats or {view.get("seat")}, state.version, view,
                               seconds))
