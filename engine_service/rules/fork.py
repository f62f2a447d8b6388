"""Forking a match at move N: what a new match needs to start from the position after the
first N plays of a domino-record/1 record (docs/records.md, "Forking a match").

The record is replayed in full first, so a fork starts only from a record the rules accept.
The fork keeps every recorded deal as dealt (the hidden tiles, and the stock in its order,
so new draws come from it); the first N plays are replayed as they were, and what follows
is new play. Deals beyond the recorded ones come from the new match's seed.
"""

from typing import NamedTuple

from .errors import MalformedInput, shown
from .moves import Move
from .record import replay_record

MAX_RECORD_BYTES = 1_000_000   # a record's JSON text, at the edge (a long HHL match is ~200 kB)


class Fork(NamedTuple):
    variant: str
    options: dict
    deals: list[dict]               # every recorded deal: "hands" and "stock"/"sleeping"
    prefix: list[tuple[int, str]]   # the first N plays: (seat, move text), in order
    plays: int                      # the record's plays in all (the valid N are 0..last_at)
    last_at: int


def plays_of(record: dict) -> list[tuple[int, str]]:
    """The record's plays, counted across deals: (seat, move text). Draws and passes are
    not plays (the rules make them)."""
    return [(e["seat"], str(Move.from_dict(e))) for d in record["deals"]
            for e in d.get("moves", []) if "play" in e]


def fork_of(record, at, new_match) -> Fork:
    """The fork of `record` after its first `at` plays. MalformedInput (field "at" for N
    out of range, "record" for the rest) or ReplayError for a record the rules refuse.

    N may be 0 (the first deal, no play made) up to the last play that leaves something
    to play: plays - 1 for a finished record, plays for one that stops mid-match."""
    m = replay_record(record, new_match)
    plays = plays_of(record)
    last = len(plays) - 1 if m.over else len(plays)
    if type(at) is not int or not 0 <= at <= last:
        raise MalformedInput(f"the fork point must be 0..{last} (the record has {len(plays)} "
                             f"plays), got {shown(at)}", "at")
    full = m.record()
    deals = [{k: v for k, v in d.items() if k in ("hands", m.rest_key)} for d in full["deals"]]
    return Fork(m.variant, dict(m.options), deals, plays[:at], len(plays), last)


def play_prefix(match, prefix) -> None:
    """Replay the fork's first plays on a new match (dealt with the fork's deals)."""
    for seat, text in prefix:
        match.play(seat, text)
