"""`domino ladder run` and `domino ladder standings`: bot ladders from the command line.

`run` uses a running engine (--engine) or starts its own, creates the ladder, launches each
built-in entrant as its own `domino bot` process enlisted in the ladder's pool for it,
shows live progress, and prints the final standings. External bots (any language) join
with --external NAME: they enlist themselves in pool "<key>/<NAME>" (the key is printed).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time

import grpc

from domino_proto.domino.v1 import ladder_pb2
from domino_wire import game
from domino_wire import ladders as wire_ladders
from domino_wire.names import LADDER_FORMAT, LADDER_STATUS, VARIANT
from domino_wire.routing import Router
from engine_service.rules import NUM_SEATS as SEATS
from ladders.formats import FORMATS

from .argtypes import COUNT, ENGINE_DEFAULT, ENGINE_DEFAULT_HELP, POSITIVE, SEED
from .failures import USAGE, Failure, from_rpc
from .ladder_view import print_standings, progress_display
from .options import OPTION_HELP, effective, options_help, parse_options
from .processes import DOMINO, signals_held, start_engine, stop_processes

UNREACHABLE_S = 120  # how long the engine may be away (e.g. restarting) before we give up


def _run_options() -> str:
    from engine_service.core.ladders.director import DEFAULT_OPTIONS

    return (options_help(DEFAULT_OPTIONS, "ladder run") + "\n\nGiving a length (hands, "
            "minutes; cycles, round_cap) replaces the ladder's defaults: --option\nminutes=5 "
            "alone plays 5 minutes a match, with no number of hands. The profile and\nits "
            "readings join the defaults: --option profile=literal plays them by the letter.")


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("ladder", help="bot ladders: run one, or show standings")
    sub = p.add_subparsers(dest="ladder_command", required=True)
    r = sub.add_parser("run", help="run a ladder of bots and print its standings",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_run_options)
    r.add_argument("--variant", choices=sorted(SEATS), required=True)
    r.add_argument("--bots", required=True, help="built-in strategies as entrants, comma-separated; "
                   "oracle and ceiling enter as yardsticks the engine plays itself (the oracle sees "
                   "every hand; ceiling is the expert with ten times its budget)")
    r.add_argument("--external", action="append", default=[], metavar="NAME",
                   help="an entrant that enlists by itself (any language); repeatable")
    r.add_argument("--format", choices=FORMATS, default=FORMATS[0])
    r.add_argument("--matches", dest="ladder_matches", type=COUNT, default=0,
                   help="counted matches to play")
    r.add_argument("--until-separated", action="store_true",
                   help="play until every neighbour pair is separated at 95%% confidence")
    r.add_argument("--max-matches", type=POSITIVE, default=2000, help="cap for --until-separated")
    r.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    r.add_argument("--seed", type=SEED)
    r.add_argument("--concurrency", type=POSITIVE, default=4, help="matches at once")
    r.add_argument("--clock-ms", type=COUNT, default=0, help="turn clock per seat (default 10000)")
    r.add_argument("--seat-wait", type=POSITIVE, default=30,
                   help="seconds a seat waits for its bot before it is played as a no-show")
    r.add_argument("--engine", help="HOST:PORT of a running engine, or A,B,C: engines of a "
                   "cluster (default: start one)")
    r.add_argument("--db", help="the started engine's store (default: a temporary file, "
                   "removed at the end)")
    r.add_argument("--log", metavar="FILE", help="keep the engine's and the bots' logs in FILE "
                   "(appended; default: a temporary file, removed at the end)")
    r.add_argument("--json", action="store_true", help="print the final standings as JSON")
    r.add_argument("--key", default=os.environ.get("DOMINO_API_KEY", ""),
                   help="operator API key for --engine, when it needs one (default: the "
                   "environment variable DOMINO_API_KEY)")
    r.set_defaults(func=run_ladder)
    c = sub.add_parser("cancel", help="cancel a running ladder (its creator's key, or "
                       "--operator on the store)")
    c.add_argument("ladder_id")
    c.add_argument("--engine", default=ENGINE_DEFAULT, help=ENGINE_DEFAULT_HELP)
    c.add_argument("--key", default=os.environ.get("DOMINO_API_KEY", ""),
                   help="the API key that created it (default: DOMINO_API_KEY)")
    c.add_argument("--operator", action="store_true",
                   help="cancel any ladder, as the operator: on the store itself (--db), "
                   "like `domino keys`; its engine stops it within seconds")
    c.add_argument("--db", help="the engines' store, with --operator (default: the "
                   "engine's default store)")
    c.set_defaults(func=cancel_ladder)
    s = sub.add_parser("standings", help="show a ladder's standings")
    s.add_argument("ladder_id")
    s.add_argument("--engine", default=ENGINE_DEFAULT, help=ENGINE_DEFAULT_HELP)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=show_standings)


# ----- talking to the engine ----------------------------------------------------------------
def _print(args, d: dict) -> None:
    if args.json:
        print(json.dumps(d, indent=2))
    else:
        print_standings(d, args.variant, sys.stdout)


def _print_partial(args, latest) -> None:
    """After a Ctrl-C: the standings of the matches counted so far, said to be partial."""
    if latest is None:
        print("domino ladder run: interrupted before any match was counted: no standings",
              file=sys.stderr, flush=True)
        return
    counted, standings = latest
    print(f"domino ladder run: interrupted; the standings after {counted} counted "
          f"match{'' if counted == 1 else 'es'} (partial):", file=sys.stderr, flush=True)
    _print(args, standings_dict(standings))


def _call(router: Router, method: str, request, patience: float = 0.0, key: str = ""):
    """One call of the Ladder service, sent to the engine that owns the ladder (a
    cluster's engines redirect; Router follows). While a ladder runs, the engines may be
    away for a while (restarting): then it is tried again for ``patience`` seconds. A first
    call gets none, so a wrong address says so at once."""
    deadline = time.monotonic() + patience
    metadata = (("authorization", f"Bearer {key}"),) if key else ()
    about = getattr(request, "ladder_id", "")
    while True:
        try:
            return router.call(method, request, about=about, service="Ladder", metadata=metadata)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise from_rpc(e, router.engine_of(about)) from None
            time.sleep(0.5)


def standings_dict(s: ladder_pb2.Standings) -> dict:
    """The standings as domino_wire shapes them (REST shows the same), without the history."""
    d = wire_ladders.standings(s)
    del d["history"]
    return d


def show_standings(args) -> int:
    with contextlib.closing(Router(args.engine)) as router:
        get = ladder_pb2.GetLadderRequest(ladder_id=args.ladder_id)
        info = _call(router, "GetLadder", get)
        s = _call(router, "GetStandings", get)
    d = standings_dict(s)
    if args.json:
        print(json.dumps(d, indent=2))
    else:
        print_standings(d, VARIANT.word(info.variant), sys.stdout)
    return 0


def cancel_ladder(args) -> int:
    if args.operator:
        return _cancel_as_operator(args)
    with contextlib.closing(Router(args.engine)) as router:
        info = _call(router, "CancelLadder", ladder_pb2.GetLadderRequest(ladder_id=args.ladder_id),
                     key=args.key)
    print(f"ladder {info.ladder_id} {LADDER_STATUS.word(info.status)}: "
          f"{info.matches_counted} matches counted")
    return 0


def _cancel_as_operator(args) -> int:
    """The operator's cancel: whoever holds the store may stop any ladder (a key revoked,
    or lost, cannot). Written to the store; the engine directing the ladder reads its row
    every few seconds and stops it there."""
    from engine_service.core.ladders.director import STORE_POLL_S

    from .engine_cmd import DEFAULT_DB
    from .keys_cmd import _store

    store = _store(args.db or DEFAULT_DB, create=False)
    try:
        refused = store.ladders.cancel(args.ladder_id, "cancelled by an operator")
    finally:
        store.close()
    if refused:
        raise Failure(f"cannot cancel: {refused}")
    print(f"ladder {args.ladder_id} cancelled (its engine stops it within "
          f"{STORE_POLL_S:.0f} s)")
    return 0


# ----- run ------------------------------------------------------------------------------------
def bot_command(engine: str, key: str, entrant: str, streams: int, capacity: int, seed: int) -> list[str]:
    """`domino bot` arguments for one built-in entrant: enough streams to hold every seat it
    may have in one match, each playing ``capacity`` matches at once."""
    return ["bot", "--engine", engine, "--strategy", entrant,
            "--pool", f"{key}/{entrant}", "--name", entrant, "--bots", str(streams),
            "--capacity", str(capacity), "--matches", "0", "--give-up", "0", "--seed", str(seed)]


# Set by a SIGINT or SIGTERM. In full test runs a SIGINT was seen to leave the run going
# (its cause not found). The handlers are installed here for both signals, so a SIGINT
# ignored by inheritance is caught too, and they also record the signal, which the run's
# loop checks, in case the exception they raise gets lost on the way.
_STOPPED: list[int] = []


@contextlib.contextmanager
def _terminated_like_interrupted():
    """SIGTERM ends the command the way Ctrl-C does, through every clean-up on the way
    out (the bots, the engine, the temporary folder), with the status a shell expects."""
    def stop(signum, _):
        _STOPPED.append(signum)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _stop_if_signalled() -> None:
    """End the run if a signal came whose exception was lost (see _STOPPED)."""
    if _STOPPED:
        if _STOPPED[0] == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signal.SIGTERM)


def run_ladder(args) -> int:
    from bots.strategies import STRATEGIES, YARDSTICKS

    builtin = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in builtin if b not in STRATEGIES]
    if unknown:
        raise Failure(f"unknown strategy {', '.join(unknown)}; built-in: "
                      f"{', '.join(STRATEGIES)}", USAGE)
    # The yardsticks (the oracle sees every hand; ceiling is the slow expert): the engine
    # plays them in process.
    yardsticks = [b for b in builtin if b in YARDSTICKS]
    builtin = [b for b in builtin if b not in YARDSTICKS]
    entrants = builtin + args.external
    if not args.until_separated and args.ladder_matches < 1:
        raise Failure("give --matches N or --until-separated", USAGE)
    options = parse_options(args.option)
    if options:
        effective(args.variant, options)    # a bad option is refused before anything starts
    # Everything the run leaves on disk is in workdir, unless asked for (--db, --log);
    # the stack removes it however the command ends, after the processes that use it.
    with _terminated_like_interrupted(), contextlib.ExitStack() as stack:
        workdir = stack.enter_context(tempfile.TemporaryDirectory(prefix="domino-ladder-"))
        log = stack.enter_context(open(args.log or os.path.join(workdir, "ladder.log"), "a"))
        procs: list[subprocess.Popen] = []
        stack.callback(stop_processes, procs)
        address = args.engine
        if address is None:
            db = args.db or os.path.join(workdir, "engine.sqlite3")
            with signals_held():
                engine_proc, port = start_engine("127.0.0.1", 0, db, log=log)
                procs.append(engine_proc)
            address = f"127.0.0.1:{port}"
        return _run(args, address, entrants, builtin, options, log, procs, yardsticks)


def _run(args, address: str, entrants: list[str], builtin: list[str], options: dict, log,
         procs: list, yardsticks: list[str]) -> int:
    with contextlib.closing(Router(address)) as router:
        request = ladder_pb2.CreateLadderRequest(
            variant=VARIANT.number(args.variant),
            options=game.options_pb(args.variant, options),
            entrants=entrants, format=LADDER_FORMAT.number(args.format),
            matches=args.ladder_matches,
            until_separated=args.until_separated, max_matches=args.max_matches,
            concurrency=args.concurrency, clock_ms=args.clock_ms, seat_wait_s=args.seat_wait,
            yardsticks=yardsticks)
        if args.seed is not None:
            request.seed = args.seed
        created = _call(router, "CreateLadder", request, key=args.key)
        info = created.ladder
        enlist = {p.entrant: p for p in created.pools}
        logs = f"logs in {args.log}" if args.log else "give --log FILE to keep the logs"
        print(f"ladder {info.ladder_id} on {router.engine_of(info.ladder_id)}: {args.variant}, "
              f"{args.format}, {', '.join(info.entrants)}; {logs}", file=sys.stderr, flush=True)
        for name in args.external:   # the secrets for the bots the user runs
            print(f"  external entrant {name}: enlist in pool {enlist[name].pool} with "
                  f"DOMINO_POOL_SECRET={enlist[name].enlist_secret}", file=sys.stderr,
                  flush=True)
        streams = math.ceil(SEATS[args.variant] / len(info.entrants))
        bot_seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        for k, entrant in enumerate(builtin):
            cmd = bot_command(address, info.key, entrant, streams, args.concurrency,
                              bot_seed * 31 + k)
            env = {**os.environ, "DOMINO_POOL_SECRET": enlist[entrant].enlist_secret}
            with signals_held():
                procs.append(subprocess.Popen([*DOMINO, *cmd], stdout=subprocess.DEVNULL,
                                              stderr=log, env=env))
        get = ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id)
        # The standings as of the latest counted match, fetched as each one is counted: a
        # Ctrl-C prints them (the engine may be stopping by then, from the same Ctrl-C).
        latest = None
        try:
            with progress_display(sys.stderr) as shown:
                while info.status == ladder_pb2.LADDER_STATUS_RUNNING:
                    _stop_if_signalled()
                    time.sleep(0.5)
                    info = _call(router, "GetLadder", get, UNREACHABLE_S)
                    if info.matches_counted and (latest is None
                                                 or latest[0] != info.matches_counted):
                        latest = (info.matches_counted,
                                  _call(router, "GetStandings", get, UNREACHABLE_S))
                    shown.update(info)   # after: a count shown has its standings kept
                shown.update(info, final=True)
        except KeyboardInterrupt:
            _print_partial(args, latest)
            raise
        d = standings_dict(_call(router, "GetStandings", get, UNREACHABLE_S))
    _print(args, d)
    if info.status != ladder_pb2.LADDER_STATUS_DONE:
        raise Failure(f"the ladder is {LADDER_STATUS.word(info.status)}"
                      + (f": {info.error}" if info.error else ""))
    return 0
