"""The ``domino`` command: one entry point, a subcommand per job.

domino_cli is the composition root: the one package that imports every other (the rules,
the engine, the bots, the gateway, the ladders). Each subcommand lives in a module of its
own that registers it with ``add_subcommands``. A user's mistake ends any of them with
one line on stderr (failures.py), never a traceback.
"""

import argparse
import importlib
import os
import signal
import sys
import threading

from engine_service.rules import IllegalMove, MalformedInput

from . import failures

# Each command word and the module that registers it. A run imports the module of its own
# command only: every process the product starts (an engine, a bot, a ladder's bots) runs
# `domino ...`, and importing every command's modules (analysis, the gateway, the storage
# backends) cost each of them CPU it did not need (`domino bot --help`: 0.18 CPU-seconds
# with every module, 0.07 with its own). Without a known command word (`domino --help`, a
# typo) every module is imported, so the usage lists them all.
# tests/cli/test_command_table.py checks this table against what the modules register.
COMMANDS = {"simulate": "local", "replay": "local", "demo": "local", "fork": "fork_cmd",
            "engine": "engine_cmd", "new-match": "engine_cmd", "record": "record_cmd",
            "bot": "bot_cmd", "serve": "serve_cmd", "gateway": "serve_cmd",
            "ladder": "ladder_cmd", "arena": "arena_cmd", "keys": "keys_cmd",
            "pools": "keys_cmd", "conformance": "conformance_cmd", "analyse": "analyse_cmd"}


class Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line (the usage it would print first hides it);
    subcommands' parsers are made of this class too."""

    def error(self, message):
        self.exit(failures.USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def format_help(self):
        # An epilog may be a function: help that imports a command's heavy modules is only
        # made when asked for, not on every run.
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone (its module's commands)."""
    p = Parser(prog="domino", description="Dominoes game server: HHL and Domeng.")
    sub = p.add_subparsers(dest="command", required=True)
    names = [COMMANDS[command]] if command in COMMANDS else dict.fromkeys(COMMANDS.values())
    for name in names:
        importlib.import_module(f"{__package__}.{name}").add_subcommands(sub)
    return p


def _say(args, message: str) -> None:
    sub = [v for k, v in vars(args).items() if k.endswith("_command") and isinstance(v, str)]
    command = " ".join([args.command, *sub])
    print(f"domino {command}: {message}", file=sys.stderr, flush=True)


def main(argv=None) -> int:
    # A process inherits its parent's blocked signals, and a parent running gRPC threads
    # may spawn us with SIGINT and SIGTERM blocked: they would then never arrive, and a
    # Ctrl-C or a `kill` would be lost. Every command handles them, so they are unblocked.
    if threading.current_thread() is threading.main_thread():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    argv = sys.argv[1:] if argv is None else list(argv)
    # the command word is the first argument: `domino` takes no option before it but --help
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return failures.INTERRUPTED     # the user asked for it: nothing to explain
    except BrokenPipeError:
        # The reader went away (`domino demo | head`): stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return failures.FAILED
    except (MalformedInput, IllegalMove) as e:
        _say(args, getattr(e, "message", None) if isinstance(e, MalformedInput) else str(e))
        return failures.USAGE
    except Exception as e:
        failure = failures.describe(e, getattr(args, "engine", None))
        if failure is None:
            raise
        _say(args, failure.message)
        return failure.status


if __name__ == "__main__":
    sys.exit(main())
