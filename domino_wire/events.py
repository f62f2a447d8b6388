"""Events of the typed contract (game.proto Event): a rules event (Event.to_dict) or an
engine event (timeout, absent, returned, time_up) as the message, and back to the dict of
docs/views.md.
"""

from __future__ import annotations

from domino_proto.domino.v1 import game_pb2

from .results import (
    cycle_result,
    cycle_result_pb,
    deal_result,
    deal_result_pb,
    match_result,
    match_result_pb,
    payer_pb,
    source_of,
)
from .tiles import (
    HALVES,
    MODE,
    PLACE,
    move_fields,
    move_pb_of_text,
    move_text,
    seat_of,
    seat_pb,
    tiles_pb,
    tiles_text,
)

Event = game_pb2.Event
# The kinds the engine adds to the rules' events (a body of Event each).
ENGINE_KINDS = ("timeout", "absent", "returned", "time_up")


def event_pb(d: dict, version: int) -> game_pb2.Event:
    """An event dict of the rules (Event.to_dict) or the engine (EngineEvent.to_dict)."""
    kind = d["kind"]
    # The kinds of every move are filled in place: no message is made to be copied.
    if kind == "play":
        e = Event(version=version)
        play = e.play
        play.seat = d["seat"]
        play.move.tile.high, play.move.tile.low = HALVES[d["play"]]
        if "at" in d:
            play.move.place = PLACE.number(d["at"])
        if "mode" in d:
            play.move.mode = MODE.number(d["mode"])
        if d.get("mappakuling"):
            play.mappakuling = True
        return e
    if kind == "draw":
        e = Event(version=version)
        e.draw.seat, e.draw.count = d["seat"], d["count"]
        for text in d.get("tiles", ()):
            e.draw.tiles.add().high, e.draw.tiles[-1].low = HALVES[text]
        return e
    if kind == "pass":
        e = Event(version=version)
        passed = getattr(e, "pass")
        passed.seat = d["seat"]
        if "stones" in d:   # Domeng
            passed.cost, passed.passebunge = d["cost"], d["passebunge"]
            for s in d["stones"]:
                paid = passed.stones.add()
                paid.payer, paid.count = payer_pb(s["from"]), s["count"]
        return e
    if kind == "deal_start":
        start = Event.DealStart(deal=d["deal"], leader=d["leader"],
                                tiles=tiles_pb(d.get("tiles", ())), camat=seat_pb(d.get("camat")))
        if "cycle" in d:
            start.cycle = d["cycle"]
        return Event(version=version, deal_start=start)
    if kind == "deal_over":
        return Event(version=version, deal_over=Event.DealOver(result=deal_result_pb(d["result"])))
    if kind == "cycle_over":
        return Event(version=version,
                     cycle_over=Event.CycleOver(result=cycle_result_pb(d["result"])))
    if kind == "match_over":
        return Event(version=version,
                     match_over=Event.MatchOver(result=match_result_pb(d["result"])))
    if kind == "timeout":
        return Event(version=version, timeout=Event.Timeout(
            seat=d["seat"], move=move_pb_of_text(d["move"]),
            timeouts_in_a_row=d["timeouts_in_a_row"]))
    if kind == "absent":
        return Event(version=version, absent=Event.Absent(seat=d["seat"]))
    if kind == "returned":
        return Event(version=version, returned=Event.Returned(seat=d["seat"]))
    if kind == "time_up":
        return Event(version=version, time_up=Event.TimeUp())
    raise ValueError(f"no typed event for kind {kind!r}")


def event(pb: game_pb2.Event) -> dict:
    """The event's dict, as the rules or the engine made it (no version: see events())."""
    kind = pb.WhichOneof("body")
    e = getattr(pb, kind) if kind else None
    if kind == "play":
        d = {"kind": kind, "seat": e.seat, **move_fields(e.move)}
        if e.mappakuling:
            d["mappakuling"] = True
        return d
    if kind == "draw":
        d = {"kind": kind, "seat": e.seat, "count": e.count}
        if e.tiles:
            d["tiles"] = tiles_text(e.tiles)
        return d
    if kind == "pass":
        d = {"kind": kind, "seat": e.seat}
        if e.HasField("cost"):
            d["stones"] = [{"from": source_of(s.payer), "count": s.count} for s in e.stones]
            d["cost"], d["passebunge"] = e.cost, e.passebunge
        return d
    if kind == "deal_start":
        d = {"kind": kind, "deal": e.deal, "leader": e.leader}
        if e.HasField("cycle"):
            d["cycle"], d["camat"] = e.cycle, seat_of(e.camat)
        if e.tiles:
            d["tiles"] = tiles_text(e.tiles)
        return d
    if kind == "deal_over":
        return {"kind": kind, "result": deal_result(e.result)}
    if kind == "cycle_over":
        return {"kind": kind, "result": cycle_result(e.result)}
    if kind == "match_over":
        return {"kind": kind, "result": match_result(e.result)}
    if kind == "timeout":
        return {"kind": kind, "seat": e.seat, "move": move_text(e.move),
                "timeouts_in_a_row": e.timeouts_in_a_row}
    if kind in ("absent", "returned"):
        return {"kind": kind, "seat": e.seat}
    if kind == "time_up":
        return {"kind": kind}
    raise ValueError("an event without a body")


def events(items) -> list[dict]:
    """Events with the version each happened at: [{"version", "kind", ...}]."""
    return [{"version": e.version, **event(e)} for e in items]
