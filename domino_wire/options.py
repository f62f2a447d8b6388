"""Rules options and explicit deals of the typed contract (game.proto Options,
engine.proto Deal) as the dicts a request and a record give, and back.
"""

from __future__ import annotations

from domino_proto.domino.v1 import engine_pb2, game_pb2

from .tiles import Tile

REST_KEY = {"hhl": "stock", "domeng": "sleeping"}   # the record's name of a deal's rest


def options_pb(variant: str, options: dict) -> game_pb2.Options:
    """Rules options ({"hands": 2, "profile": "literal"}) as the message of the variant; a
    value of None leaves the option unset. An integer option takes an int32, an enum option
    its word (game.proto: the value's name less its enum's prefix, in lower case). Unknown
    names and values of the wrong kind are ValueError naming the option (the engine checks
    each range)."""
    pb = game_pb2.Options()
    which = getattr(pb, variant)
    which.SetInParent()
    for name, value in options.items():
        field = which.DESCRIPTOR.fields_by_name.get(name)
        if field is None:
            raise ValueError(name, f"unknown option for {variant}; known: "
                             f"{', '.join(which.DESCRIPTOR.fields_by_name)}")
        if value is None:
            continue
        if field.enum_type is not None:
            number = _numbers(field.enum_type).get(value) if type(value) is str else None
            if number is None:
                raise ValueError(name, f"must be one of {', '.join(words(field.enum_type))}")
            setattr(which, name, number)
            continue
        if type(value) is not int or not -2**31 <= value < 2**31:
            raise ValueError(name, "must be an integer in the option's range")
        setattr(which, name, value)
    return pb


def options(pb: game_pb2.Options) -> dict:
    """The options as set: {name: value}; an unset option is None (not given, or off). An
    enum option is its word; UNSPECIFIED is unset, and a number the enum does not name is
    kept as that number, for the engine to refuse by name."""
    which = pb.WhichOneof("variant")
    if which is None:
        return {}
    msg = getattr(pb, which)
    return {f.name: _value(f, getattr(msg, f.name)) if msg.HasField(f.name) else None
            for f in msg.DESCRIPTOR.fields}


def words(enum) -> list[str]:
    """An enum option's words, in the enum's order (UNSPECIFIED is none)."""
    return list(_numbers(enum))


def _word(enum, value) -> str:
    """An options enum's value as its word: DEAD_STOCK_DRAW of DeadStock is "draw"."""
    return value.name.removeprefix(enum.values[0].name.removesuffix("UNSPECIFIED")).lower()


def _numbers(enum) -> dict[str, int]:
    """{word: number} of an options enum (UNSPECIFIED is none)."""
    return {_word(enum, v): v.number for v in enum.values if v.number}


def _value(field, value):
    if field.enum_type is None:
        return value
    named = field.enum_type.values_by_number.get(value)
    if value == 0 or named is None:
        return None if value == 0 else value
    return _word(field.enum_type, named)


def options_given(pb: game_pb2.Options) -> dict:
    """Only the options that are set, as a request gives them."""
    return {k: v for k, v in options(pb).items() if v is not None}


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
