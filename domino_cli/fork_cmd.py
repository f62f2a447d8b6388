"""`domino fork RECORD.json --at N`: play a recorded match again from the position after
its first N plays, with other bots (or the same), in-process; write the new record.

The recorded deals are kept as dealt (the hidden tiles, the stock in its order), the first
N plays are the record's, and the bots play the rest (engine_service/rules/fork.py).
"""

import json

from engine_service.rules import MalformedInput, ReplayError, fork_of

from .argtypes import SEED, integer, seconds
from .failures import USAGE, Failure
from .records import numeric_seed


def read_record(path: str) -> dict:
    try:
        with open(path) as f:
            return numeric_seed(json.load(f))
    except OSError as e:
        raise Failure(f"cannot read {path}: {e.strerror}", USAGE) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Failure(f"{path} is not JSON: {e}", USAGE) from None


def strategies_for(names: list[str], record: dict, n: int) -> list[str]:
    """The bots by seat: --bots (one name for every seat, or one per seat), else the
    record's seat names, which must then be built-in strategies."""
    from bots.strategies import STRATEGIES

    known = ", ".join(STRATEGIES)
    if names:
        for name in names:
            if name not in STRATEGIES:
                raise Failure(f"unknown bot {name!r} in --bots; built-in: {known}", USAGE)
        if len(names) == 1:
            names = names * n
        if len(names) != n:
            raise Failure(f"{record['variant']} has {n} seats; --bots lists {len(names)}", USAGE)
        return names
    seats = record.get("seats") or []
    for s, name in enumerate(seats[:n]):
        if name not in STRATEGIES:
            raise Failure(f"seat {s} of the record is {str(name)[:40]!r}, not a built-in "
                          f"strategy; give --bots (built-in: {known})", USAGE)
    if len(seats) != n:
        raise Failure(f"the record names {len(seats)} seats; give --bots", USAGE)
    return list(seats)


def _both(*callbacks):
    """One on_move callback that calls each of `callbacks` (None: left out)."""
    callbacks = [c for c in callbacks if c is not None]

    def on_move(*args):
        for c in callbacks:
            c(*args)
    return on_move


def _ends_like_the_record(fork, recorded: int):
    """A time-limited HHL match (no `hands`) has no wall clock in process: like `domino
    replay`, take its time to be up in its last recorded hand, so the fork ends when that
    hand (or a later one, if the fork got there first) is over."""
    if fork.variant != "hhl" or fork.options.get("hands") is not None:
        return None

    def on_move(m, *_):
        if len(m.deals) >= recorded and not m.over:
            m.time_up()
    return on_move


def cmd_fork(args) -> int:
    from bots.arena import play_match
    from bots.strategies import make_strategy

    from .fork_progress import ForkProgress

    record = read_record(args.record)
    try:
        fork = fork_of(record, args.at)
    except MalformedInput as e:
        if e.field == "at":
            raise Failure(f"--at {args.at}: {e.message.split(', got')[0]}", USAGE) from None
        raise Failure(f"{args.record}: malformed: {e.message}", USAGE) from None
    except ReplayError as e:
        raise Failure(f"{args.record}: {e.where}: {e.reason}: {e.message}") from None
    n = len(fork.deals[0]["hands"])
    names = strategies_for([b.strip() for b in (args.bots or "").split(",") if b.strip()],
                           record, n)
    seed = record.get("seed", 0) if args.seed is None else args.seed
    bots = [make_strategy(name, seed * 10 + s) for s, name in enumerate(names)]
    progress = ForkProgress(fork.variant, args.progress_every)
    m = play_match(fork.variant, fork.options, seed, bots, deals=fork.deals, prefix=fork.prefix,
                   on_move=_both(_ends_like_the_record(fork, len(record["deals"])),
                                 progress.on_move))
    progress.done(m)
    new = m.record(seats=names)
    text = json.dumps(new, indent=1)
    if args.out:
        try:
            with open(args.out, "w") as f:
                f.write(text + "\n")
        except OSError as e:
            raise Failure(f"cannot write {args.out}: {e.strerror}") from None
    if args.json:
        print(text)
    else:
        where = f"written to {args.out}" if args.out else "use --out FILE or --json for the record"
        print(f"forked at play {args.at} of {fork.plays}; {len(m.deals)} deals played by "
              f"{', '.join(names)}; result {json.dumps(m.result)}; {where}")
    return 0


def add_subcommands(sub) -> None:
    f = sub.add_parser("fork", help="play a recorded match again from its Nth play, with bots")
    f.add_argument("record", help="a domino-record/1 JSON file")
    f.add_argument("--at", type=integer(0, None, "a number of plays"), required=True,
                   metavar="N", help="keep the record's first N plays (counted across deals)")
    f.add_argument("--bots", help="strategies by seat, comma-separated (one name: every "
                   "seat); default: the record's seat names")
    f.add_argument("--seed", type=SEED, help="seed of the bots and of any deal beyond the "
                   "recorded ones (default: the record's seed)")
    f.add_argument("--progress-every", type=seconds(), default=5.0, metavar="SECONDS",
                   help="in a pipe, a progress line on stderr this often (default 5; a "
                   "terminal gets a live line; 0: none)")
    out = f.add_mutually_exclusive_group()
    out.add_argument("--out", metavar="FILE", help="write the new record to FILE")
    out.add_argument("--json", action="store_true", help="print the new record")
    f.set_defaults(func=cmd_fork)

