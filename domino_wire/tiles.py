"""Tiles and moves of the typed contract (game.proto) and their text notation ("6-4",
"3-1 left", "4-4 up barricade"), both ways; and the contract's convention for a seat: a
missing seat is -1 on the wire, None here.
"""

from __future__ import annotations

from domino_proto.domino.v1 import game_pb2

from .names import Words

PLACE = Words(game_pb2.Place, "PLACE_")
MODE = Words(game_pb2.Mode, "MODE_")

Tile, Move = game_pb2.Tile, game_pb2.Move
# Every tile's text and its two numbers, high first.
HALVES = {f"{h}-{lo}": (h, lo) for h in range(7) for lo in range(h + 1)}


def seat_pb(s: int | None) -> int:
    """A seat, or None, as the wire writes it (-1 for none)."""
    return -1 if s is None else s


def seat_of(s: int) -> int | None:
    """A seat of the wire: None for -1 (none)."""
    return None if s < 0 else s


def tile_pb(text: str) -> game_pb2.Tile:
    """A tile's canonical text ("6-4") as the message."""
    h, lo = HALVES[text]
    return Tile(high=h, low=lo)


def tile_text(t: game_pb2.Tile) -> str:
    """The text of a Tile message; either order reads the same, as in the notation."""
    h, lo = (t.high, t.low) if t.high >= t.low else (t.low, t.high)
    return f"{h}-{lo}"


def tiles_pb(texts) -> list:
    return [tile_pb(t) for t in texts]


def tiles_text(tiles) -> list[str]:
    return [tile_text(t) for t in tiles]


def move_pb(play: str, at: str | None = None, mode: str | None = None) -> game_pb2.Move:
    return Move(tile=tile_pb(play), place=PLACE.number(at) if at else 0,
                mode=MODE.number(mode) if mode else 0)


def move_pb_of_text(text: str) -> game_pb2.Move:
    """The message of a move text ("4-4 up barricade"); the text is the engine's own."""
    return move_pb(*text.split())


def move_fields(m: game_pb2.Move) -> dict:
    """A move as the rules' dict form: {"play": "3-1", "at": "left"?, "mode": "normal"?}."""
    d = {"play": tile_text(m.tile)}
    if m.place:
        d["at"] = PLACE.word(m.place)
    if m.mode:
        d["mode"] = MODE.word(m.mode)
    return d


def move_text(m: game_pb2.Move) -> str:
    """The move's text notation: "0-0", "3-1 left", "4-4 up barricade"."""
    return " ".join(move_fields(m).values())
