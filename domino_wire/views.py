"""Views of the typed contract (game.proto View): a view dict of the rules (Match.view,
docs/views.md) as the message, built from serialized parts the way the move path does, and
back to the dict, eagerly (view, seat_view) or key by key on first use (LazyView).
"""

from __future__ import annotations

from collections.abc import Mapping

from domino_proto.domino.v1 import game_pb2

from .events import ENGINE_KINDS, event, event_pb
from .names import VARIANT
from .options import options, options_pb
from .parts import frame
from .results import deal_result, deal_result_pb, match_result, match_result_pb
from .tiles import HALVES, MODE, PLACE, seat_of, seat_pb, tile_pb, tile_text, tiles_text

View = game_pb2.View


def _arm(arm: game_pb2.Arm) -> dict:
    tiles = []
    for t in arm.tiles:
        d = {"tile": tile_text(t.tile), "inner": t.inner, "outer": t.outer}
        if t.mode:
            d["mode"] = MODE.word(t.mode)
        tiles.append(d)
    return {"tiles": tiles, "end": arm.end if arm.HasField("end") else None,
            "closed": arm.closed}


# A view is put together from serialized parts: protobuf defines two serialized messages
# of one type, concatenated, as the two merged (repeated fields appended in order, message
# fields merged). What recurs from turn to turn is serialized once and kept: a tile in
# hand here, the layout and each history event by the engine (rpc/codec.py), so a view
# costs one parse instead of a Python object per tile. tests/wire checks every view against
# the rules' own, field by field.
_HAND = {text: View(hand=[tile_pb(text)]).SerializeToString() for text in HALVES}


_N = {f"{m.name}.{f.name}": f.number for m in (View.DESCRIPTOR, game_pb2.HHLView.DESCRIPTOR)
      for f in m.fields}


def history_part(e: game_pb2.Event) -> bytes:
    """An encoded event as a part of a view's history (view_bytes' `history`)."""
    return frame(_N["View.history"], e.SerializeToString())


_SPINNER = {text: View(hhl=game_pb2.HHLView(spinner=tile_pb(text))).SerializeToString()
            for text in HALVES}
# An arm's tiles, each serialized once as a part of an Arm (its repeated `tiles`), by value.
_ARM_TILE: dict[tuple, bytes] = {}


def _arm_tile(t: dict) -> bytes:
    key = (t["tile"], t["inner"], t["outer"], t.get("mode"))
    part = _ARM_TILE.get(key)
    if part is None:
        part = _ARM_TILE[key] = game_pb2.Arm(tiles=[game_pb2.ArmTile(
            tile=tile_pb(t["tile"]), inner=t["inner"], outer=t["outer"],
            mode=MODE.number(t["mode"]) if "mode" in t else 0)]).SerializeToString()
    return part


def arm_part(place: str, arm: dict) -> bytes:
    """One HHL arm of a view as a part (view_bytes' `layout`)."""
    head = game_pb2.Arm(place=PLACE.number(place), closed=arm["closed"])
    if arm["end"] is not None:
        head.end = arm["end"]
    body = head.SerializeToString() + b"".join(map(_arm_tile, arm["tiles"]))
    return frame(_N["View.hhl"], frame(_N["HHLView.arms"], body))


def line_part(v: dict) -> bytes:
    """The Domeng line of a view and its ends as a part (view_bytes' `layout`)."""
    dom = game_pb2.DomengView(line=[
        game_pb2.LineTile(tile=tile_pb(t["tile"]), left=t["left"], right=t["right"])
        for t in v["line"]])
    if v["ends"] is not None:
        dom.ends.left, dom.ends.right = v["ends"]["left"], v["ends"]["right"]
    return View(domeng=dom).SerializeToString()


def layout_parts(v: dict) -> list[bytes]:
    """The layout of a view as parts (view_bytes' `layout`): the HHL spinner and each arm,
    or the Domeng line and its ends; the same for every seat at one version."""
    if v["variant"] == "hhl":
        spinner = [_SPINNER[v["spinner"]]] if v["spinner"] is not None else []
        return spinner + [arm_part(place, a) for place, a in v["arms"].items()]
    return [line_part(v)]


def spinner_part(text: str | None) -> list[bytes]:
    return [_SPINNER[text]] if text is not None else []


def result_part(r: dict) -> bytes:
    """A deal's result as the view's `last_result` part."""
    return View(last_result=deal_result_pb(r)).SerializeToString()


def view_bytes(v: dict, history: list[bytes] | None = None, layout: list[bytes] | None = None,
               last_result: bytes | None = None) -> bytes:
    """A view dict of the rules (Match.view) as the serialized View message: what a
    message's View field takes with MergeFromString, with no object made for it (the move
    path builds its TurnRequest so). `history`, `layout` and `last_result`, when given, are
    those parts already encoded (history_part, layout_parts, result_part); else they are
    encoded here from v."""
    seat = v["seat"]
    parts = [View(variant=VARIANT.number(v["variant"]), seat=seat_pb(seat),
                  deal_number=v["deal_number"], turn=seat_pb(v["turn"]), over=v["over"],
                  counts=v["counts"]).SerializeToString()]
    parts += [_HAND[t] for t in v.get("hand", ())]
    if history is None:
        history = [history_part(event_pb(e, 0)) for e in v["history"]]
    parts += history
    if last_result is not None:
        parts.append(last_result)
    elif v["last_result"] is not None:
        parts.append(result_part(v["last_result"]))
    if v.get("result") is not None:
        parts.append(View(result=match_result_pb(v["result"])).SerializeToString())
    if v["variant"] == "hhl":
        hhl = game_pb2.HHLView(stock=v["stock"], totals=v["totals"])
        if "drawn" in v:
            hhl.drawn.CopyFrom(tile_pb(v["drawn"]))
        parts.append(View(hhl=hhl).SerializeToString())
    else:
        parts.append(View(domeng=game_pb2.DomengView(
            table=v["table"], held=v["held"], laid=v["laid"],
            last_mappano=seat_pb(v["last_mappano"]), camat=seat_pb(v["camat"]),
            cycle=v["cycle"], round_in_cycle=v["round_in_cycle"])).SerializeToString())
    parts += layout if layout is not None else layout_parts(v)
    if v.get("options") is not None:
        parts.append(options_part(v["variant"], v["options"]))
    return b"".join(parts)


_OPTIONS_PARTS: dict = {}   # (variant, options) -> the View's options part; a match's are few


def options_part(variant: str, options: dict) -> bytes:
    """A view's rules options, encoded once per set of options (every move's view carries
    them, and a match's never change)."""
    key = (variant, tuple(options.items()))
    part = _OPTIONS_PARTS.get(key)
    if part is None:
        if len(_OPTIONS_PARTS) >= 4096:    # bounded: a server sees few sets of options
            _OPTIONS_PARTS.clear()
        part = _OPTIONS_PARTS[key] = View(options=options_pb(variant, options)).SerializeToString()
    return part


# How each key of a view dict is read from the message (pb: the View; state: the
# SeatState, for the legal moves), so that LazyView decodes only the keys a strategy uses.
_COMMON = {
    "variant": lambda pb, st: VARIANT.word(pb.variant),
    "seat": lambda pb, st: seat_of(pb.seat),
    "deal_number": lambda pb, st: pb.deal_number,
    "turn": lambda pb, st: seat_of(pb.turn),
    "over": lambda pb, st: pb.over,
    "options": lambda pb, st: options(pb.options) if pb.HasField("options") else None,
    "counts": lambda pb, st: list(pb.counts),
}
_HHL = {
    "spinner": lambda pb, st: tile_text(pb.hhl.spinner) if pb.hhl.HasField("spinner") else None,
    "arms": lambda pb, st: {PLACE.word(a.place): _arm(a) for a in pb.hhl.arms},
    "stock": lambda pb, st: pb.hhl.stock,
    "totals": lambda pb, st: list(pb.hhl.totals),
}
_DOMENG = {
    "line": lambda pb, st: [{"tile": tile_text(t.tile), "left": t.left, "right": t.right}
                            for t in pb.domeng.line],
    "ends": lambda pb, st: ({"left": pb.domeng.ends.left, "right": pb.domeng.ends.right}
                            if pb.domeng.HasField("ends") else None),
    "table": lambda pb, st: pb.domeng.table,
    "held": lambda pb, st: list(pb.domeng.held),
    "last_mappano": lambda pb, st: seat_of(pb.domeng.last_mappano),
    "laid": lambda pb, st: list(pb.domeng.laid),
    "camat": lambda pb, st: seat_of(pb.domeng.camat),
    "cycle": lambda pb, st: pb.domeng.cycle,
    "round_in_cycle": lambda pb, st: pb.domeng.round_in_cycle,
}
_LATER = {
    "history": lambda pb, st: [event(e) for e in pb.history],
    "last_result": lambda pb, st: (deal_result(pb.last_result)
                                   if pb.HasField("last_result") else None),
}
# A strategy's view is the rules' (Match.view): its history without the engine's events,
# the same view whether a strategy plays in a bot process or as an arena resident. (The
# rules' reasoning about hidden tiles reads past them too: a timeout may stand between a
# draw and the play of the drawn tile, knowledge.next_rules_event.)
_RULES_HISTORY = {"history": lambda pb, st: [event(e) for e in pb.history
                                             if e.WhichOneof("body") not in ENGINE_KINDS]}
_SEAT = {"hand": lambda pb, st: tiles_text(pb.hand)}
_DRAWN = {"drawn": lambda pb, st: tile_text(pb.hhl.drawn)}
_LEGAL = {"legal_moves": lambda pb, st: [m.text for m in st.legal_moves]}
_RESULT = {"result": lambda pb, st: match_result(pb.result)}


def _readers(pb: game_pb2.View, state=None, rules_only: bool = False) -> dict:
    """key -> reader for the keys this view has, in the rules' order; `rules_only`: a
    history of the rules' events alone."""
    hhl = pb.WhichOneof("layout") == "hhl"
    readers = {**_COMMON, **(_HHL if hhl else _DOMENG), **_LATER}
    if rules_only:
        readers.update(_RULES_HISTORY)
    if pb.seat >= 0:
        readers.update(_SEAT)
        if state is not None:
            readers.update(_LEGAL)
        if hhl and pb.hhl.HasField("drawn"):
            readers.update(_DRAWN)
    if pb.HasField("result"):
        readers.update(_RESULT)
    return readers


def view(pb: game_pb2.View) -> dict:
    """The view's dict, as the rules made it (docs/views.md), without the legal moves
    (SeatState.legal_moves holds them; seat_view adds them). Its history holds the
    engine's events too, where they happened."""
    return {key: read(pb, None) for key, read in _readers(pb).items()}


def seat_view(state) -> dict:
    """A SeatState's view as the rules give a seat (Match.view(seat)): with its legal
    moves' texts, and the engine's events in its history where they happened."""
    return {key: read(state.view, state)
            for key, read in _readers(state.view, state).items()}


class LazyView(Mapping):
    """A strategy's view: seat_view(state) as the rules give it (Match.view(seat), its
    history without the engine's events), each key read from the message on first use: a
    strategy that looks only at its legal moves, or its hand, pays for nothing else."""

    __slots__ = ("_state", "_readers", "_got")

    def __init__(self, state):
        self._state = state
        self._readers = _readers(state.view, state, rules_only=True)
        self._got: dict = {}

    def __getitem__(self, key):
        try:
            return self._got[key]
        except KeyError:
            value = self._got[key] = self._readers[key](self._state.view, self._state)
            return value

    def __iter__(self):
        return iter(self._readers)

    def __len__(self) -> int:
        return len(self._readers)

    def __contains__(self, key) -> bool:
        return key in self._readers
