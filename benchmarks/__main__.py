"""Run every benchmark section and print its figures: python -m benchmarks [SECTION ...].

--smoke runs each section at tiny sizes (benchmarks/__init__.py): what tests/benchmarks
runs in `make test`. Each section ends with the line "## SECTION: done in S s".
"""

import argparse
import importlib
import os
import platform
import sys
import time

SECTIONS = {"rules": "benchmarks.rules_bench", "bots": "benchmarks.bots_bench",
            "engine": "benchmarks.engine_bench", "gateway": "benchmarks.gateway_bench",
            "ladders": "benchmarks.ladder_bench", "safety": "benchmarks.safety_bench",
            "cluster": "benchmarks.cluster_bench", "worlds": "benchmarks.worlds_bench",
            "outage": "benchmarks.outage_bench", "arena": "benchmarks.arena_bench",
            "abandoned": "benchmarks.abandoned_bench", "oracle": "benchmarks.oracle_bench",
            "expert": "benchmarks.expert_bench",
            "profiles": "benchmarks.profiles_bench", "house": "benchmarks.house_ladders",
            "analysis": "benchmarks.analysis_bench"}
# Run only when named: hours of ladders (benchmarks/house_ladders.py), not a figure to take
# again at every `make bench`.
ON_REQUEST = {"house"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks")
    p.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)} (default: all "
                   f"but {', '.join(sorted(ON_REQUEST))}, which run only when named)")
    p.add_argument("--smoke", action="store_true", help="tiny sizes, a few seconds a section: "
                   "checks that each runs to its end; its figures mean nothing")
    args = p.parse_args(argv)
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        p.error(f"unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}")
    import benchmarks
    if args.smoke:
        # Before any section is imported: sizes are read at import, here and in children.
        os.environ[benchmarks.SMOKE_ENV] = "1"
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or '?'}"
          + (" (smoke mode: tiny sizes, figures not meaningful)" if benchmarks.smoke() else ""))
    for name in args.sections or [s for s in SECTIONS if s not in ON_REQUEST]:
        print(f"\n## {name}", flush=True)
        started = time.monotonic()
        module = importlib.import_module(SECTIONS[name])
        if benchmarks.smoke() and not benchmarks.has_smoke_mode(SECTIONS[name]):
            print(f"python -m benchmarks: section {name} has no smoke mode: size it with "
                  "benchmarks.sized(full, tiny)", file=sys.stderr)
            return 2
        for line in module.run():
            print(line, flush=True)
        print(f"## {name}: done in {time.monotonic() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
