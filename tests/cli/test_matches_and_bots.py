"""`domino new-match` says what the match is, and `domino bot` says how it goes: the rules
options in --help from the Option specs, the match's limit, progress lines while it lasts,
and a quiet Ctrl-C. Against a real `domino engine` process."""

import functools
import json
import re
import signal

import pytest

from bots.simulate import SIM_DEFAULTS
from domino_wire import game
from engine_service.core.ladders.director import DEFAULT_OPTIONS
from engine_service.rules import VARIANTS

from .support import run, start

SPECS = [(variant, o) for variant, cls in VARIANTS.items() for o in cls.OPTIONS]


def _shown(value):
    return "not set" if value is None else str(value)


@functools.cache
def _help(*command) -> str:
    return run(*command, "--help").stdout


def _option_lines(help_text: str, variant: str) -> dict:
    """name -> its line under the variant's heading in the options list of --help."""
    found = {}
    for line in help_text.split(f"\n  {variant}:\n", 1)[1].splitlines():
        if not line.startswith("    "):
            break       # the next variant's heading, or the end of the list
        if re.match(r"^\w+ +(\d+\.\.\d+|\w+( \| \w+)+), default", line.strip()):
            found[line.split()[0]] = line.strip()
    return found


@pytest.mark.parametrize("variant,spec", SPECS, ids=[f"{v}-{o.name}" for v, o in SPECS])
def test_new_match_help_lists_every_rules_option_with_its_range_and_default(variant, spec):
    lines = _option_lines(_help("new-match"), variant)
    assert lines[spec.name].startswith(f"{spec.name} ")
    assert f"{spec.domain()}, default {_shown(spec.default)}" in lines[spec.name]


@pytest.mark.parametrize("command,defaults", [(("simulate",), SIM_DEFAULTS),
                                              (("ladder", "run"), DEFAULT_OPTIONS)])
def test_simulate_and_ladder_help_show_the_options_and_their_own_defaults(command, defaults):
    text = _help(*command)
    for variant, spec in SPECS:
        line = _option_lines(text, variant)[spec.name]
        own = defaults.get(variant, {}).get(spec.name, spec.default)
        assert f"{spec.domain()}, default {_shown(own)}" in line, line
        if own != spec.default:
            assert f"(rules: {_shown(spec.default)})" in line


def _new_match(engine, *args):
    p = run("new-match", "--engine", engine.address, *args)
    created = json.loads(p.stdout)
    return created, p.stderr.strip()


def test_new_match_without_options_says_it_lasts_sixty_minutes(engine):
    created, said = _new_match(engine, "--variant", "hhl")
    assert said == (f"hhl match {created['match_id']}: ends after 60 minutes (HHL-10's default); "
                    "give --option hands=N to play N hands instead")
    assert len(created["seat_tokens"]) == 4


@pytest.mark.parametrize("args,limit,options", [
    (("--option", "hands=2"), "ends after 2 hands", {"hands": 2, "minutes": None}),
    (("--options", '{"hands": 2}', "--option", "minutes=5"),
     "ends after 2 hands or 5 minutes, whichever comes first", {"hands": 2, "minutes": 5}),
    (("--variant", "domeng"), "ends after 1 game cycle (a cycle ends when a CAMAT is named, or "
     "after 200 rounds); give --option cycles=N for N cycles", {"cycles": 1, "round_cap": 200}),
    (("--variant", "domeng", "--option", "cycles=3"), "ends after 3 game cycles",
     {"cycles": 3}),
])
def test_new_match_says_when_the_match_ends_and_makes_it_so(engine, args, limit, options):
    created, said = _new_match(engine, *args)
    assert said.startswith(f"{'domeng' if 'domeng' in args else 'hhl'} match "
                           f"{created['match_id']}: {limit}")
    made = game.options(engine.client.summary(created["match_id"]).summary.options)
    assert made.items() >= options.items()


@pytest.mark.parametrize("variant,options,words", [
    ("hhl", "hands=60", r"hand \d+, totals( [+-]\d+){4}"),
    ("domeng", "cycles=8", r"round \d+ \(cycle \d+\), STONES held( \d+){5}, table \d+"),
])
def test_bots_print_progress_lines_while_a_long_match_goes_on(engine, tmp_path, variant, options,
                                                              words):
    created, _ = _new_match(engine, "--variant", variant, "--option", options)
    seats = tmp_path / "m.json"
    seats.write_text(json.dumps(created))
    p = run("bot", "--engine", engine.address, "--seats-file", str(seats), "--progress-every",
            "0.1", timeout=60)
    entries = [json.loads(line) for line in p.stdout.splitlines()]
    assert [e["seat"] for e in entries] == list(range(len(created["seat_tokens"])))
    assert all(e["result"] and "error" not in e for e in entries)
    last = len(created["seat_tokens"]) - 1
    # A line names the seats playing so far: on a loaded machine the first may come while
    # the others are still connecting ("seat 0", "seats 0,1", "seats 0-2" of 0-3).
    pattern = re.compile(rf"^domino bot: match {created['match_id']} seats? [0-{last}][0-{last},-]*: "
                         rf"version (\d+), {words} \(\d+ s\)$")
    lines = p.stderr.splitlines()
    versions = [int(m.group(1)) for m in map(pattern.match, lines) if m]
    assert len(versions) >= 2, p.stderr
    assert len(versions) == len(lines), p.stderr          # nothing else on stderr
    assert versions == sorted(set(versions))              # a line only when the match moved on
    # Not a line per move: a line per 0.1 s at most, and greedy bots make many moves in
    # that (some ten on a machine loaded 8 times over its cores).
    assert len(versions) * 2 < sum(e["stats"]["moves"] for e in entries)


def test_ctrl_c_ends_a_bot_quietly(engine, tmp_path):
    created, _ = _new_match(engine)      # 60 minutes: it will not end by itself
    seats = tmp_path / "m.json"
    seats.write_text(json.dumps(created))
    bot = start("bot", "--engine", engine.address, "--seats-file", str(seats),
                "--progress-every", "0.2", "--delay", "0.01")
    try:
        first = bot.stderr.readline()
        assert first.startswith(f"domino bot: match {created['match_id']}"), first
        bot.send_signal(signal.SIGINT)
        out, err = bot.communicate(timeout=30)
    finally:
        bot.kill()
    assert bot.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
