"""How often each literal reading (engine_service/rules/options.py, docs/rules.md "Where a
ruling departs from the literal text") changes a result: the same deals played by greedy
bots under the ruling and under the reading, paired (one seed: one shuffle, the same deal
under both; greedy is deterministic, so the two games agree move for move until the
reading parts them).

* HHL-8, ``dead_stock=draw``: one-hand matches; a hand *ends differently* when any seat's
  points differ; the mean change is over those hands, of |points| per seat.
* DOM-8, ``closing_pass=paid``: one-round matches; the stones the reading moves are the
  difference of the round's final holdings and table (half the sum of the absolute
  differences: each stone moved counts once), per round played.
* DOM-2, ``first_lead=any``: one-round matches (the match's first round is the only one
  the reading touches); the round's result changes when its winner, kind or any seat's
  stones differ.

Counts, not timings: the figures are the same on any machine (smoke mode: a few deals).
"""

from benchmarks import sized
from bots.arena import play_match
from bots.strategies.greedy import Greedy

DEALS = sized(10_000, 20)


def _greedy(n: int) -> list:
    return [Greedy() for _ in range(n)]


def hhl_dead_stock(deals: int = DEALS) -> dict:
    differ = blocked = 0
    change = 0
    for seed in range(deals):
        a = play_match("hhl", {"hands": 1}, seed, _greedy(4))
        b = play_match("hhl", {"hands": 1, "dead_stock": "draw"}, seed, _greedy(4))
        ra, rb = a.deals[0].result, b.deals[0].result
        blocked += ra["end"] == "blocked"
        if ra["points"] != rb["points"]:
            differ += 1
            change += sum(abs(x - y) for x, y in zip(ra["points"], rb["points"], strict=True)) / 4
    return {"hands": deals, "blocked": blocked, "differ": differ,
            "mean_change": change / differ if differ else 0.0}


def _stones(m) -> list[int]:
    return [*m.stones.held, m.stones.table]


def domeng_closing_pass(deals: int = DEALS) -> dict:
    moved = rounds_changed = blocked = 0
    for seed in range(deals):
        a = play_match("domeng", {"round_cap": 1}, seed, _greedy(5))
        b = play_match("domeng", {"round_cap": 1, "closing_pass": "paid"}, seed, _greedy(5))
        blocked += a.deals[0].result["end"] == "blocked"
        diff = sum(abs(x - y) for x, y in zip(_stones(a), _stones(b), strict=True)) // 2
        moved += diff
        rounds_changed += diff > 0
    return {"rounds": deals, "blocked": blocked, "changed": rounds_changed,
            "stones_per_round": moved / deals}


def domeng_first_lead(deals: int = DEALS) -> dict:
    changed = 0
    for seed in range(deals):
        a = play_match("domeng", {"round_cap": 1}, seed, _greedy(5))
        b = play_match("domeng", {"round_cap": 1, "first_lead": "any"}, seed, _greedy(5))
        ra, rb = a.deals[0].result, b.deals[0].result
        same = (ra["winner"], ra["end"], ra.get("kind")) == (rb["winner"], rb["end"], rb.get("kind"))
        changed += not (same and _stones(a) == _stones(b))
    return {"rounds": deals, "changed": changed}


def run(deals: int = DEALS) -> list[str]:
    h = hhl_dead_stock(deals)
    c = domeng_closing_pass(deals)
    f = domeng_first_lead(deals)
    return [
        f"HHL-8 dead_stock=draw: {h['differ']} of {h['hands']} hands end differently "
        f"({100 * h['differ'] / h['hands']:.1f} %; {h['blocked']} blocked under the ruling), "
        f"by {h['mean_change']:.1f} points a seat on average in those",
        f"DOM-8 closing_pass=paid: {c['stones_per_round']:.3f} stones moved per round "
        f"({c['changed']} of {c['rounds']} rounds changed; {c['blocked']} blocked)",
        f"DOM-2 first_lead=any: the first round's result changes in {f['changed']} of "
        f"{f['rounds']} rounds ({100 * f['changed'] / f['rounds']:.1f} %)",
    ]
