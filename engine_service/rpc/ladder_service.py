"""The gRPC Ladder service: decode, one call on engine.ladders, encode."""

from __future__ import annotations

import math

from domino_proto.domino.v1 import ladder_pb2, ladder_pb2_grpc
from domino_wire import game
from domino_wire.names import LADDER_FORMAT, LADDER_MATCH_STATUS, LADDER_STATUS, VARIANT

from ..core.ladders.director import Director, pool_of
from . import codec
from .status import bearer, refusals


def info(d: Director) -> ladder_pb2.LadderInfo:
    i = d.info()
    s = i["spec"]
    return ladder_pb2.LadderInfo(
        ladder_id=i["ladder_id"], key=s["key"], variant=VARIANT.number(s["variant"]),
        options=game.options_pb(s["variant"], codec.effective_options(s["variant"],
                                                                      s["options"])),
        entrants=s["entrants"],
        format=LADDER_FORMAT.number(s["format"]),
        target_matches=0 if s["until_separated"] else s["matches"], until_separated=s["until_separated"],
        max_matches=s["max_matches"], seed=i["seed"], status=LADDER_STATUS.number(i["status"]),
        matches_counted=i["counted"], matches_voided=i["voided"], matches_playing=i["playing"],
        leader=i["leader"], created_unix_s=i["created"], created_by=i["created_by"],
        error=i["error"], yardsticks=s.get("yardsticks", []))


def standings(d: Director) -> ladder_pb2.Standings:
    s = d.standings()
    entries = [ladder_pb2.StandingsEntry(
        place=e["place"], entrant=e["entrant"], mu=e["mu"], sigma=e["sigma"], score=e["score"],
        matches=e["matches"], mean=e["mean"], ci95=e["ci95"] if math.isfinite(e["ci95"]) else math.inf,
        faults=ladder_pb2.Faults(**e["faults"]), separated_from_next=e.get("separated_from_next", False),
        yardstick=e["yardstick"], gap_closed=e["gap_closed"],
        analysed_matches=e.get("analysed", 0), mean_loss=e.get("mean_loss"),
        luck_share=e.get("luck_share"))
        for e in s["entries"]]
    return ladder_pb2.Standings(ladder_id=d.id, variant=VARIANT.number(s["variant"]),
                                matches=s["matches"], voided=s["voided"], entries=entries,
                                separated=s["separated"], history=[
                                    ladder_pb2.HistoryPoint(index=p["index"], scores=p["scores"])
                                    for p in s["history"]])


def result(r: dict) -> ladder_pb2.LadderResult:
    """A ladder result (ladders/results.py) as the message."""
    return ladder_pb2.LadderResult(
        index=r["index"], set=r["set"], set_size=r["set_size"], seed=r["seed"],
        lineup=r["lineup"], deals=r["deals"], scores=r["scores"], titles=r["titles"],
        faults={name: ladder_pb2.Faults(**f) for name, f in r["faults"].items()},
        voided=r["voided"], unplayed=r.get("unplayed", False))


class LadderServicer(ladder_pb2_grpc.LadderServicer):
    def __init__(self, engine):
        self.engine = engine
        self.ladders = engine.ladders

    @refusals
    def CreateLadder(self, request, context):
        principal = self.engine.keys.principal(bearer(context))
        variant = codec.variant_of(request.variant)
        spec = {"variant": variant,
                "options": codec.options_of(variant, request.options, "options") or None,
                "entrants": list(request.entrants), "format": LADDER_FORMAT.word(request.format),
                "matches": request.matches, "until_separated": request.until_separated,
                "max_matches": request.max_matches, "concurrency": request.concurrency,
                "clock_ms": request.clock_ms, "seat_wait_s": request.seat_wait_s,
                "yardsticks": list(request.yardsticks)}
        if request.HasField("seed"):
            spec["seed"] = request.seed
        d, enlist = self.ladders.create(spec, principal)
        return ladder_pb2.CreateLadderResponse(ladder=info(d), pools=[
            ladder_pb2.EntrantPool(entrant=e, pool=pool_of(d.spec["key"], e), enlist_secret=s)
            for e, s in enlist.items()])

    @refusals
    def CancelLadder(self, request, context):
        d = self.ladders.get(request.ladder_id)
        d.cancel(self.engine.keys.principal(bearer(context)))
        return info(d)

    @refusals
    def ListLadders(self, request, context):
        return ladder_pb2.ListLaddersResponse(ladders=[info(d) for d in self.ladders.list()])

    @refusals
    def GetLadder(self, request, context):
        return info(self.ladders.get(request.ladder_id))

    @refusals
    def GetStandings(self, request, context):
        return standings(self.ladders.get(request.ladder_id))

    @refusals
    def ListLadderMatches(self, request, context):
        d = self.ladders.get(request.ladder_id)
        return ladder_pb2.ListLadderMatchesResponse(matches=[
            ladder_pb2.LadderMatch(index=m["index"], set=m["set"], match_id=m["match_id"],
                                   lineup=m["lineup"],
                                   status=LADDER_MATCH_STATUS.number(m["status"]),
                                   result=result(m["result"]) if m["result"] else None)
            for m in d.matches()])
