"""Moves: the only decisions players make. Draws and passes are automatic.

A move is (tile, at, mode): ``at`` is its place, where the tile goes (None for the
opening lead; an HHL arm left/right/up/down or a Domeng end left/right), ``mode`` is
normal|barricade for an HHL double laid on an arm (HHL-5), else None. Text notation round-trips:
"0-0", "3-1 left", "4-4 up barricade". Every possible move exists once, built up front,
so legal-move lists reuse them instead of allocating.

Parsing checks only the notation; whether the arm exists in a variant, or the move is
legal, is for the game to say.
"""

from typing import NamedTuple

from .errors import MalformedInput, shown
from .tiles import FITS, IS_DOUBLE, MAX_PIP, TILES, Tile, tiles_of

ARMS = ("left", "right", "up", "down")  # HHL-3: the spinner's four arms
ENDS = ("left", "right")  # DOM-4: the line's two ends
NORMAL, BARRICADE = "normal", "barricade"  # HHL-5
MODES = (NORMAL, BARRICADE)
_PLACES = (None, *ARMS)


class Move(NamedTuple):
    tile: Tile
    at: str | None = None
    mode: str | None = None

    def __str__(self) -> str:
        return " ".join(str(x) for x in self if x is not None)

    @staticmethod
    def parse(text) -> "Move":
        if isinstance(text, Move):
            return text
        if not isinstance(text, str) or not text.split():
            raise MalformedInput(f"a move is written like '3-1 left', got {shown(text)}")
        parts = text.split()
        if len(parts) > 3:
            raise MalformedInput(f"a move is written like '4-4 up barricade', got {shown(text)}")
        return make_move(Tile.parse(parts[0]), *parts[1:])

    def to_dict(self) -> dict:
        d = {"play": str(self.tile)}
        if self.at is not None:
            d["at"] = self.at
        if self.mode is not None:
            d["mode"] = self.mode
        return d

    @staticmethod
    def from_dict(d) -> "Move":
        if not isinstance(d, dict) or "play" not in d:
            raise MalformedInput(f"a move is an object like {{'play': '3-1', 'at': 'left'}}, got {shown(d)}")
        unknown = set(d) - {"play", "at", "mode", "seat"}
        if unknown:
            raise MalformedInput(f"unknown move field(s) {sorted(unknown)} in {shown(d)}")
        return make_move(Tile.parse(d["play"]), d.get("at"), d.get("mode"))


def make_move(tile: Tile, at=None, mode=None) -> Move:
    """The interned Move for (tile, at, mode); refuses unknown places and modes."""
    if at not in _PLACES:
        raise MalformedInput(f"unknown arm or end {shown(at)}; use one of {', '.join(ARMS)}")
    if mode is not None and mode not in MODES:
        raise MalformedInput(f"unknown double mode {shown(mode)}; use normal or barricade")
    return _MOVES[(tile, at, mode)]


_MOVES = {
    (t, at, mode): Move(t, at, mode)
    for t in TILES
    for at in _PLACES
    for mode in (None, *MODES)
}
# Fast tables for the legal-move generators: OPEN[t]; PLACE[t][i] for position index i
# (ARMS order; Domeng ends are the first two); DOUBLE_PLACE[t][i] = (normal, barricade).
OPEN: tuple[Move, ...] = tuple(_MOVES[(t, None, None)] for t in TILES)
PLACE: tuple[tuple[Move, ...], ...] = tuple(
    tuple(_MOVES[(t, a, None)] for a in ARMS) for t in TILES
)
DOUBLE_PLACE: tuple[tuple[tuple[Move, Move], ...], ...] = tuple(
    tuple((_MOVES[(t, a, NORMAL)], _MOVES[(t, a, BARRICADE)]) for a in ARMS) if IS_DOUBLE[t] else ()
    for t in TILES
)


def moves_at(i: int, double_modes: bool) -> dict[int, tuple[Move, ...]]:
    """{mask: the moves laying each tile of ``mask`` at place i}, for every set of tiles
    that all show one number — what ``hand & FITS[v]`` can be, the empty set included —
    tiles ascending, a double as normal then barricade when ``double_modes`` (HHL-5).
    The legal-move generators read one entry per open arm or end instead of walking the
    tiles: the same moves in the same order."""
    table = {0: ()}
    for v in range(MAX_PIP + 1):
        showing = tiles_of(FITS[v])  # ascending
        masks, lists = [0], [()]  # subsets of the first j tiles of ``showing``
        for t in showing:
            own = DOUBLE_PLACE[t][i] if double_modes and IS_DOUBLE[t] else (PLACE[t][i],)
            masks += [m | 1 << t for m in masks]
            lists += [moves + own for moves in lists]  # t is above every tile before it
        table.update(zip(masks, lists, strict=True))
    return table
