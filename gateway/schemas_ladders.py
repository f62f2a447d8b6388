"""The wire of /api/v1/ladders: marshmallow schemas mirroring the engine's Ladder service
(proto/domino/v1/ladder.proto; what a ladder is: docs/ladders.md)."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from domino_wire.names import LADDER_FORMAT, LADDER_MATCH_STATUS, LADDER_STATUS

from .int64 import Int64
from .schemas import MAX_CLOCK_MS, MAX_SEED, VARIANT_IDS, _d, seed_input
from .schemas_game import OptionsInput, options_by_variant, options_field

FORMATS = LADDER_FORMAT.words
LADDER_STATUSES = LADDER_STATUS.words
LADDER_MATCH_STATUSES = LADDER_MATCH_STATUS.words
# The engine's own bounds (engine_service/core/ladders/director.py, security/limits.py); checked here
# too so that a REST client hears of a bad field at once. tests/gateway checks they agree.
ENTRANT_NAME = r"^[A-Za-z0-9_.-]{1,40}$"
MAX_ENTRANTS = 16
MAX_MATCHES = 10_000
MAX_CONCURRENCY = 16
MAX_SEAT_WAIT_S = 600
YARDSTICKS = ("oracle", "ceiling")   # what `domino engine` plays itself (domino_cli/engine_cmd.py)


# ----- requests -------------------------------------------------------------------------
class CreateLadderSchema(Schema):
    OPENAPI = options_by_variant()     # the variant says which options apply
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS),
                            **_d("the game of every match: hhl or domeng"))
    options = OptionsInput(**_d('match options of the variant (GET /variants): '
                                'HHLOptionsInput for hhl, DomengOptionsInput for domeng; '
                                'absent: {"hands": 4} for hhl, {"cycles": 1} for domeng, so '
                                'every match ends without a wall clock'))
    entrants = fields.List(
        fields.String(validate=validate.Regexp(ENTRANT_NAME, error="use 1-40 letters, digits, "
                                                                   "'-', '_' or '.'")),
        required=True, validate=validate.Length(1, MAX_ENTRANTS),
        **_d("bot names, each once; with the yardsticks at least two entrants in all. The "
             "seats of entrant E wait in the bot pool '<key>/E' (key: in the answer); a "
             "built-in strategy enlists with `domino bot --strategy E --pool <key>/E`, a bot "
             "in any language with Hello.pool"))
    format = fields.String(load_default=LADDER_FORMAT.default, validate=validate.OneOf(FORMATS),
                           **_d("rotation: a line-up per match so every entrant meets every "
                                "other, seat positions balanced. duplicate: the same deal once "
                                "for each rotation of the seats (a set), so its luck cancels"))
    matches = fields.Integer(strict=True, validate=validate.Range(1, MAX_MATCHES),
                             **_d("target: this many counted matches (or until_separated)"))
    until_separated = fields.Boolean(load_default=False,
                                     **_d("target: play until every pair of neighbours on the "
                                          "leaderboard is separated at 95% confidence, or "
                                          "max_matches"))
    max_matches = fields.Integer(strict=True, validate=validate.Range(1, MAX_MATCHES),
                                 **_d("cap on counted matches with until_separated "
                                      "(default 2000)"))
    seed = seed_input("seed of the schedule: orders the line-ups; absent: the engine picks. "
                      "The deals come from a secret the engine draws and shows no one, so "
                      "nobody can foresee them")
    concurrency = fields.Integer(strict=True, validate=validate.Range(1, MAX_CONCURRENCY),
                                 **_d("matches played at once (default 4)"))
    clock_ms = fields.Integer(strict=True, validate=validate.Range(100, MAX_CLOCK_MS),
                              **_d("turn clock of every seat in ms (default 10000)"))
    seat_wait_s = fields.Integer(strict=True, validate=validate.Range(1, MAX_SEAT_WAIT_S),
                                 **_d("seconds a match waits for an entrant's bot before the "
                                      "seat is played automatically and the entrant charged "
                                      "with a no-show (default 30)"))

    yardsticks = fields.List(
        fields.String(validate=validate.OneOf(YARDSTICKS)), validate=validate.Length(0, len(YARDSTICKS)),
        **_d("yardstick entrants the engine plays itself, in process: oracle (the search bot "
             "with every hand face up), ceiling (the expert bot with ten times its budget). "
             "A yardstick never goes over the wire and has no pool; its "
             "standings entry says yardstick, and with an entrant named greedy every entry "
             "gets gap_closed (docs/ladders.md)"))

    @validates_schema
    def _one_target(self, data, **kwargs):
        if data.get("until_separated"):
            if "matches" in data:
                raise ValidationError("give matches or until_separated, not both", "matches")
        else:
            if "matches" not in data:
                raise ValidationError("give a number of matches, or until_separated: true",
                                      "matches")
            if "max_matches" in data:
                raise ValidationError("max_matches is the cap of until_separated", "max_matches")

    @validates_schema
    def _each_entrant_once(self, data, **kwargs):
        entrants = data.get("entrants") or []
        if len(set(entrants)) != len(entrants):
            raise ValidationError("name each entrant once", "entrants")
        yardsticks = data.get("yardsticks") or []
        if len(entrants) + len(yardsticks) < 2:
            raise ValidationError("a ladder has at least two entrants, yardsticks included",
                                  "entrants")
        if set(entrants) & set(yardsticks):
            raise ValidationError("a yardstick is played by the engine: do not list it as an "
                                  "entrant too", "yardsticks")


class LadderQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(LADDER_STATUSES),
                           **_d("only ladders in this status"))
    limit = fields.Integer(load_default=50, validate=validate.Range(1, 500),
                           **_d("at most this many ladders, newest first"))


# ----- answers --------------------------------------------------------------------------
class PoolSchema(Schema):
    entrant = fields.String(required=True)
    pool = fields.String(required=True, **_d("the bot pool this entrant's bots enlist in: "
                                             "'<key>/<entrant>'"))
    enlist_secret = fields.String(**_d("the pool's enlist secret: only in the answer to POST "
                                       "/ladders, once. Whoever holds it may play this "
                                       "entrant's seats"))


class LadderSchema(Schema):
    ladder_id = fields.String(required=True, **_d("opaque id"))
    key = fields.String(required=True, **_d("the pool name entrants' bots enlist with "
                                            "(Hello.pool.pool; the entrant in Hello.pool.name)"))
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS))
    options = options_field(required=True, **_d("the match options in force"))
    entrants = fields.List(fields.String(), required=True,
                           **_d("in the order given, the yardsticks last"))
    yardsticks = fields.List(fields.String(), required=True,
                             **_d("the entrants the engine plays itself (oracle, ceiling)"))
    pools = fields.List(fields.Nested(PoolSchema), required=True,
                        **_d("where each entrant's bots enlist (a yardstick has none)"))
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    target_matches = fields.Integer(required=True, allow_none=True,
                                    **_d("counted matches to play; null with until_separated"))
    until_separated = fields.Boolean(required=True)
    max_matches = fields.Integer(required=True, **_d("the cap when until_separated"))
    seed = Int64(0, MAX_SEED, required=True, allow_none=True,
                 **_d("seed of the schedule (the order of the line-ups, not the deals, which "
                      "come from a secret the engine keeps), as a decimal string; null while "
                      "the ladder runs"))
    status = fields.String(required=True, validate=validate.OneOf(LADDER_STATUSES),
                           **_d("running: matches are scheduled and played; paused: no bot "
                                "played its last 3 matches, nothing is scheduled until a bot "
                                "enlists again; done: the target (or the cap) was reached and "
                                "the standings are final; cancelled: by its creator, an "
                                "operator, or its key's revocation (see error); failed: "
                                "stopped by an engine error (see error)"))
    created_by = fields.String(required=True, **_d("the name of the API key that created "
                                                   "it; open when the engine runs open"))
    error = fields.String(required=True, allow_none=True,
                          **_d("why the ladder failed; null otherwise"))
    matches_counted = fields.Integer(required=True, **_d("results counted so far"))
    matches_voided = fields.Integer(required=True,
                                    **_d("matches broken by the engine, played again"))
    matches_playing = fields.Integer(required=True, **_d("in flight now"))
    leader = fields.String(required=True, allow_none=True,
                           **_d("first on the leaderboard now; null before any result"))
    created_unix_ms = fields.Integer(required=True)


class LadderListSchema(Schema):
    ladders = fields.List(fields.Nested(LadderSchema), required=True)


class FaultsSchema(Schema):
    timeouts = fields.Integer(required=True, **_d("turns the clock played for the entrant"))
    illegal = fields.Integer(required=True, **_d("refused moves (illegal, malformed, stale)"))
    disconnects = fields.Integer(required=True,
                                 **_d("streams that ended while seated in a ladder match"))
    crashes = fields.Integer(required=True, **_d("disconnects never followed by a return, "
                                                 "and no-shows"))
    spam = fields.Integer(required=True, **_d("times its moves were refused 8 times in a row "
                                              "at one version"))


class StandingsEntrySchema(Schema):
    place = fields.Integer(required=True, **_d("1 = first"))
    entrant = fields.String(required=True)
    mu = fields.Float(required=True, **_d("openskill Plackett-Luce mean"))
    sigma = fields.Float(required=True, **_d("its uncertainty"))
    score = fields.Float(required=True, **_d("mu - 3 sigma, the ordering key"))
    matches = fields.Integer(required=True, **_d("counted matches played"))
    mean = fields.Float(required=True, **_d("mean per hand (hhl: points) or per round (domeng: "
                                            "minus the stones taken); higher is better"))
    ci95 = fields.Float(required=True, allow_none=True,
                        **_d("half-width of the 95% confidence interval of mean; null while "
                             "there are too few matches"))
    faults = fields.Nested(FaultsSchema, required=True, **_d("charged to this entrant"))
    separated_from_next = fields.Boolean(
        required=True, allow_none=True,
        **_d("separated from the next one down at 95% confidence; null for the last row"))
    yardstick = fields.Boolean(required=True,
                               **_d("a yardstick entrant (oracle, ceiling): played by the "
                                    "engine in process"))
    gap_closed = fields.Float(required=True, allow_none=True,
                              **_d("where mean lies between the entrant named greedy (0) and "
                                   "the oracle (1): (mean - greedy's) / (oracle's - greedy's); "
                                   "null unless both are entered, have played and differ"))
    analysed_matches = fields.Integer(required=True,
                                      **_d("matches of this entrant analysed for the two "
                                           "figures below (a sample: the ladder's first 8 "
                                           "counted; docs/analysis.md)"))
    mean_loss = fields.Float(required=True, allow_none=True,
                             **_d("mean seat-honest loss per decision (HHL points, Domeng "
                                  "stones; lower is better); null until analysed"))
    luck_share = fields.Float(required=True, allow_none=True,
                              **_d("share of its results' swings explained by luck, 0..1; "
                                   "null until analysed"))


class HistoryPointSchema(Schema):
    index = fields.Integer(required=True, **_d("the counted match's place in the schedule"))
    scores = fields.Dict(keys=fields.String(), values=fields.Float(), required=True,
                         **_d("every entrant's mu - 3 sigma after that match"))


class StandingsSchema(Schema):
    ladder_id = fields.String(required=True)
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS))
    matches = fields.Integer(required=True, **_d("counted matches"))
    voided = fields.Integer(required=True, **_d("matches voided and played again"))
    separated = fields.Boolean(required=True,
                               **_d("every pair of neighbours is separated at 95%"))
    entries = fields.List(fields.Nested(StandingsEntrySchema), required=True,
                          **_d("one per entrant, by place"))
    history = fields.List(fields.Nested(HistoryPointSchema), required=True,
                          **_d("for a rating chart: after each counted match, in schedule "
                               "order, every entrant's score"))


class LadderResultSchema(Schema):
    """The immutable record one counted match leaves in its ladder (docs/ladders.md)."""
    index = fields.Integer(required=True, **_d("place in the schedule"))
    set = fields.Integer(required=True, **_d("duplicate set number (rotation: the index)"))
    set_size = fields.Integer(required=True, **_d("matches in its set (rotation: 1)"))
    seed = Int64(0, MAX_SEED, required=True, allow_none=True,
                 **_d("the match's seed, as a decimal string; null while its duplicate set "
                      "is in play (every match of the set has this seed)"))
    lineup = fields.List(fields.String(), required=True, **_d("entrant by seat"))
    deals = fields.Integer(required=True, **_d("deals played (HHL hands, Domeng rounds)"))
    scores = fields.List(fields.Integer(), required=True,
                         **_d("by seat: HHL points; Domeng stones (fewer is better)"))
    titles = fields.List(fields.Integer(), required=True,
                         **_d("by seat: Domeng CAMAT titles; HHL zeros"))
    faults = fields.Dict(keys=fields.String(), values=fields.Nested(FaultsSchema),
                         required=True, **_d("by entrant"))
    voided = fields.Boolean(required=True, **_d("broken by the engine and played again"))
    unplayed = fields.Boolean(required=True,
                              **_d("no seat made a move of its own: every move was the "
                                   "clock's; after 3 in a row the ladder pauses"))


class LadderMatchSchema(Schema):
    index = fields.Integer(required=True, **_d("place in the schedule (a voided match is "
                                               "played again at its index)"))
    set = fields.Integer(required=True, **_d("duplicate set number (rotation: the index)"))
    match_id = fields.String(required=True, **_d("the engine match: GET /matches/{match_id}, "
                                                 "its events and its record"))
    lineup = fields.List(fields.String(), required=True, **_d("entrant by seat"))
    status = fields.String(required=True, validate=validate.OneOf(LADDER_MATCH_STATUSES),
                           **_d("playing: in play, or waiting for its bots; counted: over, "
                                "its result counts; voided: never counted (broken by the "
                                "engine and played again, or stopped with its ladder)"))
    result = fields.Nested(LadderResultSchema, required=True, allow_none=True,
                           **_d("the ladder result once counted; null otherwise"))


class LadderMatchListSchema(Schema):
    matches = fields.List(fields.Nested(LadderMatchSchema), required=True,
                          **_d("in the order they were started"))
