"""Entrants' skill figures from analysis documents (ladders/skill.py): losses weighted by
decisions, luck's share of the swings, a seat's figures folded into its name's."""

from analysis import analyse
from ladders.skill import skill_figures
from tests.match_analysis.support import played


def test_figures_fold_seats_by_name_and_weigh_by_decisions():
    docs = [analyse(played("hhl", {"hands": 1}, k, ("random", "greedy", "random", "greedy")),
                    worlds=3, seed=k) for k in range(2)]
    got = skill_figures(docs)
    assert set(got) == {"random", "greedy"}
    seats = [s for d in docs for s in d["seats"] if s["name"] == "random"]
    n = sum(s["summary"]["decisions"] for s in seats)
    assert got["random"]["analysed"] == 2 and got["random"]["decisions"] == n
    want = sum(s["summary"]["mean_loss"] * s["summary"]["decisions"] for s in seats) / n
    assert abs(got["random"]["mean_loss"] - want) < 1e-3
    luck = sum(abs(h["luck"]) for s in seats for h in s["hands"])
    skill = sum(abs(h["skill"]) for s in seats for h in s["hands"])
    assert abs(got["random"]["luck_share"] - luck / (luck + skill)) < 1e-3
    assert 0 <= got["greedy"]["luck_share"] <= 1


def test_no_analysis_no_figures():
    assert skill_figures([]) == {}
