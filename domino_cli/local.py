"""The in-process commands: `domino simulate`, `domino replay`, `domino demo`. No engine,
no network: matches are played by the rules core and the strategies in this process."""

import argparse
import json
import sys

from engine_service.rules import NUM_SEATS, VARIANTS, MalformedInput, ReplayError, replay_record

from . import narrate
from .argtypes import POSITIVE, SEED, integer
from .failures import USAGE, Failure
from .options import OPTION_HELP, options_help, parse_options
from .records import numeric_seed


def cmd_simulate(args) -> int:
    from bots.simulate import simulate

    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    seats = NUM_SEATS[args.variant]
    if len(bots) == 1:
        bots = bots * seats
    if len(bots) != seats:
        raise Failure(f"{args.variant} has {seats} seats; --bots lists {len(bots)}", USAGE)

    def progress(done, total):
        if not args.json and sys.stderr.isatty():
            print(f"\r{done}/{total} matches", end="" if done < total else "\n", file=sys.stderr)

    summary = simulate(args.variant, args.matches, args.seed, bots, parse_options(args.option),
                       args.records, progress)
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    unit = "points_per_hand" if args.variant == "hhl" else "stones_per_round"
    print(f"{summary['matches']} {args.variant} matches, {summary['deals']} "
          f"{'hands' if args.variant == 'hhl' else 'rounds'}, {summary['moves']} moves "
          f"in {summary['seconds']} s ({summary['moves_per_second']} moves/s)")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(summary["outcomes"].items())))
    for name, value in summary[unit].items():
        extra = f", CAMAT titles {summary['camat_titles'][name]}" if "camat_titles" in summary else ""
        print(f"  {name:10s} mean {unit.replace('_', ' ')} {value:+.3f}{extra}")
    return 0


def cmd_replay(args) -> int:
    try:
        with open(args.record) as f:
            record = numeric_seed(json.load(f))
    except OSError as e:
        print(f"domino replay: cannot read {args.record}: {e.strerror}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as e:
        print(f"domino replay: {args.record} is not JSON: {e}", file=sys.stderr)
        return 2
    try:
        m = replay_record(record)
    except MalformedInput as e:
        print(f"domino replay: {args.record}: malformed: {e.message}", file=sys.stderr)
        return 2
    except ReplayError as e:
        print(f"domino replay: {args.record}: {e.where}: {e.reason}: {e.message}", file=sys.stderr)
        if e.legal_moves:
            print(f"  legal moves were: {', '.join(e.legal_moves)}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(m.record(seats=record.get("seats")), indent=1))
        return 0
    unit = narrate.deal_word(m.variant)
    for i, d in enumerate(m.deals, start=1):   # numbered for people, from 1
        if d.result is not None:
            print(f"{unit} {i}: {narrate.describe_result(d.result)}")
        else:
            print(f"{unit} {i}: in progress, seat {m.to_move} to move")
    if m.result is not None:
        print(f"match: {json.dumps({k: v for k, v in m.result.items() if k != 'cycles'})}")
    print("record OK: every move legal, every result as recorded")
    return 0


def cmd_demo(args) -> int:
    """A simulated HHL match and a Domeng match, move by move, in words."""
    from bots.arena import play_match
    from bots.strategies import make_strategy

    for variant, options, names in (("hhl", {"hands": args.hands}, ["greedy", "random"] * 2),
                                    ("domeng", {"cycles": 1}, ["greedy", "random"] * 2 + ["greedy"])):
        print(f"\n===== {variant}: {', '.join(f'seat {s} {n}' for s, n in enumerate(names))}")
        bots = [make_strategy(n, args.seed + s) for s, n in enumerate(names)]
        m = play_match(variant, options, args.seed, bots)
        for e in m.events:
            print(narrate.describe(e.to_dict(None), variant))
    return 0


def _simulate_options() -> str:
    from bots.simulate import SIM_DEFAULTS

    return options_help(SIM_DEFAULTS, "simulate")


def add_subcommands(sub) -> None:
    s = sub.add_parser("simulate", help="play whole matches in-process and summarize",
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=_simulate_options)
    s.add_argument("--variant", choices=list(VARIANTS), required=True)
    s.add_argument("--matches", type=POSITIVE, default=10)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--bots", default="random", help="comma-separated strategies, one per seat")
    s.add_argument("--option", action="append", metavar="KEY=VALUE", help=OPTION_HELP)
    s.add_argument("--records", metavar="DIR", help="write one domino-record/1 file per match")
    s.add_argument("--json", action="store_true", help="print the summary as JSON")
    s.set_defaults(func=cmd_simulate)

    r = sub.add_parser("replay", help="re-check a match record move by move")
    r.add_argument("record", help="a domino-record/1 JSON file")
    r.add_argument("--json", action="store_true", help="print the completed record")
    r.set_defaults(func=cmd_replay)

    hands = VARIANTS["hhl"].option_specs()["hands"]
    d = sub.add_parser("demo", help="print a simulated HHL and Domeng match in words")
    d.add_argument("--seed", type=SEED, default=1)
    d.add_argument("--hands", type=integer(hands.lo, hands.hi, "a number of hands"), default=2,
                   help="hands of the HHL match (default 2)")
    d.set_defaults(func=cmd_demo)
