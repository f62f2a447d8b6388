"""Command line for the engine service: `domino engine`, `domino bot`, `domino new-match`.

engine_service.cli wires these in with `cli_engine.add_subcommands(subparsers)`; this
module also runs on its own: `python -m engine_service.cli_engine engine --port 0`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading

DEFAULT_DB = os.path.join("data", "engine.sqlite3")


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("engine", help="run the gRPC engine service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=50051, help="0 picks a free port")
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"SQLite file (default {DEFAULT_DB}); ':memory:' keeps nothing")
    p.set_defaults(func=run_engine)

    p = subparsers.add_parser("bot", help="play one seat (--match, --token) or pool seats "
                              "(--pool) with a minimal bot")
    p.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    p.add_argument("--match", help="match id")
    p.add_argument("--seat", type=int, default=-1, help="seat number (for the log)")
    p.add_argument("--token", default=os.environ.get("DOMINO_SEAT_TOKEN", ""),
                   help="seat token (or env DOMINO_SEAT_TOKEN, which keeps it out of ps)")
    p.add_argument("--pool", help="enlist in this bot pool instead of playing one seat")
    p.add_argument("--name", default="minibot", help="the bot's name in the pool")
    p.add_argument("--capacity", type=int, default=1, help="pool matches at once")
    p.add_argument("--matches", type=int, default=1, help="pool matches to play, then stop")
    p.add_argument("--seed", type=int, help="choose random legal moves from this seed "
                   "(default: always the first legal move)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to think per move")
    p.set_defaults(func=run_bot)

    p = subparsers.add_parser("new-match", help="create a match and claim its seats; prints "
                              "JSON {match_id, tokens}")
    p.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    p.add_argument("--variant", choices=["hhl", "domeng"], default="hhl")
    p.add_argument("--options", default="", help='rules options as JSON, e.g. {"hands": 2}')
    p.add_argument("--seed", type=int)
    p.add_argument("--clock-ms", type=int, default=0, help="bot turn clock (default 10000)")
    p.set_defaults(func=run_new_match)


def run_engine(args) -> int:
    from .engine import Engine
    from .server import start_server
    from .store import SQLiteStore

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.db != ":memory:" and os.path.dirname(args.db):
        os.makedirs(os.path.dirname(args.db), exist_ok=True)
    engine = Engine(SQLiteStore(args.db))
    restored = engine.recover()
    server, port = start_server(engine, args.host, args.port)
    # Tests and scripts read this line to learn the port.
    print(f"engine listening on {args.host}:{port} ({len(restored)} matches restored)",
          flush=True)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    server.stop(grace=2).wait()
    engine.close()
    return 0


def run_bot(args) -> int:
    from .minibot import first_legal, play, play_pool, seeded_random, slowed

    choose = first_legal if args.seed is None else seeded_random(args.seed)
    if args.delay > 0:
        choose = slowed(choose, args.delay)
    if args.pool:
        results = play_pool(args.engine, args.pool, args.name, args.matches, args.capacity,
                            choose)
        print(json.dumps({"pool": args.pool, "results": results}), flush=True)
        return 0
    if not args.match or not args.token:
        print("give --match and a seat token (--token or DOMINO_SEAT_TOKEN), or --pool",
              file=sys.stderr)
        return 2
    result = play(args.engine, args.match, args.token, choose)
    print(json.dumps({"match_id": args.match, "seat": args.seat, "result": result}), flush=True)
    return 0


def run_new_match(args) -> int:
    import grpc

    from domino_proto.domino.v1 import common_pb2, engine_pb2, engine_pb2_grpc

    variant = {"hhl": common_pb2.VARIANT_HHL, "domeng": common_pb2.VARIANT_DOMENG}[args.variant]
    with grpc.insecure_channel(args.engine) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        request = engine_pb2.CreateMatchRequest(variant=variant, options_json=args.options,
                                                bot_clock_ms=args.clock_ms)
        if args.seed is not None:
            request.seed = args.seed
        created = stub.CreateMatch(request, timeout=10)
        tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id,
                                                             seat=s), timeout=10).seat_token
                  for s in range(created.num_seats)]
    print(json.dumps({"match_id": created.match_id, "seed": created.seed, "tokens": tokens}))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="domino")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
