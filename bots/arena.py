"""Play strategies against each other in-process, with no wall clock.

Bots get a lazy view: it is built only if the strategy looks at it, so a strategy that
needs only its legal moves costs nothing extra (not even a new view object: one nobody
read holds nothing yet, and is handed over again).
"""

from collections.abc import Mapping

from bots.strategy import Strategy
from engine_service.rules import new_match


class LazyView(Mapping):
    """``Match.view(seat)``, computed on first access."""

    __slots__ = ("_match", "_seat", "_view")

    def __init__(self, match, seat):
        self._match, self._seat, self._view = match, seat, None

    def _get(self):
        if self._view is None:
            self._view = self._match.view(self._seat)
        return self._view

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())


def play_match(variant, options, seed, bots, deals=None, on_move=None, prefix=()):
    """Play one match to its end; ``bots`` has one Strategy per seat. Returns the match.
    ``prefix``: (seat, move) plays made first, as they were (a fork, rules/fork.py); the
    bots hear their events like those of their own plays. ``on_move(m, seat, move,
    events)`` follows each move, and once with seat None before the bots' first one."""
    m = new_match(variant, options, seed, deals)
    if len(bots) != m.num_seats:
        raise ValueError(f"{variant} needs {m.num_seats} bots, got {len(bots)}")
    listeners = [s for s, b in enumerate(bots) if type(b).on_event is not Strategy.on_event]
    for b in bots:
        attach = getattr(b, "attach", None)
        if attach is not None:
            attach(m)  # in-process only: the oracle reads the true hands (docs/bots.md)
    for seat, move in prefix:
        events = m.play(seat, move)
        for s in listeners:
            for e in events:
                bots[s].on_event(e.to_dict(s))
    if on_move is not None:
        on_move(m, None, None, [])
    views = [LazyView(m, s) for s in range(m.num_seats)]
    while not m.over:
        seat = m.to_move
        legal = m.legal_moves(seat)
        view = views[seat]
        if view._view is not None:  # read last time: this move gets its own
            view = views[seat] = LazyView(m, seat)
        move = bots[seat].choose(view, legal)
        events = m.play(seat, move)
        for s in listeners:
            for e in events:
                bots[s].on_event(e.to_dict(s))
        if on_move is not None:
            on_move(m, seat, move, events)
    return m
