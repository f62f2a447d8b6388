"""When a match ends, in one sentence: a match made without options is an HHL match of 60
minutes (HHL-10), which a user meant as a few hands more often than not."""

from __future__ import annotations

from .options import effective


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def limit_sentence(variant: str, given: dict) -> str:
    """How a match of ``variant`` made with the options ``given`` ends, and, when that is
    the rules' default, how to ask for something else."""
    o = effective(variant, given)
    if variant == "hhl":
        hands, minutes = o["hands"], o["minutes"]
        if hands is not None and minutes is not None:
            return (f"ends after {_plural(hands, 'hand')} or {_plural(minutes, 'minute')}, "
                    "whichever comes first")
        if hands is not None:
            return f"ends after {_plural(hands, 'hand')}"
        if "minutes" in given:
            return (f"ends after {_plural(minutes, 'minute')} (the hand in progress then is "
                    "played out)")
        return (f"ends after {_plural(minutes, 'minute')} (HHL-10's default); give --option "
                "hands=N to play N hands instead")
    cycles = _plural(o["cycles"], "game cycle")
    sentence = (f"ends after {cycles} (a cycle ends when a CAMAT is named, or after "
                f"{o['round_cap']} rounds)")
    if "cycles" not in given:
        sentence += "; give --option cycles=N for N cycles"
    return sentence
