"""The ``domino`` command: one entry point, a subcommand per job.

domino_cli is the composition root: the one package that imports every other (the rules,
the engine, the bots, the gateway, the ladders). Each subcommand lives in a module of its
own that registers it with ``add_subcommands``.
"""

import argparse
import sys

from engine_service.rules import IllegalMove, MalformedInput

from . import bot_cmd, engine_cmd, keys_cmd, ladder_cmd, local, serve_cmd

COMMANDS = (local, engine_cmd, bot_cmd, serve_cmd, ladder_cmd, keys_cmd)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="domino", description="Dominoes game server: HHL and Domeng.")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_subcommands(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "matches", 1) < 1:
        raise SystemExit("domino: --matches must be at least 1")
    try:
        return args.func(args)
    except (MalformedInput, IllegalMove, ValueError) as e:
        print(f"domino {args.command}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
