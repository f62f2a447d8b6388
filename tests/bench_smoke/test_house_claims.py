"""The house bench states its strength targets as paired margins with their intervals
(benchmarks/house_ladders.py `claims`): shown only when the whole interval is on the
right side. Checked on results made by hand, where the answer is known."""

from benchmarks.house_ladders import claims, gap_margin
from ladders.standings import set_merits

FIELD = "field:greedy"


def _field_results(variant: str, taken: dict, sets: int) -> list[dict]:
    """A field ladder's results: in each set every entrant plays one match in seat 0 of the
    same deal; ``taken[name](set)`` is its score (HHL points, Domeng stones) a deal."""
    seats = 4 if variant == "hhl" else 5
    out = []
    for k in range(sets):
        for i, (name, score) in enumerate(taken.items()):
            out.append({"index": k * len(taken) + i, "set": k, "set_size": len(taken),
                        "lineup": [name] + [FIELD] * (seats - 1), "deals": 1,
                        "scores": [score(k)] + [1] * (seats - 1), "titles": [0] * seats,
                        "voided": False})
    return out


def _wobble(k: int) -> float:
    return (k % 5 - 2) / 10      # a deterministic spread of ±0.2 around 0, mean 0


def test_a_bot_that_takes_well_under_half_of_greedys_stones_is_shown_to():
    results = _field_results("domeng", {"expert": lambda k: 0.6 + _wobble(k),
                                        "greedy": lambda k: 2.0 + _wobble(k * 3)}, 40)
    lines = claims("domeng", ["expert", "greedy", FIELD], results)
    share = [ln for ln in lines if "of greedy's stones" in ln]
    assert len(share) == 1, lines      # the field's seats are not judged
    assert "expert: 0.300 of greedy's stones" in share[0]
    assert "margin +0.400" in share[0] and "shown at 95%" in share[0]
    assert "not shown" not in share[0]


def test_a_bot_at_half_of_greedys_stones_is_not_shown_to_take_at_most_half():
    results = _field_results("domeng", {"expert": lambda k: 1.0 + _wobble(k),
                                        "greedy": lambda k: 2.0 + _wobble(k * 3)}, 40)
    line, = [ln for ln in claims("domeng", ["expert", "greedy", FIELD], results)
             if ln.startswith("  expert:") and "stones" in ln]
    assert "margin +0.000" in line and "not shown at 95%" in line


def test_the_share_of_ceilings_gap_is_paired_set_by_set():
    # Greedy's luck swings ±100 points from set to set and the others' with it: unpaired,
    # the margin's interval would be wide; paired, it is the expert's own spread.
    swing = [100 * (1 if k % 2 else -1) for k in range(60)]
    results = _field_results("hhl", {"expert": lambda k: swing[k] + 290 + 10 * _wobble(k),
                                     "ceiling": lambda k: swing[k] + 300,
                                     "greedy": lambda k: swing[k]}, 60)
    sets = set_merits("hhl", results)
    share, mean, half, n = gap_margin(sets, "expert", "greedy", "ceiling", 0.95)
    assert n == 60 and abs(share - 290 / 300) < 1e-9
    assert abs(mean - 5.0) < 1e-9 and 0 < half < 1
    # One line: the yardstick (ceiling) and the field's seats are not judged.
    line, = claims("hhl", ["ceiling", "expert", "greedy", FIELD], results)
    assert line.startswith("  expert:")
    assert "0.967 of ceiling's gap closed" in line and "shown at 95%" in line
    assert "not shown" not in line
    # Domeng's stones target is Domeng's alone.
    assert not [ln for ln in claims("hhl", ["expert", "greedy"], results) if "stones" in ln]


def test_no_target_is_judged_without_the_entrants_it_needs():
    results = _field_results("hhl", {"expert": lambda k: 10.0, "search": lambda k: 5.0}, 10)
    assert claims("hhl", ["expert", "search", FIELD], results) == []
    assert gap_margin(set_merits("hhl", results), "expert", "greedy", "ceiling", 0.95) is None
