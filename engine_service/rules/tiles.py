"""Tiles of the double-six set as small integers with a text notation.

A tile is an int 0..27 (a ``Tile`` instance, so it still compares and hashes as an int);
the 28 instances are built once, so no tile is ever allocated on the move path. Sets of
tiles are bit masks (bit t set = tile t present), which makes "does any tile in this
hand fit end v" a single AND with ``FITS[v]``.
"""

from .errors import MalformedInput, shown

MAX_PIP = 6


class Tile(int):
    """One domino. ``str(Tile("4-6")) == "6-4"`` (canonical: high-low), and
    ``Tile("6-6") is Tile(27) is TILES[27]``: there are only ever 28 instances.

    ``Tile(x)`` takes a tile's text or its index 0..27; anything else is MalformedInput.
    The halves are ``HI[t]`` and ``LO[t]`` (tables, not attributes, for speed)."""

    __slots__ = ()

    def __new__(cls, value):
        if isinstance(value, str):
            return Tile.parse(value)
        if type(value) is int or isinstance(value, Tile):
            if 0 <= value < len(TILES):
                return TILES[value]
        raise MalformedInput(f"a tile is an index 0..{len(TILES) - 1} or text like '6-4', "
                             f"got {shown(value)}")

    @staticmethod
    def of(a: int, b: int) -> "Tile":
        if not (0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP):
            raise MalformedInput(f"tile halves must be 0..{MAX_PIP}, got {a}-{b}")
        return _BY_HALVES[(a, b)]

    @staticmethod
    def parse(text) -> "Tile":
        """Parse "6-4" (either order, optional brackets/spaces like "[4|6]")."""
        if isinstance(text, Tile):
            return text
        if not isinstance(text, str):
            raise MalformedInput(f"a tile is written like '6-4', got {shown(text)}")
        tile = _BY_TEXT.get(text)
        if tile is not None:
            return tile
        body = text.strip().strip("[]").replace("|", "-").replace(" ", "")
        parts = body.split("-")
        if len(parts) != 2 or not all(len(p) == 1 and p in "0123456789" for p in parts):
            raise MalformedInput(f"a tile is written like '6-4', got {shown(text)}")
        return Tile.of(int(parts[0]), int(parts[1]))

    @property
    def pips(self) -> int:
        return PIPS[self]

    @property
    def is_double(self) -> bool:
        return IS_DOUBLE[self]

    def __str__(self) -> str:
        return TEXT[self]

    def __repr__(self) -> str:
        return f"Tile({TEXT[self]!r})"   # pastes back: Tile('6-4')

    def __reduce__(self):
        return (Tile, (TEXT[self],))


def _build():
    tiles, by_halves = [], {}
    for lo in range(MAX_PIP + 1):
        for hi in range(lo, MAX_PIP + 1):
            t = int.__new__(Tile, len(tiles))
            t_hi, t_lo = hi, lo
            tiles.append((t, t_hi, t_lo))
            by_halves[(hi, lo)] = t
            by_halves[(lo, hi)] = t
    return tiles, by_halves


_built, _BY_HALVES = _build()
TILES: tuple[Tile, ...] = tuple(t for t, _, _ in _built)
HI: tuple[int, ...] = tuple(h for _, h, _ in _built)
LO: tuple[int, ...] = tuple(lo for _, _, lo in _built)
PIPS: tuple[int, ...] = tuple(h + lo for _, h, lo in _built)
IS_DOUBLE: tuple[bool, ...] = tuple(h == lo for _, h, lo in _built)
TEXT: tuple[str, ...] = tuple(f"{h}-{lo}" for _, h, lo in _built)
_BY_TEXT = {TEXT[t]: t for t in TILES} | {f"{LO[t]}-{HI[t]}": t for t in TILES}
FULL_SET = (1 << len(TILES)) - 1
# FITS[v]: mask of the tiles that show number v on one half.
FITS: tuple[int, ...] = tuple(
    sum(1 << t for t in TILES if HI[t] == v or LO[t] == v) for v in range(MAX_PIP + 1)
)
# OTHER[t][v]: the number a tile leaves open when laid on an end showing v.
OTHER: tuple[tuple[int, ...], ...] = tuple(
    tuple(LO[t] if HI[t] == v else HI[t] if LO[t] == v else -1 for v in range(MAX_PIP + 1))
    for t in TILES
)
DOUBLE_OF: tuple[Tile, ...] = tuple(_BY_HALVES[(v, v)] for v in range(MAX_PIP + 1))


def mask_of(tiles) -> int:
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def tiles_of(mask: int) -> list[Tile]:
    """The tiles of a mask in ascending order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(TILES[low.bit_length() - 1])
        mask ^= low
    return out


def _half_pips(first: int) -> tuple[int, ...]:
    """The pips of every set of the 14 tiles first..first+13, by its 14-bit mask."""
    table = [0] * (1 << 14)
    for m in range(1, 1 << 14):
        low = m & -m
        table[m] = table[m ^ low] + PIPS[first + low.bit_length() - 1]
    return tuple(table)


# pips_of runs at the end of every hand and of every search playout: two lookups instead
# of a walk over the tiles (two 16,384-entry tables, built once at import).
_PIPS_LOW, _PIPS_HIGH = _half_pips(0), _half_pips(14)


def pips_of(mask: int) -> int:
    """The pips of the tiles of a mask."""
    return _PIPS_LOW[mask & 0x3FFF] + _PIPS_HIGH[mask >> 14]


def parse_tiles(texts, what: str) -> list[Tile]:
    if not isinstance(texts, (list, tuple)):
        raise MalformedInput(f"{what} must be a list of tiles, got {shown(texts)}")
    try:
        return [Tile.parse(x) for x in texts]
    except MalformedInput as e:
        raise MalformedInput(f"{what}: {e.message}") from None
