"""`domino analyse RECORD`: computer analysis of a finished match (analysis/): each
decision's loss against the best move, seat-honest and with perfect information, mistakes
and blunders marked, and each hand's result split into skill and luck.

A table on stdout by default, the domino-analysis/1 document with --json or --out FILE.
Progress goes to stderr: one live line on a terminal, a plain line every tenth of the work
in a pipe. The work runs over every core (multiprocessing; the figures are the same for a
seed whatever the number of processes).
"""

from __future__ import annotations

import json
import os
import sys

from .argtypes import SEED, integer
from .failures import USAGE, Failure
from .fork_cmd import read_record
from .record_cmd import write


def add_subcommands(sub) -> None:
    from analysis import DEFAULT_WORLDS
    from analysis.values import MAX_WORLDS

    p = sub.add_parser(
        "analyse", help="where each seat lost: every decision's loss, mistakes, skill and luck",
        description="Analyse a finished match's record (domino-record/1): for each decision "
        "of a seat (a play with more than one legal move), every legal move's expected "
        "result for the seat with every seat then playing greedy, over the worlds its view "
        "allows (seat-honest) and over the true hands (perfect information); the loss of "
        "the move played, mistakes and blunders beyond their noise; per hand, the result "
        "split into skill (the seat's own losses) and luck (docs/analysis.md).")
    p.add_argument("record", metavar="RECORD", help="the record's JSON file (`domino record`)")
    p.add_argument("--seat", default="all", help="the seat to analyse, 0.., or all (default)")
    p.add_argument("--worlds", type=integer(1, MAX_WORLDS), default=DEFAULT_WORLDS,
                   help=f"worlds per decision (default {DEFAULT_WORLDS}, at most {MAX_WORLDS})")
    p.add_argument("--seed", type=SEED, default=0, help="the seed of the worlds (default 0)")
    p.add_argument("--processes", type=integer(1, 256), default=None,
                   help="worker processes (default: one per core)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the analysis document as JSON")
    out.add_argument("--out", metavar="FILE", help="write the analysis document to FILE")
    p.set_defaults(func=run_analyse)


class Bar:
    """Progress on stderr: a live line on a terminal, plain lines (every tenth) in a pipe."""

    def __init__(self, out=None):
        self.out = out or sys.stderr
        self.live = self.out.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if self.live:
            filled = 30 * done // total
            self.out.write(f"\ranalysing [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} moments")
            if done == total:
                self.out.write("\n")
            self.out.flush()
            return
        tenth = 10 * done // total
        if tenth > self.shown:
            self.shown = tenth
            print(f"analysing: {done}/{total} moments", file=self.out, flush=True)


def _seats(text: str, n: int) -> list[int]:
    if text == "all":
        return list(range(n))
    if not text.isdigit() or not 0 <= int(text) < n:
        raise Failure(f"--seat must be 0..{n - 1} or all, got {text[:20]!r}", USAGE)
    return [int(text)]


def table(doc: dict) -> str:
    unit = doc["unit"]
    lines = [f"{doc['variant']} analysis: policy {doc['policy']}, {doc['worlds']} worlds per "
             f"decision, seed {doc['seed']} (values in {unit}; loss = best - played)"]
    for s in doc["seats"]:
        sm = s["summary"]
        lines.append(f"\nseat {s['seat']} ({s['name']}): {sm['decisions']} decisions, mean loss "
                     f"{sm['mean_loss']:.1f} (perfect information {sm['mean_pi_loss']:.1f}), "
                     f"{sm['mistakes']} mistakes, {sm['blunders']} blunders; skill "
                     f"{sm['skill']:+.1f}, luck {sm['luck']:+.1f} (luck's share {sm['luck_share']:.0%})")
        for h in s["hands"]:
            lines.append(f"  hand {h['deal'] + 1}: result {h['result']:+}, expected at the deal "
                         f"{h['v0']:+.1f} (±{h['v0_se']:.1f}) = skill {h['skill']:+.1f} + luck "
                         f"{h['luck']:+.1f}; {len(h['decisions'])} decisions, {h['forced']} forced")
            for d in h["decisions"]:
                if d["mark"]:
                    lines.append(f"    play {d['ply'] + 1}: {d['played']} is a {d['mark']}: best was "
                                 f"{d['best']} (+{d['loss']:.1f} ±{d['loss_se']:.1f})")
    return "\n".join(lines)


def run_analyse(args) -> int:
    from analysis import analyse
    from engine_service.rules import MalformedInput, ReplayError

    record = read_record(args.record)
    if not isinstance(record, dict) or not isinstance(record.get("deals"), list) or not record["deals"]:
        raise Failure(f"{args.record}: not a domino-record/1 document", USAGE)
    if "result" not in record:
        raise Failure(f"{args.record}: the match is not over: only a finished match is analysed", USAGE)
    n = len(record["deals"][0].get("hands") or [])
    seats = _seats(args.seat, n)
    try:
        doc = analyse(record, seats=seats, worlds=args.worlds, seed=args.seed,
                      processes=args.processes or os.cpu_count() or 1, progress=Bar())
    except MalformedInput as e:
        raise Failure(f"{args.record}: malformed: {e.message}", USAGE) from None
    except ReplayError as e:
        raise Failure(f"{args.record}: {e.where}: {e.reason}: {e.message}") from None
    if args.out:
        write(args.out, json.dumps(doc, indent=1) + "\n")
    elif args.json:
        print(json.dumps(doc, indent=1))
    else:
        print(table(doc))
    return 0
