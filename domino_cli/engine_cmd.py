"""`domino engine` (the gRPC engine service) and `domino new-match` (create a match on a
running engine and claim its seats)."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading

from engine_service.rules import VARIANTS

DEFAULT_DB = os.path.join("data", "engine.sqlite3")


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("engine", help="run the gRPC engine service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=50051, help="0 picks a free port")
    p.add_argument("--db", default=DEFAULT_DB,
                   help=f"SQLite file (default {DEFAULT_DB}); ':memory:' keeps nothing")
    p.set_defaults(func=run_engine)

    p = subparsers.add_parser("new-match", help="create a match and claim its seats; prints "
                              "JSON {match_id, seat_tokens}")
    p.add_argument("--engine", default="127.0.0.1:50051", help="HOST:PORT of the engine")
    p.add_argument("--variant", choices=list(VARIANTS), default="hhl")
    p.add_argument("--options", default="", help='rules options as JSON, e.g. {"hands": 2}')
    p.add_argument("--seed", type=int)
    p.add_argument("--clock-ms", type=int, default=0, help="bot turn clock (default 10000)")
    p.set_defaults(func=run_new_match)


def run_engine(args) -> int:
    from engine_service.core.engine import Engine
    from engine_service.rpc.server import start_server

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.db != ":memory:" and os.path.dirname(args.db):
        os.makedirs(os.path.dirname(args.db), exist_ok=True)
    engine = Engine.open(args.db)
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


def run_new_match(args) -> int:
    import grpc

    from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc
    from domino_wire.names import VARIANT

    with grpc.insecure_channel(args.engine) as channel:
        stub = engine_pb2_grpc.EngineStub(channel)
        request = engine_pb2.CreateMatchRequest(variant=VARIANT.number(args.variant),
                                                options_json=args.options,
                                                bot_clock_ms=args.clock_ms)
        if args.seed is not None:
            request.seed = args.seed
        created = stub.CreateMatch(request, timeout=10)
        seat_tokens = [stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id,
                                                                  seat=s), timeout=10).seat_token
                       for s in range(created.num_seats)]
    print(json.dumps({"match_id": created.match_id, "seed": created.seed,
                      "seat_tokens": seat_tokens}))
    return 0
