"""The domino command line as users run it: a real subprocess of the console script."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

DOMINO = [sys.executable, "-m", "domino_cli"]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(*args, check=True):
    p = subprocess.run([*DOMINO, *args], cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    if check and p.returncode != 0:
        raise AssertionError(f"exit {p.returncode}\nstdout:{p.stdout}\nstderr:{p.stderr}")
    return p


@pytest.mark.parametrize("variant,bots", [("hhl", "greedy,random,random,random"),
                                          ("domeng", "greedy,random,random,random,random")])
def test_simulate_writes_records_that_replay(tmp_path, variant, bots):
    p = run("simulate", "--variant", variant, "--matches", "3", "--seed", "5", "--bots", bots,
            "--records", str(tmp_path), "--json")
    summary = json.loads(p.stdout)
    assert summary["matches"] == 3 and summary["moves"] > 0
    assert sum(summary["outcomes"].values()) == summary["deals"]
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 3
    for f in files:
        original = json.loads(f.read_text())
        out = run("replay", str(f), "--json")
        assert json.loads(out.stdout) == original
        said = run("replay", str(f)).stdout
        assert "record OK" in said
        # Deals in the game's own word, numbered from 1 as for people everywhere.
        assert said.startswith(f"{'hand' if variant == 'hhl' else 'round'} 1: ")


def test_simulate_hhl_defaults_to_eight_hands():
    summary = json.loads(run("simulate", "--variant", "hhl", "--matches", "2", "--json").stdout)
    assert summary["options"]["hands"] == 8 and summary["deals"] == 16


def test_replay_derives_draws_passes_and_results_from_plays_only(tmp_path):
    rec = json.loads(run("simulate", "--variant", "domeng", "--matches", "1", "--seed", "3",
                         "--records", str(tmp_path), "--json").stdout and
                     next(tmp_path.glob("*.json")).read_text())
    full = json.loads(json.dumps(rec))
    for d in rec["deals"]:
        d["moves"] = [m for m in d["moves"] if "play" in m]
        del d["result"]
    del rec["result"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(rec))
    assert json.loads(run("replay", str(bare), "--json").stdout) == full


def test_replay_names_the_illegal_move_and_the_legal_ones(tmp_path):
    run("simulate", "--variant", "hhl", "--matches", "1", "--records", str(tmp_path))
    f = next(tmp_path.glob("*.json"))
    rec = json.loads(f.read_text())
    deal = rec["deals"][0]
    deal["moves"] = [m for m in deal["moves"] if "play" in m]  # plays only: the rest is derived
    seat = deal["moves"][1]["seat"]
    others = [t for s, h in enumerate(deal["hands"]) if s != seat for t in h]
    deal["moves"][1]["play"] = others[0]  # a tile the seat does not hold
    f.write_text(json.dumps(rec))
    p = run("replay", str(f), check=False)
    assert p.returncode == 1
    assert "deal 0 move 1" in p.stderr and "TILE_NOT_IN_HAND" in p.stderr
    assert "legal moves were:" in p.stderr


def test_replay_refuses_a_wrong_result(tmp_path):
    run("simulate", "--variant", "hhl", "--matches", "1", "--records", str(tmp_path))
    f = next(tmp_path.glob("*.json"))
    rec = json.loads(f.read_text())
    rec["deals"][0]["result"]["points"][0] += 100
    f.write_text(json.dumps(rec))
    p = run("replay", str(f), check=False)
    assert p.returncode == 1 and "deal 0 result" in p.stderr and "'points'" in p.stderr


@pytest.mark.parametrize("content,needle", [
    ("{not json", "is not JSON"),
    (json.dumps({"format": "domino-record/1", "variant": "hhl", "deals": [
        {"hands": [["0-0"] * 6] * 4, "stock": []}]}), "not the full double-six set"),
    (json.dumps({"format": "domino-record/1", "variant": "chess", "deals": [{}]}), "unknown variant"),
    (json.dumps({"format": "other"}), "record format"),
])
def test_replay_bad_input_gets_one_clear_error(tmp_path, content, needle):
    f = tmp_path / "bad.json"
    f.write_text(content)
    p = run("replay", str(f), check=False)
    assert p.returncode == 2 and needle in p.stderr, p.stderr


def test_replay_missing_file():
    p = run("replay", "/nonexistent/record.json", check=False)
    assert p.returncode == 2 and "cannot read" in p.stderr


def test_simulate_rejects_bad_arguments():
    p = run("simulate", "--variant", "hhl", "--bots", "random,greedy", check=False)
    assert p.returncode != 0 and "4 seats" in p.stderr
    p = run("simulate", "--variant", "hhl", "--bots", "nosuch", check=False)
    assert p.returncode == 2 and "unknown strategy" in p.stderr
    p = run("simulate", "--variant", "hhl", "--option", "colour=3", check=False)
    assert p.returncode == 2 and "unknown option" in p.stderr


def test_demo_prints_both_games_in_words():
    out = run("demo").stdout
    hhl, domeng = out.split("===== domeng")
    assert "===== hhl" in hhl and "match over: 1st seat" in hhl and "match over" in domeng
    # A place is an arm in HHL and an end in Domeng, and says so.
    assert re.search(r"^seat \d plays \d-\d on the (left|right|up|down) arm", hhl, re.M)
    assert re.search(r"^seat \d plays \d-\d on the (left|right) end", domeng, re.M)
    assert not re.search(r" on the \w+$", out, re.M)          # never "on the up" alone
    assert re.search(r"^seat \d PASS: takes 1 STONE from the table$", domeng, re.M)
    assert "owes" not in domeng
