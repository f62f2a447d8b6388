"""Integers that may pass 2^53 (seeds, counts of worlds), as REST writes them: decimal
strings, as the protobuf JSON mapping writes every 64-bit integer. A JavaScript number
holds integers exactly only up to 2^53: 5893219166477011277 read as a number is
5893219166477011000. Integers of the contract that stay far below 2^53 by their bounds
(versions, clocks, Unix milliseconds, points) are plain numbers.

A request may give such a value as a string or as a number; either is bounded here and a
bad one is named by its field (400). Answers always send the string."""

from __future__ import annotations

import re

from marshmallow import ValidationError, fields

DIGITS = re.compile(r"0|[1-9][0-9]{0,19}")
PATTERN = "^(0|[1-9][0-9]{0,19})$"


class Int64(fields.Field):
    """An integer lo..hi that may pass 2^53: dumped as a decimal string, loaded from a
    decimal string or a JSON number (never a bool, a float or "1e3"). `request`: a field
    of a request, documented as taking either."""

    def __init__(self, lo: int, hi: int, request: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.lo, self.hi, self.request = lo, hi, request

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else str(value)

    def _deserialize(self, value, attr, data, **kwargs) -> int:
        return parse(value, self.lo, self.hi)


def parse(value, lo: int, hi: int) -> int:
    """`value` (a decimal string or an integer) as an int in lo..hi; ValidationError
    otherwise, saying what is wanted."""
    wanted = f"an integer {lo}..{hi}, as a decimal string or a number"
    if isinstance(value, str) and DIGITS.fullmatch(value):
        number = int(value)
    elif type(value) is int:
        number = value
    else:
        raise ValidationError(f"must be {wanted}")
    if not lo <= number <= hi:
        raise ValidationError(f"must be {wanted}")
    return number


def int642properties(self, field, **kwargs) -> dict:
    """apispec attribute function: Int64 as the document writes it. In an answer a string
    of digits; in a request a string or a number, both bounded."""
    if not isinstance(field, Int64):
        return {}
    text = {"type": "string", "format": "uint64" if field.hi >= 2**63 else "int64",
            "pattern": PATTERN}
    if not field.request:
        # (apispec's own null for allow_none looks for a type, which comes only here)
        return {**text, "type": ["string", "null"]} if field.allow_none else text
    return {"oneOf": [text, {"type": "integer", "minimum": field.lo, "maximum": field.hi}]}
