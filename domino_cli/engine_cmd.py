"""`domino engine` (the gRPC engine service) and `domino new-match` (create a match on a
running engine and claim its seats)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import json
import logging
import os
import signal
import sys
import threading

from engine_service.rules import VARIANTS
from plumbing import collector

from .argtypes import COUNT, ENGINE_DEFAULT, ENGINE_DEFAULT_HELP, PORT, POSITIVE, SEED
from .match_limit import limit_sentence
from .options import OPTION_HELP, options_help

DEFAULT_DB = os.path.join("data", "engine.sqlite3")
DB_HELP = (f"the store: a SQLite file (default {DEFAULT_DB}; ':memory:' keeps nothing), or a "
           "PostgreSQL database, postgresql://USER@HOST:PORT/DB, which several engines may "
           "share (docs/cluster.md)")


def make_folder_of(db: str) -> None:
    """A SQLite file's folder, made when missing (the engine makes the file)."""
    from engine_service.core.storage.factory import is_dsn
    if db != ":memory:" and not is_dsn(db) and os.path.dirname(db):
        os.makedirs(os.path.dirname(db), exist_ok=True)


def settings_refused(db: str) -> str:
    """Why a setting of the environment is refused ("" when none is): the arena's polls,
    the collector's pace, the pacing's target, and for PostgreSQL the bound of a wait on it
    and the threads its moves are played on. Said as itself, not as a database that is
    away."""
    from engine_service.core.arena.spec import polls
    from engine_service.core.storage.factory import is_dsn
    from engine_service.rpc.pacing import target_s
    from plumbing.settings import BadSetting
    try:
        polls()
        collector.young()
        target_s()
    except BadSetting as e:
        return str(e)
    if not is_dsn(db):
        return ""
    from engine_service.core.storage.postgres import wait_bound
    from engine_service.core.storage.rows import StoreUnavailable
    from engine_service.rpc.moves import threads
    try:
        wait_bound()
        threads()
    except (StoreUnavailable, BadSetting) as e:
        return str(e)
    return ""


def advertised_host(host: str) -> str:
    """The host to advertise for an engine listening on `host` (every address: this one)."""
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("engine", help="run the gRPC engine service")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default "
                   "127.0.0.1: this machine only, and open: no API key needed)")
    p.add_argument("--port", type=PORT, default=50051, help="0 picks a free port")
    p.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)
    p.add_argument("--quiet", action="store_true", help="log only warnings and errors, not "
                   "every match (domino serve starts its engines so unless --verbose)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--open", action="store_true", help="need no API key even when "
                      "listening on another address than 127.0.0.1 (docs/security.md)")
    mode.add_argument("--keys", action="store_true", help="need an API key to create "
                      "matches and ladders even on 127.0.0.1")
    p.add_argument("--advertise", default="", metavar="HOST:PORT",
                   help="where the other engines and clients reach this one, with a "
                   "PostgreSQL --db (default: --host and the port it listens on)")
    p.add_argument("--max-live-matches", type=POSITIVE, default=5000,
                   help="matches not over, at most, for the whole engine (default 5000)")
    p.add_argument("--sampling-budget", type=cpu_share, default=None, metavar="CPU_S",
                   help="CPU seconds a second of SampleWorlds work that one client address "
                   "and one match may each use (default 0.2; docs/security.md)")
    p.add_argument("--metrics-port", type=PORT, default=None, metavar="PORT",
                   help="serve Prometheus metrics at http://HOST:PORT/metrics, on --host "
                   "(default: off; 0 picks a free port, printed on the 'engine listening' "
                   "line; docs/cluster.md lists them)")
    add_arena_flags(p)
    p.set_defaults(func=run_engine)

    p = subparsers.add_parser(
        "new-match", help="create a match and claim its seats; prints JSON {match_id, "
        "seat_tokens}", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Create a match on a running engine and claim every seat; prints JSON "
        "{match_id, seat_tokens}\non stdout and, on stderr, when the match ends.",
        epilog=_new_match_epilog)
    p.add_argument("--engine", default=ENGINE_DEFAULT, help=ENGINE_DEFAULT_HELP)
    p.add_argument("--variant", choices=list(VARIANTS), default="hhl")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    p.add_argument("--options", default="", metavar="JSON",
                   help='the rules options as one JSON object, e.g. \'{"hands": 2}\' (--option '
                   "KEY=VALUE goes over it)")
    p.add_argument("--seed", type=SEED, help="the match's seed (default: the engine picks one "
                   "and keeps it secret until the match is over)")
    p.add_argument("--clock-ms", type=COUNT, default=0, help="bot turn clock in ms, 100..3600000 "
                   "(default 0: the engine's, 10000)")
    p.add_argument("--key", default=os.environ.get("DOMINO_API_KEY", ""),
                   help="operator API key, when the engine needs one (default: the "
                   "environment variable DOMINO_API_KEY, which keeps it out of ps)")
    p.set_defaults(func=run_new_match)


def _new_match_epilog() -> str:
    import textwrap

    return (options_help() + "\n\n"
            + textwrap.fill(f"Without options, an hhl match {limit_sentence('hhl', {})}.", 88))


def open_mode(args) -> bool:
    """Open (no API key) on a loopback address unless --keys; elsewhere only with --open."""
    return args.open or (not args.keys and is_loopback(args.host))


def port_taken(host: str, port: int) -> str:
    """Why `host:port` cannot be listened on ("" if it can), found before gRPC tries: its
    own failure comes with a line of its internal log."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        return f"cannot listen on {host}:{port}: {e.strerror or e}"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            why = "the port is in use" if e.errno == errno.EADDRINUSE else (e.strerror or str(e))
            return f"cannot listen on {host}:{port}: {why}"
    return ""


def failed(command: str, message: str) -> int:
    """A start-up failure, said once: on stdout for a parent that reads it and says it
    (processes.PARENT_REPORTS), else on stderr."""
    from .processes import PARENT_REPORTS

    if os.environ.get(PARENT_REPORTS):
        print(f"engine failed: {message}", flush=True)
    else:
        print(f"domino {command}: {message}", file=sys.stderr, flush=True)
    return 1


def serve_metrics(engine, host: str, port: int) -> int:
    """/metrics on the engine's own host (127.0.0.1 stays this machine's), read at each
    scrape; the port it serves on; OSError when the port cannot be bound."""
    from engine_service.core import metrics

    metrics.count_live(engine.live_count)
    port = metrics.serve(host, port)
    logging.getLogger("domino.engine").info("metrics at http://%s:%d/metrics", host, port)
    return port


ARENA_HELP = ("run this arena's matchmaker (repeatable): hhl, domeng, hhl:duplicate or "
              "domeng:duplicate, each also with :literal (the rules profile literal, e.g. "
              "hhl:literal; default: hhl and domeng; docs/arena.md)")


def add_arena_flags(p) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--arena", action="append", default=[], metavar="ARENA",
                       help=ARENA_HELP)
    group.add_argument("--no-arenas", action="store_true", help="run no arena matchmaker "
                       "(in a cluster the engine still hosts arena matches and lobbies)")


def cpu_share(text: str) -> float:
    """An argparse type: CPU seconds a second, above 0 and at most 64 (a machine's cores)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"wants CPU seconds a second, got {text!r}") from None
    if not 0 < value <= 64:     # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"wants CPU seconds a second above 0 and at most 64, "
                                         f"got {text}")
    return value


def arenas_of(args) -> list[dict]:
    """The arenas `--arena`/`--no-arenas` ask for (SystemExit naming a bad one)."""
    from engine_service.core.arena import spec

    if args.no_arenas:
        return []
    try:
        return [spec.parse(a) for a in (args.arena or spec.DEFAULT_ARENAS)]
    except ValueError as e:
        raise SystemExit(f"domino engine: --arena: {e}") from None


def arena_flags(args) -> tuple:
    """The same flags again, for an engine this command starts (domino serve)."""
    if args.no_arenas:
        return ("--no-arenas",)
    return tuple(x for a in args.arena for x in ("--arena", a))


def residents() -> dict:
    """The arenas' residents: every strategy of bots.strategies but the yardsticks (the
    oracle, ceiling), each with a small fixed budget where it has one (search:
    SEARCH_ITERATIONS samples a move; expert: EXPERT_UNITS of work), so that the engine's
    own players cannot starve it."""
    from bots.strategies import STRATEGIES
    from engine_service.core.arena.spec import EXPERT_UNITS, SEARCH_ITERATIONS

    budgets = {"search": {"iterations": SEARCH_ITERATIONS}, "expert": {"units": EXPERT_UNITS}}

    def maker(cls, budget: dict):
        return lambda: cls(None, **budget)

    return {name: maker(cls, budgets.get(name, {}))
            for name, cls in STRATEGIES.items() if name not in yardsticks()}


def yardsticks() -> dict:
    """The strategies the engine may play itself, for ladders' yardstick entrants: the
    oracle reads the true hands, so it plays only in process (docs/ladders.md); ceiling is
    seat-honest but takes seconds a move, an offline yardstick too."""
    from bots.strategies import STRATEGIES, YARDSTICKS

    return {name: STRATEGIES[name] for name in YARDSTICKS}


# How much lower the analysis workers' priority is than the engine's. An analysis is batch
# work on every core; the matches in play on the same machine must never wait behind it
# (at 1,000 arena bots, its skill sample's analyses starved the engines and the database).
ANALYSIS_NICE = 10


def analyser():
    """The analysis of finished matches the engine serves (Analysis.Analyse): analysis/ over
    every core of the machine, in worker processes of its own at a lower priority (the
    engine's threads keep serving, and first)."""
    from analysis import DEFAULT_WORLDS, analyse

    def run(record, seats, worlds, progress):
        return analyse(record, seats=seats, worlds=worlds or DEFAULT_WORLDS,
                       processes=os.cpu_count() or 1, progress=progress, nice=ANALYSIS_NICE)
    return run


def run_engine(args) -> int:
    import sqlite3

    from engine_service.core.engine import Engine
    from engine_service.core.sampling.service import WorldService, budgets_with
    from engine_service.core.storage.rows import StoreDamaged, StoreUnavailable
    from engine_service.rpc.server import start_server

    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(name)s %(message)s")
    make_folder_of(args.db)
    is_open = open_mode(args)
    taken = port_taken(args.host, args.port)
    if not taken and args.metrics_port:     # (0: a free one, never taken)
        if args.metrics_port == args.port:
            taken = f"--metrics-port {args.metrics_port} is the gRPC port too: give another"
        else:
            taken = port_taken(args.host, args.metrics_port)
    if taken:
        return failed("engine", taken)
    refused = settings_refused(args.db)
    if refused:
        return failed("engine", refused)
    try:
        worlds = (None if args.sampling_budget is None
                  else WorldService(budgets=budgets_with(args.sampling_budget)))
        engine = Engine.open(args.db, keys_required=not is_open,
                             max_live=args.max_live_matches, yardsticks=yardsticks(),
                             worlds=worlds,
                             arenas=arenas_of(args), residents=residents(),
                             analyser=analyser())
    except sqlite3.DatabaseError as e:
        return failed("engine", f"store {args.db} cannot be opened ({e}): is it an engine "
                      "store? Restore it from a backup, or give another --db")
    except StoreUnavailable as e:
        return failed("engine", f"{e}; is the database server running, and the DSN right?")
    try:
        # Pools handed over by whoever started us (domino serve: the house pools).
        for pool, secret in json.loads(os.environ.get("DOMINO_POOL_SECRETS") or "{}").items():
            engine.pools.define(pool, secret)
        if engine.cluster is None:
            restored = engine.recover()
        server, port = start_server(engine, args.host, args.port)
        metrics_port = None
        if args.metrics_port is not None:
            metrics_port = serve_metrics(engine, args.host, args.metrics_port)
        address = args.advertise or f"{advertised_host(args.host)}:{port}"
        if engine.cluster is not None:
            # Recovery in a cluster: take what no live engine owns (this engine's own
            # matches of its previous run among them).
            restored = engine.join(address)
        engine.address = address
    except (StoreDamaged, StoreUnavailable) as e:
        engine.close()
        return failed("engine", str(e))
    except OSError as e:
        engine.close()
        return failed("engine", str(e))
    mode = ("open: no API key needed" if is_open else
            "API keys needed to create matches and ladders (domino keys create NAME)")
    metrics_at = "" if metrics_port is None else f"; metrics on {args.host}:{metrics_port}"
    collector.settle()      # started: what it made lives as long as the process
    # Tests and scripts read this line to learn the port (and the metrics port): with
    # --port 0 and --metrics-port 0 nothing else can take them before the engine binds them.
    print(f"engine listening on {args.host}:{port} ({len(restored)} matches restored; "
          f"{mode}{metrics_at})", flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    # A wait with a timeout: the kernel may deliver the signal to any thread (one of
    # gRPC's), and Python runs its handler only when the main thread wakes; a plain
    # wait() then sleeps through SIGTERM for good.
    while not stop.wait(0.5):
        pass
    if engine.cluster is not None:
        # Draining: health says NOT_SERVING, no new match comes here, and every match and
        # ladder is let go at once, for the other engines to take (docs/cluster.md).
        server.not_serving()
        engine.cluster.drain()
    server.stop(grace=2).wait()
    engine.close()
    return 0


def run_new_match(args) -> int:
    from domino_proto.domino.v1 import engine_pb2
    from domino_wire import game
    from domino_wire.names import VARIANT
    from domino_wire.routing import Router

    from .options import parse_options

    options = parse_options(args.option, args.options)
    limit = limit_sentence(args.variant, options)   # also refuses a bad option, here and now
    # Router: on a cluster the match is made by the engine the load picks, and its seats
    # are claimed there.
    with contextlib.closing(Router(args.engine)) as router:
        request = engine_pb2.CreateMatchRequest(variant=VARIANT.number(args.variant),
                                                options=game.options_pb(args.variant, options),
                                                bot_clock_ms=args.clock_ms)
        if args.seed is not None:
            request.seed = args.seed
        metadata = (("authorization", f"Bearer {args.key}"),) if args.key else ()
        created = router.call("CreateMatch", request, metadata=metadata)
        # Each seat with the claim secret the creation answer gave: only this creator has
        # them, so nobody polling ListMatches takes a seat first (docs/security.md).
        seat_tokens = [router.call("ClaimSeat", engine_pb2.ClaimSeatRequest(
                           match_id=created.match_id, seat=s, claim_secret=secret),
                           about=created.match_id).seat_token
                       for s, secret in enumerate(created.claim_secrets)]
    print(json.dumps({"match_id": created.match_id, "seat_tokens": seat_tokens}), flush=True)
    print(f"{args.variant} match {created.match_id}: {limit}", file=sys.stderr, flush=True)
    return 0
