"""`domino arena`: registered bots and the arenas' leaderboards (docs/arena.md).

register/rotate/retire act for the operator key (the environment variable --key-env
names, DOMINO_API_KEY by default; none on an open engine); list and leaderboard are
public. With --engine A,B,C every call goes to an engine of the cluster (domino_wire's
Router follows it as it follows a match). A bot then plays with
`DOMINO_BOT_KEY=... domino bot --arena hhl --version v1`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys

import grpc

from domino_proto.domino.v1 import arena_pb2
from domino_wire import arena as wire
from domino_wire.names import LEADERBOARD_VIEW
from domino_wire.routing import Router

from .argtypes import COUNT, ENGINE_HELP
from .failures import from_rpc

HELP = """Registered bots play all the time in the engine's arenas, matched by rating, on a
persistent leaderboard:

  domino arena register alice --description "my first bot"   # prints the bot key once
  DOMINO_BOT_KEY=dbk_... domino bot --arena hhl --version v1 --strategy greedy
  domino arena leaderboard --arena hhl
"""


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser("arena", help="registered bots and the arenas' leaderboards",
                              formatter_class=argparse.RawDescriptionHelpFormatter,
                              description=HELP)
    sub = p.add_subparsers(dest="arena_command", required=True)

    def common(q, key: bool = False):
        q.add_argument("--engine", default=os.environ.get("DOMINO_ENGINE") or "127.0.0.1:50051",
                       help=ENGINE_HELP + " (default: DOMINO_ENGINE, or 127.0.0.1:50051)")
        q.add_argument("--json", action="store_true", help="print JSON")
        if key:
            q.add_argument("--key-env", default="DOMINO_API_KEY", metavar="VAR",
                           help="the environment variable holding the operator API key "
                           "(default DOMINO_API_KEY; none is needed on an open engine)")

    r = sub.add_parser("register", help="register a bot; prints its bot key, once")
    r.add_argument("name", help="1..40 letters, digits, '-', '_', '.'; unique, never reused")
    r.add_argument("--description", default="", help="at most 200 characters")
    common(r, key=True)
    r.set_defaults(func=register)
    for name, what, func in (("rotate", "give a bot a new key (the old one is refused at "
                              "once); prints it, once", rotate),
                             ("retire", "retire a bot: it can no longer connect; its history "
                              "stays", retire)):
        q = sub.add_parser(name, help=what)
        q.add_argument("name")
        common(q, key=True)
        q.set_defaults(func=func)
    b = sub.add_parser("leaderboard", help="an arena's leaderboard")
    b.add_argument("--arena", default="hhl", help="the arena (default hhl)")
    b.add_argument("--all-versions", action="store_true", help="a row per version, not only "
                   "each bot's latest")
    b.add_argument("--limit", type=COUNT, default=0, help="rows from the top (default: all)")
    common(b)
    b.set_defaults(func=leaderboard)
    a = sub.add_parser("list", help="the arenas")
    common(a)
    a.set_defaults(func=list_arenas)


def _call(args, method: str, request, key: bool = False):
    metadata = ()
    if key:
        value = os.environ.get(args.key_env, "")
        metadata = (("authorization", f"Bearer {value}"),) if value else ()
    with contextlib.closing(Router(args.engine)) as router:
        try:
            return router.call(method, request, service="Arena", metadata=metadata)
        except grpc.RpcError as e:
            raise from_rpc(e, args.engine) from None


def _print_key(args, answer, verb: str) -> int:
    b = wire.bot(answer.bot)
    if args.json:
        print(json.dumps({**b, "bot_key": answer.bot_key}), flush=True)
    else:
        print(f"bot {b['name']} ({b['bot_id']}) {verb}, owned by {b['owner']}.\n"
              f"Its bot key, shown only now (give it to the bot in DOMINO_BOT_KEY, never on "
              f"a command line):\n{answer.bot_key}", flush=True)
    return 0


def register(args) -> int:
    answer = _call(args, "RegisterBot", arena_pb2.RegisterBotRequest(
        name=args.name, description=args.description), key=True)
    return _print_key(args, answer, "registered")


def rotate(args) -> int:
    answer = _call(args, "RotateBotKey", arena_pb2.RotateBotKeyRequest(name=args.name),
                   key=True)
    return _print_key(args, answer, "has a new key (the old one is refused)")


def retire(args) -> int:
    b = wire.bot(_call(args, "RetireBot", arena_pb2.RetireBotRequest(name=args.name), key=True))
    print(json.dumps(b) if args.json else f"bot {b['name']} retired: it can no longer "
          "connect; its history and leaderboard rows stay", flush=True)
    return 0


def list_arenas(args) -> int:
    arenas = [wire.arena(a) for a in _call(args, "ListArenas",
                                           arena_pb2.ListArenasRequest()).arenas]
    if args.json:
        print(json.dumps(arenas), flush=True)
        return 0
    for a in arenas:
        options = ", ".join(f"{k} {v}" for k, v in a["options"].items() if v is not None)
        print(f"{a['arena_id']:12s} {a['variant']:7s} {options}"
              f"{', duplicate' if a['duplicate'] else ''}: {a['bots_online']} bots online, "
              f"{a['matches_playing']} playing, {a['matches_counted']} counted, "
              f"{a['matches_voided']} voided", flush=True)
    return 0


def _n(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{x:.2f}"


def _loss(r: dict) -> str:
    """Mean loss a decision and how many analysed matches it rests on; "-" before any."""
    if not r["analysed_matches"] or r["mean_loss"] is None:
        return "-"
    return f"{_n(r['mean_loss'])} ({r['analysed_matches']})"


def _share(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def leaderboard(args) -> int:
    view = LEADERBOARD_VIEW.number("all_versions" if args.all_versions else "latest")
    b = wire.leaderboard(_call(args, "GetLeaderboard", arena_pb2.GetLeaderboardRequest(
        arena_id=args.arena, view=view, limit=args.limit)))
    if args.json:
        print(json.dumps(b), flush=True)
        return 0
    unit = "points/hand" if b["variant"] == "hhl" else "-stones/round"
    out = [f"arena {b['arena_id']}: {b['matches']} counted matches",
           f"{'#':>3} {'bot':24s} {'version':12s} {'mu-3σ':>7s} {'mu':>6s} {'σ':>5s} "
           f"{'matches':>7s} {unit:>13s} {'±95%':>6s} {'loss/dec (n)':>12s} {'luck':>5s}  "
           "faults t/i/d/c/s"]
    for r in b["rows"]:
        marks = ("*" if r["resident"] else "") + ("†" if r["retired"] else "") + \
            ("?" if r["provisional"] else "") + ("●" if r["online"] else "")
        f = r["faults"]
        out.append(f"{r['place']:>3} {(r['name'] + ' ' + marks).strip():24s} "
                   f"{r['version'][:12]:12s} {_n(r['score']):>7s} {_n(r['mu']):>6s} "
                   f"{_n(r['sigma']):>5s} {r['matches']:7d} {_n(r['mean']):>13s} "
                   f"{_n(r['ci95']):>6s} {_loss(r):>12s} {_share(r['luck_share']):>5s}  "
                   f"{f['timeouts']}/{f['illegal']}/{f['disconnects']}/"
                   f"{f['crashes']}/{f['spam']}")
    out.append("* resident (a house strategy)  ? provisional  ● online  † retired")
    print("\n".join(out), file=sys.stdout, flush=True)
    return 0
