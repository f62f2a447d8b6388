"""What vulture (`make lint`) cannot see being used: names that a framework calls or reads
by name. Never run; vulture reads it with the code ([tool.vulture] in pyproject.toml).
Each entry says who uses it. Dead code goes; it does not come here.
"""
# ruff: noqa: B018 - each line only names what is used

from html.parser import HTMLParser

from bots.remote_worlds import RemoteWorlds
from engine_service.rpc.arena_service import ArenaServicer
from engine_service.rpc.server import EngineServicer
from gateway import (
    app,
    errors,
    int64,
    metrics,
    rules_page,
    schemas,
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
schemas_game.OneOf._serialize.attr, schemas_game.OneOf._serialize.obj   # marshmallow's signature
schemas_record.HHLPassTurnSchema.pass_, schemas_record.DomengPassTurnSchema.pass_
int64.Int64._deserialize, schemas.DealInput._deserialize, schemas_game.OptionsInput._deserialize

# Part of the cache key of the rendered rules page (an edited file shows at once).
rules_page._render.mtime_ns

# uvicorn: its server loop ends once this is set.
GatewayServer._server.should_exit

# The standard library's HTML parser calls these on a subclass (tests/gateway/test_web_routes.py).
HTMLParser.handle_starttag, HTMLParser.handle_data, HTMLParser.handle_endtag
