"""The wire: marshmallow schemas for every request and answer (and so the OpenAPI document).

The game's own shapes (views, events, results, options) are typed in schemas_game.py, the
match record (a file format, docs/records.md) in schemas_record.py, the messages of the
event stream in schemas_stream.py.
"""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domino_wire.names import MATCH_STATUS, SEAT_KIND, VARIANT

from .int64 import Int64
from .schemas_game import (
    LegalMoveSchema,
    OneOf,
    OptionsInput,
    event_field,
    match_result_field,
    options_by_variant,
    options_field,
    tile,
    view_field,
)
from .schemas_record import DEALS_INPUT
from .variants import OPTION_TYPES

VARIANT_IDS = VARIANT.words
STATUSES = MATCH_STATUS.words
SEAT_KINDS = SEAT_KIND.words
MAX_SEED = 2**63 - 1
MAX_CLOCK_MS = 3_600_000
MAX_WORLDS = 1000            # engine_service/core/sampling/service.py MAX_WORLDS
MAX_WORLD_SEED = 2**64 - 1   # SampleWorldsRequest.seed is a uint64
MAX_WORLDS_COUNTED = 2**64 - 1   # SampleWorldsAnswer.consistent_worlds is a uint64


def _d(text: str, **extra) -> dict:
    return {"metadata": {"description": text, **extra}}


def seed_input(text: str) -> Int64:
    """A seed a request gives: 0..2^63-1, a decimal string or a number."""
    return Int64(0, MAX_SEED, request=True, **_d(f"{text}; 0..2^63-1, as a decimal string "
                                                 "(a JavaScript number holds integers "
                                                 "exactly only to 2^53) or a number"))


class DealInput(OneOf):
    """An explicit deal of a request: the deal of a record of the request's variant. Only
    its shape is checked here; the engine checks its tiles make the full set."""

    def __init__(self, **kw):
        super().__init__(DEALS_INPUT, **kw)

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ValidationError("a deal is an object with 'hands' and 'stock' (hhl) or "
                                  "'sleeping' (domeng)")
        return value


# ----- requests -------------------------------------------------------------------------
class MatchQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(STATUSES),
                           **_d("only matches in this status"))
    variant = fields.String(validate=validate.OneOf(VARIANT_IDS),
                            **_d("only matches of this game"))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 100),
                           **_d("at most this many matches, newest first"))


class SeatSpecSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS),
                         **_d("person: claimed with a seat token, a person's clock (120 s). "
                              "bot with a strategy: filled by a house bot. bot without a "
                              "strategy: claimed with a seat token by your own bot, a bot's "
                              "clock (10 s)"))
    strategy = fields.String(validate=validate.Length(1, 40),
                             **_d("house bot strategy (see GET /variants), e.g. greedy"))
    name = fields.String(validate=validate.Length(0, 40), **_d("display name of the seat"))
    open = fields.Boolean(**_d("an open seat: anyone may claim it (the lobby's open seats). "
                               "Otherwise (the default) only the key that created the match "
                               "or the seat's claim secret claims it"))

    @validates_schema
    def _strategy_only_for_bots(self, data, **kwargs):
        if data.get("strategy") and data.get("kind") != "bot":
            raise ValidationError("only a bot seat has a strategy", "strategy")
        if data.get("strategy") and data.get("open"):
            raise ValidationError("a house bot's seat is filled by the house, not claimed",
                                  "open")


MAX_FORK_AT = 100_000


class ForkSchema(Schema):
    record = fields.Dict(required=True,
                         **_d("the domino-record/1 document to fork (docs/records.md), e.g. "
                              "GET /matches/{match_id}/record (its seed a decimal string or a "
                              "number), or one written by hand; at most 1 MB as compact "
                              "JSON. The engine replays it in full"))
    at = fields.Integer(required=True, strict=True, validate=validate.Range(0, MAX_FORK_AT),
                        **_d("keep the record's first `at` plays (its play entries, counted "
                             "across deals): 0..plays-1 for a finished record. The new "
                             "match starts at version `at`"))


class CreateMatchSchema(Schema):
    # The variant says which options and deals apply (JSON Schema if/then).
    OPENAPI = options_by_variant(DEALS_INPUT)
    variant = fields.String(validate=validate.OneOf(VARIANT_IDS),
                            **_d("the game: hhl (Homo Homini Lupus) or domeng. Required, "
                                 "unless fork is given (then it is the record's)"))
    options = OptionsInput(**_d('rules options of the variant (GET /variants): '
                                'HHLOptionsInput for hhl, DomengOptionsInput for domeng, e.g. '
                                '{"hands": 2}; absent options take their defaults. The engine '
                                'checks each name and range, and names the one at fault '
                                '(options.hands)'))
    seed = seed_input("seed of the shuffle; absent: the engine picks one")
    deals = fields.List(DealInput(), validate=validate.Length(1, 50),
                        **_d("explicit deals of the variant in the domino-record/1 format "
                             "(docs/records.md: hands and stock or sleeping), first hand "
                             "first; absent: shuffled from the seed"))
    seats = fields.List(fields.Nested(SeatSpecSchema), validate=validate.Length(1, 5),
                        **_d("who sits where, one entry per seat (4 for hhl, 5 for domeng); "
                             "absent: every seat is a person's seat"))
    bot_clock_ms = fields.Integer(strict=True, validate=validate.Range(100, MAX_CLOCK_MS),
                                  **_d("turn clock of bot seats in ms (default 10000)"))
    person_clock_ms = fields.Integer(strict=True, validate=validate.Range(100, MAX_CLOCK_MS),
                                     **_d("turn clock of person seats in ms (default 120000)"))
    fork = fields.Nested(ForkSchema,
                         **_d("start from a recorded match after its first `at` plays, with "
                              "its deals as dealt (docs/records.md, Forking a match); "
                              "options and deals are then the record's: give neither"))

    @validates_schema
    def _variant_or_fork(self, data, **kwargs):
        if "variant" not in data and "fork" not in data:
            raise ValidationError("Missing data for required field.", "variant")
        if "fork" in data and ("options" in data or "deals" in data):
            raise ValidationError("a forked match has the record's options and deals; give "
                                  "neither", "fork")


class MoveRequestSchema(Schema):
    version = fields.Integer(required=True, strict=True, validate=validate.Range(0, MAX_SEED),
                             **_d("the match version the move was chosen at (from the view)"))
    move_id = fields.String(validate=validate.Length(1, 16),
                            **_d("a legal move's id from the view at that version"))
    move_text = fields.String(validate=validate.Length(1, 40),
                              **_d('the move in text notation, e.g. "3-1 left", '
                                   '"4-4 up barricade"'))

    @validates_schema
    def _one_move(self, data, **kwargs):
        if ("move_id" in data) == ("move_text" in data):
            raise ValidationError("give exactly one of move_id and move_text", "move_text")


# ----- answers --------------------------------------------------------------------------
class WorldsQuerySchema(Schema):
    count = fields.Integer(required=True, validate=validate.Range(1, MAX_WORLDS),
                           **_d(f"how many worlds, 1..{MAX_WORLDS}"))
    seed = Int64(0, MAX_WORLD_SEED, request=True, load_default=0,
                 **_d("the random seed, 0..2^64-1 (default 0); the same seed and view give "
                      "the same worlds"))


class SeatSchema(Schema):
    seat = fields.Integer(required=True, **_d("seat number, 0..N-1 clockwise"))
    kind = fields.String(required=True, validate=validate.OneOf(SEAT_KINDS))
    name = fields.String(required=True, **_d("display name; empty when none"))
    strategy = fields.String(allow_none=True, required=True,
                             **_d("the house bot strategy filling this seat; null otherwise"))
    claimed = fields.Boolean(required=True, **_d("taken: by a token holder or a house bot"))
    open = fields.Boolean(required=True, **_d("anyone may still claim it with POST .../claim: "
                                               "its creator made it open, and it is not "
                                               "claimed yet"))
    absent = fields.Boolean(required=True, **_d("played automatically after 3 timeouts"))
    timeouts_in_a_row = fields.Integer(required=True)
    clock_ms = fields.Integer(required=True, **_d("this seat's turn clock in ms"))


class MatchSchema(Schema):
    match_id = fields.String(required=True)
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS))
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True, **_d("accepted moves so far"))
    num_seats = fields.Integer(required=True)
    to_move = fields.Integer(required=True, allow_none=True,
                             **_d("seat whose move is awaited; null once over"))
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    options = options_field(required=True, **_d("the rules options in force"))
    created_unix_ms = fields.Integer(required=True)
    result = match_result_field(required=True, allow_none=True,
                                **_d("the match result once over; null before"))
    view = view_field(**_d("the spectator view (public information only); in GET "
                           "/matches/{match_id}"))


class CreatedMatchSchema(MatchSchema):
    claim_secrets = fields.List(fields.String(allow_none=True), required=True,
                                **_d("one per seat: the secret that claims it (POST .../claim "
                                     "with {\"claim_secret\": ...}), shown only here; null "
                                     "for a seat that needs none (open, or a house bot's)"))


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSchema), required=True)


class ClaimRequestSchema(Schema):
    claim_secret = fields.String(validate=validate.Length(1, 128),
                                 **_d("the seat's claim secret (claim_secrets of POST "
                                      "/matches); not needed for an open seat, nor with the "
                                      "API key that created the match"))


class ClaimSchema(Schema):
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    seat_token = fields.String(required=True, **_d("the seat's secret, shown once: send it "
                                                   "as Authorization: Bearer <seat_token>"))


class SeatStateSchema(Schema):
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True, **_d("null for a spectator"))
    version = fields.Integer(required=True)
    to_move = fields.Integer(required=True, allow_none=True)
    view = view_field(required=True, **_d("the seat's view (a spectator's without a token)"))
    legal_moves = fields.List(fields.Nested(LegalMoveSchema), required=True,
                              **_d("empty unless it is this seat's turn"))
    deadline_unix_ms = fields.Integer(required=True, allow_none=True,
                                      **_d("when the clock plays for the seat; null if none runs"))


class WorldSchema(Schema):
    hands = fields.List(fields.List(tile()), required=True,
                        **_d("by seat: each seat's tiles, ascending; the asking seat's own "
                             "hand as it is"))
    rest = fields.List(tile(), required=True,
                       **_d("HHL: the stock, the next tile drawn first; Domeng: the three "
                            "sleeping tiles"))


class WorldsSchema(Schema):
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True, **_d("the asking seat"))
    version = fields.Integer(required=True, **_d("the version whose view the worlds agree with"))
    worlds = fields.List(fields.Nested(WorldSchema), required=True,
                         **_d("`count` independent draws from the posterior of the "
                              "shuffle given the seat's view"))
    exact = fields.Boolean(required=True,
                           **_d("true: exactly the posterior; false: the fallback, near it"))
    consistent_worlds = Int64(0, MAX_WORLDS_COUNTED, required=True,
                              **_d("how many consistent worlds there are, each counted once "
                                   "whatever its chance (0: not known); a decimal string, "
                                   "since it may exceed 2^53"))


class MoveResultSchema(Schema):
    version = fields.Integer(required=True, **_d("the version right after the move"))
    move_text = fields.String(required=True, **_d("the move as applied, in text notation"))
    events = fields.List(event_field(), required=True,
                         **_d("what the move set off, as the seat may see it"))


class OptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, validate=validate.OneOf(OPTION_TYPES),
                         **_d('"integer" (min..max) or "enum" (one of choices)'))
    default = fields.Raw(required=True, allow_none=True, metadata={
        "type": ["integer", "string"],
        "description": "its value when not given: an integer option's number (null: off "
                       "unless given), an enum option's word"})
    min = fields.Integer(required=True, allow_none=True,
                         **_d("the least value the engine takes; null for an enum option"))
    max = fields.Integer(required=True, allow_none=True,
                         **_d("the greatest value the engine takes; null for an enum option"))
    choices = fields.List(fields.String(), required=True,
                          **_d("an enum option's words, its default first; [] for an integer"))
    description = fields.String(required=True)


class VariantSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    seats = fields.Integer(required=True)
    options = fields.List(fields.Nested(OptionSchema), required=True)
    rules = fields.String(required=True,
                          **_d("the rules of this game: a link into the rules page, /rules#..."))


class VariantListSchema(Schema):
    variants = fields.List(fields.Nested(VariantSchema), required=True)
    strategies = fields.List(fields.String(), required=True,
                             **_d("house bot strategies a bot seat may ask for"))


class EngineSchema(Schema):
    """One engine of the cluster (docs/cluster.md)."""
    engine_id = fields.String(required=True, **_d("random, new at each start; empty for a "
                                                  "lone engine (no cluster)"))
    address = fields.String(required=True, **_d("HOST:PORT where bots reach it"))
    live = fields.Boolean(required=True, **_d("it heartbeat within its lease"))
    live_matches = fields.Integer(required=True, **_d("matches it plays now"))
    draining = fields.Boolean(required=True, **_d("stopping: takes no new match"))
    heartbeat_age_s = fields.Float(required=True, **_d("seconds since its last heartbeat"))


class EngineListSchema(Schema):
    engines = fields.List(fields.Nested(EngineSchema), required=True,
                          **_d("the live ones first"))


class ErrorSchema(Schema):
    code = fields.Integer(required=True, **_d("the HTTP status"))
    status = fields.String(required=True, **_d("the HTTP status name"))
    reason = fields.String(required=True, **_d("stable reason code, e.g. NOT_YOUR_TURN, "
                                               "STALE_VERSION, BAD_TOKEN, MALFORMED_REQUEST"))
    message = fields.String(required=True, **_d("a sentence naming the input"))
    version = fields.Integer(required=True, allow_none=True,
                             **_d("the match's current version when the engine told it"))
    legal_moves = fields.List(fields.Nested(LegalMoveSchema), required=True,
                              **_d("the seat's legal moves now when a move made during its "
                                    "turn is refused (a rules refusal, MALFORMED_MOVE, "
                                    "UNKNOWN_MOVE_ID); else empty"))
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                         **_d("on a 400 only: each field at fault by its dotted path "
                              "(\"seats.0.kind\", \"options.hands\", \"body\"), "
                              "with its messages"))
