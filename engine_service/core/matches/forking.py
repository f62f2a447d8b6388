"""Forked matches in the engine: the request checked at the edge, the work done in a
worker process, and what a forked match keeps.

A fork request carries a record of up to a megabyte. Its checks that cost nothing (the
size, the type of `at`) are made here, in the caller's thread; parsing it and the rules'
replays (`prepare`) run in a worker process (plumbing/workers.py), so a fork's half a
second of CPU holds up no other request of the engine. Each refusal names its field
(fork.record_json, fork.at) before anything is stored. What a fork is:
engine_service/rules/fork.py.

What is stored (settings "fork", no move log entry for the forked plays):

    at        N, the fork point: the match starts at version N
    deal      the index of the deal the fork point is in
    carry     what that deal's start inherits (rules/resume.py), None for the first deal
    plays     that deal's plays before the fork point, as move texts
    deals     the recorded deals from that one on, packed (16 characters a deal)
    record    what only the finished match's record needs: every recorded deal (packed)
              and the N forked plays (move texts, joined by ","). A live match does not
              keep it in memory (`lean`); its record is rebuilt from the store (`record_of`)

So a forked match costs what a match resumed at its fork point's deal costs, and a
restart resumes it there, whatever the length of the record before it.
"""

from __future__ import annotations

import json
from dataclasses import replace

from ... import rules
from ...rules.fork import MAX_RECORD_BYTES, Start
from ...rules.resume import deal_dicts
from ..errors import EngineError
from ..security import limits
from ..storage.rows import MatchRow, MoveRow

RECORD_FIELD, AT_FIELD = "fork.record_json", "fork.at"
FORK = "fork"          # the settings key of a forked match
TIME_UP = "time_up"    # the cause of the engine's time_up action in a move log (referee.py)


def check_request(record_json, at) -> None:
    """The checks of a fork request that cost nothing, made before any work is queued."""
    if not isinstance(record_json, str) or not record_json:
        raise limits.refuse(RECORD_FIELD, "give the record to fork, as JSON text")
    size = len(record_json.encode("utf-8", "surrogatepass"))
    if size > MAX_RECORD_BYTES:
        raise limits.refuse(RECORD_FIELD, f"at most {MAX_RECORD_BYTES} bytes, got {size}")
    if type(at) is not int:
        raise limits.refuse(AT_FIELD, "must be an integer")


def fork_point(record_json: str, at: int) -> rules.Fork:
    check_request(record_json, at)
    try:
        record = json.loads(record_json)
    except ValueError as e:
        raise limits.refuse(RECORD_FIELD, f"not JSON: {str(e)[:120]}") from None
    except RecursionError:   # "[[[[...": nested deeper than any record is
        raise limits.refuse(RECORD_FIELD, "nested too deep to be a record") from None
    try:
        return rules.fork_of(record, at)
    except rules.MalformedInput as e:
        if e.field == "at":
            raise limits.refuse(AT_FIELD, e.message) from None
        raise limits.refuse(RECORD_FIELD, f"not a record the rules accept: {e.message}") from None
    except rules.ReplayError as e:
        raise limits.refuse(RECORD_FIELD, f"the rules refuse it: {e}"[:300]) from None
    except (TypeError, AttributeError, KeyError) as e:   # a JSON value of an unexpected shape
        raise limits.refuse(RECORD_FIELD, f"not a record the rules accept "
                            f"({type(e).__name__})") from None


# ----- the jobs of a worker process (plain values in, plain values out) ---------------------
def prepare(record_json: str, at: int, seed: int) -> dict:
    """A fork request's work: the record checked and replayed, the fork point found, its
    Start made for a match of `seed` and checked. Returns {"variant", "options", "fork"
    (what settings "fork" stores)}, or {"refused": [field, message]} for a bad request,
    or {"failed": message} when the resumed match is not the replayed one (a bug)."""
    try:
        found = fork_point(record_json, at)
    except EngineError as e:
        return {"refused": [e.field, e.message]}
    try:
        start = rules.fork_start(found, seed)
    except ValueError as e:
        return {"failed": str(e)}
    return {"variant": found.variant, "options": found.options, "fork": {
        "at": at, "deal": start.deal, "carry": start.carry, "plays": start.plays,
        "deals": start.deals, "record": {
            "deals": rules.pack_deal_dicts(found.deals, rules.VARIANTS[found.variant].rest_key),
            "plays": ",".join(text for _, text in found.prefix)}}}


def record_of(variant: str, options: dict, seed: int, stored: dict,
              moves: list[tuple[int, str, str]], names: list[str]) -> str:
    """The record of a finished forked match as JSON text: the recorded deals and the
    forked plays (settings "fork" "record"), then its move log, replayed by the rules."""
    m = rules.new_match(variant, options, seed=seed, deals=deal_dicts(stored["deals"], variant))
    for text in filter(None, stored["plays"].split(",")):
        m.play(m.to_move, text)
    for seat, text, cause in moves:
        if cause == TIME_UP:
            m.time_up()
        else:
            m.play(seat, text)
    return json.dumps(m.record(names))


# ----- a forked match in the engine -----------------------------------------------------------
def is_fork(row: MatchRow) -> bool:
    return FORK in row.settings


def match_of(row: MatchRow) -> tuple[rules.Match, int]:
    """The rules match a row starts from, and its version: an ordinary match dealt from
    its seed (or explicit deals) at version 0; a fork resumed at its fork point, at
    version N."""
    fork = row.settings.get(FORK)
    if fork is None:
        return rules.new_match(row.variant, row.options, seed=row.seed, deals=row.deals), 0
    start = Start(fork["deal"], fork["carry"], fork["plays"], fork["deals"])
    return rules.resumed(row.variant, row.options, row.seed, start), fork["at"]


def lean(row: MatchRow) -> MatchRow:
    """The row as a live match keeps it: a fork's without what only its record needs,
    nor the generator's state (resume.py finds it again, the rare time the match is
    rebuilt from this row: referee._rebuild)."""
    fork = row.settings.get(FORK)
    if fork is None:
        return row
    kept = {k: v for k, v in fork.items() if k != "record"}
    if kept["carry"] is not None:
        kept["carry"] = {k: v for k, v in kept["carry"].items() if k != "rng"}
    return replace(row, settings={**row.settings, FORK: kept})


def moves_of(log: list[MoveRow]) -> list[tuple[int, str, str]]:
    return [(m.seat, m.move_text, m.cause) for m in log]
