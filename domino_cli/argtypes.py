"""Argument types that refuse a bad number where it is typed, naming the range, instead
of letting it reach a socket, a loop or the engine."""

from __future__ import annotations

import argparse
import os

from engine_service.rules.match import MAX_SEED


def integer(lo: int, hi: int | None = None, what: str = "an integer"):
    """An argparse type: an integer in lo..hi (no upper bound when hi is None)."""
    bounds = f"{lo}..{hi}" if hi is not None else f"at least {lo}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"wants {what} ({bounds}), got {text!r}") from None
        if value < lo or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"wants {what} {bounds}, got {value}")
        return value

    parse.__name__ = what
    return parse


def seconds(lo: float = 0.0):
    """An argparse type: a number of seconds, at least lo."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"wants a number of seconds, got {text!r}") from None
        if not value >= lo:     # also refuses nan
            raise argparse.ArgumentTypeError(f"wants a number of seconds of at least {lo:g}, "
                                             f"got {text}")
        return value

    parse.__name__ = "seconds"
    return parse


PORT = integer(0, 65535, "a port")
SEED = integer(0, MAX_SEED, "a seed")
COUNT = integer(0)          # 0 allowed: "none" or "the default", as each option says
POSITIVE = integer(1)

ENGINE_HELP = ("HOST:PORT of the engine, or A,B,C: engines of a cluster (a request goes to "
               "the engine that owns its match; docs/cluster.md)")

# Where every command that talks to an engine finds it unless told: DOMINO_ENGINE, so that
# one variable points a whole shell at an engine.
ENGINE_DEFAULT = os.environ.get("DOMINO_ENGINE") or "127.0.0.1:50051"
ENGINE_DEFAULT_HELP = ENGINE_HELP + " (default: DOMINO_ENGINE, or 127.0.0.1:50051)"
