"""`domino serve` (engine + REST gateway + house bots, one command) and `domino gateway`.

engine_service.cli wires these in with `cli_serve.add_subcommands(subparsers)`; this module
also runs on its own: `python -m engine_service.cli_serve serve --port 0`.

House bots are bot processes enlisted in the engine pools "house-<strategy>" (gateway/house.py);
a REST seat {"kind": "bot", "strategy": "greedy"} is filled from pool "house-greedy". A
pool stream plays one seat per match, so each strategy gets as many bots as the largest
table has seats (5), and each bot plays several matches at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import threading
import time

DEFAULT_DB = os.path.join("data", "engine.sqlite3")
BOTS_PER_STRATEGY = 5      # the most seats at a table (Domeng)
BOT_CAPACITY = 16          # matches each house bot plays at once
FOREVER = 10**9            # pool matches a house bot plays before it stops


def add_subcommands(subparsers) -> None:
    from gateway.house import DEFAULT_STRATEGIES

    p = subparsers.add_parser("serve", help="run the engine, the REST gateway and house bots "
                              "together; prints the URL")
    p.add_argument("--host", default="127.0.0.1", help="address the web page and API listen on")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (0 picks a free one)")
    p.add_argument("--engine-port", type=int, default=50051,
                   help="gRPC port of the engine on 127.0.0.1, for bots (0 picks a free one)")
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"SQLite file (default {DEFAULT_DB}); ':memory:' keeps nothing")
    p.add_argument("--bots", default=",".join(DEFAULT_STRATEGIES),
                   help="house bot strategies, comma-separated ('' for none)")
    p.add_argument("--threads", type=int, default=48,
                   help="HTTP worker threads (each live event stream holds one)")
    p.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                   help="allow this origin to call the API ('*' for any); repeatable")
    p.set_defaults(func=run_serve)

    p = subparsers.add_parser("gateway", help="run the REST gateway and web page in front of "
                              "a running engine")
    p.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080, help="HTTP port (0 picks a free one)")
    p.add_argument("--bots", default=",".join(DEFAULT_STRATEGIES),
                   help="house bot strategies enlisted at the engine ('' for none)")
    p.add_argument("--threads", type=int, default=48,
                   help="HTTP worker threads (each live event stream holds one)")
    p.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                   help="allow this origin to call the API ('*' for any); repeatable")
    p.set_defaults(func=run_gateway)


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


def _serve_until_signal(server, cleanup) -> int:
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.run, name="http", daemon=True)
    thread.start()
    while not stop.wait(0.5):
        if not thread.is_alive():
            break
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
def _runner_options() -> set[str]:
    """The options `domino bot` has (its --strategy flag is newer than its --pool flag)."""
    try:
        from engine_service.cli import build_parser
        parser = build_parser()
        for action in parser._actions:          # noqa: SLF001 - argparse has no public walk
            if isinstance(action, argparse._SubParsersAction) and "bot" in action.choices:
                return set(action.choices["bot"]._option_string_actions)
    except Exception:   # noqa: BLE001 - fall back to the bundled house bot below
        pass
    return set()


def house_bot_commands(engine: str, strategies: list[str]) -> list[list[str]]:
    """The commands that start the house bots: `domino bot --strategy` when the bot runner
    has it, else this module's own pool bot (one process per strategy)."""
    options = _runner_options()
    commands = []
    for strategy in strategies:
        pool = f"house-{strategy}"
        if "--strategy" in options:
            for i in range(BOTS_PER_STRATEGY):
                cmd = [sys.executable, "-m", "engine_service.cli", "bot", "--engine", engine,
                       "--strategy", strategy, "--pool", pool, "--name", f"{strategy}-{i + 1}"]
                if "--capacity" in options:
                    cmd += ["--capacity", str(BOT_CAPACITY)]
                if "--matches" in options:
                    cmd += ["--matches", str(FOREVER)]
                if "--give-up" in options:     # 0: keep trying while the engine is away
                    cmd += ["--give-up", "0"]
                commands.append(cmd)
        else:
            commands.append([sys.executable, "-m", "engine_service.cli_serve", "house-bot",
                             "--engine", engine, "--strategy", strategy,
                             "--count", str(BOTS_PER_STRATEGY)])
    return commands


def start_engine(host: str, port: int, db: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine_service.cli", "engine", "--host", host,
         "--port", str(port), "--db", db],
        stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if not line.startswith("engine listening on "):
        proc.kill()
        raise SystemExit(f"domino serve: the engine did not start: {line.strip()!r}")
    threading.Thread(target=_drain, args=(proc.stdout,), daemon=True).start()
    return proc, int(line.split()[3].rsplit(":", 1)[1])


def _drain(stream) -> None:
    for line in stream:
        sys.stdout.write(line)


def stop_processes(procs: list[subprocess.Popen], grace: float = 5.0) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def run_serve(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.db != ":memory:" and os.path.dirname(args.db):
        os.makedirs(os.path.dirname(args.db), exist_ok=True)
    strategies = _strategies(args.bots)
    engine, engine_port = start_engine("127.0.0.1", args.engine_port, args.db)
    address = f"127.0.0.1:{engine_port}"
    bots = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
            for cmd in house_bot_commands(address, strategies)]
    try:
        server = make_server(address, args.host, args.port, strategies, args.threads, args.cors)
    except OSError as e:
        stop_processes(bots)
        stop_processes([engine])
        raise SystemExit(f"domino serve: cannot listen on {args.host}:{args.port}: {e}") from None
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    print(f"domino serving on http://{host}:{server.effective_port}/ (engine {address}, "
          f"house bots: {', '.join(strategies) or 'none'}); Ctrl-C stops", flush=True)

    def cleanup():
        stop_processes(bots)          # bots first: the engine then covers their seats
        stop_processes([engine])
        print("domino serve: stopped", flush=True)

    return _serve_until_signal(server, cleanup)


# ----- the bundled house bot (used while `domino bot` has no --strategy) ---------------------
def run_house_bot(args) -> int:
    """Enlist `count` streams in pool house-<strategy>, each choosing with that strategy."""
    from bots.strategies import make_strategy
    from engine_service.minibot import play_pool
    from engine_service.rules import Move

    make_strategy(args.strategy)   # unknown names fail here, before any thread starts
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())

    def chooser(seed: int):
        strategy = make_strategy(args.strategy, seed)   # strategies choose from the view alone

        def choose(view, legal):
            moves = [Move.parse(m.text) for m in legal]
            chosen = strategy.choose(view, moves)
            return legal[moves.index(chosen)] if chosen in moves else legal[0]
        return choose

    def bot(i: int):
        while not stop.is_set():
            try:
                play_pool(args.engine, f"house-{args.strategy}", f"{args.strategy}-{i + 1}",
                          FOREVER, BOT_CAPACITY, chooser(i), reconnect_for=3600)
            except Exception as e:   # noqa: BLE001 - a house bot keeps going
                print(f"house bot {args.strategy}-{i + 1}: {e}", file=sys.stderr, flush=True)
                time.sleep(1)

    for i in range(args.count):
        threading.Thread(target=bot, args=(i,), daemon=True).start()
    stop.wait()
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="domino")
    sub = parser.add_subparsers(dest="command", required=True)
    add_subcommands(sub)
    p = sub.add_parser("house-bot", help="house bots of one strategy in its pool")
    p.add_argument("--engine", default="127.0.0.1:50051")
    p.add_argument("--strategy", required=True)
    p.add_argument("--count", type=int, default=BOTS_PER_STRATEGY)
    p.set_defaults(func=run_house_bot)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
