"""Encoding between the engine core's values and the domino.v1 protobuf messages.

The one place in the engine that knows both sides; servicers decode a request, make one
engine call and encode the answer with these helpers. The game's own values (views,
events, results, options) map to game.proto in domino_wire.game, which every Python
client decodes with too; this module adds the engine's part: what is cached per match and
per update so that a move costs as little as it can. Enum words come from
domino_wire.names.
"""

from __future__ import annotations

import time

import orjson

from domino_proto.domino.v1 import common_pb2, engine_pb2, game_pb2, play_pb2
from domino_wire import game
from domino_wire.names import MATCH_STATUS, SEAT_KIND, VARIANT
from domino_wire.parts import field_number, frame

from .. import rules
from ..core.errors import EngineError
from ..core.matches.referee import Accepted, Referee, SeatView
from ..core.matches.seats import SeatSpec
from ..core.matches.updates import Update
from ..core.security import limits
from ..rules.tiles import HI, LO


def dumps(value) -> str:
    """Compact JSON text of the match record (GetRecord), the one document that stays JSON:
    it is a file format (docs/records.md)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def variant_of(number: int) -> str:
    """The variant word of a request's Variant; UNSPECIFIED and unknown values refused."""
    word = VARIANT.word(number)
    if word is None:
        raise limits.refuse("variant", "must be one of "
                            f"{', '.join('VARIANT_' + w.upper() for w in VARIANT.words)}")
    return word


def options_of(variant: str, options: game_pb2.Options, field: str) -> dict:
    """The rules options a request gives: those set in the variant's case of the oneof
    (none set: all defaults). The other variant's case is refused."""
    which = options.WhichOneof("variant")
    if which is not None and which != variant:
        raise limits.refuse(field, f"are {which} options; a {variant} match takes "
                            f"{field}.{variant}")
    return game.options_given(options)


def options_given_of(variant: str, options: game_pb2.Options, field: str) -> dict | None:
    """The rules options a request gives, as options_of; None when it gives none (no case
    of the oneof set). With no variant named (a fork, which plays its record's), they are
    read in their own case, only for the engine to refuse them (Engine.create_match)."""
    which = options.WhichOneof("variant")
    if which is None:
        return None
    return options_of(variant or which, options, field)


def deals_of(variant: str, deals) -> list | None:
    """Explicit deals as the record format the rules check; None when there are none.
    Sizes are bounded first, so no oversized list is turned into text. With no variant
    named (a fork), they are only counted, for the engine to refuse them."""
    if not deals:
        return None
    if len(deals) > limits.DEALS_MAX:
        raise limits.refuse("deals", f"at most {limits.DEALS_MAX} deals, got {len(deals)}")
    most = limits.DEAL_TILES_MAX
    for i, d in enumerate(deals):
        if (len(d.hands) > limits.DEAL_HANDS_MAX or len(d.rest) > most
                or any(len(h.tiles) > most for h in d.hands)):
            raise limits.refuse(f"deals[{i}]", "a deal holds the 28 tiles of the set")
    if not variant:
        return [{} for _ in deals]
    return [game.deal(variant, d) for d in deals]


def seat_specs_of(seats) -> list[SeatSpec] | None:
    """A request's seats (SeatSpec messages), one SeatSpec each; None when it lists none."""
    return [SeatSpec(seat_kind_of(s.kind, f"seats[{i}].kind"), s.name, s.pool)
            for i, s in enumerate(seats)] or None


def variants() -> engine_pb2.ListVariantsResponse:
    return engine_pb2.ListVariantsResponse(variants=[
        engine_pb2.VariantInfo(
            variant=VARIANT.number(name), name=cls.title, seats=cls.num_seats,
            options=[engine_pb2.OptionSpec(name=o.name, default_value=o.default, min=o.lo,
                                           max=o.hi, description=o.help)
                     for o in cls.OPTIONS])
        for name, cls in rules.VARIANTS.items()])


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
    """(id, text) pairs as LegalMoves, each with its move as fields too."""
    return [common_pb2.LegalMove(id=i, text=t, move=game.move_pb_of_text(t)) for i, t in pairs]


# A legal move as a SeatState part: its id's bytes and its text's (with the move as
# fields), each serialized once, framed as one element of SeatState.legal_moves. The ids
# are indices and the texts the few the rules can offer, so both tables stay small.
_LEGAL_FIELD = field_number(common_pb2.SeatState.DESCRIPTOR, "legal_moves")
_IDS: dict[str, bytes] = {}
_TEXTS: dict[str, bytes] = {}


_LEGAL: dict[tuple[str, str], bytes] = {}


def _legal_part(pair: tuple[str, str]) -> bytes:
    part = _LEGAL.get(pair)
    if part is None:
        if len(_LEGAL) > 20_000:    # far more than the rules can offer: a bound, not a need
            _LEGAL.clear()
        part = _LEGAL[pair] = _framed_legal(*pair)
    return part


def _framed_legal(move_id: str, text: str) -> bytes:
    head = _IDS.get(move_id)
    if head is None:
        head = _IDS[move_id] = common_pb2.LegalMove(id=move_id).SerializeToString()
    body = _TEXTS.get(text)
    if body is None:
        body = _TEXTS[text] = common_pb2.LegalMove(
            text=text, move=game.move_pb_of_text(text)).SerializeToString()
    return frame(_LEGAL_FIELD, head + body)


def refusal(err: EngineError) -> common_pb2.Refusal:
    """The Refusal message; a version of None leaves the field absent (no match concerned)."""
    return common_pb2.Refusal(reason=err.reason, message=err.message, version=err.version,
                              legal_moves=legal_moves(err.legal_moves), field=err.field,
                              owner=err.owner)


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
        options=game.options_pb(s["variant"], s["options"]),
        created_unix_ms=unix_ms(s["created"]),
        result=game.match_result_pb(s["result"]) if s["result"] is not None else None)


def seat_state(match_id: str, view: SeatView) -> common_pb2.SeatState:
    return common_pb2.SeatState.FromString(seat_state_bytes(match_id, view))


def seat_state_bytes(match_id: str, view: SeatView) -> bytes:
    """The seat's state, serialized from parts: its scalars, each legal move's kept part,
    the view's parts (domino_wire/parts.py)."""
    head = common_pb2.SeatState(
        match_id=match_id, seat=-1 if view.seat is None else view.seat, version=view.version,
        to_move=-1 if view.to_move is None else view.to_move,
        deadline_unix_ms=unix_ms(view.deadline)).SerializeToString()
    return b"".join((head, *map(_legal_part, view.legal_moves),
                     frame(_VIEW_FIELD, typed_view_bytes(view))))


_VIEW_FIELD = field_number(common_pb2.SeatState.DESCRIPTOR, "view")
_TURN_FIELD = field_number(play_pb2.EngineMessage.DESCRIPTOR, "turn")
_STATE_FIELD = field_number(play_pb2.TurnRequest.DESCRIPTOR, "state")


def turn_request(match_id: str, view: SeatView) -> bytes:
    """The EngineMessage asking the seat to move, serialized: the message of the move path,
    which the Play stream sends as it is (rpc/decode.py)."""
    return frame(_TURN_FIELD, frame(_STATE_FIELD, seat_state_bytes(match_id, view)))


def typed_view(view: SeatView) -> game_pb2.View:
    return game_pb2.View.FromString(typed_view_bytes(view))


def typed_view_bytes(view: SeatView) -> bytes:
    """The seat's view, serialized, from parts kept in the match's cache. Within one
    deal the history only grows and so does the layout, so a part is known by its place,
    its size and its open ends: each history event is encoded once per recipient kind (every seat and
    spectator alike for a public one), each arm (or the line) once per length, the last
    result once. The cache is emptied at every new deal, which bounds it by one deal."""
    cache, seat, v = view.cache, view.seat, view.view
    deal = v["deal_number"]
    if cache.get("deal") != deal:
        cache.clear()
        cache["deal"] = deal
    # A recipient's history only grows within a deal: the parts of its first n events are
    # kept with the n-th event itself (checked by identity, so a rebuilt match starts over).
    events = view.history
    kept = cache.get(("history", seat))
    if kept is None or kept[0] > len(events) or (kept[0] and events[kept[0] - 1] is not kept[1]):
        kept = (0, None, ())
    history = kept[2]
    if kept[0] < len(events):
        history += tuple(_history_part(cache, e, seat) for e in events[kept[0]:])
        cache[("history", seat)] = (len(events), events[-1], history)
    if v["variant"] == "hhl":
        layout = game.spinner_part(v["spinner"])
        for place, arm in v["arms"].items():
            key = (place, len(arm["tiles"]), arm["end"], arm["closed"])
            part = cache.get(key)
            if part is None:
                part = cache[key] = game.arm_part(place, arm)
            layout.append(part)
    else:
        ends = v["ends"]
        key = ("line", len(v["line"]), ends and (ends["left"], ends["right"]))
        part = cache.get(key)
        if part is None:
            part = cache[key] = game.line_part(v)
        layout = [part]
    last = v["last_result"]
    result = None
    if last is not None:
        kept = cache.get(("last", id(last)))
        if kept is None:
            kept = cache[("last", id(last))] = (last, game.result_part(last))
        result = kept[1]
    return game.view_bytes(v, list(history), layout, result)


def _history_part(cache: dict, e, seat: int | None) -> bytes:
    """One event of a view's history, encoded once for all when it is public."""
    if not e.public:
        return game.history_part(game.event_pb(e.to_dict(seat), 0))
    kept = cache.get(id(e))   # kept with the event itself, so its id is not reused
    if kept is None:
        kept = cache[id(e)] = (e, game.history_part(game.event_pb(e.to_dict(seat), 0)))
    return kept[1]


def events(version: int, items, seat: int | None, shared: dict | None = None
           ) -> list[game_pb2.Event]:
    """Events as `seat` (None: spectator) may see them, cut by the rules core's own
    to_dict. `shared` keeps, by position, the encodings of the events that read the same
    for everyone (the rules' PUBLIC_KINDS, and every engine event)."""
    out = []
    for i, e in enumerate(items):
        public = shared is not None and e.public
        encoded = shared.get(i) if public else None
        if encoded is None:
            encoded = game.event_pb(e.to_dict(seat), version)
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


def events_message(update: Update, seat: int | None, wrap):
    """event_batch wrapped as a stream's message (`wrap`: play_pb2.EngineMessage or
    engine_pb2.WatchMessage), made once per recipient kind: every stream sends the same
    object, which nothing changes after it is made."""
    key = (wrap, seat)
    message = update.cache.get(key)
    if message is None:
        message = update.cache[key] = wrap(events=event_batch(update, seat))
    return message


def snapshot(referee: Referee, view: SeatView) -> engine_pb2.Snapshot:
    return engine_pb2.Snapshot(summary=summary(referee.summary()),
                               state=seat_state(referee.id, view))


def match_over(referee: Referee) -> engine_pb2.MatchOver:
    return engine_pb2.MatchOver(match_id=referee.id, version=referee.version,
                                result=game.match_result_pb(referee.match.result))


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


# ----- SampleWorlds ------------------------------------------------------------------------
# A thousand worlds are some 28,000 tiles: the answer is put together from the serialized
# tiles, not built as messages (as the move path does, turn_request), at a fifth of the cost.
_TILE_PB = tuple(game_pb2.Tile(high=HI[t], low=LO[t]) for t in range(len(HI)))
_HAND = field_number(play_pb2.World.DESCRIPTOR, "hands")
_REST = field_number(play_pb2.World.DESCRIPTOR, "rest")
_WORLDS = field_number(play_pb2.SampleWorldsResponse.DESCRIPTOR, "worlds")
_HAND_TILE = field_number(engine_pb2.Hand.DESCRIPTOR, "tiles")
_IN_HAND = tuple(frame(_HAND_TILE, t.SerializeToString()) for t in _TILE_PB)
_IN_REST = tuple(frame(_REST, t.SerializeToString()) for t in _TILE_PB)


def world_bytes(w) -> bytes:
    """A rules World (tile indices) as a serialized World message (the bytes the generated
    code makes of it)."""
    return (b"".join(frame(_HAND, b"".join(_IN_HAND[t] for t in h)) for h in w.hands)
            + b"".join(_IN_REST[t] for t in w.rest))


def worlds_bytes(found) -> bytes:
    """The worlds as the `worlds` fields of a SampleWorldsResponse, serialized."""
    return b"".join(frame(_WORLDS, world_bytes(w)) for w in found)


def worlds_response(match_id: str, seat: int, seen: SeatView, done: dict) -> bytes:
    """The SampleWorldsResponse, serialized: its head as a message, the worlds appended as
    the worker serialized them (worlds_job.py; fields may come in any order on the wire;
    these are the generated code's bytes)."""
    head = play_pb2.SampleWorldsResponse(
        match_id=match_id, seat=seat, version=seen.version, exact=done["exact"],
        consistent_worlds=done["count"]).SerializeToString()
    return head + done["worlds"]
