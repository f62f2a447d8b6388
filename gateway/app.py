"""The app factory: `create_app(config)` -> a Flask app serving /api/v1 and the web page at /."""

from __future__ import annotations

import copy
import os

from flask import Flask, request
from flask_smorest import Api
from werkzeug.routing import Rule

from . import (
    analysis_stream,
    errors,
    metrics,
    schemas_game,
    schemas_record,
    schemas_stream,
    streams,
)
from .engine_client import EngineClient
from .house import DEFAULT_STRATEGIES
from .json_body import StrictJSONProvider
from .leaderboard_cache import LeaderboardCache
from .rules_page import RULES_PATH
from .schemas import ErrorSchema
from .stream_caps import MAX_STREAMS, MAX_STREAMS_PER_ADDRESS

DEFAULTS = {
    # HOST:PORT of the engine's gRPC service.
    "ENGINE_ADDRESS": "127.0.0.1:50051",
    # Deadline of every unary engine call, seconds.
    "ENGINE_TIMEOUT_S": 5.0,
    # Deadline of an engine Watch stream behind one SSE connection; the browser's
    # EventSource reconnects when it ends and gets a fresh snapshot.
    "ENGINE_WATCH_TIMEOUT_S": 900.0,
    # Request bodies above this many bytes are refused (413 BODY_TOO_LARGE).
    "MAX_CONTENT_LENGTH": 64 * 1024,
    # POST /api/v1/matches may carry a record to fork: the engine's bound (1 MB) and room
    # for the rest of the request.
    "MAX_FORK_BODY": 1024 * 1024 + 16 * 1024,
    # Event streams one gateway process holds at once, in all and per client address
    # (gateway/stream_caps.py); past either, 429 TOO_MANY_STREAMS.
    "MAX_STREAMS": MAX_STREAMS,
    "MAX_STREAMS_PER_ADDRESS": MAX_STREAMS_PER_ADDRESS,
    # Origins allowed to call the API from another site: a list, or "*" for any.
    # Empty: same origin only (the bundled web page needs nothing).
    "CORS_ORIGINS": [],
    # Strategies of the house bots `domino serve` starts (pools "house-<strategy>").
    "HOUSE_STRATEGIES": list(DEFAULT_STRATEGIES),
    # The operator API key the gateway uses for requests that create work and send none
    # (docs/security.md); empty: such requests need their own key unless the engine is open.
    "API_KEY": os.environ.get("DOMINO_GATEWAY_KEY", ""),
    # The Markdown file GET /rules renders; when it is missing /rules answers 404 NO_RULES.
    "RULES_PATH": RULES_PATH,
    # flask-smorest / OpenAPI
    "API_TITLE": "domino-server REST gateway",
    "API_VERSION": "v1",
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/api/v1",
    "OPENAPI_JSON_PATH": "openapi.json",
    "JSON_SORT_KEYS": False,
}

API_DESCRIPTION = """A thin REST + JSON face of the domino engine (Homo Homini Lupus and Domeng).
Every route is one call to the engine over gRPC; the gateway holds no game state.

Seats are claimed with `POST /api/v1/matches/{match_id}/seats/{seat}/claim`, which answers a
secret seat token once. Send it as `Authorization: Bearer <seat_token>` to read the seat's
view and to move; the event stream (`text/event-stream`) also takes it as `?seat_token=` for
EventSource.
Every failure answers one JSON body: {code, status, reason, message, version, legal_moves}.
"""


class GatewayFlask(Flask):
    json_provider_class = StrictJSONProvider   # no lone surrogates, no deep nesting


class DominoApi(Api):
    ERROR_SCHEMA = ErrorSchema

    def _register_error_handlers(self):
        errors.register(self._app)

    def _register_pagination_header(self):
        """No route pages its answers: no PaginationMetadata in the document."""


def create_app(config: dict | None = None) -> Flask:
    app = GatewayFlask(__name__, static_folder="static", static_url_path="/static")
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.json.sort_keys = False
    # An empty path segment (/arena/bots//matches) is no route: werkzeug would answer it
    # with a redirect whose body is HTML, where every failure answers the JSON error body.
    app.url_map.merge_slashes = False

    client = app.config.get("ENGINE_CLIENT") or EngineClient(
        app.config["ENGINE_ADDRESS"], app.config["ENGINE_TIMEOUT_S"],
        app.config["ENGINE_WATCH_TIMEOUT_S"])
    app.extensions["engine"] = client

    api = DominoApi(app, spec_kwargs={
        "info": {"description": API_DESCRIPTION},
        "servers": [{"url": "/"}],
        "extra_plugins": [schemas_game.SchemaKeywords()],
    })
    schemas_game.register(api.ma_plugin.converter)
    schemas_record.register(api.spec)
    schemas_stream.register(api.spec)
    api.spec.components.security_scheme(
        "seatToken", {"type": "http", "scheme": "bearer",
                      "description": "the seat token from POST .../seats/{seat}/claim"})
    api.spec.components.security_scheme(
        "apiKey", {"type": "http", "scheme": "bearer",
                   "description": "an operator API key (domino keys create NAME), for "
                   "creating matches and ladders when the engine is not open"})
    from .api import (
        analyses,
        arena_bots,
        arenas,
        engines,
        error_response,
        ladders,
        matches,
        moves,
        records,
        seats,
        variants,
        views,
        worlds,
    )
    for module in (variants, matches, seats, views, moves, worlds, records, analyses, ladders,
                   arenas, arena_bots, engines):
        api.register_blueprint(module.blp)
    app.extensions["boards"] = LeaderboardCache(arenas.board_reader(client),
                                                slow=arenas.ran_out_of_time)
    # The event stream is no Flask route: the ASGI server serves it on its loop
    # (gateway/server.py, streams.py), which describes it for the document too.
    api.spec.tag(streams.OPENAPI_TAG)
    api.spec.path(rule=Rule(metrics.EVENTS_ROUTE),
                  parameters=copy.deepcopy(streams.OPENAPI_PATH_PARAMETERS),
                  operations={"get": streams.openapi_operation(error_response)})
    # So is the analysis's stream (analysis_stream.py), under the analysis blueprint's tag.
    analysis_stream.register(api.spec)
    api.spec.path(rule=Rule(analysis_stream.ROUTE),
                  parameters=copy.deepcopy(analysis_stream.OPENAPI_PATH_PARAMETERS),
                  operations={"get": analysis_stream.openapi_operation(
                      error_response, api.ma_plugin.converter)})
    from .web import web
    app.register_blueprint(web)
    # GET /metrics (Prometheus), outside the API: not in the OpenAPI document.
    metrics.install(app)

    _cors(app)
    return app


def cors_headers(origins, origin: str, method: str = "GET") -> dict:
    """The CORS headers an answer to `origin` gets under CORS_ORIGINS `origins` ({} when
    that origin is not allowed)."""
    if not origins or not origin or not (origins == "*" or "*" in origins or origin in origins):
        return {}
    allow_any = origins == "*" or "*" in origins
    headers = {"Access-Control-Allow-Origin": "*" if allow_any else origin, "Vary": "Origin",
               "Access-Control-Expose-Headers": "Location"}
    if method == "OPTIONS":
        headers.update({"Access-Control-Allow-Methods": "GET, POST, OPTIONS",
                        "Access-Control-Allow-Headers": "Authorization, Content-Type",
                        "Access-Control-Max-Age": "600"})
    return headers


def _cors(app: Flask) -> None:
    origins = app.config["CORS_ORIGINS"]
    if not origins:
        return

    @app.after_request
    def add_cors_headers(response):
        for key, value in cors_headers(origins, request.headers.get("Origin", ""),
                                       request.method).items():
            if key == "Vary":
                response.vary.add("Origin")
            else:
                response.headers[key] = value
        return response
