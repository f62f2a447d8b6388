"""The game's own shapes on the REST side: views, events, results and options of both
variants, as marshmallow schemas, and so in the OpenAPI document.

They are the JSON faces of game.proto (domino_wire.game makes the dicts from the typed
messages): a view is one of HHLView and DomengView (told apart by `variant`), an event one
of a schema per kind (told apart by `kind`), a result one of the variant's. docs/views.md
and docs/records.md describe the same shapes in prose; tests/gateway/test_typed_openapi.py
holds every answer of whole matches to these schemas.
"""

from __future__ import annotations

from apispec import BasePlugin
from marshmallow import Schema, ValidationError, fields, validate

from domino_wire.game import CAPPU_KIND, MODE, PLACE

from .int64 import int642properties
from .variants import OPTIONS, WORDS

SEATS = validate.Range(0, 4)
TILE = validate.Regexp(r"^[0-6]-[0-6]$", error="a tile is written like 6-4")
NUMBER = validate.Range(0, 6)


def _d(text: str) -> dict:
    return {"metadata": {"description": text}}


def seat(text: str = "a seat, 0..N-1 clockwise", **kw) -> fields.Integer:
    return fields.Integer(required=True, validate=SEATS, **kw, **_d(text))


def maybe_seat(text: str) -> fields.Integer:
    return fields.Integer(required=True, allow_none=True, validate=SEATS, **_d(text))


def tile(text: str = 'a tile, high-low: "6-4"', **kw) -> fields.String:
    return fields.String(validate=TILE, **kw, **_d(text))


def by_seat(field: fields.Field, text: str, **kw) -> fields.List:
    return fields.List(field, required=True, validate=validate.Length(4, 5), **kw, **_d(text))


def word(words, text: str, **kw) -> fields.String:
    return fields.String(validate=validate.OneOf(list(words)), **kw, **_d(text))


def constant(value: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([value]))


class OneOf(fields.Field):
    """One of several schemas. Documented as a JSON Schema oneOf, with a discriminator
    when `discriminator` is the property that tells them apart (every alternative is
    closed, so exactly one matches anyway).

    A value is sent as domino_wire.game made it from the typed message, already in the
    documented shape: dumping it field by field again would cost a view ten times its
    encoding (0.4 ms against 13 µs for a mid-hand HHL view), on every GET of a view.
    tests/gateway/test_typed_openapi.py holds the answers of whole matches to these
    schemas instead, which checks more than a dump would (a dump validates nothing)."""

    def __init__(self, schemas: dict[str, type[Schema]], discriminator: str | None = None,
                 **kwargs):
        super().__init__(**kwargs)
        self.schemas, self.discriminator = schemas, discriminator

    def _serialize(self, value, attr, obj, **kwargs):
        return value



def oneof2properties(self, field, **kwargs) -> dict:
    """apispec attribute function: OneOf as oneOf [$ref, ...] (+ null when nullable)."""
    if not isinstance(field, OneOf):
        return {}
    refs = [self.resolve_nested_schema(cls) for cls in field.schemas.values()]
    out = {"oneOf": refs + ([{"type": "null"}] if field.allow_none else [])}
    if field.discriminator and not field.allow_none:
        out["discriminator"] = {"propertyName": field.discriminator,
                                "mapping": {name: ref["$ref"]
                                            for name, ref in zip(field.schemas, refs, strict=True)}}
    return out


class Payer(fields.Field):
    """Who paid stones: a seat, or "table"."""

    def _serialize(self, value, attr, obj, **kwargs):
        return value


def payer2properties(self, field, **kwargs) -> dict:
    if not isinstance(field, Payer):
        return {}
    return {"oneOf": [{"type": "string", "enum": ["table"]},
                      {"type": "integer", "minimum": 0, "maximum": 4}]}


def register(converter) -> None:
    """Teach the OpenAPI converter the field types of the wire: this module's two, and
    gateway/int64.py's."""
    converter.add_attribute_function(oneof2properties)
    converter.add_attribute_function(payer2properties)
    converter.add_attribute_function(int642properties)


class SchemaKeywords(BasePlugin):
    """apispec plugin: the JSON Schema keywords a schema class gives in its OPENAPI
    attribute (minProperties, an allOf of if/then) join its definition in the document."""

    def schema_helper(self, name, *_, **kwargs):
        schema = kwargs.get("schema")
        cls = schema if isinstance(schema, type) else type(schema)
        return dict(getattr(cls, "OPENAPI", {}))


# ----- options ----------------------------------------------------------------------------
def _option(variant: str, name: str, text: str, **kw) -> fields.Integer:
    lo, hi, _ = OPTIONS[variant][name]
    return fields.Integer(strict=True, validate=validate.Range(lo, hi), **kw,
                          **_d(f"{text}; {lo}..{hi}"))


def _choice(variant: str, name: str, text: str, **kw) -> fields.String:
    words = WORDS[variant][name]
    return word(words, f"{text}; {' | '.join(words)}", **kw)


PROFILE_TEXT = ("the rules profile: rulings (the project's rulings) or literal (the rule "
                "texts' letter where three rulings depart from it: HHL-8, DOM-8, DOM-2); it "
                "sets each reading not given on its own")
DEAD_STOCK_TEXT = ("HHL-8's reading: stop, the hand ends once no tile anywhere can be laid "
                   "(the ruling); draw, a seat that cannot play still draws the dead stock "
                   "and four passes end the hand (the letter)")
CLOSING_PASS_TEXT = ("DOM-8's reading: free, the MANGUNO's own closing pass costs nothing "
                     "(the ruling); paid, it pays 1 stone as DOM-5 says (the letter)")
FIRST_LEAD_TEXT = ("DOM-2's reading: double, the first leader lays the double it was "
                   "chosen by (the ruling); any, it leads any tile (the letter)")


class HHLOptionsSchema(Schema):
    minutes = _option("hhl", "minutes", "time limit in minutes; null when hands is set "
                      "(HHL-10)", required=True, allow_none=True)
    hands = _option("hhl", "hands", "hands to play; null: the time limit ends the match "
                    "(HHL-10)", required=True, allow_none=True)
    profile = _choice("hhl", "profile", PROFILE_TEXT, required=True)
    dead_stock = _choice("hhl", "dead_stock", DEAD_STOCK_TEXT, required=True)


class DomengOptionsSchema(Schema):
    cycles = _option("domeng", "cycles", "game cycles (DOM-11)", required=True)
    round_cap = _option("domeng", "round_cap", "rounds per cycle at most (DOM-11)",
                        required=True)
    profile = _choice("domeng", "profile", PROFILE_TEXT, required=True)
    closing_pass = _choice("domeng", "closing_pass", CLOSING_PASS_TEXT, required=True)
    first_lead = _choice("domeng", "first_lead", FIRST_LEAD_TEXT, required=True)


def options_field(**kw) -> OneOf:
    return OneOf({"hhl": HHLOptionsSchema, "domeng": DomengOptionsSchema}, **kw)


# A request names only the options it sets; null or absent is the option's default (told
# in words: a JSON Schema `default` makes generators type the option as always there). At
# least one (an empty object is no options at all, and would match both games).
def _given(variant: str, name: str, text: str) -> fields.Integer:
    default = OPTIONS[variant][name][2]
    return _option(variant, name, f"{text}. Null or absent: "
                   f"{'none' if default is None else default}", allow_none=True)


def _given_choice(variant: str, name: str, text: str, unset: str) -> fields.String:
    return _choice(variant, name, f"{text}. Null or absent: {unset}", allow_none=True)


_BY_PROFILE = "as the profile says"


class HHLOptionsInputSchema(Schema):
    OPENAPI = {"minProperties": 1}
    minutes = _given("hhl", "minutes", "time limit in minutes of play, from the match's "
                     "creation; the hand in progress is finished (HHL-10); none when only "
                     "hands is given")
    hands = _given("hhl", "hands", "play this many hands, then end (HHL-10)")
    profile = _given_choice("hhl", "profile", PROFILE_TEXT, "rulings")
    dead_stock = _given_choice("hhl", "dead_stock", DEAD_STOCK_TEXT, _BY_PROFILE)


class DomengOptionsInputSchema(Schema):
    OPENAPI = {"minProperties": 1}
    cycles = _given("domeng", "cycles", "game cycles in the match (DOM-11)")
    round_cap = _given("domeng", "round_cap", "rounds per cycle at most (DOM-11)")
    profile = _given_choice("domeng", "profile", PROFILE_TEXT, "rulings")
    closing_pass = _given_choice("domeng", "closing_pass", CLOSING_PASS_TEXT, _BY_PROFILE)
    first_lead = _given_choice("domeng", "first_lead", FIRST_LEAD_TEXT, _BY_PROFILE)


OPTIONS_INPUT = {"hhl": HHLOptionsInputSchema, "domeng": DomengOptionsInputSchema}
MAX_OPTIONS = 8    # names in one request's options, at most


class OptionsInput(OneOf):
    """A request's rules options: the options of the request's variant (OPTIONS_INPUT),
    each name once. Loaded as the object it is: which names and ranges a variant takes
    the engine checks, naming the option at fault (options.hands)."""

    def __init__(self, **kw):
        super().__init__(OPTIONS_INPUT, **kw)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError("must be an object of options")
        if len(value) > MAX_OPTIONS:
            raise ValidationError(f"at most {MAX_OPTIONS} options")
        return value


def options_by_variant(deals: dict[str, type[Schema]] | None = None) -> dict:
    """JSON Schema keywords for a request whose `variant` says which options it takes
    (and, given `deals` by variant, which deals): an allOf of if (that variant) then (its
    schemas). Generators of types read the oneOf of the field; validators read these."""
    def ref(cls) -> dict:
        return {"$ref": f"#/components/schemas/{cls.__name__.removesuffix('Schema')}"}

    def then(variant: str) -> dict:
        properties = {"options": ref(OPTIONS_INPUT[variant])}
        if deals:
            properties["deals"] = {"items": ref(deals[variant])}
        return {"properties": properties}

    return {"allOf": [
        {"if": {"properties": {"variant": {"const": variant}}, "required": ["variant"]},
         "then": then(variant)} for variant in OPTIONS_INPUT]}


# ----- results ----------------------------------------------------------------------------
def ranking(text: str = "seats grouped by place, best first; ties share a place"):
    return fields.List(fields.List(fields.Integer(validate=SEATS)), required=True, **_d(text))


class HHLDealResultSchema(Schema):
    end = word(("domino", "blocked"), "domino: a seat laid its last tile; blocked: nobody "
               "could play (HHL-7, HHL-8)", required=True)
    winners = fields.List(fields.Integer(validate=SEATS), required=True,
                          **_d("several on a blocked tie"))
    pips = by_seat(fields.Integer(), "R: pips left in hand")
    points = by_seat(fields.Integer(), "P = 25 C - 100 R; they sum to 0 (HHL-9)")


class TransferSchema(Schema):
    to = seat("the seat that received")
    count = fields.Integer(required=True, **_d("stones"))
    from_ = Payer(required=True, data_key="from", attribute="from",
                  **_d('the seat that paid, or "table"'))


class DomengDealResultSchema(Schema):
    end = word(("cappu", "blocked"), "cappu: a seat laid its last tile; blocked: nobody "
               "could (DOM-7, DOM-8)", required=True)
    kind = word(CAPPU_KIND.words, "the kind of CAPPU; null when blocked", required=True,
                allow_none=True)
    winner = seat("the seat that won the round")
    cucuq = maybe_seat("the CUCUQ; null when none")
    manguno = maybe_seat("the MANGUNO; null when none")
    mattikkeng = fields.List(fields.Integer(validate=SEATS), required=True,
                             **_d("the seats that were MATTIKKENG"))
    pips = by_seat(fields.Integer(), "pips left")
    transfers = fields.List(fields.Nested(TransferSchema), required=True,
                            **_d("the end-of-round stone payments"))
    table = fields.Integer(required=True, **_d("stones on the table after settlement"))
    held = by_seat(fields.Integer(), "stones held after settlement")
    camat = maybe_seat("the seat named CAMAT by this round; null when none")


def deal_result_field(**kw) -> OneOf:
    return OneOf({"hhl": HHLDealResultSchema, "domeng": DomengDealResultSchema}, **kw)


class CycleResultSchema(Schema):
    cycle = fields.Integer(required=True, **_d("0-based"))
    camat = maybe_seat("the CAMAT that ended it; null when the round cap cut it")
    held = by_seat(fields.Integer(), "stones held at its end")
    rounds = fields.Integer(required=True, **_d("rounds played in it"))
    ranking = ranking()


class HHLMatchResultSchema(Schema):
    totals = by_seat(fields.Integer(), "points over all hands")
    ranking = ranking()


class DomengMatchResultSchema(Schema):
    camat_titles = by_seat(fields.Integer(), "CAMAT titles")
    stones = by_seat(fields.Integer(), "stones held at the end of each cycle, summed")
    ranking = ranking("by titles, then fewer stones; ties share a place")
    cycles = fields.List(fields.Nested(CycleResultSchema), required=True)


def match_result_field(**kw) -> OneOf:
    return OneOf({"hhl": HHLMatchResultSchema, "domeng": DomengMatchResultSchema}, **kw)


# ----- events -----------------------------------------------------------------------------
class EventBase(Schema):
    version = fields.Integer(**_d("the match version right after the move that set it off; "
                                  "absent in a view's history"))


class DealStartSchema(EventBase):
    kind = constant("deal_start")
    deal = fields.Integer(required=True, **_d("0-based number of the deal"))
    leader = seat("the seat that leads")
    tiles = fields.List(tile(), **_d("the receiving seat's own dealt tiles; absent for others"))
    cycle = fields.Integer(**_d("Domeng: the cycle of the round, 0-based"))
    camat = fields.Integer(allow_none=True, validate=SEATS,
                           **_d("Domeng: the sitting CAMAT, or null"))


class PlaySchema(EventBase):
    kind = constant("play")
    seat = seat("the seat that laid it")
    play = tile("the tile laid", required=True)
    at = word(PLACE.words, "the arm or end; absent for the opening lead")
    mode = word(MODE.words, "an HHL double on an arm: normal or barricade")
    mappakuling = fields.Boolean(**_d("Domeng: the lead laid the other way round (DOM-6)"))


class DrawSchema(EventBase):
    kind = constant("draw")
    seat = seat("the seat that drew")
    count = fields.Integer(required=True, **_d("tiles drawn"))
    tiles = fields.List(tile(), **_d("the tiles drawn: for the drawer only"))


class StonesSchema(Schema):
    from_ = Payer(required=True, data_key="from", attribute="from",
                  **_d('the seat that paid, or "table"'))
    count = fields.Integer(required=True, **_d("stones"))


class PassSchema(EventBase):
    kind = constant("pass")
    seat = seat("the seat that passed")
    stones = fields.List(fields.Nested(StonesSchema),
                         **_d("Domeng: who paid the passer what (DOM-5)"))
    cost = fields.Integer(**_d("Domeng: 1, 2 for a PASSEBUNGE, 0 for the MANGUNO's closing "
                               "pass"))
    passebunge = fields.Boolean(**_d("Domeng: a pass before laying any tile this round"))


class DealOverSchema(EventBase):
    kind = constant("deal_over")
    result = deal_result_field(required=True)


class CycleOverSchema(EventBase):
    kind = constant("cycle_over")
    result = fields.Nested(CycleResultSchema, required=True)


class MatchOverSchema(EventBase):
    kind = constant("match_over")
    result = match_result_field(required=True)


class TimeoutSchema(EventBase):
    kind = constant("timeout")
    seat = seat("the seat the clock played for")
    move = fields.String(required=True, **_d("the move it played, in text notation"))
    timeouts_in_a_row = fields.Integer(required=True)


class AbsentSchema(EventBase):
    kind = constant("absent")
    seat = seat("the seat now played automatically")


class ReturnedSchema(EventBase):
    kind = constant("returned")
    seat = seat("the seat its holder plays again")


class TimeUpSchema(EventBase):
    kind = constant("time_up")


EVENTS = {"deal_start": DealStartSchema, "play": PlaySchema, "draw": DrawSchema,
          "pass": PassSchema, "deal_over": DealOverSchema, "cycle_over": CycleOverSchema,
          "match_over": MatchOverSchema, "timeout": TimeoutSchema, "absent": AbsentSchema,
          "returned": ReturnedSchema, "time_up": TimeUpSchema}


def event_field(**kw) -> OneOf:
    return OneOf(EVENTS, discriminator="kind", **kw)


# ----- views ------------------------------------------------------------------------------
class LegalMoveSchema(Schema):
    id = fields.String(required=True, **_d("short id, valid only at the version it was offered"))
    text = fields.String(required=True, **_d('the move in text notation, e.g. "3-1 left"'))


class ViewBase(Schema):
    seat = fields.Integer(required=True, allow_none=True, validate=SEATS,
                          **_d("the seat this view is for; null for a spectator"))
    deal_number = fields.Integer(required=True, **_d("0-based: the deal in play"))
    turn = maybe_seat("the seat whose decision is awaited; null once over")
    over = fields.Boolean(required=True)
    counts = by_seat(fields.Integer(), "tiles in each hand")
    history = fields.List(event_field(), required=True,
                          **_d("this deal's events so far, as this seat may see them: the "
                               "rules' and the engine's (timeout, absent, returned, time_up), "
                               "in the order the event stream sent them"))
    hand = fields.List(tile(), **_d("this seat's tiles; absent for a spectator"))
    legal_moves = fields.List(fields.Nested(LegalMoveSchema),
                              **_d("this seat's legal moves, as SeatState.legal_moves: each "
                                   "with the id to submit; empty unless its turn; absent for "
                                   "a spectator"))


class ArmTileSchema(Schema):
    tile = tile(required=True)
    inner = fields.Integer(required=True, validate=NUMBER,
                           **_d("the number touching the previous tile"))
    outer = fields.Integer(required=True, validate=NUMBER, **_d("the number facing out"))
    mode = word(MODE.words, "for a double: normal or barricade")


class ArmSchema(Schema):
    tiles = fields.List(fields.Nested(ArmTileSchema), required=True,
                        **_d("from the spinner outwards"))
    end = fields.Integer(required=True, allow_none=True, validate=NUMBER,
                         **_d("the open number; null before the opening and once closed"))
    closed = fields.Boolean(required=True, **_d("a barricade closed it (HHL-5)"))


class ArmsSchema(Schema):
    left = fields.Nested(ArmSchema, required=True)
    right = fields.Nested(ArmSchema, required=True)
    up = fields.Nested(ArmSchema, required=True)
    down = fields.Nested(ArmSchema, required=True)


class HHLViewSchema(ViewBase):
    variant = constant("hhl")
    spinner = tile("the opening double; null before the opening", required=True,
                   allow_none=True)
    arms = fields.Nested(ArmsSchema, required=True)
    stock = fields.Integer(required=True, **_d("tiles left in the stock"))
    totals = by_seat(fields.Integer(), "points over the finished hands")
    drawn = tile("the tile this seat drew and must play (HHL-6); only then")
    last_result = fields.Nested(HHLDealResultSchema, required=True, allow_none=True,
                                **_d("the latest finished hand's result, or null"))
    result = fields.Nested(HHLMatchResultSchema, **_d("the match result, once over"))
    options = fields.Nested(HHLOptionsSchema, required=True,
                            **_d("the match's rules options in force (its profile among them)"))


class LineTileSchema(Schema):
    tile = tile(required=True)
    left = fields.Integer(required=True, validate=NUMBER, **_d("the number on its left side"))
    right = fields.Integer(required=True, validate=NUMBER,
                           **_d("the number on its right side"))


class EndsSchema(Schema):
    left = fields.Integer(required=True, validate=NUMBER)
    right = fields.Integer(required=True, validate=NUMBER)


class DomengViewSchema(ViewBase):
    variant = constant("domeng")
    line = fields.List(fields.Nested(LineTileSchema), required=True,
                       **_d("the tiles from left to right"))
    ends = fields.Nested(EndsSchema, required=True, allow_none=True,
                         **_d("the open numbers; null before the lead"))
    table = fields.Integer(required=True, **_d("stones on the table (DOM-9)"))
    held = by_seat(fields.Integer(), "stones held")
    last_mappano = maybe_seat("the LAST MAPPANO: the seat that laid the latest tile")
    laid = by_seat(fields.Boolean(), "has it laid a tile this round (DOM-5)")
    camat = maybe_seat("the sitting CAMAT (DOM-10)")
    cycle = fields.Integer(required=True, **_d("0-based game cycle"))
    round_in_cycle = fields.Integer(required=True, **_d("rounds finished in this cycle"))
    last_result = fields.Nested(DomengDealResultSchema, required=True, allow_none=True,
                                **_d("the latest finished round's result, or null"))
    result = fields.Nested(DomengMatchResultSchema, **_d("the match result, once over"))
    options = fields.Nested(DomengOptionsSchema, required=True,
                            **_d("the match's rules options in force (its profile among them)"))


def view_field(**kw) -> OneOf:
    return OneOf({"hhl": HHLViewSchema, "domeng": DomengViewSchema},
                 discriminator="variant", **kw)


