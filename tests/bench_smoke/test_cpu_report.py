"""The suite's CPU report (tests/cpu_report.py) counts each test's CPU, its children's
included, and sums it by folder, in a serial run and under pytest-xdist alike."""

import os
import subprocess
import sys

import pytest

ROOT = __file__.rsplit("/tests/", 1)[0]
TESTS = '''
import subprocess, sys

def test_in_a_child():
    subprocess.run([sys.executable, "-c", "sum(range(3 * 10**7))"], check=True)

def test_in_process():
    assert sum(range(10)) == 45
'''


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_the_report_sums_each_folders_cpu_children_included(tmp_path, workers):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "test_work.py").write_text(TESTS)
    lines = tmp_path / "cpu.jsonl"
    env = {**os.environ, "PYTHONPATH": ROOT, "DOMINO_CPU_REPORT": str(lines)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.cpu_report",
                           "-p", "no:cacheprovider", "-p", "no:schemathesis", *workers, "sub"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stdout + done.stderr
    report = done.stdout.split("CPU by test folder (tests.cpu_report)", 1)[1]
    row = next(line.split() for line in report.splitlines() if line.startswith("sub "))
    assert row[1] == "2", report
    # the child's sum of 30 million numbers is far above a test's own overhead
    assert float(row[2]) >= 0.3, report
    assert len(lines.read_text().splitlines()) == 2
    costliest = report.split("costliest tests:", 1)[1].splitlines()[1].split()
    assert costliest[1] == "sub/test_work.py::test_in_a_child", report


def test_the_suite_and_the_processes_it_starts_write_bytecode():
    """tests/conftest.py turns bytecode writing back on, for this process and its children:
    without it every process compiles the product's modules from source."""
    assert not sys.dont_write_bytecode
    child = subprocess.run([sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"],
                           capture_output=True, text=True, timeout=60, check=True)
    assert child.stdout.strip() == "False"
