"""The ``domino`` command: one entry point, a subcommand per job.

domino_cli is the composition root: the one package that imports every other (the rules,
the engine, the bots, the gateway, the ladders). Each subcommand lives in a module of its
own that registers it with ``add_subcommands``. A user's mistake ends any of them with
one line on stderr (failures.py), never a traceback.
"""

import argparse
import os
import signal
import sys
import threading

from engine_service.rules import IllegalMove, MalformedInput

from . import (
    analyse_cmd,
    arena_cmd,
    bot_cmd,
    conformance_cmd,
    engine_cmd,
    failures,
    fork_cmd,
    keys_cmd,
    ladder_cmd,
    local,
    record_cmd,
    serve_cmd,
)

COMMANDS = (local, fork_cmd, engine_cmd, record_cmd, bot_cmd, serve_cmd, ladder_cmd, arena_cmd,
            keys_cmd,
            conformance_cmd, analyse_cmd)


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


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="domino", description="Dominoes game server: HHL and Domeng.")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_subcommands(sub)
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
    args = build_parser().parse_args(argv)
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
