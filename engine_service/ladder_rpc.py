"""The gRPC Ladder service: decode, one call on engine.ladders, encode."""

from __future__ import annotations

import math

from domino_proto.domino.v1 import ladder_pb2, ladder_pb2_grpc

from . import wire
from .errors import EngineError
from .ladder_director import DONE, RUNNING, Director
from .rpc_errors import refusals

FORMATS = {ladder_pb2.LADDER_FORMAT_UNSPECIFIED: "rotation", ladder_pb2.LADDER_FORMAT_ROTATION: "rotation",
           ladder_pb2.LADDER_FORMAT_DUPLICATE: "duplicate"}
FORMAT_ENUM = {"rotation": ladder_pb2.LADDER_FORMAT_ROTATION, "duplicate": ladder_pb2.LADDER_FORMAT_DUPLICATE}
STATUS_ENUM = {RUNNING: ladder_pb2.LADDER_STATUS_RUNNING, DONE: ladder_pb2.LADDER_STATUS_DONE}


def info(d: Director) -> ladder_pb2.LadderInfo:
    i = d.info()
    s = i["spec"]
    return ladder_pb2.LadderInfo(
        ladder_id=i["ladder_id"], key=s["key"], variant=wire.VARIANT_ENUM[s["variant"]],
        options_json=wire.dumps(s["options"]), entrants=s["entrants"], format=FORMAT_ENUM[s["format"]],
        target_matches=0 if s["until_separated"] else s["matches"], until_separated=s["until_separated"],
        max_matches=s["max_matches"], seed=s["seed"], status=STATUS_ENUM[i["status"]],
        matches_counted=i["counted"], matches_voided=i["voided"], matches_playing=i["playing"],
        leader=i["leader"], created_unix_s=i["created"])


def standings(d: Director) -> ladder_pb2.Standings:
    s = d.standings()
    rows = [ladder_pb2.StandingRow(
        place=e["place"], entrant=e["entrant"], mu=e["mu"], sigma=e["sigma"], score=e["score"],
        matches=e["matches"], mean=e["mean"], ci95=e["ci95"] if math.isfinite(e["ci95"]) else math.inf,
        faults=ladder_pb2.Faults(**e["faults"]), separated_from_next=e.get("separated_from_next", False))
        for e in s["standings"]]
    return ladder_pb2.Standings(ladder_id=d.id, variant=wire.VARIANT_ENUM[s["variant"]],
                                matches=s["matches"], voided=s["voided"], rows=rows,
                                separated=s["separated"], history_json=wire.dumps(s["history"]))


class LadderServicer(ladder_pb2_grpc.LadderServicer):
    def __init__(self, engine):
        self.ladders = engine.ladders

    @refusals
    def CreateLadder(self, request, context):
        variant = wire.VARIANTS.get(request.variant)
        if variant is None:
            raise EngineError("MALFORMED_REQUEST", "variant must be VARIANT_HHL or VARIANT_DOMENG")
        spec = {"variant": variant, "options": wire.loads(request.options_json, "options_json"),
                "entrants": list(request.entrants), "format": FORMATS.get(request.format),
                "matches": request.matches, "until_separated": request.until_separated,
                "max_matches": request.max_matches, "concurrency": request.concurrency,
                "clock_ms": request.clock_ms, "seat_wait_s": request.seat_wait_s}
        if request.HasField("seed"):
            spec["seed"] = request.seed
        return info(self.ladders.create(spec))

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
                                   lineup=m["lineup"], status=m["status"],
                                   result_json=wire.dumps(m["result"]) if m["result"] else "")
            for m in d.matches()])
