"""Encoding between the engine's values and the domino.v1 protobuf messages.

The one place that knows both sides; servicers decode a request, make one engine call
and encode the answer with these helpers.
"""

from __future__ import annotations

import json
import time

import orjson

from domino_proto.domino.v1 import common_pb2, engine_pb2, play_pb2

from .errors import EngineError
from .match import Accepted, Match, SeatView, Update
from .seats import BOT, PERSON

VARIANTS = {common_pb2.VARIANT_HHL: "hhl", common_pb2.VARIANT_DOMENG: "domeng"}
VARIANT_ENUM = {v: k for k, v in VARIANTS.items()}
KINDS = {common_pb2.SEAT_KIND_UNSPECIFIED: BOT, common_pb2.SEAT_KIND_BOT: BOT,
         common_pb2.SEAT_KIND_PERSON: PERSON}
KIND_ENUM = {BOT: common_pb2.SEAT_KIND_BOT, PERSON: common_pb2.SEAT_KIND_PERSON}
STATUS = {common_pb2.MATCH_STATUS_WAITING: "waiting", common_pb2.MATCH_STATUS_LIVE: "live",
          common_pb2.MATCH_STATUS_OVER: "over", common_pb2.MATCH_STATUS_UNSPECIFIED: ""}
STATUS_ENUM = {v: k for k, v in STATUS.items() if v}


def dumps(value) -> str:
    """Compact JSON text (what json.dumps with separators (",", ":") gives, UTF-8 kept);
    orjson, as this runs for every message."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def loads(text: str, what: str, default=None):
    """JSON text from a request; empty means `default`."""
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError as e:
        raise EngineError("MALFORMED_REQUEST", f"{what} is not valid JSON: {e}") from None


def unix_ms(seconds: float) -> int:
    return int(seconds * 1000)


def legal_moves(pairs) -> list[common_pb2.LegalMove]:
    return [common_pb2.LegalMove(id=i, text=t) for i, t in pairs]


def refusal(err: EngineError) -> common_pb2.Refusal:
    return common_pb2.Refusal(reason=err.reason, message=err.message, version=err.version,
                              legal_moves=legal_moves(err.legal_moves))


def summary(match: Match) -> common_pb2.MatchSummary:
    s = match.summary()
    return common_pb2.MatchSummary(
        match_id=s["match_id"], variant=VARIANT_ENUM[s["variant"]],
        status=STATUS_ENUM[s["status"]], version=s["version"], num_seats=s["num_seats"],
        to_move=-1 if s["to_move"] is None else s["to_move"],
        seats=[common_pb2.SeatInfo(seat=i, kind=KIND_ENUM[x["kind"]], name=x["name"],
                                   claimed=x["claimed"], absent=x["absent"],
                                   timeouts_in_a_row=x["timeouts_in_a_row"],
                                   clock_ms=x["clock_ms"], pool=x["pool"])
               for i, x in enumerate(s["seats"])],
        options_json=dumps(s["options"]), created_unix_ms=unix_ms(s["created"]),
        result_json=dumps(s["result"]) if s["result"] is not None else "")


def seat_state(match_id: str, view: SeatView) -> common_pb2.SeatState:
    return common_pb2.SeatState(
        match_id=match_id, seat=-1 if view.seat is None else view.seat, version=view.version,
        to_move=-1 if view.to_move is None else view.to_move, view_json=dumps(view.view),
        legal_moves=legal_moves(view.legal_moves), deadline_unix_ms=unix_ms(view.deadline))


# Events that read the same for every seat and spectator, so one encoding serves all.
# Any other kind (a draw's tiles, a hand start's hand, a kind added later) is redacted for
# each recipient.
PUBLIC_KINDS = frozenset({"play", "pass", "hand_over", "cycle_over", "match_over",
                          "timeout", "absent", "returned", "time_up"})


def events(version: int, items, seat: int | None, shared: dict | None = None
           ) -> list[common_pb2.Event]:
    """Events redacted for `seat` (None: spectator); the only place events are cut.
    `shared` keeps the encodings of events that read the same for everyone, by position."""
    out = []
    for i, e in enumerate(items):
        public = shared is not None and e.kind in PUBLIC_KINDS
        encoded = shared.get(i) if public else None
        if encoded is None:
            d = e.to_dict(seat)
            encoded = common_pb2.Event(version=version, kind=d["kind"], event_json=dumps(d))
            if public:
                shared[i] = encoded
        out.append(encoded)
    return out


def event_batch(update: Update, seat: int | None) -> engine_pb2.EventBatch:
    """The update's events as `seat` (None: a spectator) sees them, encoded once per
    recipient kind and shared by every stream that sends it."""
    key = ("batch", seat)
    batch = update.cache.get(key)
    if batch is None:
        shared = update.cache.setdefault("events", {})
        batch = engine_pb2.EventBatch(events=events(update.version, update.events, seat, shared),
                                      match_id=update.match_id)
        update.cache[key] = batch
    return batch


def snapshot(match: Match, view: SeatView) -> engine_pb2.Snapshot:
    return engine_pb2.Snapshot(summary=summary(match), state=seat_state(match.id, view))


def match_over(match: Match) -> engine_pb2.MatchOver:
    return engine_pb2.MatchOver(match_id=match.id, version=match.version,
                                result_json=dumps(match.game.result))


def keepalive(version: int) -> engine_pb2.Keepalive:
    return engine_pb2.Keepalive(server_unix_ms=unix_ms(time.time()), version=version)


def submit_response(seat: int, accepted: Accepted) -> engine_pb2.SubmitMoveResponse:
    return engine_pb2.SubmitMoveResponse(
        version=accepted.version, move_text=accepted.move,
        events=events(accepted.version, accepted.events, seat))


def answer(match_id: str, submitted: int, accepted: Accepted | None = None,
           err: EngineError | None = None) -> play_pb2.MoveAnswer:
    if accepted is not None:
        return play_pb2.MoveAnswer(match_id=match_id, submitted_version=submitted,
                                   accepted=True, new_version=accepted.version,
                                   move_text=accepted.move)
    return play_pb2.MoveAnswer(match_id=match_id, submitted_version=submitted,
                               accepted=False, refusal=refusal(err))
