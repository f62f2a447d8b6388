"""`domino ladder run` and `domino ladder standings`: bot ladders from the command line.

`run` uses a running engine (--engine) or starts its own, creates the ladder, launches each
built-in entrant as its own `domino bot` process enlisted in the ladder's pool for it,
shows live progress, and prints the final standings. External bots (any language) join
with --external NAME: they enlist themselves in pool "<key>/<NAME>" (the key is printed).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import subprocess
import sys
import tempfile
import time

import grpc

from domino_proto.domino.v1 import ladder_pb2, ladder_pb2_grpc
from domino_wire import ladders as wire_ladders
from domino_wire.names import LADDER_FORMAT, LADDER_STATUS, VARIANT
from engine_service.rules import NUM_SEATS as SEATS
from ladders.formats import FORMATS

from .options import parse_options
from .processes import DOMINO, start_engine, stop_processes

UNREACHABLE_S = 120  # how long the engine may be away (e.g. restarting) before we give up


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("ladder", help="bot ladders: run one, or show standings")
    sub = p.add_subparsers(dest="ladder_command", required=True)
    r = sub.add_parser("run", help="run a ladder of bots and print its standings")
    r.add_argument("--variant", choices=sorted(SEATS), required=True)
    r.add_argument("--bots", required=True, help="built-in strategies as entrants, comma-separated")
    r.add_argument("--external", action="append", default=[], metavar="NAME",
                   help="an entrant that enlists by itself (any language); repeatable")
    r.add_argument("--format", choices=FORMATS, default=FORMATS[0])
    r.add_argument("--matches", dest="ladder_matches", type=int, default=0, help="counted matches to play")
    r.add_argument("--until-separated", action="store_true",
                   help="play until every neighbour pair is separated at 95%% confidence")
    r.add_argument("--max-matches", type=int, default=2000, help="cap for --until-separated")
    r.add_argument("--option", action="append", metavar="KEY=VALUE", help="match option, e.g. hands=4")
    r.add_argument("--seed", type=int)
    r.add_argument("--concurrency", type=int, default=4, help="matches at once")
    r.add_argument("--clock-ms", type=int, default=0, help="turn clock per seat (default 10000)")
    r.add_argument("--seat-wait", type=int, default=30,
                   help="seconds a seat waits for its bot before it is played as a no-show")
    r.add_argument("--engine", help="HOST:PORT of a running engine (default: start one)")
    r.add_argument("--db", help="the started engine's store (default: a temporary file)")
    r.add_argument("--json", action="store_true", help="print the final standings as JSON")
    r.add_argument("--key", default=os.environ.get("DOMINO_API_KEY", ""),
                   help="operator API key for --engine, when it needs one (default: the "
                   "environment variable DOMINO_API_KEY)")
    r.set_defaults(func=run_ladder)
    c = sub.add_parser("cancel", help="cancel a running ladder (its creator's key)")
    c.add_argument("ladder_id")
    c.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    c.add_argument("--key", default=os.environ.get("DOMINO_API_KEY", ""),
                   help="the API key that created it (default: DOMINO_API_KEY)")
    c.set_defaults(func=cancel_ladder)
    s = sub.add_parser("standings", help="show a ladder's standings")
    s.add_argument("ladder_id")
    s.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=show_standings)


# ----- talking to the engine ----------------------------------------------------------------
def _call(fn, request, patience: float = UNREACHABLE_S, key: str = ""):
    """One call, retried while the engine is unreachable (it may be restarting)."""
    deadline = time.monotonic() + patience
    metadata = (("authorization", f"Bearer {key}"),) if key else ()
    while True:
        try:
            return fn(request, timeout=10, metadata=metadata)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise SystemExit(f"domino ladder: {e.code().name}: {e.details()}") from None
            time.sleep(0.5)


def standings_dict(s: ladder_pb2.Standings) -> dict:
    """The standings as domino_wire shapes them (REST shows the same), without the history."""
    d = wire_ladders.standings(s)
    del d["history"]
    return d


def format_standings(d: dict, variant: str) -> str:
    unit = "points/hand" if variant == "hhl" else "-stones/round"
    lines = [f"{'#':>2} {'entrant':14s} {'mu-3σ':>7s} {'mu':>7s} {'σ':>6s} {'matches':>7s} "
             f"{unit:>14s} {'±95%':>8s}  sep  faults (timeouts/illegal/disconnects/crashes)"]
    for r in d["entries"]:
        ci = f"{r['ci95']:8.2f}" if r["ci95"] is not None else f"{'-':>8s}"
        sep = " yes" if r["separated_from_next"] else ("   " if r is d["entries"][-1] else "  no")
        f = r["faults"]
        lines.append(f"{r['place']:>2} {r['entrant']:14s} {r['score']:7.2f} {r['mu']:7.2f} {r['sigma']:6.2f} "
                     f"{r['matches']:7d} {r['mean']:14.2f} {ci}  {sep}  "
                     f"{f['timeouts']}/{f['illegal']}/{f['disconnects']}/{f['crashes']}")
    verdict = "every neighbour pair separated" if d["separated"] else "not all neighbours separated"
    lines.append(f"{d['matches']} matches counted, {d['voided']} voided; {verdict} (95%)")
    return "\n".join(lines)


def show_standings(args) -> int:
    with grpc.insecure_channel(args.engine) as channel:
        stub = ladder_pb2_grpc.LadderStub(channel)
        info = _call(stub.GetLadder, ladder_pb2.GetLadderRequest(ladder_id=args.ladder_id), 5)
        s = _call(stub.GetStandings, ladder_pb2.GetLadderRequest(ladder_id=args.ladder_id), 5)
    d = standings_dict(s)
    print(json.dumps(d, indent=2) if args.json else format_standings(d, VARIANT.word(info.variant)))
    return 0


def cancel_ladder(args) -> int:
    with grpc.insecure_channel(args.engine) as channel:
        stub = ladder_pb2_grpc.LadderStub(channel)
        info = _call(stub.CancelLadder, ladder_pb2.GetLadderRequest(ladder_id=args.ladder_id),
                     5, key=args.key)
    print(f"ladder {info.ladder_id} {LADDER_STATUS.word(info.status)}: "
          f"{info.matches_counted} matches counted")
    return 0


# ----- run ------------------------------------------------------------------------------------
def _progress(info: ladder_pb2.LadderInfo, started: float, tty: bool) -> str:
    target = info.target_matches or info.max_matches
    done = info.matches_counted
    width = 30
    filled = min(width, int(width * done / target)) if target else 0
    rate = done / max(time.monotonic() - started, 1e-9) * 60
    leader = info.leader or "-"
    what = f"{done}/{target}" + (" (until separated)" if info.until_separated else "")
    bar = f"[{'#' * filled}{'.' * (width - filled)}] " if tty else ""
    return f"{bar}{what} matches, {rate:.1f}/min, {info.matches_playing} playing, leader {leader}"


def bot_command(engine: str, key: str, entrant: str, streams: int, capacity: int, seed: int) -> list[str]:
    """`domino bot` arguments for one built-in entrant: enough streams to hold every seat it
    may have in one match, each playing ``capacity`` matches at once."""
    return ["bot", "--engine", engine, "--strategy", entrant,
            "--pool", f"{key}/{entrant}", "--name", entrant, "--bots", str(streams),
            "--capacity", str(capacity), "--matches", "0", "--give-up", "0", "--seed", str(seed)]


def run_ladder(args) -> int:
    from bots.strategies import STRATEGIES

    builtin = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in builtin if b not in STRATEGIES or b == "oracle"]
    if unknown:
        raise SystemExit(f"domino ladder: unknown strategy {unknown}; built-in: "
                         f"{', '.join(s for s in STRATEGIES if s != 'oracle')}")
    entrants = builtin + args.external
    if not args.until_separated and args.ladder_matches < 1:
        raise SystemExit("domino ladder: give --matches N or --until-separated")
    procs = []
    engine_proc = None
    workdir = tempfile.mkdtemp(prefix="domino-ladder-")
    log = open(os.path.join(workdir, "ladder.log"), "a")  # engine and bot logs
    try:
        address = args.engine
        if address is None:
            db = args.db or os.path.join(workdir, "engine.sqlite3")
            engine_proc, port = start_engine("127.0.0.1", 0, db, log=log)
            address = f"127.0.0.1:{port}"
        with grpc.insecure_channel(address) as channel:
            stub = ladder_pb2_grpc.LadderStub(channel)
            request = ladder_pb2.CreateLadderRequest(
                variant=VARIANT.number(args.variant),
                options_json=json.dumps(parse_options(args.option)),
                entrants=entrants, format=LADDER_FORMAT.number(args.format),
                matches=args.ladder_matches,
                until_separated=args.until_separated, max_matches=args.max_matches,
                concurrency=args.concurrency, clock_ms=args.clock_ms, seat_wait_s=args.seat_wait)
            if args.seed is not None:
                request.seed = args.seed
            created = _call(stub.CreateLadder, request, 30, key=args.key)
            info = created.ladder
            enlist = {p.entrant: p for p in created.pools}
            print(f"ladder {info.ladder_id} on {address}: {args.variant}, {args.format}, "
                  f"{', '.join(entrants)}; logs in {log.name}", file=sys.stderr, flush=True)
            for name in args.external:   # the secrets for the bots the user runs
                print(f"  external entrant {name}: enlist in pool {enlist[name].pool} with "
                      f"DOMINO_POOL_SECRET={enlist[name].enlist_secret}", file=sys.stderr,
                      flush=True)
            streams = math.ceil(SEATS[args.variant] / len(entrants))
            bot_seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
            for k, entrant in enumerate(builtin):
                cmd = bot_command(address, info.key, entrant, streams, args.concurrency,
                                  bot_seed * 31 + k)
                env = {**os.environ, "DOMINO_POOL_SECRET": enlist[entrant].enlist_secret}
                procs.append(subprocess.Popen([*DOMINO, *cmd], stdout=subprocess.DEVNULL,
                                              stderr=log, env=env))
            tty = sys.stderr.isatty()
            started, last_line = time.monotonic(), 0.0
            get = ladder_pb2.GetLadderRequest(ladder_id=info.ladder_id)
            while info.status == ladder_pb2.LADDER_STATUS_RUNNING:
                time.sleep(0.5)
                info = _call(stub.GetLadder, get)
                if tty:
                    print("\r" + _progress(info, started, tty), end="", file=sys.stderr, flush=True)
                elif time.monotonic() - last_line > 5:
                    print(_progress(info, started, tty), file=sys.stderr, flush=True)
                    last_line = time.monotonic()
            if tty:
                print(file=sys.stderr)
            if info.status != ladder_pb2.LADDER_STATUS_DONE:
                print(f"domino ladder: the ladder is {LADDER_STATUS.word(info.status)}"
                      + (f": {info.error}" if info.error else ""), file=sys.stderr)
            d = standings_dict(_call(stub.GetStandings, get))
        print(json.dumps(d, indent=2) if args.json else format_standings(d, args.variant))
        return 0
    finally:
        stop_processes(procs)
        if engine_proc is not None:
            stop_processes([engine_proc])
        log.close()
