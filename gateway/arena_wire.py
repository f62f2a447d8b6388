"""The Arena service's answers (arena.proto) as the REST objects of gateway/schemas_arena.py:
one shape each, made in one place for the routes of /arenas and /arena/bots."""

from __future__ import annotations

from domino_proto.domino.v1 import arena_pb2
from domino_wire import arena as wire_arena
from domino_wire import game
from domino_wire.arena import faults
from domino_wire.names import ARENA_MATCH_STATUS, VARIANT

from .schemas_game import DomengOptionsSchema, HHLOptionsSchema
from .variants import OPTIONS

ANSWER_OPTIONS = {"hhl": HHLOptionsSchema, "domeng": DomengOptionsSchema}


def bot(b: arena_pb2.BotInfo) -> dict:
    return {"bot_id": b.bot_id, "name": b.name, "description": b.description,
            "owner": b.owner, "created_unix_s": b.created_unix_s, "retired": b.retired,
            "retired_unix_s": b.retired_unix_s if b.retired else None,
            "resident": b.resident}


def bot_key(answer: arena_pb2.RegisterBotResponse) -> dict:
    return {"bot": bot(answer.bot), "bot_key": answer.bot_key}


def arena(a: arena_pb2.ArenaInfo) -> dict:
    return {"arena_id": a.arena_id, "variant": VARIANT.word(a.variant),
            "options": options_in_force(VARIANT.word(a.variant), game.options(a.options)),
            "duplicate": a.duplicate,
            "clock_ms": a.clock_ms, "seat_wait_s": a.seat_wait_s,
            "provisional_below": a.provisional_below, "bots_online": a.bots_online,
            "matches_playing": a.matches_playing, "matches_counted": a.matches_counted,
            "matches_voided": a.matches_voided, "matchmaker": a.matchmaker or None,
            "residents": list(a.residents)}


def options_in_force(variant: str, given: dict) -> dict:
    """An arena's options as every one of its matches has them: an option the arena leaves
    unset is the rules' default, unless unset means off (HHL's minutes with hands)."""
    fields = ANSWER_OPTIONS[variant]().fields
    return {name: OPTIONS[variant][name][2] if value is None and not fields[name].allow_none
            else value for name, value in given.items()}


def row(r: arena_pb2.LeaderboardRow) -> dict:
    # The REST row names its time as every REST time is named (..._unix_s), and an online
    # row's is "now" on the engine: null here, so that a board that did not change answers
    # the same body (and ETag) twice.
    out = wire_arena.row(r)
    seen = out.pop("last_seen")
    out["last_seen_unix_s"] = None if r.online else seen
    return out


def leaderboard(b: arena_pb2.Leaderboard, versions: str) -> dict:
    return {"arena_id": b.arena_id, "variant": VARIANT.word(b.variant), "versions": versions,
            "matches": b.matches, "last_sequence": b.last_sequence,
            "rows": [row(r) for r in b.rows]}


def seat(e: arena_pb2.ArenaSeatEntry) -> dict:
    return {"bot_id": e.bot_id, "name": e.name, "version": e.version, "resident": e.resident}


def match(m: arena_pb2.ArenaMatch) -> dict:
    result = None
    if m.HasField("result"):
        r = m.result
        result = {"sequence": r.sequence, "scores": list(r.scores), "titles": list(r.titles),
                  "deals": r.deals, "faults": [faults(f) for f in r.faults],
                  "ended_unix_s": r.ended_unix_s, "set": r.set, "rotation": r.rotation}
    return {"match_id": m.match_id, "arena_id": m.arena_id,
            "status": ARENA_MATCH_STATUS.word(m.status),
            "lineup": [seat(e) for e in m.lineup], "created_unix_s": m.created_unix_s,
            "result": result}


def profile(p: arena_pb2.BotProfile) -> dict:
    return {"bot": bot(p.bot),
            "versions": [{"arena_id": v.arena_id, "version": v.version, "row": row(v.row),
                          "online": v.online, "free": v.free, "paused": v.paused or None,
                          "connected_unix_s": v.connected_unix_s or None}
                         for v in p.versions],
            "live": [match(m) for m in p.live]}


def history(h: arena_pb2.RatingHistory) -> dict:
    return {"arena_id": h.arena_id, "bot_id": h.bot_id, "name": h.name,
            "version": h.version or None,
            "points": [{"sequence": p.sequence, "time_unix_s": p.time_unix_s, "mu": p.mu,
                        "sigma": p.sigma} for p in h.points]}
