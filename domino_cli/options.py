"""Match options on the command line: read from repeated --option KEY=VALUE (and, for
new-match, --options JSON), checked by the rules core, and listed in --help from the
rules core's own ``Option`` specs (each variant's OPTIONS), so the two never disagree."""

from __future__ import annotations

import json
import textwrap

from engine_service.rules import VARIANTS, new_match

from .failures import USAGE, Failure

OPTION_HELP = ("a rules option (repeatable); the options, their ranges or words and defaults are "
               "listed below")


def parse_options(pairs, json_text: str = "") -> dict:
    """The options given: --options JSON first, then each KEY=VALUE over it: an integer,
    or a word (an enum option's, profile=literal); the rules core checks each."""
    options = {}
    if json_text:
        try:
            options = json.loads(json_text)
        except ValueError as e:
            raise Failure(f"--options is not JSON ({e}); write e.g. --options "
                          "'{\"hands\": 2}', or --option hands=2", USAGE) from None
        if not isinstance(options, dict):
            raise Failure(f"--options must be a JSON object such as {{\"hands\": 2}}, got "
                          f"{json_text[:40]}", USAGE)
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise Failure(f"--option wants KEY=VALUE, e.g. hands=2; got {pair!r}", USAGE)
        try:
            options[key] = int(value)
        except ValueError:
            if not value.isidentifier():
                raise Failure(f"option {key} wants an integer or a word, got {value!r}",
                              USAGE) from None
            options[key] = value
    return options


def effective(variant: str, options: dict) -> dict:
    """Every option of the variant as a match made with ``options`` has it: the rules
    core fills in the defaults and the profile's readings, and refuses an unknown option
    or a value out of range (MalformedInput, which names the option)."""
    return new_match(variant, options).options


def _default(value) -> str:
    return "not set" if value is None else str(value)


def options_help(defaults: dict | None = None, command: str = "") -> str:
    """Every rules option of both games, from the specs: name, range, default, what it
    does. ``defaults`` ({variant: {name: value}}) are the command's own, shown beside the
    rules' (simulate and ladders play a number of hands, not a time limit)."""
    defaults = defaults or {}
    lines = ["rules options (--option KEY=VALUE; ranges, words and defaults from the rules core):"]
    for variant, cls in VARIANTS.items():
        lines.append(f"  {variant}:")
        for o in cls.OPTIONS:
            mine = defaults.get(variant, {})
            default = f"default {_default(o.default)}"
            if o.is_reading:
                default += f" ({o.literal} under profile=literal)"
            if o.name in mine and mine[o.name] != o.default:
                default = f"default {_default(mine[o.name])} in {command} (rules: {_default(o.default)})"
            lines.append(f"    {o.name:12s} {o.domain()}, {default}")
            lines.extend(textwrap.wrap(o.help, 84, initial_indent=" " * 6,
                                       subsequent_indent=" " * 6))
    return "\n".join(lines)
