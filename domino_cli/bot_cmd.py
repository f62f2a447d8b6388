"""`domino bot`: play seats, or pool seats, with a strategy over the engine's Play service."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
import traceback

from .argtypes import COUNT, ENGINE_HELP, POSITIVE, SEED, seconds

BOT_HELP = """Play with a strategy from bots/strategies over the engine's Play service.

Seats, four ways (several seats share one process, one connection each):
  --match ID --seat 0 --seat-token=T0 [--seat 2 --seat-token=T2 ...]   pairs, in order
                      (write --seat-token=T: a token may start with "-")
  DOMINO_SEAT_TOKEN=T --match ID --seat 0                    one seat, token kept out of ps
  --seats-file FILE   JSON: the object `domino new-match` prints ({"match_id", "seat_tokens"}:
                      every seat, or only the --seat numbers given), or a list of
                      {"match_id", "seat", "seat_token"}; '-' reads stdin
  (no flags)          the environment: DOMINO_ENGINE, DOMINO_MATCH, DOMINO_SEAT and
                      DOMINO_SEAT_TOKEN, as `domino conformance` starts a bot (docs/bots.md)
Or a pool: DOMINO_POOL_SECRET=S --pool NAME [--name BOTNAME] [--capacity K] [--matches N]
[--bots B]: the engine seats the bot in matches that need one from that pool, match after
match, K at once; B streams from one process (one seat per match each) can fill every seat
of a table. S is the pool's enlist secret (`domino pools create NAME` prints it; a
ladder's creator gets one per entrant). DOMINO_POOL, DOMINO_POOL_NAME, DOMINO_POOL_CAPACITY
and DOMINO_POOL_MATCHES stand for the flags.

Or an arena, as a registered bot (docs/arena.md): DOMINO_BOT_KEY=K --arena hhl --version v1
[--matches N]: the bot's lobby stays connected and the engine seats it at table after table
against bots of similar strength, until interrupted (or N matches; a first Ctrl-C or SIGTERM
leaves the lobby and finishes the matches in play, a second stops at once). K is the bot key
`domino arena register NAME` printed; --bot-key-env names another variable holding it (a
key is never given on the command line, where ps shows it).

The bot answers every turn before the engine's deadline (the first legal move if the
strategy is too slow), reconnects with backoff after a drop and resumes with its token.
It prints one JSON line per seat ({"match_id", "seat", "result", "stats"}) or, for a pool,
{"pool", "name", "results", "matches", "stats"} per stream; exit status 1 if one failed,
with a line on stderr saying why. While a match goes on, a line on stderr every
--progress-every seconds (default 10) gives its version, hand or round and score.

  domino new-match --variant hhl --options '{"hands": 2}' > m.json
  domino bot --seats-file m.json --strategy heuristic --seed 1
"""


def add_subcommands(subparsers) -> None:
    p = subparsers.add_parser(
        "bot", help="play seats (--match/--seat/--seat-token, --seats-file) or pool seats "
        "(--pool) with a strategy", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=BOT_HELP)
    # With no flags, the bot plays what the environment names (DOMINO_ENGINE, DOMINO_MATCH,
    # DOMINO_SEAT, DOMINO_SEAT_TOKEN; DOMINO_POOL...): how `domino conformance` starts it.
    env = os.environ.get
    p.add_argument("--engine", default=env("DOMINO_ENGINE") or "127.0.0.1:50051",
                   help=ENGINE_HELP + " (default: DOMINO_ENGINE, or "
                   "127.0.0.1:50051); a pool bot enlists with every live engine")
    p.add_argument("--strategy", default="greedy",
                   help="strategy name from bots.strategies (default greedy): random, greedy, "
                   "heuristic, search, expert (oracle plays only in-process; ceiling is a "
                   "yardstick, seconds a move)")
    p.add_argument("--seed", type=SEED, help="seed of the strategies: seat N plays with SEED+N "
                   "(a pool bot's k-th match with SEED+k)")
    p.add_argument("--match", default=env("DOMINO_MATCH") or None,
                   help="match id (for --seat/--seat-token pairs; default: DOMINO_MATCH)")
    p.add_argument("--seat", type=COUNT, action="append", default=[],
                   help="seat number; repeat with --seat-token to play several seats "
                   "(default: DOMINO_SEAT, with DOMINO_SEAT_TOKEN)")
    p.add_argument("--seat-token", action="append", default=[], dest="seat_tokens",
                   help="seat token, paired in order with --seat; write --seat-token=T, as a "
                   "token may start with '-' (one seat: env DOMINO_SEAT_TOKEN keeps it out of ps)")
    p.add_argument("--seats-file", help="JSON file ('-' = stdin) of seats to play: what "
                   "`domino new-match` prints, or a list of {match_id, seat, seat_token}")
    p.add_argument("--pool", default=env("DOMINO_POOL") or None,
                   help="enlist in this bot pool instead of playing given seats (default: "
                   "DOMINO_POOL)")
    p.add_argument("--pool-secret", default=os.environ.get("DOMINO_POOL_SECRET", ""),
                   help="the pool's enlist secret (default: the environment variable "
                   "DOMINO_POOL_SECRET, which keeps it out of ps)")
    p.add_argument("--name", default=env("DOMINO_POOL_NAME", ""), help="the bot's name in the "
                   "pool (default: DOMINO_POOL_NAME, or the strategy name)")
    p.add_argument("--capacity", type=POSITIVE, default=env("DOMINO_POOL_CAPACITY") or 1,
                   help="pool matches at once, per stream (default: DOMINO_POOL_CAPACITY, or 1)")
    p.add_argument("--bots", type=POSITIVE, default=1, help="pool streams enlisted from this process, "
                   "named NAME-1..NAME-N (a stream plays one seat per match)")
    # Its own dest: a pool bot's --matches means something else than simulate's or a ladder's.
    p.add_argument("--matches", type=COUNT, default=None,
                   dest="pool_matches", help="pool (or arena) matches to play, then stop (0: "
                   "until interrupted; default: DOMINO_POOL_MATCHES, or 1; in an arena 0)")
    p.add_argument("--arena", default=env("DOMINO_ARENA") or None,
                   help="play in this arena as a registered bot (hhl, domeng, ...; "
                   "docs/arena.md), with the bot key from --bot-key-env (default: DOMINO_ARENA)")
    p.add_argument("--bot-key-env", default="DOMINO_BOT_KEY", metavar="VAR",
                   help="the environment variable holding the bot key (default DOMINO_BOT_KEY)")
    p.add_argument("--version", default=env("DOMINO_BOT_VERSION", ""), dest="bot_version",
                   help="the bot's version label in the arena, 1..40 characters (default: "
                   "DOMINO_BOT_VERSION, or the strategy's name); each version is rated on its own")
    p.add_argument("--no-standby", action="store_false", dest="standby",
                   help="in an arena, play each match on a seat stream of its own instead of "
                   "standing by with every engine (docs/arena.md, \"Standby streams\")")
    p.add_argument("--margin-ms", type=COUNT, help="answer this long before the deadline "
                   "(default: a tenth of the clock, 250..1000 ms)")
    p.add_argument("--give-up", type=seconds(), default=120.0, help="seconds the engine may stay "
                   "unreachable before the bot gives up (default 120; 0: never)")
    p.add_argument("--delay", type=seconds(), default=0.0, help="seconds to think per move "
                   "(testing)")
    p.add_argument("--answers", action="store_true", help="ask for a MoveAnswer to every move, "
                   "not only to refused ones")
    p.add_argument("--progress-every", type=seconds(), default=10.0, metavar="SECONDS",
                   help="a progress line on stderr per match this often (default 10; 0: none)")
    p.add_argument("-v", "--verbose", action="store_true", help="log every connection step")
    p.set_defaults(func=run_bot)


def bot_tickets(args) -> list:
    """The seats `domino bot` plays, from --match/--seat/--seat-token, the environment or
    --seats-file. Raises SystemExit with a message when they do not add up, or a usage
    Failure when a part is missing."""
    from bots.play import SeatTicket

    from .failures import USAGE, Failure

    if args.seats_file:
        try:
            if args.seats_file == "-":
                data = json.load(sys.stdin)
            else:
                with open(args.seats_file) as f:
                    data = json.load(f)
        except OSError as e:
            raise SystemExit(f"domino bot: cannot read --seats-file {args.seats_file}: "
                             f"{e.strerror or e}") from None
        except ValueError as e:
            raise SystemExit(f"domino bot: --seats-file {args.seats_file} is not JSON: {e}") from None
        if isinstance(data, dict) and "seat_tokens" in data:
            seats = args.seat or range(len(data["seat_tokens"]))
            try:
                return [SeatTicket(data["match_id"], s, data["seat_tokens"][s]) for s in seats]
            except (KeyError, IndexError):
                raise SystemExit("domino bot: --seat out of range for --seats-file") from None
        if isinstance(data, list) and all(isinstance(x, dict) for x in data):
            try:
                return [SeatTicket(x["match_id"], int(x["seat"]), x["seat_token"]) for x in data]
            except (KeyError, ValueError) as e:
                raise SystemExit(f"domino bot: --seats-file entry without {e}") from None
        raise SystemExit('domino bot: --seats-file holds {"match_id", "seat_tokens"} or a '
                         'list of {"match_id", "seat", "seat_token"}')
    tokens = args.seat_tokens or ([os.environ["DOMINO_SEAT_TOKEN"]]
                                  if os.environ.get("DOMINO_SEAT_TOKEN") else [])
    if args.match and not tokens:
        # A wrong command line (exit 2), named for what is missing: the seat's secret.
        raise Failure(f"no seat token for match {args.match}: set DOMINO_SEAT_TOKEN, or give "
                      "--seat-token=T (paired with --seat) or --seats-file", USAGE)
    if not args.match:
        raise Failure("give --match with --seat/--seat-token (or DOMINO_SEAT_TOKEN), "
                      "--seats-file, or --pool", USAGE)
    from_env = os.environ.get("DOMINO_SEAT", "")
    if not args.seat and len(tokens) == 1 and from_env:
        try:
            args.seat = [int(from_env)]
        except ValueError:
            raise SystemExit(f"domino bot: DOMINO_SEAT is {from_env!r}, not a seat number") from None
    seats = args.seat or ([-1] if len(tokens) == 1 else [])
    if len(seats) != len(tokens):
        raise SystemExit(f"domino bot: {len(seats)} --seat for {len(tokens)} --seat-token; "
                         "give them in pairs")
    return [SeatTicket(args.match, s, t) for s, t in zip(seats, tokens, strict=True)]


def run_bot(args) -> int:
    import time

    from bots.play import play_seats
    from bots.strategies import make_strategy
    from bots.strategy_adapter import listens

    from .bot_progress import Progress
    from .failures import unreachable

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("asyncio").addFilter(_PollerNoise())
    try:
        probe = make_strategy(args.strategy, args.seed)
    except ValueError as e:
        raise SystemExit(f"domino bot: {e}") from None
    if hasattr(probe, "attach"):
        raise SystemExit(f"domino bot: {args.strategy} sees every hand; it plays only "
                         "in-process (bots/arena.py), never over the wire")
    counter = iter(range(1 << 62))
    lock = threading.Lock()

    def make_bot(match_id, seat):
        with lock:
            k = next(counter) if args.pool or args.arena else seat
        strategy = make_strategy(args.strategy, None if args.seed is None else args.seed + k)
        if args.delay > 0:
            choose = strategy.choose

            def slowly(view, legal_moves):
                time.sleep(args.delay)
                return choose(view, legal_moves)
            strategy.choose = slowly    # no longer inline: runs_inline sees the replacement
        return strategy

    # A strategy that does not listen to events gets none: the engine sends it only its
    # turns, answers to refused moves and match ends (Hello.skip_events, skip_accepted).
    progress = Progress(args.engine, args.progress_every, args.give_up or None)
    options = {"margin": None if args.margin_ms is None else args.margin_ms / 1000,
               "give_up_after": args.give_up or None, "events": listens(probe),
               "answers": args.answers, "on_message": progress.on_message,
               "on_open": progress.on_open}
    if args.arena:
        with running(progress):
            entries = [run_arena_bot(args, make_bot, options)]
    elif args.pool:
        if args.pool_matches is None:
            args.pool_matches = COUNT(os.environ.get("DOMINO_POOL_MATCHES") or "1")
        with running(progress):
            entries = run_pool_bots(args, make_bot, options)
    else:
        tickets = bot_tickets(args)
        signal.signal(signal.SIGINT, _interrupted)
        with running(progress):
            entries = play_seats(args.engine, tickets, make_bot, **options)
    for entry in entries:
        print(json.dumps(entry), flush=True)
    failed = [e["error"] for e in entries if "error" in e]
    if failed:
        why = failed[0]
        if not progress.heard and "unreachable" in why:    # never reached: say what to do
            why = unreachable(args.engine, f"tried for {args.give_up:g} s")
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        print(f"domino bot: {why}{more}", file=sys.stderr, flush=True)
    return 1 if failed else 0


class _PollerNoise(logging.Filter):
    """grpc.aio's completion queue may wake once more after the last channel closed and
    report the closed descriptor through asyncio's logger, a traceback with the results
    already in: a known grpc.aio shutdown race, which nobody can act on."""

    def filter(self, record) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, OSError) and any(
            "completion_queue" in frame.filename for frame in traceback.extract_tb(error.__traceback__)))


def _interrupted(*_):
    """Ctrl-C: the way out closes every seat's stream, and each seat's thread would log
    its stream's end as a failure; the user asked for it."""
    logging.disable(logging.CRITICAL)
    raise KeyboardInterrupt


@contextlib.contextmanager
def running(progress):
    progress.start()
    try:
        yield
    finally:
        progress.stop()


def run_pool_bots(args, make_bot, options) -> list[dict]:
    """--pool: `--bots` streams enlisted in the pool; one JSON entry each."""
    from bots.fleet import PoolFleet
    from bots.play import pool_hello
    from bots.runner import RunnerError

    base = args.name or args.strategy
    names = [base] if args.bots <= 1 else [f"{base}-{i + 1}" for i in range(args.bots)]
    # A fleet per name: with a cluster, each name enlists with every live engine.
    runners = [PoolFleet(args.engine, pool_hello(args.pool, name, max(args.capacity, 1),
                                                 args.pool_secret), make_bot,
                         matches=args.pool_matches, label=f"pool {args.pool} as {name}",
                         **options)
               for name in names]
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: [r.stop() for r in runners])
    errors: dict[int, str] = {}

    def run(i):
        try:
            runners[i].run()
        except RunnerError as e:
            errors[i] = str(e)
        except Exception as e:   # noqa: BLE001 - reported in the stream's line
            logging.getLogger("bots.runner").exception("pool stream %s failed", names[i])
            errors[i] = repr(e)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(runners))]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():         # join with a timeout so signals get through
            t.join(0.5)
    out = []
    for i, (name, runner) in enumerate(zip(names, runners, strict=True)):
        entry = {"pool": args.pool, "name": name, "results": runner.results,
                 "matches": runner.finished,
                 "stats": {"moves": runner.stats.moves, "fallbacks": runner.stats.fallbacks,
                           "refusals": runner.stats.refusals,
                           "reconnects": runner.stats.reconnects}}
        if i in errors:
            entry["error"] = errors[i]
        out.append(entry)
    return out


def run_arena_bot(args, make_bot, options) -> dict:
    """--arena: one lobby, a standby stream with every engine (unless --no-standby), and a
    seat stream for each match no standby stream plays; one JSON entry for the whole run."""
    from bots.lobby import ArenaBot
    from bots.runner import RunnerError

    key = os.environ.get(args.bot_key_env, "")
    if not key:
        raise SystemExit(f"domino bot: --arena needs the bot key in the environment variable "
                         f"{args.bot_key_env} (`domino arena register NAME` prints it)")
    version = args.bot_version or args.strategy
    bot = ArenaBot(args.engine, key, version, args.arena, make_bot,
                   matches=args.pool_matches or 0, label=f"arena {args.arena}",
                   standby=args.standby, **options)
    signals = []

    def on_signal(*_):
        # The first signal leaves the lobby and lets the matches in play end (their seats
        # would otherwise be played by the clock); a second one stops at once.
        signals.append(1)
        if len(signals) == 1:
            print("domino bot: leaving the arena after the matches in play (again: stop now)",
                  file=sys.stderr, flush=True)
            bot.leave()
        else:
            bot.stop()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    entry = {"arena": args.arena, "version": version}
    done = threading.Event()

    def run():
        try:
            bot.run()
        except RunnerError as e:
            entry["error"] = str(e)
        except Exception as e:   # noqa: BLE001 - reported in the line
            logging.getLogger("bots.lobby").exception("arena bot failed")
            entry["error"] = repr(e)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    while not done.wait(0.5):    # a wait with a timeout, so signals get through
        pass
    if bot.welcome is not None:
        entry["name"], entry["bot_id"] = bot.welcome.name, bot.welcome.bot_id
    entry.update(results=bot.results, matches=bot.finished, pauses=bot.pauses)
    if bot.errors:
        entry["match_errors"] = bot.errors
    return entry
