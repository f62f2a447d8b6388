"""Every benchmark section runs to its end in smoke mode (`python -m benchmarks --smoke
SECTION`: the same code at tiny sizes), so a change that breaks a benchmark fails `make
test`, not the next `make bench`. The sections are read from benchmarks/__main__.py's
SECTIONS: one added there is covered here without a word. Only that each section printed
its figures is checked, never their values (timings are the benchmarks' business)."""

import subprocess
import sys

import pytest

from benchmarks.__main__ import SECTIONS
from tests.pg_server import why_not

ROOT = __file__.rsplit("/tests/", 1)[0]
# What a section must say beyond its figures: the safety section runs every attack of
# tests/hostile (each its own module), and each says what it measured.
SAYS = {"safety": ("refusal spam", "forks (engine", "SampleWorlds attacks", "spectators that",
                   "refused (429)")}


# Each section starts engines, bots and servers of its own and measures them: it runs with
# the machine to itself (the `alone` group: one worker, one section at a time), and a
# section is given minutes under a loaded machine, where it takes seconds when quiet.
@pytest.mark.xdist_group("alone")
@pytest.mark.timeout(600)
@pytest.mark.parametrize("section", list(SECTIONS))
def test_the_section_runs_to_its_end_in_smoke_mode(section):
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--smoke", section],
                          capture_output=True, text=True, cwd=ROOT, timeout=560)
    out = done.stdout
    assert done.returncode == 0, f"{out[-3000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    head, _, rest = out.partition(f"\n## {section}\n")
    assert "smoke mode" in head, head
    body, end, _ = rest.partition(f"## {section}: done in ")
    assert end, f"section {section} did not reach its end:\n{out[-3000:]}"
    figures = [line for line in body.splitlines() if line.strip()]
    if section == "cluster" and why_not():
        assert figures == [f"skipped: {why_not()}"]
    else:
        assert len(figures) >= 2, f"section {section} printed no figures:\n{out}"
    missing = [says for says in SAYS.get(section, ()) if says not in body]
    assert not missing, f"section {section} did not say {missing}:\n{out}"


def test_a_section_without_a_smoke_mode_is_refused(tmp_path):
    """A new section that does not size itself (benchmarks.sized) would run at full size in
    `make test`: python -m benchmarks --smoke says so and fails."""
    module = tmp_path / "unsized_bench.py"
    module.write_text("def run():\n    return ['one figure']\n")
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); "
            "from benchmarks import __main__ as m; m.SECTIONS['unsized'] = 'unsized_bench'; "
            "sys.exit(m.main(['--smoke', 'unsized']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "section unsized has no smoke mode" in done.stderr
