"""The Arena service's messages (arena.proto) as plain dicts, the same shapes for every
Python client (the command line's --json; the gateway's REST answers may use them).
Times are Unix seconds; a ci95 of inf (too few matches) is None."""

from __future__ import annotations

import math

from domino_proto.domino.v1 import arena_pb2

from .names import ARENA_MATCH_STATUS, LEADERBOARD_VIEW, VARIANT

FAULT_KINDS = ("timeouts", "illegal", "disconnects", "crashes", "spam")


def bot(b: arena_pb2.BotInfo) -> dict:
    return {"bot_id": b.bot_id, "name": b.name, "description": b.description,
            "owner": b.owner, "created": b.created_unix_s, "retired": b.retired,
            "retired_at": b.retired_unix_s or None, "resident": b.resident}


def faults(f) -> dict:
    return {k: getattr(f, k) for k in FAULT_KINDS}


def row(r: arena_pb2.LeaderboardRow) -> dict:
    return {"place": r.place, "bot_id": r.bot_id, "name": r.name, "version": r.version,
            "owner": r.owner, "mu": r.mu, "sigma": r.sigma, "score": r.score,
            "provisional": r.provisional, "matches": r.matches, "mean": r.mean,
            "ci95": r.ci95 if math.isfinite(r.ci95) else None, "faults": faults(r.faults),
            "online": r.online, "last_seen": r.last_seen_unix_s or None,
            "resident": r.resident, "retired": r.retired, **skill(r)}


def skill(r) -> dict:
    """A leaderboard row's skill figures; the two figures None until analysed."""
    return {"analysed_matches": r.analysed_matches,
            "mean_loss": r.mean_loss if r.HasField("mean_loss") else None,
            "luck_share": r.luck_share if r.HasField("luck_share") else None}


def leaderboard(b: arena_pb2.Leaderboard) -> dict:
    return {"arena_id": b.arena_id, "variant": VARIANT.word(b.variant),
            "view": LEADERBOARD_VIEW.word(b.view), "matches": b.matches,
            "last_sequence": b.last_sequence, "rows": [row(r) for r in b.rows]}


def arena(a: arena_pb2.ArenaInfo) -> dict:
    from .options import options

    return {"arena_id": a.arena_id, "variant": VARIANT.word(a.variant),
            "options": options(a.options),
            "duplicate": a.duplicate, "clock_ms": a.clock_ms, "seat_wait_s": a.seat_wait_s,
            "provisional_below": a.provisional_below, "bots_online": a.bots_online,
            "matches_playing": a.matches_playing, "matches_counted": a.matches_counted,
            "matches_voided": a.matches_voided, "matchmaker": a.matchmaker,
            "residents": list(a.residents)}


def seat(e: arena_pb2.ArenaSeatEntry) -> dict:
    return {"bot_id": e.bot_id, "name": e.name, "version": e.version, "resident": e.resident}


def match(m: arena_pb2.ArenaMatch) -> dict:
    out = {"match_id": m.match_id, "arena_id": m.arena_id,
           "status": ARENA_MATCH_STATUS.word(m.status),
           "lineup": [seat(e) for e in m.lineup], "created": m.created_unix_s, "result": None}
    if m.HasField("result"):
        r = m.result
        out["result"] = {"sequence": r.sequence, "scores": list(r.scores),
                         "titles": list(r.titles), "deals": r.deals,
                         "faults": [faults(f) for f in r.faults], "ended": r.ended_unix_s,
                         "set": r.set, "rotation": r.rotation}
    return out
