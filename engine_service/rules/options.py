"""Rules options: what a match may choose of its rules (docs/rules.md), each with its
default, and the rules profile, which chooses the readings of three rulings together.

An option is an integer in lo..hi, or one of a few words (an *enum* option: ``choices``,
the first of which is its default). Three rulings read a sentence of a rule text
otherwise than its letter (docs/rules.md, "Where a ruling departs from the literal
text"): each has a *reading* option whose default word is the ruling and whose other
word, ``literal``, is the text's letter:

    HHL-8   dead_stock    stop  | draw    (engine_service/rules/hhl.py)
    DOM-8   closing_pass  free  | paid    (engine_service/rules/domeng.py)
    DOM-2   first_lead    double | any    (engine_service/rules/domeng.py)

``profile`` (``rulings`` | ``literal``) sets every reading of its variant at once; a
reading given on its own wins over the profile. The effective options (``effective``)
are what a match keeps, a view shows and a record stores, and they are a fixed point:
normalizing them again gives them back, so a record replays under its own profile.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import MalformedInput, shown

RULINGS, LITERAL = "rulings", "literal"   # the two profiles


class Option(NamedTuple):
    """One rules option of a variant. An integer option has ``lo``..``hi`` and no
    ``choices``; an enum option has its ``choices`` (words; the first is its default) and
    no range (lo and hi None). ``literal`` marks a reading: the word profile=literal sets.
    A default of None means "not set" (HHL hands)."""
    name: str
    default: int | str | None
    lo: int | None
    hi: int | None
    help: str
    choices: tuple[str, ...] = ()
    literal: str | None = None

    @classmethod
    def words(cls, name: str, choices: tuple[str, ...], help: str,
              literal: str | None = None) -> Option:
        """An enum option whose default is its first word."""
        return cls(name, choices[0], None, None, help, tuple(choices), literal)

    @property
    def is_enum(self) -> bool:
        return bool(self.choices)

    @property
    def is_reading(self) -> bool:
        """A ruling's reading: set by the profile unless given on its own."""
        return self.literal is not None

    def domain(self) -> str:
        """What it takes, in words: "1..1440" or "stop | draw"."""
        return " | ".join(self.choices) if self.choices else f"{self.lo}..{self.hi}"

    def refusal(self, value) -> str | None:
        """Why ``value`` (not None) is no value of this option; None when it is one."""
        if self.choices:
            if type(value) is str and value in self.choices:
                return None
            return f"option {self.name} must be one of {', '.join(self.choices)}, got {shown(value, 20)}"
        if type(value) is int and self.lo <= value <= self.hi:
            return None
        return f"option {self.name} must be an integer {self.lo}..{self.hi}, got {shown(value, 20)}"


PROFILE = Option.words(
    "profile", (RULINGS, LITERAL),
    "rulings: the project's rulings (the default); literal: the rule text's letter where "
    "three rulings depart from it (HHL-8, DOM-8, DOM-2). Sets each reading of the variant "
    "that is not given on its own (docs/rules.md, 'Where a ruling departs from the literal "
    "text')")


def normalize(specs: tuple[Option, ...], variant: str, options) -> dict:
    """Every option of the variant as a match made with ``options`` has it: defaults
    filled in, then the profile's readings for the readings not given (a given value of
    None is not given). Refuses an unknown option or a value it does not take
    (MalformedInput naming ``options.NAME``)."""
    if not isinstance(options, dict):
        raise MalformedInput("options must be an object", "options")
    by_name = {o.name: o for o in specs}
    for key in options:
        if key not in by_name:
            raise MalformedInput(f"unknown option {shown(key)} for {variant}; known: "
                                 f"{', '.join(by_name)}", f"options.{str(key)[:40]}")
    out = {o.name: o.default for o in specs}
    for key, value in options.items():
        if value is not None:
            why = by_name[key].refusal(value)
            if why is not None:
                raise MalformedInput(why, f"options.{key}")
        out[key] = value
    literal = out.get(PROFILE.name) == LITERAL
    for o in specs:
        if o.is_reading and options.get(o.name) is None:
            out[o.name] = o.literal if literal else o.default
    if out.get(PROFILE.name) is None:
        out[PROFILE.name] = PROFILE.default
    return out


def of_view(view, option: Option):
    """The value of a rules option in a view (Match.view carries the match's options);
    a view written without options (by hand, in a test) plays the option's default."""
    options = view.get("options")
    value = None if options is None else options.get(option.name)
    return option.default if value is None else value
