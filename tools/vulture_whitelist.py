"""What vulture (`make lint`) cannot see being used: names that a framework calls or reads
by name. Never run; vulture reads it with the code ([tool.vulture] in pyproject.toml).
Each entry says who uses it. Dead code goes; it does not come here.
"""
# ruff: noqa: B018 - each line only names what is used

from html.parser import HTMLParser

from bots.inference import KnownSampler
from bots.remote_worlds import RemoteWorlds
from engine_service.rpc.analysis_service import AnalysisServicer
from engine_service.rpc.arena_service import ArenaServicer
from engine_service.rpc.server import EngineServicer
from gateway import (
    app,
    errors,
    int64,
    metrics,
    rules_page,
    schemas,
    schemas_analysis,
    schemas_arena,
    schemas_game,
    schemas_ladders,
    schemas_record,
    web,
)
from gateway.api import _Parser, matches
from gateway.server import GatewayServer

# gRPC: the generated add_*Servicer_to_server calls each method by its RPC's name.
EngineServicer.ListVariants
EngineServicer.GetPool
ArenaServicer.RotateBotKey
ArenaServicer.RetireBot
ArenaServicer.ListArenas
ArenaServicer.GetLeaderboard
ArenaServicer.GetBot
ArenaServicer.ListBotMatches
ArenaServicer.GetRatingHistory
AnalysisServicer.GetAnalysis

# Imported by the bot script a test starts in a process of its own (tests/engine/
# test_search_remote.py): a search strategy's source of worlds from the engine.
RemoteWorlds

# webargs reads these on its parser class.
_Parser.DEFAULT_VALIDATION_STATUS
_Parser._raw_load_json

# Flask: hooks registered by decorator, attributes it reads.
matches._room_for_a_record          # @blp.before_request
app.add_cors_headers                # @app.after_request (inside _cors)
app.GatewayFlask.json_provider_class
app.GatewayFlask.json.sort_keys
app.GatewayFlask.url_map.merge_slashes  # werkzeug's Map reads it when it matches a path
errors._api_error, errors._http_error, errors._unexpected   # @app.errorhandler
web.favicon, web.docs, web.api_root                          # @web.route
metrics.g.metrics_started           # flask.g, read back with g.get("metrics_started")
matches.request.max_content_length  # flask.Request: the body bound of this request

# flask-smorest reads these on its Api class.
app.DominoApi.ERROR_SCHEMA
app.DominoApi._register_error_handlers
app.DominoApi._register_pagination_header

# apispec calls a plugin's helpers by name.
schemas_game.SchemaKeywords.schema_helper

# marshmallow: @validates_schema hooks, and fields it reads and writes by their names.
schemas.SeatSpecSchema._strategy_only_for_bots
schemas.CreateMatchSchema._variant_or_fork
schemas.MoveRequestSchema._one_move
schemas_ladders.CreateLadderSchema._one_target
schemas_ladders.CreateLadderSchema._each_entrant_once
schemas.EngineSchema.heartbeat_age_s
schemas_game.TransferSchema.from_
schemas_game.StonesSchema.from_
schemas_game.ArmsSchema.up
schemas_ladders.FaultsSchema.disconnects
schemas_arena.BotMatchListSchema.next_before
schemas_analysis.MoveValueSchema.se, schemas_analysis.MoveValueSchema.pi_value
schemas_analysis.DecisionSchema.played_value, schemas_analysis.DecisionSchema.loss_se
schemas_analysis.DecisionSchema.pi_best, schemas_analysis.DecisionSchema.pi_value
schemas_analysis.DecisionSchema.pi_loss
schemas_analysis.HandAnalysisSchema.v0_se, schemas_analysis.HandAnalysisSchema.pi_v0
schemas_analysis.HandAnalysisSchema.skill_se, schemas_analysis.HandAnalysisSchema.forced
schemas_analysis.SeatSummarySchema.mean_pi_loss, schemas_analysis.SeatSummarySchema.mistakes
schemas_analysis.SeatSummarySchema.blunders
schemas_analysis.AnalysisDocSchema.policy, schemas_analysis.AnalysisDocSchema.thresholds
schemas_analysis.AnalysisDocSchema.exact_posterior
schemas_game.DomengOptionsSchema.closing_pass, schemas_game.DomengOptionsSchema.first_lead
schemas_game.DomengOptionsInputSchema.closing_pass
schemas_game.DomengOptionsInputSchema.first_lead
schemas_game.OneOf._serialize.attr, schemas_game.OneOf._serialize.obj   # marshmallow's signature
schemas_record.HHLPassTurnSchema.pass_, schemas_record.DomengPassTurnSchema.pass_
int64.Int64._deserialize, schemas.DealInput._deserialize, schemas_game.OptionsInput._deserialize

# Part of the cache key of the rendered rules page (an edited file shows at once).
rules_page._render.mtime_ns

# uvicorn: its server loop ends once this is set.
GatewayServer._server.should_exit

# The standard library's HTML parser calls these on a subclass (tests/gateway/test_web_routes.py).
HTMLParser.handle_starttag, HTMLParser.handle_data, HTMLParser.handle_endtag

# worlds.Sampler's own methods read these; the expert's sampler over a given knowledge sets them.
KnownSampler.checks, KnownSampler._consistent
