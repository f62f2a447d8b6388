"""`domino analyse`: the document on --json and in --out, the same whatever the number of
processes, progress lines in a pipe, and a match that is not over refused."""

import json

import pytest

from bots.strategies import make_strategy
from engine_service.rules import new_match
from tests.cli.support import assert_one_line_failure, run

from .support import played


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("an") / "hhl.json"
    path.write_text(json.dumps(played("hhl", {"hands": 2}, 11, ("random", "greedy", "heuristic", "greedy"))))
    return path


@pytest.mark.timeout(600)
def test_the_document_is_the_same_whatever_the_number_of_processes(record_file, tmp_path):
    one = run("analyse", str(record_file), "--worlds", "5", "--processes", "1", "--json")
    out = tmp_path / "two.json"
    two = run("analyse", str(record_file), "--worlds", "5", "--processes", "2", "--out", str(out))
    assert json.loads(one.stdout) == json.loads(out.read_text())
    doc = json.loads(one.stdout)
    assert doc["format"] == "domino-analysis/1" and doc["policy"] == "greedy"
    assert [s["seat"] for s in doc["seats"]] == [0, 1, 2, 3]
    # a pipe gets plain progress lines, the last one the whole of the work
    lines = two.stderr.strip().splitlines()
    assert lines and all(line.startswith("analysing: ") for line in lines)
    done, total = lines[-1].split()[1].split("/")
    assert done == total


@pytest.mark.timeout(600)
def test_one_seat_as_a_table(record_file):
    p = run("analyse", str(record_file), "--seat", "2", "--worlds", "5", "--processes", "1")
    assert "seat 2 (heuristic):" in p.stdout and "seat 0" not in p.stdout
    assert "skill" in p.stdout and "luck" in p.stdout


def test_a_match_not_over_is_refused(tmp_path):
    m = new_match("hhl", {"hands": 2}, 3)
    bots = [make_strategy("greedy", s) for s in range(4)]
    m.play(m.to_move, bots[0].choose(m.view(m.to_move), m.legal_moves(m.to_move)))
    path = tmp_path / "live.json"
    path.write_text(json.dumps(m.record()))
    assert_one_line_failure(run("analyse", str(path), check=False), "analyse", "not over")


def test_a_wrong_seat_is_a_usage_error(record_file):
    p = run("analyse", str(record_file), "--seat", "7", check=False)
    assert p.returncode == 2
    assert_one_line_failure(p, "analyse", "--seat must be 0..3")
