"""The domino-record/1 document (docs/records.md) as the OpenAPI document types it: one
record schema per game (told apart by `variant`), its deals, turns and results, so that a
replay viewer generated from the document reads every field typed. GET .../record sends
the engine's record as it is, but for its seed (a decimal string: gateway/int64.py);
tests/gateway/test_typed_records.py holds real records of both games to these schemas.

A request's explicit deals (CreateMatch.deals) are typed here too: a record's deals, their
tiles only.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domino_wire.game import MODE, PLACE

from .int64 import Int64
from .schemas_game import (
    SEATS,
    DomengDealResultSchema,
    DomengMatchResultSchema,
    DomengOptionsSchema,
    HHLDealResultSchema,
    HHLMatchResultSchema,
    HHLOptionsSchema,
    OneOf,
    Payer,
    _d,
    constant,
    tile,
    word,
)

RECORD_FORMAT = "domino-record/1"
MAX_SEED = 2**63 - 1
HHL_ARMS = PLACE.words          # left, right, up, down
DOMENG_ENDS = PLACE.words[:2]    # left, right: the two ends of a Domeng line


def _tiles(n: int, text: str) -> fields.List:
    return fields.List(tile(required=True), required=True, validate=validate.Length(n, n),
                       **_d(text))


def _hands(seats: int, size: int) -> fields.List:
    return fields.List(fields.List(tile(required=True), validate=validate.Length(size, size)),
                       required=True, validate=validate.Length(seats, seats),
                       **_d(f"each seat's {size} tiles as dealt, in seat order"))


def _seat(text: str) -> fields.Integer:
    return fields.Integer(required=True, validate=SEATS, **_d(text))


# ----- turns ---------------------------------------------------------------------------------
class HHLPlayTurnSchema(Schema):
    seat = _seat("the seat that laid it")
    play = tile("the tile: the opening lead (the spinner, HHL-2) or a tile on an arm",
                required=True)
    at = word(HHL_ARMS, "the arm; absent for the opening lead")
    mode = word(MODE.words, "a double on an arm: normal or barricade (HHL-5)")


class DrawTurnSchema(Schema):
    seat = _seat("the seat that drew")
    draw = fields.List(tile(required=True), required=True, validate=validate.Length(1, 4),
                       **_d("the tiles drawn, in order, until a playable one or an empty "
                            "stock (HHL-6); a playable last one is the seat's next play"))


class HHLPassTurnSchema(Schema):
    seat = _seat("the seat that passed: the stock ran out and it could not play (HHL-6)")
    pass_ = fields.Boolean(required=True, data_key="pass", attribute="pass",
                           validate=validate.OneOf([True]))


class DomengPlayTurnSchema(Schema):
    seat = _seat("the seat that laid it")
    play = tile("the tile: the round's lead (high number on the left end) or a tile on an "
                "end", required=True)
    at = word(DOMENG_ENDS, "the end; absent for the lead")


class PaidSchema(Schema):
    from_ = Payer(required=True, data_key="from", attribute="from",
                  **_d('who paid: "table", or the LAST MAPPANO\'s seat'))
    count = fields.Integer(required=True, validate=validate.Range(1, 25), **_d("stones"))


class DomengPassTurnSchema(Schema):
    seat = _seat("the seat that passed (DOM-5)")
    pass_ = fields.Boolean(required=True, data_key="pass", attribute="pass",
                           validate=validate.OneOf([True]))
    stones = fields.List(fields.Nested(PaidSchema), required=True,
                         **_d("who paid the passer what: the table first, then the LAST "
                              "MAPPANO; empty when nothing could be paid, and for the "
                              "MANGUNO's closing pass (DOM-8)"))


# ----- deals -------------------------------------------------------------------------------
class HHLDealSchema(Schema):
    hands = _hands(4, 6)
    stock = _tiles(4, "the 4 stock tiles in draw order, the first drawn first (HHL-1)")
    moves = fields.List(OneOf({"play": HHLPlayTurnSchema, "draw": DrawTurnSchema,
                               "pass": HHLPassTurnSchema}), required=True,
                        **_d("every turn, in order: plays, the automatic draws, passes"))
    result = fields.Nested(HHLDealResultSchema, **_d("the hand's result; absent while it is "
                                                     "played"))


class DomengDealSchema(Schema):
    hands = _hands(5, 5)
    sleeping = _tiles(3, "the 3 sleeping tiles (DOM-1)")
    moves = fields.List(OneOf({"play": DomengPlayTurnSchema, "pass": DomengPassTurnSchema}),
                        required=True, **_d("every turn, in order: plays and passes"))
    result = fields.Nested(DomengDealResultSchema, **_d("the round's result; absent while "
                                                        "it is played"))


# ----- records -------------------------------------------------------------------------------
def _seed(**kw) -> Int64:
    return Int64(0, MAX_SEED, required=True,
                 **_d("the seed of the match's random generator, as a decimal string; deals "
                      "not listed are dealt from it"), **kw)


def _names(n: int) -> fields.List:
    return fields.List(fields.String(), required=True, validate=validate.Length(n, n),
                       **_d("a name per seat, in seat order"))


class HHLRecordSchema(Schema):
    format = constant(RECORD_FORMAT)
    variant = constant("hhl")
    options = fields.Nested(HHLOptionsSchema, required=True,
                            **_d("the match options, defaults filled in"))
    seed = _seed()
    seats = _names(4)
    deals = fields.List(fields.Nested(HHLDealSchema), required=True,
                        validate=validate.Length(min=1), **_d("every hand, in order"))
    result = fields.Nested(HHLMatchResultSchema, **_d("the match result; absent while the "
                                                      "match is live"))


class DomengRecordSchema(Schema):
    format = constant(RECORD_FORMAT)
    variant = constant("domeng")
    options = fields.Nested(DomengOptionsSchema, required=True,
                            **_d("the match options, defaults filled in"))
    seed = _seed()
    seats = _names(5)
    deals = fields.List(fields.Nested(DomengDealSchema), required=True,
                        validate=validate.Length(min=1), **_d("every round, in order"))
    result = fields.Nested(DomengMatchResultSchema, **_d("the match result; absent while the "
                                                         "match is live"))


RECORDS = {"hhl": HHLRecordSchema, "domeng": DomengRecordSchema}
RECORD_REF = {"$ref": "#/components/schemas/Record"}


def register(spec) -> None:
    """The components of a record: Record, one of HHLRecord and DomengRecord by variant."""
    refs = {}
    for variant, cls in RECORDS.items():
        name = cls.__name__.removesuffix("Schema")
        if name not in spec.components.schemas:
            spec.components.schema(name, schema=cls)
        refs[variant] = f"#/components/schemas/{name}"
    spec.components.schema("Record", {
        "description": "The domino-record/1 document (docs/records.md); replays with "
                       "`domino replay`",
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "variant", "mapping": refs}})


def rest_record(record: dict) -> dict:
    """The engine's record as REST sends it: the seed as a decimal string."""
    seed = record.get("seed")
    return {**record, "seed": str(seed)} if isinstance(seed, int) else record


# ----- a request's explicit deals -----------------------------------------------------------
class HHLDealInputSchema(Schema):
    hands = _hands(4, 6)
    stock = _tiles(4, "the 4 stock tiles in draw order, the first drawn first")


class DomengDealInputSchema(Schema):
    hands = _hands(5, 5)
    sleeping = _tiles(3, "the 3 sleeping tiles")


DEALS_INPUT = {"hhl": HHLDealInputSchema, "domeng": DomengDealInputSchema}
