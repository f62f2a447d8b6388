"""The pure rules of Homo Homini Lupus (HHL-1..10) and Domeng (DOM-1..11).

Standard library only, no I/O (tests/layers/test_layers.py enforces it). Everything
outside this package drives a match through one API:

    m = new_match("hhl" | "domeng", options, seed, deals=None)
    m.to_move, m.over, m.legal_moves(seat), m.play(seat, move) -> events,
    m.view(seat | None), m.record(), m.result, m.time_up(), m.position (the live deal)
    replay_record(record) -> the same match, every move and result re-checked

A match is fully determined by (variant, options, seed or deals, moves).
"""

from .domeng import DomengMatch
from .errors import IllegalMove, MalformedInput, shown
from .events import Event
from .hhl import HHLMatch
from .match import RECORD_FORMAT, Match, coerce_move
from .moves import ARMS, BARRICADE, ENDS, NORMAL, Move
from .record import ReplayError
from .record import replay_record as _replay_record
from .tiles import TILES, Tile

VARIANTS = {"hhl": HHLMatch, "domeng": DomengMatch}
NUM_SEATS = {name: cls.num_seats for name, cls in VARIANTS.items()}  # HHL 4, Domeng 5


def new_match(variant, options=None, seed=0, deals=None) -> Match:
    """Start a match; its first hand/round is dealt and waits for its leader's move."""
    cls = VARIANTS.get(variant)
    if cls is None:
        raise MalformedInput(f"unknown variant {shown(variant)}; use one of {', '.join(VARIANTS)}")
    return cls(options, seed, deals)


def replay_record(record) -> Match:
    return _replay_record(record, new_match)


__all__ = [
    "ARMS", "BARRICADE", "ENDS", "NORMAL", "NUM_SEATS", "RECORD_FORMAT", "TILES", "VARIANTS",
    "Event", "IllegalMove", "MalformedInput", "Match", "Move", "ReplayError", "Tile",
    "coerce_move", "new_match", "replay_record",
]
