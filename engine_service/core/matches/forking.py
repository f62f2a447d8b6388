"""A fork request checked at the engine's edge: the record's size, its JSON, the rules'
replay of it and the fork point, each refusal naming its field (fork.record_json,
fork.at) before anything is stored. What a fork is: engine_service/rules/fork.py.
"""

from __future__ import annotations

import json

from ... import rules
from ...rules.fork import MAX_RECORD_BYTES
from ..security import limits

RECORD_FIELD, AT_FIELD = "fork.record_json", "fork.at"


def fork_point(record_json: str, at: int) -> rules.Fork:
    if not isinstance(record_json, str) or not record_json:
        raise limits.refuse(RECORD_FIELD, "give the record to fork, as JSON text")
    size = len(record_json.encode())
    if size > MAX_RECORD_BYTES:
        raise limits.refuse(RECORD_FIELD, f"at most {MAX_RECORD_BYTES} bytes, got {size}")
    if type(at) is not int:
        raise limits.refuse(AT_FIELD, "must be an integer")
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
