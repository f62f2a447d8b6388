"""The pure rules of Homo Homini Lupus (HHL-1..10) and Domeng (DOM-1..11).

Standard library only, no I/O (tests/layers/test_layers.py enforces it). Everything
outside this package drives a match through one API:

    m = new_match("hhl" | "domeng", options, seed, deals=None)
    m.to_move, m.over, m.legal_moves(seat), m.play(seat, move) -> events,
    m.view(seat | None), m.record(), m.result, m.time_up(), m.position (the live deal)
    m.position.playout(), playout.from_view(view, hands, rest) -> lean copies of a deal
        for search playouts: copy, legal, apply, result (rules/playout.py)
    replay_record(record) -> the same match, every move and result re-checked
    fork_of(record, n) -> the deals and first n plays a match forked there starts from
    fork_start(fork, seed) -> where a live fork resumes; resumed(...) -> the match there

A match is fully determined by (variant, options, seed or deals, moves).
"""

from .domeng import DomengMatch
from .errors import IllegalMove, MalformedInput, shown
from .events import Event
from .fork import Fork, Start, play_prefix, resumed
from .fork import fork_of as _fork_of
from .fork import start_of as _start_of
from .hhl import HHLMatch
from .match import RECORD_FORMAT, Match, coerce_move
from .moves import ARMS, BARRICADE, ENDS, NORMAL, Move
from .record import ReplayError
from .record import replay_record as _replay_record
from .resume import pack_deal_dicts
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


def fork_of(record, at) -> Fork:
    return _fork_of(record, at, new_match)


def fork_start(fork: Fork, seed: int) -> Start:
    return _start_of(fork, seed, new_match)


def new_fork(fork: Fork, seed=0) -> Match:
    """A match at a fork point: the recorded deals, the first plays made."""
    m = new_match(fork.variant, fork.options, seed, fork.deals)
    play_prefix(m, fork.prefix)
    return m


__all__ = [
    "ARMS", "BARRICADE", "ENDS", "NORMAL", "NUM_SEATS", "RECORD_FORMAT", "TILES", "VARIANTS",
    "Event", "Fork", "IllegalMove", "MalformedInput", "Match", "Move", "ReplayError", "Start",
    "Tile", "coerce_move", "fork_of", "fork_start", "new_fork", "new_match", "pack_deal_dicts",
    "play_prefix", "replay_record", "resumed",
]
