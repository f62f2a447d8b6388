"""Forking a match at move N: what a new match needs to start from the position after the
first N plays of a domino-record/1 record (docs/records.md, "Forking a match").

The record is replayed in full first, so a fork starts only from a record the rules accept.
The fork keeps every recorded deal as dealt (the hidden tiles, and the stock in its order,
so new draws come from it); the first N plays are replayed as they were, and what follows
is new play. Deals beyond the recorded ones come from the new match's seed.

A live fork starts from its Start (start_of): the match resumed at the start of the deal
the fork point is in (resume.py), then that deal's plays before the fork point. So it
costs what a match at that deal costs, however long the record before it, and a restart
replays a few plays, not N. start_of checks that the resumed match is the replayed one.
"""

from typing import NamedTuple

from .errors import MalformedInput, shown
from .match import Match
from .moves import Move
from .record import replay_record
from .resume import carry_of, pack_deal_dicts, resume

MAX_RECORD_BYTES = 1_000_000   # a record's JSON text, at the edge (a long HHL match is ~200 kB)
# The work one fork costs: the rules replay the record's plays twice (to check the record,
# then to find the fork point's deal start). A 1 MB record holds some 15,000.
MAX_FORK_PLAYS = 20_000
MAX_FORK_DEALS = 1_000         # as many deals as CreateMatch may give explicitly


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
    _bounded(record)
    m = replay_record(record, new_match)
    plays = plays_of(record)
    last = len(plays) - 1 if m.over else len(plays)
    if type(at) is not int or not 0 <= at <= last:
        raise MalformedInput(f"the fork point must be 0..{last} (the record has {len(plays)} "
                             f"plays), got {shown(at)}", "at")
    full = m.record()
    deals = [{k: v for k, v in d.items() if k in ("hands", m.rest_key)} for d in full["deals"]]
    return Fork(m.variant, dict(m.options), deals, plays[:at], len(plays), last)


def _bounded(record) -> None:
    """The record's size in deals and plays, before the rules replay any of it."""
    deals = record.get("deals") if isinstance(record, dict) else None
    if not isinstance(deals, list):
        return      # replay_record says what is wrong
    if len(deals) > MAX_FORK_DEALS:
        raise MalformedInput(f"a record to fork has at most {MAX_FORK_DEALS} deals, got "
                             f"{len(deals)}")
    plays = sum(1 for d in deals if isinstance(d, dict) and isinstance(d.get("moves"), list)
                for e in d["moves"] if isinstance(e, dict) and "play" in e)
    if plays > MAX_FORK_PLAYS:
        raise MalformedInput(f"a record to fork has at most {MAX_FORK_PLAYS} plays, got {plays}")


class Start(NamedTuple):
    """Where a match forked with one seed starts (start_of)."""
    deal: int                # the index of the deal the fork point is in
    carry: dict | None       # resume.carry_of at that deal's start (None: the first deal)
    plays: list[str]         # that deal's plays before the fork point, as move texts
    deals: str               # the recorded deals from that one on, packed (resume.py)


def start_of(fork: Fork, seed: int, new_match) -> Start:
    """The Start of `fork` for a match of seed `seed`: the prefix is replayed once, the
    carry taken at each deal's start; then the match resumed from the Start must be the
    replayed one (ValueError if not: a bug, nothing is to be stored)."""
    m = new_match(fork.variant, fork.options, seed, fork.deals)
    carry, since = carry_of(m), 0
    for i, (seat, text) in enumerate(fork.prefix):
        dealt = len(m.deals)
        m.play(seat, text)
        if len(m.deals) != dealt:
            carry, since = carry_of(m), i + 1
    deal = len(m.deals) - 1
    start = Start(deal, carry, [text for _, text in fork.prefix[since:]],
                  pack_deal_dicts(fork.deals[deal:], m.rest_key))
    if not same_position(resumed(fork.variant, fork.options, seed, start), m):
        raise ValueError("the match resumed at the fork point differs from the replayed one")
    return start


def resumed(variant: str, options: dict, seed: int, start: Start) -> Match:
    """The match at a fork point, from its Start."""
    m = resume(variant, options, seed, start.deals, start.carry)
    for text in start.plays:
        m.play(m.to_move, text)
    return m


def same_position(a: Match, b: Match) -> bool:
    """Whether two matches show every seat and a spectator the same, with the same moves
    to make and the same events of the deal so far."""
    return (a.to_move == b.to_move and a.result == b.result
            and a.deal_events == b.deal_events
            and all(a.view(s) == b.view(s) for s in (None, *range(a.num_seats))))


def play_prefix(match, prefix) -> None:
    """Replay the fork's first plays on a new match (dealt with the fork's deals)."""
    for seat, text in prefix:
        match.play(seat, text)
