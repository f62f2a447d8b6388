"""An analysis as a document (format ``domino-analysis/1``, docs/analysis.md): per seat,
per hand, per decision, the values of every legal move, the loss of the move played, its
mark; per hand the split of the result into skill and luck.

The split (exact by construction: the values are fractions, and both sides use the same
estimates): V0 is the seat-honest value at the deal, V_k the value of the seat's position
before its decision k (its best move's value), P_k the value of the move it played, R its
result. loss_k = V_k - P_k; skill = -sum(loss_k); luck = (V_1 - V0) + sum_k (V_{k+1} - P_k),
V_{K+1} = R; and R - V0 = skill + luck.
"""

from __future__ import annotations

from fractions import Fraction
from math import sqrt

from .policy import POLICY, UNITS

FORMAT = "domino-analysis/1"
# A loss is marked only when it exceeds its threshold AND Z standard errors of its own
# estimate: a loss within noise is never called a mistake. In the game's unit: HHL points
# (one pip left in hand costs 75 points, HHL-9), Domeng stones.
THRESHOLDS = {"hhl": {"mistake": 100, "blunder": 300}, "domeng": {"mistake": 0.5, "blunder": 1.5}}
Z = 2.0


def mark(variant: str, loss: float, se: float) -> str | None:
    if loss <= Z * se:
        return None
    t = THRESHOLDS[variant]
    if loss >= t["blunder"]:
        return "blunder"
    return "mistake" if loss >= t["mistake"] else None


def _num(x) -> float:
    return round(float(x), 3)


def split(v0: Fraction, decisions: list[tuple[Fraction, Fraction]], result) -> dict:
    """Skill and luck of one hand (module doc): ``decisions`` is [(V_k, P_k)]."""
    loss = sum((v - p for v, p in decisions), Fraction(0))
    vs = [v for v, _ in decisions] + [Fraction(result)]
    luck = vs[0] - v0 + sum((vs[k + 1] - p for k, (_, p) in enumerate(decisions)), Fraction(0))
    return {"skill": -loss, "luck": luck}


def decision_doc(variant: str, mo, got: dict) -> dict:
    legal, values, pi = mo.legal, got["honest"], got["pi"]
    best, played = got["best"], mo.played
    pi_best = max(range(len(legal)), key=lambda k: (pi[k], -k))
    loss = values[best] - values[played]
    return {
        "ply": mo.ply,
        "played": legal[played],
        "moves": [{"move": m, "value": _num(values[k]), "se": round(got["se"][k], 3),
                   "pi_value": _num(pi[k])} for k, m in enumerate(legal)],
        "best": legal[best],
        "value": _num(values[best]),
        "played_value": _num(values[played]),
        "loss": _num(loss),
        "loss_se": round(got["loss_se"], 3),
        "pi_best": legal[pi_best],
        "pi_value": _num(pi[pi_best]),
        "pi_loss": _num(pi[pi_best] - pi[played]),
        "mark": mark(variant, float(loss), got["loss_se"]),
    }


def hand_doc(variant: str, hand, start: dict, got: list[dict]) -> dict:
    v0 = start["honest"][0]
    pairs = [(g["honest"][g["best"]], g["honest"][mo.played])
             for mo, g in zip(hand.decisions, got, strict=True)]
    s = split(v0, pairs, hand.result)
    skill_se = sqrt(sum(g["loss_se"] ** 2 for g in got))
    return {
        "deal": hand.deal,
        "result": hand.result,
        "v0": _num(v0), "v0_se": round(start["se"][0], 3), "pi_v0": _num(start["pi"][0]),
        "skill": _num(s["skill"]), "skill_se": round(skill_se, 3), "luck": _num(s["luck"]),
        "forced": hand.forced,
        "decisions": [decision_doc(variant, mo, g) for mo, g in zip(hand.decisions, got, strict=True)],
        "_exact": {**s, "v0": v0},   # Fractions, for the identity test; dropped from the document
    }


def seat_summary(hands: list[dict]) -> dict:
    decisions = [d for h in hands for d in h["decisions"]]
    n = len(decisions)
    luck = sum(abs(h["_exact"]["luck"]) for h in hands)
    skill = sum(abs(h["_exact"]["skill"]) for h in hands)
    return {
        "hands": len(hands),
        "decisions": n,
        "mean_loss": _num(sum(d["loss"] for d in decisions) / n) if n else 0.0,
        "mean_pi_loss": _num(sum(d["pi_loss"] for d in decisions) / n) if n else 0.0,
        "skill": _num(sum(h["_exact"]["skill"] for h in hands)),
        "luck": _num(sum(h["_exact"]["luck"] for h in hands)),
        # How much of the result's movement away from V0 luck explains: |luck| over
        # |luck| + |skill|, summed over hands (0: all skill, 1: all luck).
        "luck_share": _num(luck / (luck + skill)) if luck + skill else 0.0,
        "mistakes": sum(d["mark"] == "mistake" for d in decisions),
        "blunders": sum(d["mark"] == "blunder" for d in decisions),
    }


def document(record: dict, seats, worlds: int, seed: int, hands, results: dict) -> dict:
    """The analysis document; ``results``: moment index -> value_moment's answer, the
    moments numbered as run.moments_of lists them."""
    variant = record["variant"]
    names = record.get("seats") or []
    per_seat = {s: [] for s in seats}
    i = 0
    exact_posterior = True
    for hand in hands:
        start = results[i]
        got = [results[i + 1 + k] for k in range(len(hand.decisions))]
        exact_posterior = exact_posterior and all(g["exact_posterior"] for g in [start, *got])
        i += 1 + len(hand.decisions)
        per_seat[hand.seat].append(hand_doc(variant, hand, start, got))
    doc = {
        "format": FORMAT,
        "variant": variant,
        "options": record.get("options") or {},
        "policy": POLICY,
        "worlds": worlds,
        "seed": seed,
        "unit": UNITS[variant],
        "thresholds": {**THRESHOLDS[variant], "z": Z},
        "exact_posterior": exact_posterior,
        "seats": [{"seat": s, "name": names[s] if s < len(names) else f"seat{s}",
                   "summary": seat_summary(per_seat[s]), "hands": per_seat[s]} for s in seats],
    }
    return doc


def public(doc: dict) -> dict:
    """The document without its exact fractions (what is written and sent)."""
    return {**doc, "seats": [{**s, "hands": [{k: v for k, v in h.items() if k != "_exact"}
                                             for h in s["hands"]]} for s in doc["seats"]]}
