"""Encoding between the engine core's values and the domino.v1 protobuf messages.

The one place that knows both sides; servicers decode a request, make one engine call
and encode the answer with these helpers. Enum words come from domino_wire.names.
"""

from __future__ import annotations

import json
import time

import orjson

from domino_proto.domino.v1 import common_pb2, engine_pb2, play_pb2
from domino_wire.jsontext import nesting_depth
from domino_wire.names import MATCH_STATUS, SEAT_KIND, VARIANT

from ..core import limits
from ..core.errors import EngineError
from ..core.referee import Accepted, Referee, SeatView
from ..core.updates import Update


def dumps(value) -> str:
    """Compact JSON text (what json.dumps with separators (",", ":") gives, UTF-8 kept);
    orjson, as this runs for every message."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def loads(text: str, what: str, default=None):
    """JSON text from a request field `what`; empty means `default`. Bounded in size and
    depth before it is parsed (core/limits.py)."""
    if not text:
        return default
    if len(text) > limits.JSON_MAX_BYTES or len(text.encode()) > limits.JSON_MAX_BYTES:
        raise limits.refuse(what, f"is at most {limits.JSON_MAX_BYTES} bytes")
    if nesting_depth(text, limits.JSON_MAX_DEPTH + 1) > limits.JSON_MAX_DEPTH:
        raise limits.refuse(what, f"is nested more than {limits.JSON_MAX_DEPTH} deep")
    try:
        return json.loads(text)
    except ValueError as e:
        raise limits.refuse(what, f"is not valid JSON: {str(e)[:80]}") from None


def variant_of(number: int) -> str:
    """The variant word of a request's Variant; UNSPECIFIED and unknown values refused."""
    word = VARIANT.word(number)
    if word is None:
        raise limits.refuse("variant", "must be one of "
                            f"{', '.join('VARIANT_' + w.upper() for w in VARIANT.words)}")
    return word


def seat_kind_of(number: int, field: str) -> str:
    word = SEAT_KIND.word(number)
    if word is None:
        raise limits.refuse(field, "must be SEAT_KIND_BOT or SEAT_KIND_PERSON")
    return word


def status_of(number: int) -> str:
    """A MatchStatus filter: "" for all."""
    if number == 0:
        return ""
    word = MATCH_STATUS.word(number)
    if word is None:
        raise limits.refuse("status", "must be a MatchStatus")
    return word


def unix_ms(seconds: float) -> int:
    return int(seconds * 1000)


def legal_moves(pairs) -> list[common_pb2.LegalMove]:
    return [common_pb2.LegalMove(id=i, text=t) for i, t in pairs]


def refusal(err: EngineError) -> common_pb2.Refusal:
    """The Refusal message; a version of None leaves the field absent (no match concerned)."""
    return common_pb2.Refusal(reason=err.reason, message=err.message, version=err.version,
                              legal_moves=legal_moves(err.legal_moves), field=err.field)


def summary(s: dict) -> common_pb2.MatchSummary:
    """A match's public summary (Referee.summary, or Engine.list_matches)."""
    return common_pb2.MatchSummary(
        match_id=s["match_id"], variant=VARIANT.number(s["variant"]),
        status=MATCH_STATUS.number(s["status"]), version=s["version"],
        num_seats=s["num_seats"], to_move=-1 if s["to_move"] is None else s["to_move"],
        seats=[common_pb2.SeatInfo(seat=i, kind=SEAT_KIND.number(x["kind"]), name=x["name"],
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


def events(version: int, items, seat: int | None, shared: dict | None = None
           ) -> list[common_pb2.Event]:
    """Events as `seat` (None: spectator) may see them, cut by the rules core's own
    to_dict. `shared` keeps, by position, the encodings of the events that read the same
    for everyone (the rules' PUBLIC_KINDS, and every engine event)."""
    out = []
    for i, e in enumerate(items):
        public = shared is not None and e.public
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


def snapshot(referee: Referee, view: SeatView) -> engine_pb2.Snapshot:
    return engine_pb2.Snapshot(summary=summary(referee.summary()),
                               state=seat_state(referee.id, view))


def match_over(referee: Referee) -> engine_pb2.MatchOver:
    return engine_pb2.MatchOver(match_id=referee.id, version=referee.version,
                                result_json=dumps(referee.match.result))


def keepalive(version: int) -> engine_pb2.Keepalive:
    return engine_pb2.Keepalive(server_unix_ms=unix_ms(time.time()), version=version)


def submit_response(seat: int, accepted: Accepted) -> engine_pb2.SubmitMoveResponse:
    return engine_pb2.SubmitMoveResponse(
        version=accepted.version, move_text=accepted.move_text,
        events=events(accepted.version, accepted.events, seat))


def answer(match_id: str, submitted: int, accepted: Accepted | None = None,
           err: EngineError | None = None) -> play_pb2.MoveAnswer:
    if accepted is not None:
        return play_pb2.MoveAnswer(match_id=match_id, submitted_version=submitted,
                                   accepted=True, new_version=accepted.version,
                                   move_text=accepted.move_text)
    return play_pb2.MoveAnswer(match_id=match_id, submitted_version=submitted,
                               accepted=False, refusal=refusal(err))
