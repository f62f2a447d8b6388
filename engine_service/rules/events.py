"""Events: what happened, as small immutable values, cut per seat in one place.

The engine reports every turn as an event — a play chosen by a seat, and the automatic
draws (HHL-6) and passes (DOM-5, with who paid what) — plus hand/round starts and ends.
``to_dict(seat)`` is the only redaction of events: a draw shows its tiles only to the
drawer, a hand start shows a seat only its own tiles; a spectator (seat None) sees
neither. ``to_record()`` is the full form used in match records.
"""

from typing import Any, NamedTuple

from .moves import Move
from .tiles import TEXT

PLAY, DRAW, PASS = "play", "draw", "pass"
DEAL_START, DEAL_OVER, CYCLE_OVER, MATCH_OVER = "deal_start", "deal_over", "cycle_over", "match_over"
KINDS = (DEAL_START, PLAY, DRAW, PASS, DEAL_OVER, CYCLE_OVER, MATCH_OVER)
# The kinds that read the same for every seat and spectator (``to_dict`` ignores the
# recipient), so one encoding can serve everyone. A draw shows its tiles only to the
# drawer and a deal start each seat its own tiles: they are cut per recipient, and so is
# any kind until it is listed here. tests/rules/test_properties.py checks this list.
PUBLIC_KINDS = frozenset({PLAY, PASS, DEAL_OVER, CYCLE_OVER, MATCH_OVER})


def stones_to_json(stones) -> list[dict]:
    """Stone payments ((source, count), ...) -> [{"from": "table"|seat, "count": n}]."""
    return [{"from": src, "count": n} for src, n in stones]


class Event(NamedTuple):
    kind: str
    seat: int | None = None
    move: Move | None = None  # PLAY
    tiles: tuple = ()  # DRAW: the tiles drawn; DEAL_START: every seat's dealt tiles
    stones: tuple = ()  # PASS (Domeng): ((source, count), ...), source "table" or a seat
    info: Any = None  # PLAY: {"mappakuling": True} or None; PASS (Domeng): {"cost": n,
    # "passebunge": bool} or None (HHL); DEAL_START: {"deal": n, "leader": s}; *_OVER: result

    @property
    def public(self) -> bool:
        """True when every seat and spectator sees this event alike (PUBLIC_KINDS)."""
        return self.kind in PUBLIC_KINDS

    def to_dict(self, seat: int | None = None) -> dict:
        """This event as the given seat may see it (seat None: a spectator)."""
        kind = self.kind
        if kind == PLAY:
            d = {"kind": kind, "seat": self.seat, **self.move.to_dict()}
            if self.info:
                d.update(self.info)
            return d
        if kind == DRAW:
            d = {"kind": kind, "seat": self.seat, "count": len(self.tiles)}
            if seat == self.seat:
                d["tiles"] = [TEXT[t] for t in self.tiles]
            return d
        if kind == PASS:
            d = {"kind": kind, "seat": self.seat}
            if self.info is not None:
                d["stones"] = stones_to_json(self.stones)
                d.update(self.info)
            return d
        if kind == DEAL_START:
            d = {"kind": kind, **self.info}
            if seat is not None and 0 <= seat < len(self.tiles):
                d["tiles"] = [TEXT[t] for t in self.tiles[seat]]
            return d
        return {"kind": kind, "result": self.info}

    def to_record(self) -> dict:
        """A turn as a record move entry (docs/records.md)."""
        if self.kind == PLAY:
            return {"seat": self.seat, **self.move.to_dict()}
        if self.kind == DRAW:
            return {"seat": self.seat, "draw": [TEXT[t] for t in self.tiles]}
        d = {"seat": self.seat, "pass": True}
        if self.info is not None:
            d["stones"] = stones_to_json(self.stones)
        return d


# ``Event(kind, seat, ...)`` runs NamedTuple's generated Python ``__new__`` (defaults,
# keywords): most of the cost of an event. The rules core builds the events of every turn
# with all six fields given in order, straight from the tuple constructor:
# ``new_event(Event, (kind, seat, move, tiles, stones, info))`` is the same Event, fields
# and all, at about a third of the cost.
new_event = tuple.__new__


def plain_event(kind: str, seat: int, move: Move | None = None) -> Event:
    """The event (kind, seat, move) with nothing else: a plain play, an HHL pass.

    The rules core builds each of these once (hhl.py, domeng.py: a table per seat and
    move) and every match shares them: an event is an immutable value, equal events
    compare equal wherever they come from, and a long match then keeps one reference per
    move instead of one more object that the garbage collector walks again and again
    (most of its cost over a long match). Domeng shares its passes and MAPPAKULING plays
    too, ``info`` dict included: nothing changes an event's info once it is made."""
    return new_event(Event, (kind, seat, move, (), (), None))
