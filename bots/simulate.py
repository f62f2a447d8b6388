"""``domino simulate``: whole matches in-process, with a summary per strategy."""

import json
import pathlib
import time
from collections import Counter
from operator import attrgetter

from bots.arena import play_match
from bots.strategies import make_strategy

# Simulated play has no wall clock: an HHL match there is a number of hands.
# The summary counts the deals played (HHL hands, Domeng rounds) as "deals", and gives each
# strategy's mean per deal in the game's own unit (points per hand, stones per round).
SIM_DEFAULTS = {"hhl": {"hands": 8}, "domeng": {"cycles": 1}}
_KIND = attrgetter("kind")


def outcome_of(result: dict) -> str:
    if "points" in result:
        return result["end"]
    if result["end"] == "cappu":
        return result["kind"]
    return "blocked+mattikkeng" if result["mattikkeng"] else "blocked"


def stones_taken(deal) -> list[int]:
    """Net stones each seat received in one Domeng round: passes and settlement."""
    net = [0] * len(deal.hands)
    moves = [(e.seat, e.stones) for e in deal.state.events if e.stones]
    moves += [(t["to"], ((t["from"], t["count"]),)) for t in deal.result["transfers"]]
    for to, stones in moves:
        for src, n in stones:
            net[to] += n
            if src != "table":
                net[src] -= n
    return net


def simulate(variant, matches, seed, bot_names, options=None, records_dir=None, progress=None):
    options = {**SIM_DEFAULTS.get(variant, {}), **(options or {})}
    outcomes, deals, moves = Counter(), 0, 0
    score_sum = Counter()  # HHL: points; Domeng: stones taken (net) — per strategy name
    seat_deals = Counter()
    camats = Counter()
    out_dir = pathlib.Path(records_dir) if records_dir else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for k in range(matches):
        bots = [make_strategy(name, seed * 1000 + k * 10 + s) for s, name in enumerate(bot_names)]
        m = play_match(variant, options, seed + k, bots)
        moves += list(map(_KIND, m.events)).count("play")
        deals += len(m.deals)
        for name in bot_names:
            seat_deals[name] += len(m.deals)
        for d in m.deals:
            r = d.result
            outcomes[outcome_of(r)] += 1
            if variant == "hhl":
                for name, points in zip(bot_names, r["points"], strict=True):
                    score_sum[name] += points
            else:
                for s, n in enumerate(stones_taken(d)):
                    score_sum[bot_names[s]] += n
                if r["camat"] is not None:
                    camats[bot_names[r["camat"]]] += 1
        if out_dir:
            rec = m.record(seats=bot_names)
            (out_dir / f"{variant}-{seed + k:06d}.json").write_text(json.dumps(rec, indent=1))
        if progress:
            progress(k + 1, matches)
    elapsed = time.perf_counter() - started
    unit = "points_per_hand" if variant == "hhl" else "stones_per_round"
    summary = {
        "variant": variant,
        "options": options,
        "matches": matches,
        "deals": deals,
        "moves": moves,
        "seconds": round(elapsed, 3),
        "moves_per_second": round(moves / elapsed) if elapsed else None,
        "outcomes": dict(outcomes),
        unit: {n: round(score_sum[n] / seat_deals[n], 3) for n in dict.fromkeys(bot_names)},
    }
    if variant == "domeng":
        summary["camat_titles"] = {n: camats[n] for n in dict.fromkeys(bot_names)}
    return summary
