"""Results of the typed contract (game.proto): a deal's (HHLDealResult, DomengDealResult),
a Domeng cycle's and a match's, as the dicts of docs/records.md and back. A Domeng stone
payer of -1 on the wire is the table ("table" here).
"""

from __future__ import annotations

from domino_proto.domino.v1 import game_pb2

from .names import Words
from .tiles import seat_of, seat_pb

DEAL_END = Words(game_pb2.DealEnd, "DEAL_END_")
CAPPU_KIND = Words(game_pb2.CappuKind, "CAPPU_KIND_")


def _groups(ranking) -> list:
    return [game_pb2.SeatGroup(seats=g) for g in ranking]


def _ungroup(groups) -> list[list[int]]:
    return [list(g.seats) for g in groups]


def deal_result_pb(r: dict) -> game_pb2.DealResult:
    if "winners" in r:   # HHL-7..HHL-9
        return game_pb2.DealResult(hhl=game_pb2.HHLDealResult(
            end=DEAL_END.number(r["end"]), winners=r["winners"], pips=r["pips"],
            points=r["points"]))
    return game_pb2.DealResult(domeng=game_pb2.DomengDealResult(
        end=DEAL_END.number(r["end"]), kind=CAPPU_KIND.number(r["kind"]) if r["kind"] else 0,
        winner=r["winner"], cucuq=seat_pb(r["cucuq"]), manguno=seat_pb(r["manguno"]),
        mattikkeng=r["mattikkeng"], pips=r["pips"],
        transfers=[game_pb2.Transfer(to=t["to"], count=t["count"], payer=payer_pb(t["from"]))
                   for t in r["transfers"]],
        table=r["table"], held=r["held"], camat=seat_pb(r["camat"])))


def deal_result(pb: game_pb2.DealResult) -> dict:
    if pb.WhichOneof("variant") == "hhl":
        r = pb.hhl
        return {"end": DEAL_END.word(r.end), "winners": list(r.winners), "pips": list(r.pips),
                "points": list(r.points)}
    r = pb.domeng
    return {"end": DEAL_END.word(r.end), "kind": CAPPU_KIND.word(r.kind), "winner": r.winner,
            "cucuq": seat_of(r.cucuq), "manguno": seat_of(r.manguno),
            "mattikkeng": list(r.mattikkeng), "pips": list(r.pips),
            "transfers": [{"to": t.to, "count": t.count, "from": source_of(t.payer)}
                          for t in r.transfers],
            "table": r.table, "held": list(r.held), "camat": seat_of(r.camat)}


def cycle_result_pb(c: dict) -> game_pb2.CycleResult:
    return game_pb2.CycleResult(cycle=c["cycle"], camat=seat_pb(c["camat"]), held=c["held"],
                                rounds=c["rounds"], ranking=_groups(c["ranking"]))


def cycle_result(pb: game_pb2.CycleResult) -> dict:
    return {"cycle": pb.cycle, "camat": seat_of(pb.camat), "held": list(pb.held),
            "rounds": pb.rounds, "ranking": _ungroup(pb.ranking)}


def match_result_pb(r: dict) -> game_pb2.MatchResult:
    if "totals" in r:
        return game_pb2.MatchResult(hhl=game_pb2.HHLMatchResult(
            totals=r["totals"], ranking=_groups(r["ranking"])))
    return game_pb2.MatchResult(domeng=game_pb2.DomengMatchResult(
        camat_titles=r["camat_titles"], stones=r["stones"], ranking=_groups(r["ranking"]),
        cycles=[cycle_result_pb(c) for c in r["cycles"]]))


def match_result(pb: game_pb2.MatchResult) -> dict | None:
    """The match result; None for an unset one (the match is not over)."""
    which = pb.WhichOneof("variant")
    if which == "hhl":
        return {"totals": list(pb.hhl.totals), "ranking": _ungroup(pb.hhl.ranking)}
    if which == "domeng":
        r = pb.domeng
        return {"camat_titles": list(r.camat_titles), "stones": list(r.stones),
                "ranking": _ungroup(r.ranking), "cycles": [cycle_result(c) for c in r.cycles]}
    return None


def payer_pb(source) -> int:
    return -1 if source == "table" else source


def source_of(payer: int):
    return "table" if payer < 0 else payer
