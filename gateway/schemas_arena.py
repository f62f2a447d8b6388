"""The wire of /api/v1/arenas and /api/v1/arena/bots: marshmallow schemas mirroring the
engine's Arena service (proto/domino/v1/arena.proto; what an arena is: docs/arena.md).

Times are Unix seconds (floats), as the Arena contract has them: a page of a bot's matches
is asked for with `before` = the `created_unix_s` of the last match of the previous page,
which a conversion to milliseconds would round. Counters that only grow (results counted,
sequence numbers, duplicate sets) are int64 and travel as decimal strings (gateway/int64.py);
bounded integers (clocks, places, scores of one match) are numbers."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domino_wire.names import ARENA_MATCH_STATUS

from .int64 import Int64
from .schemas import VARIANT_IDS, _d
from .schemas_game import options_field
from .schemas_ladders import FaultsSchema

MAX_INT64 = 2**63 - 1
# The engine's own bounds (engine_service/core/arena/spec.py, security/limits.py); checked
# here too so that a REST client hears of a bad field at once. tests/gateway checks they agree.
BOT_NAME = r"^[A-Za-z0-9_.-]{1,40}$"
NAME_ERROR = "use 1-40 letters, digits, '-', '_' or '.'"
MAX_DESCRIPTION = 200
MAX_VERSION = 40
MAX_ARENA_ID = 40
LIST_MAX = 1000              # limits.ARENA_LIST_MAX
HISTORY_MAX = 100_000        # limits.RATING_POINTS_MAX
VERSIONS = ("latest", "all")
MATCH_STATUSES = ARENA_MATCH_STATUS.words
PAUSES = ("no_show", "timeouts")


# ----- requests -------------------------------------------------------------------------
class RegisterBotSchema(Schema):
    name = fields.String(required=True, validate=validate.Regexp(BOT_NAME, error=NAME_ERROR),
                         **_d("the bot's public name, unique in the store and never reused "
                              "(retired bots keep theirs): 1..40 letters, digits, '-', '_', "
                              "'.'; 'house-...' is the residents'"))
    description = fields.String(load_default="", validate=validate.Length(0, MAX_DESCRIPTION),
                                **_d("free text shown with the bot, at most 200 printable "
                                     "characters; may be empty"))


class LeaderboardQuerySchema(Schema):
    versions = fields.String(load_default="latest", validate=validate.OneOf(VERSIONS),
                             **_d("latest: one row per bot, its latest version (the one of its "
                                  "most recent counted match, or the one connected when it "
                                  "has none yet); all: one row per (bot, version)"))
    limit = fields.Integer(load_default=0, validate=validate.Range(0, LIST_MAX),
                           **_d("rows from the top, 0..1000; 0: all (at most 1000)"))


class BotMatchesQuerySchema(Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(1, LIST_MAX),
                           **_d("at most this many matches, newest first (1..1000)"))
    before = fields.Float(load_default=0.0, allow_nan=False,
                          validate=validate.Range(0, 1e12, max_inclusive=False),
                          **_d("only matches created before this time, Unix seconds: the "
                               "next_before of the previous page; 0 or absent: from the "
                               "newest"))


class HistoryQuerySchema(Schema):
    arena = fields.String(validate=validate.Length(1, MAX_ARENA_ID),
                          **_d("the arena, e.g. hhl; absent: the arena the bot was seen in "
                               "last (where it is online, else where it last played)"))
    version = fields.String(validate=validate.Length(1, MAX_VERSION),
                            **_d("the version label; absent: the bot's latest version in "
                                 "that arena"))
    limit = fields.Integer(load_default=0, validate=validate.Range(0, HISTORY_MAX),
                           **_d("the latest this many points, 0..100000; 0: all"))


# ----- answers --------------------------------------------------------------------------
class BotSchema(Schema):
    bot_id = fields.String(required=True, **_d("opaque id, 12 hex digits, fixed for the "
                                               "bot's life; a resident's is "
                                               "'house-<strategy>'"))
    name = fields.String(required=True, **_d("its unique name"))
    description = fields.String(required=True, **_d("free text; may be empty"))
    owner = fields.String(required=True, **_d("the name of the operator API key that "
                                              "registered it ('open' on an open engine, "
                                              "'house' for a resident)"))
    created_unix_s = fields.Float(required=True, **_d("when it was registered, Unix seconds"))
    retired = fields.Boolean(required=True, **_d("true once retired: it can no longer "
                                                 "connect; its rows stay"))
    retired_unix_s = fields.Float(required=True, allow_none=True,
                                  **_d("when it was retired, Unix seconds; null while it is "
                                       "not"))
    resident = fields.Boolean(required=True, **_d("a house strategy the engine plays itself "
                                                  "in every arena"))


class BotKeySchema(Schema):
    bot = fields.Nested(BotSchema, required=True, **_d("the bot as registered (or as it is "
                                                       "after a rotation)"))
    bot_key = fields.String(required=True,
                            **_d("the bot's secret, 'dbk_' then 43 URL-safe characters, shown "
                                 "only in this answer (the store keeps its sha256). Give it to "
                                 "the bot's process in DOMINO_BOT_KEY, never on a command "
                                 "line. Whoever holds it plays as this bot, nothing else: it "
                                 "is no operator key"))


class ArenaSchema(Schema):
    arena_id = fields.String(required=True, **_d("the arena's id, e.g. hhl (what a lobby's "
                                                 "Hello.arena.arena names)"))
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS),
                            **_d("the game of every match of the arena"))
    options = options_field(required=True, **_d("the fixed options of every match"))
    duplicate = fields.Boolean(required=True, **_d("each deal is played once per rotation "
                                                   "of the seats by one line-up (a set)"))
    clock_ms = fields.Integer(required=True, **_d("turn clock of every seat, milliseconds"))
    seat_wait_s = fields.Integer(required=True,
                                 **_d("seconds a seated bot has to connect its seat stream "
                                      "before it is played by the turn clock, charged a "
                                      "no-show and paused"))
    provisional_below = fields.Integer(required=True,
                                       **_d("counted matches below which a leaderboard row "
                                            "is provisional"))
    bots_online = fields.Integer(required=True, **_d("registered bots with a lobby connected "
                                                     "now (residents not counted)"))
    matches_playing = fields.Integer(required=True, **_d("arena matches in play now"))
    matches_counted = Int64(0, MAX_INT64, required=True,
                            **_d("counted arena results so far, a decimal string"))
    matches_voided = Int64(0, MAX_INT64, required=True,
                           **_d("arena matches voided (broken by the engine, never counted), "
                                "a decimal string"))
    matchmaker = fields.String(required=True, allow_none=True,
                               **_d("the address of the engine running the arena's "
                                    "matchmaker now; null on a single engine and while a "
                                    "failover is under way"))
    residents = fields.List(fields.String(), required=True,
                            **_d("the residents' names: house strategies that fill tables "
                                 "when too few registered bots are free"))


class ArenaListSchema(Schema):
    arenas = fields.List(fields.Nested(ArenaSchema), required=True, **_d("by id"))


class LeaderboardRowSchema(Schema):
    place = fields.Integer(required=True, **_d("1 = first, by score"))
    bot_id = fields.String(required=True, **_d("the bot's id"))
    name = fields.String(required=True, **_d("the bot's name: GET /arena/bots/{name}"))
    version = fields.String(required=True, **_d("the version label this row rates"))
    owner = fields.String(required=True, **_d("the name of the operator key that owns the "
                                              "bot"))
    mu = fields.Float(required=True, **_d("openskill Plackett-Luce mean (25 before any "
                                          "match)"))
    sigma = fields.Float(required=True, **_d("its uncertainty (25/3 before any match)"))
    score = fields.Float(required=True, **_d("mu - 3 sigma, the ordering key"))
    provisional = fields.Boolean(required=True,
                                 **_d("fewer counted matches than the arena's "
                                      "provisional_below"))
    matches = fields.Integer(required=True, **_d("counted matches of this (bot, version)"))
    mean = fields.Float(required=True, **_d("mean result per deal, higher is better: HHL "
                                            "points per hand, Domeng minus the stones taken "
                                            "per round; 0 without a match"))
    ci95 = fields.Float(required=True, allow_none=True,
                        **_d("half-width of the 95% confidence interval of mean; null below "
                             "2 matches"))
    faults = fields.Nested(FaultsSchema, required=True,
                           **_d("faults charged, summed over its counted matches"))
    online = fields.Boolean(required=True, **_d("a lobby of this bot and version is "
                                                "connected now (residents: always)"))
    last_seen_unix_s = fields.Float(required=True, allow_none=True,
                                    **_d("when it last played a counted match, Unix seconds, "
                                         "while it is offline; null while online (it is seen "
                                         "now: so an unchanged board keeps its ETag) and "
                                         "when never seen"))
    resident = fields.Boolean(required=True, **_d("a house strategy the engine plays "
                                                  "itself"))
    retired = fields.Boolean(required=True, **_d("the bot was retired (its rows stay)"))
    analysed_matches = fields.Integer(required=True,
                                      **_d("matches of this (bot, version) analysed for the "
                                           "two figures below (a sample: its first 5 "
                                           "counted, when the engine's analysis queue had "
                                           "room; docs/arena.md)"))
    mean_loss = fields.Float(required=True, allow_none=True,
                             **_d("mean seat-honest loss per decision (HHL points, Domeng "
                                  "stones; lower is better); null until analysed"))
    luck_share = fields.Float(required=True, allow_none=True,
                              **_d("share of its results' swings explained by luck, 0..1; "
                                   "null until analysed"))


class LeaderboardSchema(Schema):
    arena_id = fields.String(required=True, **_d("the arena"))
    variant = fields.String(required=True, validate=validate.OneOf(VARIANT_IDS),
                            **_d("its game"))
    versions = fields.String(required=True, validate=validate.OneOf(VERSIONS),
                             **_d("the view given: latest or all"))
    matches = Int64(0, MAX_INT64, required=True,
                    **_d("counted arena results the ratings are made of, a decimal string"))
    last_sequence = Int64(0, MAX_INT64, required=True,
                          **_d("the sequence number of the last result counted here ('0': "
                               "none), a decimal string; two boards with the same one rate "
                               "alike"))
    rows = fields.List(fields.Nested(LeaderboardRowSchema), required=True, **_d("by place"))


class SeatEntrySchema(Schema):
    bot_id = fields.String(required=True, **_d("the bot's id"))
    name = fields.String(required=True, **_d("the bot's name"))
    version = fields.String(required=True, **_d("the version it played with"))
    resident = fields.Boolean(required=True, **_d("a house strategy"))


class ArenaResultSchema(Schema):
    """The immutable row one counted arena match leaves (docs/arena.md)."""
    sequence = Int64(1, MAX_INT64, required=True,
                     **_d("its place in the order the arena's results are counted in, from "
                          "1 (ratings follow it), a decimal string"))
    scores = fields.List(fields.Integer(), required=True,
                         **_d("by seat: HHL points over the match; Domeng stones over its "
                              "cycles (fewer is better)"))
    titles = fields.List(fields.Integer(), required=True,
                         **_d("by seat: Domeng CAMAT titles; HHL zeros"))
    deals = fields.Integer(required=True, **_d("deals played (HHL hands, Domeng rounds)"))
    faults = fields.List(fields.Nested(FaultsSchema), required=True, **_d("by seat"))
    ended_unix_s = fields.Float(required=True, **_d("when the match ended, Unix seconds"))
    set = Int64(0, MAX_INT64, required=True,
                **_d("duplicate arenas: the set of this match, a decimal string; '0' "
                     "otherwise"))
    rotation = fields.Integer(required=True, **_d("duplicate arenas: this match's rotation "
                                                  "in its set, from 0; 0 otherwise"))


class ArenaMatchSchema(Schema):
    match_id = fields.String(required=True, **_d("the engine match: GET /matches/{match_id}, "
                                                 "its events (watch it live) and its record "
                                                 "(replay it once over)"))
    arena_id = fields.String(required=True, **_d("its arena"))
    status = fields.String(required=True, validate=validate.OneOf(MATCH_STATUSES),
                           **_d("playing: in play, or waiting for its bots' seat streams; "
                                "counted: over, its result counts; voided: never counted "
                                "(broken by the engine, or its creation half-happened)"))
    lineup = fields.List(fields.Nested(SeatEntrySchema), required=True, **_d("by seat"))
    created_unix_s = fields.Float(required=True,
                                  **_d("when the matchmaker made it, Unix seconds"))
    result = fields.Nested(ArenaResultSchema, required=True, allow_none=True,
                           **_d("the arena result once counted; null while playing and when "
                                "voided"))


class BotVersionSchema(Schema):
    arena_id = fields.String(required=True, **_d("the arena"))
    version = fields.String(required=True, **_d("the version label"))
    row = fields.Nested(LeaderboardRowSchema, required=True,
                        **_d("this (bot, version)'s leaderboard row in that arena, its place "
                             "among all versions"))
    online = fields.Boolean(required=True, **_d("a lobby of this version is connected, "
                                                "waiting or playing"))
    free = fields.Boolean(required=True, **_d("connected and not seated (a paused bot is not "
                                              "free)"))
    paused = fields.String(required=True, allow_none=True, validate=validate.OneOf(PAUSES),
                           **_d("why the matchmaker does not seat it while its lobby stays "
                                "connected: no_show (it did not connect a seat stream in "
                                "time) or timeouts (its last 3 matches had timeouts); null "
                                "when not paused. A new lobby connection clears it"))
    connected_unix_s = fields.Float(required=True, allow_none=True,
                                    **_d("when its lobby connected, Unix seconds; null when "
                                         "offline"))


class BotProfileSchema(Schema):
    bot = fields.Nested(BotSchema, required=True, **_d("the bot's public facts"))
    versions = fields.List(fields.Nested(BotVersionSchema), required=True,
                           **_d("each (arena, version) it has a counted match in or is "
                                "connected with, each arena's latest version first"))
    live = fields.List(fields.Nested(ArenaMatchSchema), required=True,
                       **_d("the arena matches it is seated in now (at most one per arena): "
                            "watch them at GET /matches/{match_id}/events"))


class BotMatchListSchema(Schema):
    matches = fields.List(fields.Nested(ArenaMatchSchema), required=True,
                          **_d("counted, voided and playing, newest first"))
    more = fields.Boolean(required=True, **_d("older matches remain"))
    next_before = fields.Float(required=True, allow_none=True,
                               **_d("the before of the next page (the created_unix_s of the "
                                    "last match here) while more; null otherwise"))


class RatingPointSchema(Schema):
    sequence = Int64(1, MAX_INT64, required=True,
                     **_d("the arena result's sequence number, a decimal string"))
    time_unix_s = fields.Float(required=True, **_d("when that match ended, Unix seconds"))
    mu = fields.Float(required=True, **_d("the rating right after it"))
    sigma = fields.Float(required=True, **_d("its uncertainty right after it"))


class RatingHistorySchema(Schema):
    arena_id = fields.String(required=True, **_d("the arena"))
    bot_id = fields.String(required=True, **_d("the bot's id"))
    name = fields.String(required=True, **_d("the bot's name"))
    version = fields.String(required=True, allow_none=True,
                            **_d("the version the points are of; null when the bot has no "
                                 "counted match in that arena"))
    points = fields.List(fields.Nested(RatingPointSchema), required=True,
                         **_d("after each counted match of this (bot, version), oldest "
                              "first: the chart of mu and mu - 3 sigma"))
