"""`domino serve` (engine + REST gateway + house bots, one command) and `domino gateway`.

House bots are bot processes enlisted in the engine pools "house-<strategy>" (gateway/house.py);
a REST seat {"kind": "bot", "strategy": "greedy"} is filled from pool "house-greedy". A
pool stream plays one seat per match, so each strategy gets as many bots as the largest
table has seats (5), and each bot plays several matches at once.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading

from engine_service.core.storage.factory import is_dsn
from gateway.house import pool_of

from .argtypes import ENGINE_HELP, POSITIVE
from .engine_cmd import (
    DB_HELP,
    DEFAULT_DB,
    add_arena_flags,
    arena_flags,
    arenas_of,
    is_loopback,
    make_folder_of,
    port_taken,
)
from .processes import DOMINO, start_engine, stop_processes

BOTS_PER_STRATEGY = 5      # the most seats at a table (Domeng)
BOT_CAPACITY = 16          # matches each house bot plays at once


def add_subcommands(subparsers) -> None:

    p = subparsers.add_parser("serve", help="run the engine, the REST gateway and house bots "
                              "together; prints the URL")
    p.add_argument("--host", default="127.0.0.1", help="address the web page and API listen on")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (0 picks a free one)")
    p.add_argument("--engine-port", type=int, default=50051,
                   help="gRPC port of the engine on 127.0.0.1, for bots (0 picks a free one)")
    p.add_argument("--db", default=DEFAULT_DB, help=DB_HELP)
    p.add_argument("--engines", type=POSITIVE, default=1, help="engines to run (default 1); "
                   "more than one share a PostgreSQL --db as a cluster (docs/cluster.md), on "
                   "--engine-port and the ports after it")
    p.add_argument("--open", action="store_true", help="need no API key to create matches "
                   "even when --host is not 127.0.0.1 (docs/security.md)")
    add_arena_flags(p)
    _gateway_options(p, "house bot strategies, comma-separated ('' for none)")
    p.set_defaults(func=run_serve)

    p = subparsers.add_parser("gateway", help="run the REST gateway and web page in front of "
                              "a running engine")
    p.add_argument("--engine", default="127.0.0.1:50051", help=ENGINE_HELP)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (0 picks a free one)")
    _gateway_options(p, "house bot strategies enlisted at the engine ('' for none)")
    p.set_defaults(func=run_gateway)


def _gateway_options(p, bots_help: str) -> None:
    from gateway.house import DEFAULT_STRATEGIES

    p.add_argument("--bots", default=",".join(DEFAULT_STRATEGIES), help=bots_help)
    p.add_argument("--threads", type=int, default=32,
                   help="worker threads for the REST routes (event streams take none)")
    p.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                   help="allow this origin to call the API ('*' for any); repeatable")


# ----- the HTTP server ----------------------------------------------------------------------
def _strategies(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def make_server(engine_address: str, host: str, port: int, strategies: list[str],
                threads: int = 32, cors: list[str] | None = None, **guards):
    """The gateway's server (gateway/server.py), bound but not yet serving."""
    from gateway.server import GatewayServer

    return GatewayServer({"ENGINE_ADDRESS": engine_address, "HOUSE_STRATEGIES": strategies,
                          "CORS_ORIGINS": cors or []}, host, port, workers=threads, **guards)


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def _serve_until_signal(server, cleanup, stop: threading.Event | None = None, tick=None) -> int:
    """Serve until a signal (or the server dies), calling ``tick`` about every 0.5 s."""
    stop = stop or _stop_on_signals()
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    while not stop.wait(0.5):
        if not thread.is_alive():
            break
        if tick is not None:
            tick()
    # The HTTP threads are daemons: they end with the process, open event streams included.
    cleanup()
    return 0


def _wait_for_house_bots(engine: str, strategies: list[str], timeout: float = 30.0) -> None:
    """Serve only once every house bot has enlisted: a match asking for one at once would
    be refused (NO_HOUSE_BOT)."""
    import time

    deadline = time.monotonic() + timeout
    while missing := house_bots_missing(engine, strategies):
        if time.monotonic() > deadline:
            raise SystemExit(f"no house bot for {', '.join(missing)} enlisted within "
                             f"{timeout:.0f} s")
        time.sleep(0.2)


def house_bots_missing(engine: str, strategies: list[str]) -> list[str]:
    """The strategies whose house pool has no bot enlisted at the engine right now."""
    from gateway.engine_client import EngineClient
    from gateway.errors import ApiError

    client = EngineClient(engine, timeout=5)
    try:
        return [s for s in strategies if not client.get_pool(pool_of(s)).bots]
    except ApiError as e:
        raise SystemExit(f"domino gateway: the engine at {engine}: {e.reason}: {e.message}") \
            from None
    finally:
        client.close()


def run_gateway(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    strategies = _strategies(args.bots)
    missing = house_bots_missing(args.engine, strategies)
    if missing:
        print(f"domino gateway: warning: no house bot plays {', '.join(missing)} at {args.engine}"
              f": matches asking for one are refused (NO_HOUSE_BOT) until `domino bot --pool "
              f"house-<strategy>` enlists (domino serve starts them)", file=sys.stderr, flush=True)
    try:
        server = make_server(args.engine, args.host, args.port, strategies, args.threads,
                             args.cors)
    except OSError as e:
        raise SystemExit(f"domino gateway: cannot listen on {args.host}:{args.port}: "
                         f"{e.strerror or e}") from None
    print(f"gateway listening on http://{args.host}:{server.port}/ "
          f"(engine {args.engine})", flush=True)
    return _serve_until_signal(server, lambda: None)


# ----- serve: engine + house bots + gateway ------------------------------------------------
def house_bot_commands(engine: str, strategies: list[str]) -> list[list[str]]:
    """One `domino bot` process per strategy, enlisting BOTS_PER_STRATEGY streams in pool
    house-<strategy>, each playing BOT_CAPACITY matches at once, until stopped. Each needs
    its pool's secret in DOMINO_POOL_SECRET (house_pools)."""
    return [[*DOMINO, "bot", "--engine", engine, "--strategy", strategy, "--pool", pool_of(strategy),
             "--name", strategy, "--bots", str(BOTS_PER_STRATEGY), "--capacity", str(BOT_CAPACITY),
             "--matches", "0", "--give-up", "0"]
            for strategy in strategies]


def house_pools(strategies: list[str]) -> dict[str, str]:
    """A fresh enlist secret for each house pool, {pool: secret}: the engine defines the
    pools from the environment variable DOMINO_POOL_SECRETS (a JSON object) at start, and
    each house bot gets its own in DOMINO_POOL_SECRET."""
    from engine_service.core.security.keys import new_secret

    return {pool_of(s): new_secret("ps_") for s in strategies}


def start_house_bots(commands: list[list[str]], secrets: dict[str, str], strategies: list[str],
                     log=None) -> list[subprocess.Popen]:
    return [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                             env={**os.environ, "DOMINO_POOL_SECRET": secrets[pool_of(s)]})
            for cmd, s in zip(commands, strategies, strict=True)]


def run_serve(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.engines > 1 and not is_dsn(args.db):
        raise SystemExit("domino serve: --engines above 1 needs a PostgreSQL store they share: "
                         "--db postgresql://USER@HOST/DB (docs/cluster.md)")
    make_folder_of(args.db)
    arenas_of(args)     # a bad --arena is refused here, before anything starts
    strategies = _strategies(args.bots)
    is_open = args.open or is_loopback(args.host)
    taken = port_taken(args.host, args.port)
    if taken:
        raise SystemExit(f"domino serve: {taken}")
    stop = _stop_on_signals()   # from the start: a signal during startup still stops the children
    secrets = house_pools(strategies)
    engines = []
    try:
        for i in range(args.engines):
            port = args.engine_port + i if args.engine_port else 0
            engine, engine_port = start_engine(
                "127.0.0.1", port, args.db,
                extra=(("--open",) if is_open else ("--keys",)) + arena_flags(args),
                env={"DOMINO_POOL_SECRETS": json.dumps(secrets)})
            engines.append((engine, engine_port))
    except SystemExit:
        stop_processes([e for e, _ in engines])
        raise
    # Bots and the gateway get every engine: they follow each match to its owner.
    address = ",".join(f"127.0.0.1:{p}" for _, p in engines)
    commands = house_bot_commands(address, strategies)
    bots = start_house_bots(commands, secrets, strategies)
    try:
        server = make_server(address, args.host, args.port, strategies, args.threads, args.cors)
        _wait_for_house_bots(address, strategies)
    except (OSError, SystemExit) as e:
        stop_processes(bots)
        stop_processes([e for e, _ in engines])
        raise SystemExit(f"domino serve: cannot start: {getattr(e, 'strerror', None) or e}") \
            from None
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    print(f"domino serving on http://{host}:{server.port}/ "
          f"(engine{'s' if len(engines) > 1 else ''} {address}, "
          f"house bots: {', '.join(strategies) or 'none'}); Ctrl-C stops", flush=True)
    print("domino serve: open: anyone who reaches it may create matches and ladders"
          if is_open else "domino serve: creating matches and ladders needs an API key "
          "(domino keys create NAME; send it as Authorization: Bearer <key>)", flush=True)

    def restart_dead_bots():
        # A house bot that died is started again (its seats' clocks covered the gap).
        for i, proc in enumerate(bots):
            if proc.poll() is not None:
                logging.getLogger("domino.serve").warning(
                    "house bot %s exited with %s; starting it again", strategies[i], proc.returncode)
                bots[i] = start_house_bots([commands[i]], secrets, [strategies[i]])[0]

    def cleanup():
        stop_processes(bots)          # bots first: the engines then cover their seats
        stop_processes([e for e, _ in engines])
        print("domino serve: stopped", flush=True)

    return _serve_until_signal(server, cleanup, stop, tick=restart_dead_bots)
