"""Whole-number settings from the environment, each refused as itself when it is wrong.

An operator's typo in a variable must be said with the variable's name, before anything
starts, never read as some other number ("²" is a digit to str.isdigit, not to int) or
taken for a database that is away."""

from __future__ import annotations

import os


class BadSetting(ValueError):
    pass


def whole_number(name: str, default: int, low: int, high: int, unit: str) -> int:
    """os.environ[name] as an int in low..high (`default` when unset or blank); BadSetting
    naming the variable otherwise."""
    given = os.environ.get(name, "").strip()
    if not given:
        return default
    if not (given.isascii() and given.isdigit()) or not low <= int(given) <= high:
        raise BadSetting(f"{name} must be a whole number of {unit} from {low} to {high}, "
                         f"not {given[:20]!r}")
    return int(given)
