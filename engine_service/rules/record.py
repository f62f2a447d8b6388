"""Replaying a domino-record/1 document (docs/records.md) through the rules.

A record written by hand needs only each deal and its plays; draws, passes, stone
payments and results are derived. Whatever else the record states is checked against
what the rules derive, and the first difference is reported with where it is.
"""

from .errors import IllegalMove, MalformedInput, shown
from .match import RECORD_FORMAT, Match
from .moves import Move


class ReplayError(Exception):
    """The record disagrees with the rules: an illegal move or a wrong result."""

    def __init__(self, where: str, message: str, reason: str = "RECORD_MISMATCH", legal_moves=()):
        super().__init__(f"{where}: {message}")
        self.where, self.message, self.reason = where, message, reason
        self.legal_moves = [str(m) for m in legal_moves]


def _diff(recorded: dict, derived: dict, where: str):
    if not isinstance(recorded, dict):
        raise MalformedInput(f"{where}: result must be an object")
    for key, value in recorded.items():
        if key not in derived:
            raise ReplayError(where, f"unknown result field {key!r}")
        if value != derived[key]:
            raise ReplayError(where, f"result field {key!r} is {value!r} in the record, "
                              f"but the rules give {derived[key]!r}")


def replay_record(record, new_match) -> Match:
    """Rebuild the match a record describes, checking every move and result."""
    if not isinstance(record, dict):
        raise MalformedInput("a record is a JSON object")
    if record.get("format") != RECORD_FORMAT:
        raise MalformedInput(f"record format must be {RECORD_FORMAT!r}, "
                             f"got {shown(record.get('format'))}")
    deals = record.get("deals")
    if not isinstance(deals, list) or not deals:
        raise MalformedInput("a record needs a non-empty 'deals' list")
    for i, d in enumerate(deals):
        if not isinstance(d, dict):
            raise MalformedInput(f"deal {i} must be an object")
    m = new_match(record.get("variant"), record.get("options") or {}, record.get("seed", 0),
                  deals=[{k: v for k, v in d.items() if k in ("hands", "stock", "sleeping")} for d in deals])
    finished = "result" in record
    for i, deal in enumerate(deals):
        where = f"deal {i}"
        if m.over:
            raise ReplayError(where, "the match was already over before this deal")
        if finished and i == len(deals) - 1 and m.options.get("minutes") is not None:
            m.time_up()  # a time-limited HHL match ended with the last recorded hand
        moves = deal.get("moves", [])
        if not isinstance(moves, list):
            raise MalformedInput(f"{where}: 'moves' must be a list")
        state = m.position
        for j, entry in enumerate(moves):
            w = f"{where} move {j}"
            if not isinstance(entry, dict) or not isinstance(entry.get("seat"), int):
                raise MalformedInput(f"{w}: each move is an object with an integer 'seat', "
                                     f"got {shown(entry)}")
            if "play" not in entry:
                if not ({"draw", "pass"} & set(entry)):
                    raise MalformedInput(f"{w}: a move has 'play', 'draw' or 'pass', got {shown(entry)}")
                continue  # derived: checked against the rules below
            if state.over:
                raise ReplayError(w, f"{entry} comes after the end of the hand")
            try:
                m.play(entry["seat"], Move.from_dict(entry))
            except MalformedInput as e:
                raise MalformedInput(f"{w}: {e.message}") from None
            except IllegalMove as e:
                raise ReplayError(w, f"{Move.from_dict(entry)} by seat {entry['seat']} is illegal: "
                                  f"{e.message}", e.reason, e.legal_moves) from None
        derived = [e.to_record() for e in state.events]
        if any("play" not in e for e in moves) and moves != derived:
            k = next((k for k, (a, b) in enumerate(zip(moves, derived, strict=False)) if a != b),
                     min(len(moves), len(derived)))
            got = moves[k] if k < len(moves) else "nothing"
            want = derived[k] if k < len(derived) else "nothing"
            raise ReplayError(f"{where} move {k}", f"the record has {got}, the rules give {want}")
        if not state.over:
            if i < len(deals) - 1 or finished:
                raise ReplayError(where, "the moves end before the hand is over")
            break
        if "result" in deal:
            _diff(deal["result"], m.deals[i].result, f"{where} result")
    if finished:
        if not m.over:
            raise ReplayError("match", "the record has a result but the match is not over")
        _diff(record["result"], m.result, "match result")
    return m
