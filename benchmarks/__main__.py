"""Run every benchmark section and print its figures: python -m benchmarks [SECTION ...]."""

import argparse
import importlib
import platform
import sys

SECTIONS = {"rules": "benchmarks.rules_bench", "bots": "benchmarks.bots_bench",
            "engine": "benchmarks.engine_bench", "gateway": "benchmarks.gateway_bench",
            "ladders": "benchmarks.ladder_bench", "safety": "benchmarks.safety_bench",
            "cluster": "benchmarks.cluster_bench", "worlds": "benchmarks.worlds_bench",
            "outage": "benchmarks.outage_bench", "oracle": "benchmarks.oracle_bench"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks")
    p.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)} (default: all)")
    args = p.parse_args(argv)
    unknown = [s for s in args.sections if s not in SECTIONS]
    if unknown:
        p.error(f"unknown section(s) {unknown}; choose from {', '.join(SECTIONS)}")
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or '?'}")
    for name in args.sections or SECTIONS:
        print(f"\n## {name}")
        for line in importlib.import_module(SECTIONS[name]).run():
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
