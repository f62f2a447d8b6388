"""`domino COMMAND` imports the module of COMMAND alone (domino_cli/main.py COMMANDS): the
table must name every command each module registers, and a command must not pay for the
others' imports."""

import importlib
import subprocess
import sys

from domino_cli.main import COMMANDS, Parser, build_parser


def registered_by(module: str) -> list[str]:
    p = Parser(prog="domino")
    sub = p.add_subparsers(dest="command")
    importlib.import_module(f"domino_cli.{module}").add_subcommands(sub)
    return list(sub.choices)


def test_the_table_names_every_command_of_every_module_and_no_other():
    for module in set(COMMANDS.values()):
        assert registered_by(module) == [c for c, m in COMMANDS.items() if m == module], module
    everything = next(a for a in build_parser()._actions if a.dest == "command").choices
    assert list(everything) == list(COMMANDS)


def test_a_command_does_not_import_the_other_commands_modules():
    code = ("import sys; from domino_cli.main import build_parser; build_parser('bot'); "
            "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    loaded = done.stdout.split()
    heavy = [m for m in loaded if m.split(".")[0] in ("analysis", "gateway", "ladders")
             or m.startswith(("domino_cli.analyse_cmd", "domino_cli.serve_cmd",
                              "engine_service.core.storage"))]
    assert not heavy, heavy
    assert "domino_cli.bot_cmd" in loaded


def test_an_unknown_command_lists_every_command():
    done = subprocess.run([sys.executable, "-m", "domino_cli", "simulat"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "invalid choice: 'simulat'" in done.stderr and "analyse" in done.stderr, done.stderr
