"""The game's typed contract (proto/domino/v1/game.proto) and the plain shapes of
docs/views.md and docs/records.md, mapped both ways in this one place.

The rules core speaks plain values: a view is a dict (Match.view), an event a dict
(Event.to_dict), results and options dicts. The engine encodes them into the typed
messages here (`*_pb`), and every Python client decodes the messages back here (the bot
runner and its strategies, the gateway's REST bodies, the `domino` command), so both sides
read the one documented shape. tests/wire checks that a round trip gives back exactly what
the rules made, over thousands of matches.

Conventions of the contract: a missing seat is -1 (None here); a Domeng stone payer of -1
is the table ("table" here); enum values are the lower-case words of domino_wire.names.
"""

from __future__ import annotations

from collections.abc import Mapping

from domino_proto.domino.v1 import engine_pb2, game_pb2

from .names import VARIANT, Words
from .parts import frame

PLACE = Words(game_pb2.Place, "PLACE_")
MODE = Words(game_pb2.Mode, "MODE_")
DEAL_END = Words(game_pb2.DealEnd, "DEAL_END_")
CAPPU_KIND = Words(game_pb2.CappuKind, "CAPPU_KIND_")
REST_KEY = {"hhl": "stock", "domeng": "sleeping"}   # the record's name of a deal's rest

Tile, Move, View, Event = game_pb2.Tile, game_pb2.Move, game_pb2.View, game_pb2.Event
_HALVES = {f"{h}-{lo}": (h, lo) for h in range(7) for lo in range(h + 1)}


def _seat(s: int | None) -> int:
    return -1 if s is None else s


def _none(s: int) -> int | None:
    return None if s < 0 else s


def _groups(ranking) -> list:
    return [game_pb2.SeatGroup(seats=g) for g in ranking]


def _ungroup(groups) -> list[list[int]]:
    return [list(g.seats) for g in groups]


# ----- tiles and moves ---------------------------------------------------------------------
def tile_pb(text: str) -> game_pb2.Tile:
    """A tile's canonical text ("6-4") as the message."""
    h, lo = _HALVES[text]
    return Tile(high=h, low=lo)


def tile_text(t: game_pb2.Tile) -> str:
    """The text of a Tile message; either order reads the same, as in the notation."""
    h, lo = (t.high, t.low) if t.high >= t.low else (t.low, t.high)
    return f"{h}-{lo}"


def tiles_pb(texts) -> list:
    return [tile_pb(t) for t in texts]


def tiles_text(tiles) -> list[str]:
    return [tile_text(t) for t in tiles]


def move_pb(play: str, at: str | None = None, mode: str | None = None) -> game_pb2.Move:
    return Move(tile=tile_pb(play), place=PLACE.number(at) if at else 0,
                mode=MODE.number(mode) if mode else 0)


def move_pb_of_text(text: str) -> game_pb2.Move:
    """The message of a move text ("4-4 up barricade"); the text is the engine's own."""
    return move_pb(*text.split())


def move_fields(m: game_pb2.Move) -> dict:
    """A move as the rules' dict form: {"play": "3-1", "at": "left"?, "mode": "normal"?}."""
    d = {"play": tile_text(m.tile)}
    if m.place:
        d["at"] = PLACE.word(m.place)
    if m.mode:
        d["mode"] = MODE.word(m.mode)
    return d


def move_text(m: game_pb2.Move) -> str:
    """The move's text notation: "0-0", "3-1 left", "4-4 up barricade"."""
    return " ".join(move_fields(m).values())


# ----- results -----------------------------------------------------------------------------
def deal_result_pb(r: dict) -> game_pb2.DealResult:
    if "winners" in r:   # HHL-7..HHL-9
        return game_pb2.DealResult(hhl=game_pb2.HHLDealResult(
            end=DEAL_END.number(r["end"]), winners=r["winners"], pips=r["pips"],
            points=r["points"]))
    return game_pb2.DealResult(domeng=game_pb2.DomengDealResult(
        end=DEAL_END.number(r["end"]), kind=CAPPU_KIND.number(r["kind"]) if r["kind"] else 0,
        winner=r["winner"], cucuq=_seat(r["cucuq"]), manguno=_seat(r["manguno"]),
        mattikkeng=r["mattikkeng"], pips=r["pips"],
        transfers=[game_pb2.Transfer(to=t["to"], count=t["count"], payer=_payer(t["from"]))
                   for t in r["transfers"]],
        table=r["table"], held=r["held"], camat=_seat(r["camat"])))


def deal_result(pb: game_pb2.DealResult) -> dict:
    if pb.WhichOneof("variant") == "hhl":
        r = pb.hhl
        return {"end": DEAL_END.word(r.end), "winners": list(r.winners), "pips": list(r.pips),
                "points": list(r.points)}
    r = pb.domeng
    return {"end": DEAL_END.word(r.end), "kind": CAPPU_KIND.word(r.kind), "winner": r.winner,
            "cucuq": _none(r.cucuq), "manguno": _none(r.manguno),
            "mattikkeng": list(r.mattikkeng), "pips": list(r.pips),
            "transfers": [{"to": t.to, "count": t.count, "from": _source(t.payer)}
                          for t in r.transfers],
            "table": r.table, "held": list(r.held), "camat": _none(r.camat)}


def cycle_result_pb(c: dict) -> game_pb2.CycleResult:
    return game_pb2.CycleResult(cycle=c["cycle"], camat=_seat(c["camat"]), held=c["held"],
                                rounds=c["rounds"], ranking=_groups(c["ranking"]))


def cycle_result(pb: game_pb2.CycleResult) -> dict:
    return {"cycle": pb.cycle, "camat": _none(pb.camat), "held": list(pb.held),
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


def _payer(source) -> int:
    return -1 if source == "table" else source


def _source(payer: int):
    return "table" if payer < 0 else payer


# ----- events ------------------------------------------------------------------------------
def event_pb(d: dict, version: int) -> game_pb2.Event:
    """An event dict of the rules (Event.to_dict) or the engine (EngineEvent.to_dict)."""
    kind = d["kind"]
    # The kinds of every move are filled in place: no message is made to be copied.
    if kind == "play":
        e = Event(version=version)
        play = e.play
        play.seat = d["seat"]
        play.move.tile.high, play.move.tile.low = _HALVES[d["play"]]
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
            e.draw.tiles.add().high, e.draw.tiles[-1].low = _HALVES[text]
        return e
    if kind == "pass":
        e = Event(version=version)
        passed = getattr(e, "pass")
        passed.seat = d["seat"]
        if "stones" in d:   # Domeng
            passed.cost, passed.passebunge = d["cost"], d["passebunge"]
            for s in d["stones"]:
                paid = passed.stones.add()
                paid.payer, paid.count = _payer(s["from"]), s["count"]
        return e
    if kind == "deal_start":
        start = Event.DealStart(deal=d["deal"], leader=d["leader"],
                                tiles=tiles_pb(d.get("tiles", ())), camat=_seat(d.get("camat")))
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
            d["stones"] = [{"from": _source(s.payer), "count": s.count} for s in e.stones]
            d["cost"], d["passebunge"] = e.cost, e.passebunge
        return d
    if kind == "deal_start":
        d = {"kind": kind, "deal": e.deal, "leader": e.leader}
        if e.HasField("cycle"):
            d["cycle"], d["camat"] = e.cycle, _none(e.camat)
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


# ----- views -------------------------------------------------------------------------------
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
_HAND = {text: View(hand=[tile_pb(text)]).SerializeToString() for text in _HALVES}


_N = {f"{m.name}.{f.name}": f.number for m in (View.DESCRIPTOR, game_pb2.HHLView.DESCRIPTOR)
      for f in m.fields}


def history_part(e: game_pb2.Event) -> bytes:
    """An encoded event as a part of a view's history (view_pb's `history`)."""
    return frame(_N["View.history"], e.SerializeToString())


_SPINNER = {text: View(hhl=game_pb2.HHLView(spinner=tile_pb(text))).SerializeToString()
            for text in _HALVES}
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
    """One HHL arm of a view as a part (view_pb's `layout`)."""
    head = game_pb2.Arm(place=PLACE.number(place), closed=arm["closed"])
    if arm["end"] is not None:
        head.end = arm["end"]
    body = head.SerializeToString() + b"".join(map(_arm_tile, arm["tiles"]))
    return frame(_N["View.hhl"], frame(_N["HHLView.arms"], body))


def line_part(v: dict) -> bytes:
    """The Domeng line of a view and its ends as a part (view_pb's `layout`)."""
    dom = game_pb2.DomengView(line=[
        game_pb2.LineTile(tile=tile_pb(t["tile"]), left=t["left"], right=t["right"])
        for t in v["line"]])
    if v["ends"] is not None:
        dom.ends.left, dom.ends.right = v["ends"]["left"], v["ends"]["right"]
    return View(domeng=dom).SerializeToString()


def layout_parts(v: dict) -> list[bytes]:
    """The layout of a view as parts (view_pb's `layout`): the HHL spinner and each arm,
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


def view_pb(v: dict, history: list[bytes] | None = None, layout: list[bytes] | None = None,
            last_result: bytes | None = None) -> game_pb2.View:
    """A view dict of the rules (Match.view) as the message. `history`, `layout` and
    `last_result`, when given, are those parts already encoded (history_part, layout_parts,
    result_part); else they are encoded here from v."""
    return View.FromString(view_bytes(v, history, layout, last_result))


def view_bytes(v: dict, history: list[bytes] | None = None, layout: list[bytes] | None = None,
               last_result: bytes | None = None) -> bytes:
    """view_pb's message, serialized: what a message's View field takes with
    MergeFromString, with no object made for it (the move path builds its TurnRequest so)."""
    seat = v["seat"]
    parts = [View(variant=VARIANT.number(v["variant"]), seat=_seat(seat),
                  deal_number=v["deal_number"], turn=_seat(v["turn"]), over=v["over"],
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
            last_mappano=_seat(v["last_mappano"]), camat=_seat(v["camat"]),
            cycle=v["cycle"], round_in_cycle=v["round_in_cycle"])).SerializeToString())
    parts += layout if layout is not None else layout_parts(v)
    return b"".join(parts)


# How each key of a view dict is read from the message (pb: the View; state: the
# SeatState, for the legal moves), so that LazyView decodes only the keys a strategy uses.
_COMMON = {
    "variant": lambda pb, st: VARIANT.word(pb.variant),
    "seat": lambda pb, st: _none(pb.seat),
    "deal_number": lambda pb, st: pb.deal_number,
    "turn": lambda pb, st: _none(pb.turn),
    "over": lambda pb, st: pb.over,
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
    "last_mappano": lambda pb, st: _none(pb.domeng.last_mappano),
    "laid": lambda pb, st: list(pb.domeng.laid),
    "camat": lambda pb, st: _none(pb.domeng.camat),
    "cycle": lambda pb, st: pb.domeng.cycle,
    "round_in_cycle": lambda pb, st: pb.domeng.round_in_cycle,
}
_LATER = {
    "history": lambda pb, st: [event(e) for e in pb.history],
    "last_result": lambda pb, st: (deal_result(pb.last_result)
                                   if pb.HasField("last_result") else None),
}
_SEAT = {"hand": lambda pb, st: tiles_text(pb.hand)}
_DRAWN = {"drawn": lambda pb, st: tile_text(pb.hhl.drawn)}
_LEGAL = {"legal_moves": lambda pb, st: [m.text for m in st.legal_moves]}
_RESULT = {"result": lambda pb, st: match_result(pb.result)}


def _readers(pb: game_pb2.View, state=None) -> dict:
    """key -> reader for the keys this view has, in the rules' order."""
    hhl = pb.WhichOneof("layout") == "hhl"
    readers = {**_COMMON, **(_HHL if hhl else _DOMENG), **_LATER}
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
    (SeatState.legal_moves holds them; seat_view adds them)."""
    return {key: read(pb, None) for key, read in _readers(pb).items()}


def seat_view(state) -> dict:
    """A SeatState's view as the rules give a seat (Match.view(seat)): with its legal
    moves' texts."""
    return {key: read(state.view, state)
            for key, read in _readers(state.view, state).items()}


class LazyView(Mapping):
    """seat_view(state), each key read from the message on first use: a strategy that
    looks only at its legal moves, or its hand, pays for nothing else."""

    __slots__ = ("_state", "_readers", "_got")

    def __init__(self, state):
        self._state = state
        self._readers = _readers(state.view, state)
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


# ----- options and deals -------------------------------------------------------------------
def options_pb(variant: str, options: dict) -> game_pb2.Options:
    """Rules options ({"hands": 2}) as the message of the variant; a value of None leaves
    the option unset. Unknown names and values that are no int32 are ValueError naming the
    option (the engine checks each range)."""
    pb = game_pb2.Options()
    which = getattr(pb, variant)
    which.SetInParent()
    for name, value in options.items():
        if name not in which.DESCRIPTOR.fields_by_name:
            raise ValueError(name, f"unknown option for {variant}; known: "
                             f"{', '.join(which.DESCRIPTOR.fields_by_name)}")
        if value is None:
            continue
        if type(value) is not int or not -2**31 <= value < 2**31:
            raise ValueError(name, "must be an integer in the option's range")
        setattr(which, name, value)
    return pb


def options(pb: game_pb2.Options) -> dict:
    """The options as set: {name: value}; an unset option is None (not given, or off)."""
    which = pb.WhichOneof("variant")
    if which is None:
        return {}
    msg = getattr(pb, which)
    return {f.name: getattr(msg, f.name) if msg.HasField(f.name) else None
            for f in msg.DESCRIPTOR.fields}


def options_given(pb: game_pb2.Options) -> dict:
    """Only the options that are set, as a request gives them."""
    return {k: v for k, v in options(pb).items() if v is not None}


def option_names(variant: str) -> tuple[str, ...]:
    return tuple(getattr(game_pb2.Options(), variant).DESCRIPTOR.fields_by_name)


def deal_pb(variant: str, d: dict) -> engine_pb2.Deal:
    """A deal in the record format ({"hands": [[...]], "stock" | "sleeping": [...]})."""
    return engine_pb2.Deal(hands=[engine_pb2.Hand(tiles=[_tile_of_any(t) for t in h])
                                  for h in d["hands"]],
                           rest=[_tile_of_any(t) for t in d.get(REST_KEY[variant], ())])


def deal(variant: str, pb: engine_pb2.Deal) -> dict:
    """A Deal message in the record format, for the rules to check."""
    return {"hands": [[_text_of_any(t) for t in h.tiles] for h in pb.hands],
            REST_KEY[variant]: [_text_of_any(t) for t in pb.rest]}


def _tile_of_any(text) -> game_pb2.Tile:
    """A tile of a record written by hand ("4-6", "[6|4]"): its two numbers as given, for
    the engine to check (ValueError when it has no two numbers)."""
    digits = [int(c) for c in str(text) if c.isdigit() and c.isascii()]
    if len(digits) != 2:
        raise ValueError(f"a tile is written like '6-4', got {str(text)[:20]!r}")
    return Tile(high=max(digits), low=min(digits))


def _text_of_any(t: game_pb2.Tile) -> str:
    """A tile of a request as text for the rules to parse: out-of-range numbers are kept,
    so the rules refuse them by name."""
    return f"{t.high}-{t.low}"
