"""The kit's output: a table of cases (text or JSON), and a line per case as it ends."""

from __future__ import annotations

from .cases import FAIL, PASS, SKIP, VERDICTS


def progress_line(outcome) -> str:
    return f"domino conformance: {outcome.case}: {outcome.verdict} ({outcome.seconds:.1f} s)"


def as_table(outcomes: list, seconds: float) -> str:
    width = max([len("case"), *(len(o.case) for o in outcomes)])
    lines = [f"{'case':<{width}}  {'result':<6}  reason"]
    lines += [f"{o.case:<{width}}  {o.verdict:<6}  {o.reason}" for o in outcomes]
    counts = {v: sum(o.verdict == v for o in outcomes) for v in VERDICTS}
    lines.append(f"{counts[PASS]} passed, {counts[FAIL]} failed, {counts[SKIP]} skipped "
                 f"in {seconds:.1f} s")
    return "\n".join(lines)


def as_json(command: list[str], args, outcomes: list, seconds: float) -> dict:
    return {"command": command, "variant": args.variant, "pool": args.pool,
            "passed": all(o.verdict == PASS for o in outcomes),
            "seconds": round(seconds, 2), "cases": [o.to_dict() for o in outcomes]}
