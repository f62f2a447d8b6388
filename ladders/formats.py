"""Who sits where in each match of a ladder.

rotation: every match draws a line-up so that every entrant meets every other, each
  sits in every seat position, and after every other entrant, equally often over a cycle
  (every group of entrants in every order around the table, in every rotation).
duplicate: the same deal (the same seed) is played once for each rotation of the seats,
  so each entrant plays every position of the same cards and the luck of the deal
  cancels out — like duplicate bridge. Matches of one deal form a "set"; the sets take
  the groups of entrants in every order around the table in turn, so the luck of one's
  neighbours cancels out over a cycle too.
field (``field_schedule``; in-process ladders only, bots/inprocess_ladder.py): every entrant
  plays the same deal in the same seat, every other seat held by one field strategy, so
  that the entrants are compared against that field on equal cards. The seat moves on
  from one deal to the next. Matches of one deal form a set.

The schedule says who sits where; it is public (ListLadderMatches shows each line-up).
The deals are not the schedule's: each match's seed comes from the ladder's secret
(seeds.py, deal_seed), so nothing public tells a deal before its match is over.
"""

import itertools
import random

ROTATION, DUPLICATE = "rotation", "duplicate"
FORMATS = (ROTATION, DUPLICATE)


def _lineups(entrants: list[str], seats: int, seed: int) -> list[list[str]]:
    """A cycle of base line-ups in which every pair of entrants meets, each group of
    entrants in every order around the table. Rotating a line-up moves everyone's seat but
    not who sits next to whom, and that matters: the seat after a weak player gets its
    mistakes, and in Domeng the seat before a winner pays it as its CUCUQ. Without the
    orders an entrant would sit after the same one in every match of a ladder."""
    if len(entrants) < seats:
        return [[entrants[i % len(entrants)] for i in range(seats)]]
    combos = itertools.combinations(entrants, seats)
    # Every cyclic order of a group: its first member fixed, the others permuted.
    bases = [[c[0], *(c[i] for i in rest)] for c in combos
             for rest in itertools.permutations(range(1, seats))]
    random.Random(seed).shuffle(bases)
    return bases


def rotations(lineup: list[str]) -> list[list[str]]:
    """The distinct rotations of a line-up ([a, b, a, b] has two)."""
    out = []
    for r in range(len(lineup)):
        rotated = lineup[r:] + lineup[:r]
        if rotated not in out:
            out.append(rotated)
    return out


def set_size(fmt: str, entrants: list[str], seats: int) -> int:
    """Matches in one complete set: the distinct seat rotations (duplicate), else 1."""
    if fmt != DUPLICATE:
        return 1
    return len(rotations(_lineups(entrants, seats, 0)[0]))


def schedule(fmt: str, entrants: list[str], seats: int, seed: int, index: int) -> tuple[list[str], int]:
    """Match number ``index`` of a ladder: (line-up by seat, set number). ``seed`` orders
    the line-ups only; a match's deal is seeds.deal_seed's."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use {' or '.join(FORMATS)}")
    if len(set(entrants)) != len(entrants) or len(entrants) < 2:
        raise ValueError("a ladder needs at least two entrants, each named once")
    bases = _lineups(entrants, seats, seed)
    if fmt == DUPLICATE:
        size = len(rotations(bases[0]))  # the same for every base line-up
        group, rot = divmod(index, size)
        return rotations(bases[group % len(bases)])[rot], group
    base = bases[index % len(bases)]
    rot = (index // len(bases)) % seats
    return base[rot:] + base[:rot], index


def set_slots(fmt: str, entrants: list[str], seats: int, set_no: int) -> range:
    """The schedule indices of set ``set_no``: the matches that play its deal."""
    size = set_size(fmt, entrants, seats)
    return range(set_no * size, (set_no + 1) * size)


def field_entrant(field: str) -> str:
    """The name the field's seats carry in the line-ups and the standings."""
    return f"field:{field}"


def field_schedule(entrants: list[str], field: str, seats: int,
                   index: int) -> tuple[list[str], int]:
    """Match number ``index`` of a ladder against a field: (line-up by seat, set number).
    Set k is one deal (seeds.deal_seed as a duplicate set's) played once by each entrant,
    in seat k mod ``seats``, with ``field_entrant(field)`` in every other seat."""
    if len(set(entrants)) != len(entrants) or not entrants:
        raise ValueError("a field ladder needs at least one entrant, each named once")
    group, k = divmod(index, len(entrants))
    lineup = [field_entrant(field)] * seats
    lineup[group % seats] = entrants[k]
    return lineup, group
