"""A ladder's Standings and LadderResult messages as the plain dicts that REST answers
and the command line prints: one shape each, made in one place."""

from __future__ import annotations

import math

from domino_proto.domino.v1 import ladder_pb2

from .names import VARIANT

FAULT_KINDS = ("timeouts", "illegal", "disconnects", "crashes", "spam")


def standings(s: ladder_pb2.Standings) -> dict:
    """`ci95` is None while too few matches were played to know it; the last entry's
    `separated_from_next` is None (it has no next). `history`: after each counted match,
    every entrant's score (mu - 3 sigma), for a rating chart."""
    last = len(s.entries) - 1
    entries = [{"place": e.place, "entrant": e.entrant, "mu": e.mu, "sigma": e.sigma,
                "score": e.score, "matches": e.matches, "mean": e.mean,
                "ci95": e.ci95 if math.isfinite(e.ci95) else None,
                "faults": {k: getattr(e.faults, k) for k in FAULT_KINDS},
                "separated_from_next": None if i == last else e.separated_from_next,
                "yardstick": e.yardstick,
                "gap_closed": e.gap_closed if e.HasField("gap_closed") else None,
                "analysed_matches": e.analysed_matches,
                "mean_loss": e.mean_loss if e.HasField("mean_loss") else None,
                "luck_share": e.luck_share if e.HasField("luck_share") else None}
               for i, e in enumerate(s.entries)]
    return {"ladder_id": s.ladder_id, "variant": VARIANT.word(s.variant), "matches": s.matches,
            "voided": s.voided, "separated": s.separated, "entries": entries,
            "history": [{"index": p.index, "scores": dict(p.scores)} for p in s.history]}


def ladder_result(r: ladder_pb2.LadderResult) -> dict:
    """The ladder result of one counted match (ladders/results.py makes it); its seed is
    None while its duplicate set is in play."""
    return {"index": r.index, "set": r.set, "set_size": r.set_size,
            "seed": r.seed if r.HasField("seed") else None, "lineup": list(r.lineup),
            "deals": r.deals, "scores": list(r.scores),
            "titles": list(r.titles),
            "faults": {name: {k: getattr(f, k) for k in FAULT_KINDS}
                       for name, f in r.faults.items()},
            "voided": r.voided, "unplayed": r.unplayed}
