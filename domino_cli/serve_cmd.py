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
import threading

from gateway.house import pool_of

from .engine_cmd import DEFAULT_DB, is_loopback
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
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"SQLite file (default {DEFAULT_DB}); ':memory:' keeps nothing")
    p.add_argument("--open", action="store_true", help="need no API key to create matches "
                   "even when --host is not 127.0.0.1 (docs/security.md)")
    _gateway_options(p, "house bot strategies, comma-separated ('' for none)")
    p.set_defaults(func=run_serve)

    p = subparsers.add_parser("gateway", help="run the REST gateway and web page in front of "
                              "a running engine")
    p.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (0 picks a free one)")
    _gateway_options(p, "house bot strategies enlisted at the engine ('' for none)")
    p.set_defaults(func=run_gateway)


def _gateway_options(p, bots_help: str) -> None:
    from gateway.house import DEFAULT_STRATEGIES

    p.add_argument("--bots", default=",".join(DEFAULT_STRATEGIES), help=bots_help)
    p.add_argument("--threads", type=int, default=48,
                   help="HTTP worker threads (each live event stream holds one)")
    p.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                   help="allow this origin to call the API ('*' for any); repeatable")


# ----- the HTTP server ----------------------------------------------------------------------
def _strategies(text: str) -> list[str]:
    return [s.strip() for s in text.split(",") if s.strip()]


def make_server(engine_address: str, host: str, port: int, strategies: list[str],
                threads: int = 48, cors: list[str] | None = None):
    """A waitress server for the gateway app (not yet running); .effective_port is bound."""
    import waitress

    from gateway import create_app

    app = create_app({"ENGINE_ADDRESS": engine_address, "HOUSE_STRATEGIES": strategies,
                      "CORS_ORIGINS": cors or []})
    # No access log: tokens may ride in ?token= of event streams.
    return waitress.create_server(app, host=host, port=port, threads=threads,
                                  channel_timeout=60, ident="domino")


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


def run_gateway(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    server = make_server(args.engine, args.host, args.port, _strategies(args.bots),
                         args.threads, args.cors)
    print(f"gateway listening on http://{args.host}:{server.effective_port}/ "
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
    from engine_service.core.keys import new_secret

    return {pool_of(s): new_secret("ps_") for s in strategies}


def start_house_bots(commands: list[list[str]], secrets: dict[str, str], strategies: list[str],
                     log=None) -> list[subprocess.Popen]:
    return [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log,
                             env={**os.environ, "DOMINO_POOL_SECRET": secrets[pool_of(s)]})
            for cmd, s in zip(commands, strategies, strict=True)]


def run_serve(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.db != ":memory:" and os.path.dirname(args.db):
        os.makedirs(os.path.dirname(args.db), exist_ok=True)
    strategies = _strategies(args.bots)
    is_open = args.open or is_loopback(args.host)
    stop = _stop_on_signals()   # from the start: a signal during startup still stops the children
    secrets = house_pools(strategies)
    engine, engine_port = start_engine("127.0.0.1", args.engine_port, args.db,
                                       extra=("--open",) if is_open else ("--keys",),
                                       env={"DOMINO_POOL_SECRETS": json.dumps(secrets)})
    address = f"127.0.0.1:{engine_port}"
    commands = house_bot_commands(address, strategies)
    bots = start_house_bots(commands, secrets, strategies)
    try:
        server = make_server(address, args.host, args.port, strategies, args.threads, args.cors)
    except OSError as e:
        stop_processes(bots)
        stop_processes([engine])
        raise SystemExit(f"domino serve: cannot listen on {args.host}:{args.port}: {e}") from None
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    print(f"domino serving on http://{host}:{server.effective_port}/ (engine {address}, "
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
        stop_processes(bots)          # bots first: the engine then covers their seats
        stop_processes([engine])
        print("domino serve: stopped", flush=True)

    return _serve_until_signal(server, cleanup, stop, tick=restart_dead_bots)
