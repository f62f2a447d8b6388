"""How `domino ladder` shows a ladder: its progress while it runs and its standings.

On a terminal, a live bar (rich) and a table; anywhere else (a pipe, a log, CI), a plain
line every few seconds and a plain text table, which scripts and tests can read. Numbers
are rounded here, once, from the engine's unrounded values: what --json prints.
"""

from __future__ import annotations

import time

PLAIN_EVERY_S = 5.0   # a progress line this often when stderr is no terminal


def shown(x: float, places: int = 2) -> str:
    """A number as the tables show it: rounded once, from the engine's value."""
    return f"{x:.{places}f}"


def _unit(variant: str) -> str:
    return "points/hand" if variant == "hhl" else "-stones/round"


def _target(info) -> int:
    return info.target_matches or info.max_matches


def _rate(info, started: float) -> float:
    """Counted matches per minute since the command started."""
    return info.matches_counted / max(time.monotonic() - started, 1e-9) * 60


class PlainProgress:
    """A progress line every PLAIN_EVERY_S seconds, for a stderr that is no terminal."""

    def __init__(self, out, every: float = PLAIN_EVERY_S):
        self.out, self.every = out, every
        self.started = time.monotonic()
        self._last = self.started

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, info, final: bool = False) -> None:
        now = time.monotonic()
        if final or now - self._last >= self.every:
            self._last = now
            what = f"{info.matches_counted}/{_target(info)}"
            if info.until_separated:
                what += " (until separated)"
            print(f"{what} matches, {_rate(info, self.started):.1f}/min, "
                  f"{info.matches_playing} playing, leader {info.leader or '-'}",
                  file=self.out, flush=True)


class LiveProgress:
    """A rich live bar on a terminal: matches done / target, rate, ETA, the leader."""

    def __init__(self, out):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.started = time.monotonic()
        self._progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("matches, {task.fields[rate]}/min, {task.fields[playing]} playing"),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            TextColumn("leader [bold]{task.fields[leader]}"),
            console=Console(file=out), transient=False)
        self._task = None

    def __enter__(self):
        self._progress.start()
        return self

    def __exit__(self, *exc):
        self._progress.stop()
        return False

    def update(self, info, final: bool = False) -> None:
        fields = {"rate": f"{_rate(info, self.started):.1f}", "playing": info.matches_playing,
                  "leader": info.leader or "-"}
        if self._task is None:
            what = "ladder (until separated)" if info.until_separated else "ladder"
            self._task = self._progress.add_task(what, total=_target(info), **fields)
        self._progress.update(self._task, completed=info.matches_counted, **fields)


def progress_display(out):
    """The progress display for ``out``: live on a terminal, plain lines otherwise."""
    return LiveProgress(out) if out.isatty() else PlainProgress(out)


def _faults(f: dict) -> str:
    return f"{f['timeouts']}/{f['illegal']}/{f['disconnects']}/{f['crashes']}"


def _separation(r: dict, last: bool) -> str:
    return "" if last else ("yes" if r["separated_from_next"] else "no")


def _verdict(d: dict) -> str:
    verdict = "every neighbour pair separated" if d["separated"] else "not all neighbours separated"
    return f"{d['matches']} matches counted, {d['voided']} voided; {verdict} (95%)"


def _entrant(r: dict) -> str:
    return f"{r['entrant']}*" if r.get("yardstick") else r["entrant"]


def _gap(r: dict) -> str:
    return "-" if r.get("gap_closed") is None else shown(r["gap_closed"])


def _has_gap(d: dict) -> bool:
    return any(r.get("gap_closed") is not None for r in d["entries"])


def _has_skill(d: dict) -> bool:
    return any(r.get("analysed_matches") for r in d["entries"])


def _skill(r: dict) -> tuple[str, str]:
    """(mean loss per decision with the matches it rests on, luck's share)."""
    if not r.get("analysed_matches") or r.get("mean_loss") is None:
        return "-", "-"
    luck = "-" if r.get("luck_share") is None else f"{100 * r['luck_share']:.0f}%"
    return f"{shown(r['mean_loss'])} ({r['analysed_matches']})", luck


YARDSTICK_NOTE = "* yardstick: played by the engine (the oracle sees every hand)"
SKILL_NOTE = ("loss/dec: mean seat-honest loss per decision (matches analysed); luck: share "
              "of the results' swings luck explains (docs/analysis.md)")
GAP_NOTE = "gap: gap closed, from greedy (0) to the oracle (1)"


def _notes(d: dict) -> list[str]:
    notes = [YARDSTICK_NOTE] if any(r.get("yardstick") for r in d["entries"]) else []
    return notes + ([GAP_NOTE] if _has_gap(d) else []) + ([SKILL_NOTE] if _has_skill(d) else [])


def format_standings(d: dict, variant: str) -> str:
    """The standings (domino_wire's dict) as a plain text table."""
    gap, skill = _has_gap(d), _has_skill(d)
    lines = [f"{'#':>2} {'entrant':14s} {'mu-3σ':>7s} {'mu':>7s} {'σ':>6s} {'matches':>7s} "
             f"{_unit(variant):>14s} {'±95%':>8s}" + (f" {'gap':>6s}" if gap else "")
             + (f" {'loss/dec':>12s} {'luck':>5s}" if skill else "")
             + "  sep  faults (timeouts/illegal/disconnects/crashes)"]
    for r in d["entries"]:
        ci = shown(r["ci95"]) if r["ci95"] is not None else "-"
        sep = _separation(r, r is d["entries"][-1])
        lines.append(f"{r['place']:>2} {_entrant(r):14s} {shown(r['score']):>7s} {shown(r['mu']):>7s} "
                     f"{shown(r['sigma']):>6s} {r['matches']:7d} {shown(r['mean']):>14s} {ci:>8s}"
                     + (f" {_gap(r):>6s}" if gap else "")
                     + (" {:>12s} {:>5s}".format(*_skill(r)) if skill else "")
                     + f"  {sep:>3s}  {_faults(r['faults'])}")
    lines.append(_verdict(d))
    lines += _notes(d)
    return "\n".join(lines)


def print_standings(d: dict, variant: str, out) -> None:
    """A rich table on a terminal, the plain one anywhere else."""
    if not out.isatty():
        print(format_standings(d, variant), file=out, flush=True)
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"ladder {d['ladder_id']}: standings", box=box.SIMPLE_HEAD,
                  padding=(0, 0, 0, 1), pad_edge=False, show_edge=False,
                  caption="\n".join([_verdict(d), f"mean: {_unit(variant)}; sep: separated "
                                     "from the next row; faults: timeouts/illegal/disconnects/"
                                     "crashes", *_notes(d)]))
    gap, skill = _has_gap(d), _has_skill(d)
    for name in ("#", "entrant", "mu-3σ", "mu", "σ", "matches", "mean", "±95%",
                 *(("gap",) if gap else ()), *(("loss/dec", "luck") if skill else ()),
                 "sep", "faults"):
        left = name in ("entrant", "sep", "faults")
        table.add_column(name, justify="left" if left else "right", no_wrap=True)
    last = d["entries"][-1] if d["entries"] else None
    for r in d["entries"]:
        table.add_row(str(r["place"]), _entrant(r), shown(r["score"]), shown(r["mu"]),
                      shown(r["sigma"]), str(r["matches"]), shown(r["mean"]),
                      shown(r["ci95"]) if r["ci95"] is not None else "-",
                      *((_gap(r),) if gap else ()), *(_skill(r) if skill else ()),
                      _separation(r, r is last),
                      _faults(r["faults"]))
    Console(file=out).print(table)
