"""Where the suite's CPU goes, by test folder: `.venv/bin/python -m pytest -p tests.cpu_report
[-n 6 --dist loadgroup] [PATHS]` prints, at the end, each folder's CPU seconds and the wall
seconds of its tests, then the costliest tests.

Why: on 2 cores the whole suite is CPU-bound (the machine is busy about 99% of a run), so
its time is set by the CPU it uses, not by how it is spread over workers; this says which
folders to make cheaper. A test's CPU is its worker's own (user + system) plus that of the
child processes reaped while it ran; a server shared by a whole session (the suite's
PostgreSQL, the gateway tests' engine, Chromium) is counted nowhere, and a child killed
without being waited for is not counted either. A child reaped later than the test that
started it (a process pool kept across tests, say) counts at the test that reaps it, so a
small test with a large figure is most likely that; each line's "worker" and "started" say
which tests ran before it. Each worker appends its lines to one file (DOMINO_CPU_REPORT,
default a temp file the first process names), which the controlling process sums."""

from __future__ import annotations

import json
import os
import resource
import tempfile
import time
from collections import defaultdict

import pytest

ENV = "DOMINO_CPU_REPORT"
TOP = 25     # the costliest tests listed after the folders


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _folder(nodeid: str) -> str:
    parts = nodeid.split("::")[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def pytest_configure(config):
    if not hasattr(config, "workerinput") and ENV not in os.environ:
        # the controller (or a serial run) names the file its workers inherit
        fd, path = tempfile.mkstemp(prefix="cpu-report-", suffix=".jsonl")
        os.close(fd)
        os.environ[ENV] = path


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):
    cpu, wall, started = _cpu(), time.monotonic(), time.time()
    yield
    line = {"test": item.nodeid, "worker": os.environ.get("PYTEST_XDIST_WORKER", ""),
            "started": started, "folder": _folder(item.nodeid), "cpu": _cpu() - cpu,
            "wall": time.monotonic() - wall}
    with open(os.environ[ENV], "a") as out:
        out.write(json.dumps(line) + "\n")


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    sums: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    costliest = []
    with open(os.environ[ENV]) as lines:
        for line in lines:
            row = json.loads(line)
            costliest.append((row["cpu"], row["test"]))
            s = sums[row["folder"]]
            s[0] += 1
            s[1] += row["cpu"]
            s[2] += row["wall"]
    terminalreporter.section("CPU by test folder (tests.cpu_report)")
    terminalreporter.write_line(f"{'folder':32s} {'tests':>6s} {'CPU s':>9s} {'wall s':>9s}")
    for folder, (n, cpu, wall) in sorted(sums.items(), key=lambda kv: -kv[1][1]):
        terminalreporter.write_line(f"{folder:32s} {n:6d} {cpu:9.1f} {wall:9.1f}")
    total = [sum(s[i] for s in sums.values()) for i in range(3)]
    terminalreporter.write_line(f"{'all':32s} {total[0]:6d} {total[1]:9.1f} {total[2]:9.1f}")
    terminalreporter.write_line(f"the {TOP} costliest tests:")
    for cpu, test in sorted(costliest, reverse=True)[:TOP]:
        terminalreporter.write_line(f"{cpu:9.1f}  {test}")
    terminalreporter.write_line(f"(the lines: {os.environ[ENV]})")
