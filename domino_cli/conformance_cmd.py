"""`domino conformance -- CMD ARGS...`: run a bot program through the kit's battery of
scripted situations and print a table of cases, each pass, fail or skip with a reason."""

from __future__ import annotations

import argparse
import json
import sys

from .failures import FAILED, USAGE

HELP = """Run a bot program under test through scripted situations on a kit engine.

The kit starts CMD once per scripted match, with the environment naming what to play:
  DOMINO_ENGINE       HOST:PORT of the kit's engine (the Play, Engine and Ladder services)
  DOMINO_MATCH        the match id
  DOMINO_SEAT         the seat number (0..N-1)
  DOMINO_SEAT_TOKEN   the seat's token
With --pool, instead: DOMINO_ENGINE, DOMINO_POOL, DOMINO_POOL_SECRET, DOMINO_POOL_NAME,
DOMINO_POOL_CAPACITY (matches at once) and DOMINO_POOL_MATCHES (play that many, then exit).
With --arena, instead: DOMINO_ENGINE, DOMINO_ARENA (hhl or domeng), DOMINO_BOT_VERSION and
DOMINO_BOT_KEY, the key of a bot the kit registered: the bot plays in that arena.

Cases: the first turn; a refused move and its retry (stale version, illegal tile, unknown
id); HHL: the forced draw-and-play, a double's mode, an arm closed by a barricade; Domeng:
a PASS and a PASSEBUNGE made by the engine; an engine restart mid-match; the match over
(the bot exits with status 0); a short turn clock; with --pool, capacity and several
matches at once; with --arena, a registered bot alone in the arena, seated with the
residents, whose match is counted with no fault at its seat. The exit status is 0 only if
every case passes.

  domino conformance -- domino bot --strategy heuristic
  domino conformance --variant domeng -- node bots/js/bot.js
  domino conformance --pool -- domino bot --strategy greedy
  domino conformance --arena --variant hhl -- node bots/js/bot.js
"""


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser(
        "conformance", help="test a bot program (any language) against scripted situations",
        formatter_class=argparse.RawDescriptionHelpFormatter, description=HELP,
        usage="domino conformance [--variant hhl|domeng|both] [--pool | --arena] [--json] "
        "[--cases NAME,...] -- CMD ARGS...")
    p.add_argument("--variant", choices=["hhl", "domeng", "both"], default="both",
                   help="the game(s) whose cases run (default both)")
    p.add_argument("--pool", action="store_true", help="the bot is a pool bot: it enlists in "
                   "DOMINO_POOL instead of playing one seat")
    p.add_argument("--arena", action="store_true", help="the bot is a registered arena bot: "
                   "it opens a lobby in DOMINO_ARENA with DOMINO_BOT_KEY (the arena case only)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--cases", default="", metavar="NAME,...",
                   help="run only these cases (names as in the table, e.g. refusal-stale,clock)")
    p.add_argument("bot_command", nargs=argparse.REMAINDER, metavar="-- CMD ARGS...",
                   help="the bot program and its arguments")
    p.set_defaults(func=run_conformance)


def battery(variant: str, pool: bool, names: str) -> list:
    from .conformance.cases import battery as seat_battery
    from .conformance.cases import pool_battery

    variants = ["hhl", "domeng"] if variant == "both" else [variant]
    cases = [c for v in variants for c in seat_battery(v) + (pool_battery(v) if pool else [])]
    if names:
        wanted = [n.strip() for n in names.split(",") if n.strip()]
        known = {c.name for c in cases}
        unknown = [n for n in wanted if n not in known]
        if unknown:
            raise SystemExit(f"domino conformance: no case {unknown[0]!r}; the cases are "
                             f"{', '.join(dict.fromkeys(c.name for c in cases))}")
        cases = [c for c in cases if c.name in wanted]
    return cases


def run_conformance(args) -> int:
    import asyncio
    import tempfile
    import time

    from .conformance.bot import cannot_start
    from .conformance.cases import PASS
    from .conformance.kit import Kit
    from .conformance.report import as_json, as_table, progress_line

    command = args.bot_command[1:] if args.bot_command[:1] == ["--"] else args.bot_command
    if not command:
        print("domino conformance: give the bot's command after --, e.g. "
              "`domino conformance -- domino bot`", file=sys.stderr)
        return USAGE
    why = cannot_start(command)
    if why:
        print(f"domino conformance: {why}", file=sys.stderr)
        return USAGE
    if args.arena and (args.pool or args.cases):
        print("domino conformance: --arena runs the arena case alone (no --pool, --cases)",
              file=sys.stderr)
        return USAGE
    cases = [] if args.arena else battery(args.variant, args.pool, args.cases)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="domino-conformance-") as workdir:
        show = None if args.json else (lambda o: print(progress_line(o), file=sys.stderr,
                                                       flush=True))
        kit = Kit(command, workdir, pool=args.pool, progress=show)
        try:
            if args.arena:
                outcomes = asyncio.run(arena_cases(command, workdir, args.variant, show))
            else:
                outcomes = asyncio.run(kit.run(cases))
        except KeyboardInterrupt:
            kit.kill_bots()
            raise
    seconds = time.monotonic() - t0
    if args.json:
        print(json.dumps(as_json(command, args, outcomes, seconds), indent=2))
    else:
        print(as_table(outcomes, seconds))
    return 0 if all(o.verdict == PASS for o in outcomes) else FAILED


async def arena_cases(command: list[str], workdir: str, variant: str, show) -> list:
    from .conformance.arena import run_arena

    outcomes = []
    for v in (["hhl", "domeng"] if variant == "both" else [variant]):
        outcomes.append(await run_arena(command, workdir, v))
        if show:
            show(outcomes[-1])
    return outcomes
