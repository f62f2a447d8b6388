"""REST bodies -> the typed parts of the engine's requests (rules options, explicit deals).

The shapes a body may have are checked here, each fault named by its REST field; which
option names and ranges a variant takes and whether a deal is the full set are the
engine's to say (it names the field at fault too).
"""

from __future__ import annotations

import json

import orjson
from marshmallow import ValidationError

from domino_proto.domino.v1 import engine_pb2, game_pb2
from domino_wire import game

from . import int64
from .errors import ApiError

MAX_SEED = 2**63 - 1


def malformed(field: str, message: str) -> ApiError:
    return ApiError(400, "MALFORMED_REQUEST", f"{field}: {message}", errors={field: [message]})


def typed_options(variant: str, options: dict | None, field: str = "options") -> game_pb2.Options:
    try:
        return game.options_pb(variant, options or {})
    except ValueError as e:
        name, message = e.args
        raise malformed(f"{field}.{name}", message) from None


def typed_deals(variant: str, deals: list | None) -> list[engine_pb2.Deal]:
    out = []
    rest = game.REST_KEY[variant]
    for i, deal in enumerate(deals or ()):
        where = f"deals.{i}"
        if not isinstance(deal, dict) or not isinstance(deal.get("hands"), list):
            raise malformed(where, f"a deal is an object with 'hands' and '{rest}'")
        if not all(isinstance(h, list) for h in deal["hands"]) or not isinstance(
                deal.get(rest, []), list):
            raise malformed(where, f"'hands' is a list of lists of tiles, '{rest}' a list")
        try:
            out.append(game.deal_pb(variant, deal))
        except ValueError as e:
            raise malformed(where, str(e)) from None
    return out


def record_json(record: dict, field: str = "fork.record") -> str:
    """A record a request gives (a fork's) as the engine's JSON text. Its seed may be a
    decimal string, as GET .../record sends it; the record's file format, which the
    engine reads, has a number."""
    if "seed" in record and record["seed"] is not None:
        try:
            record = {**record, "seed": int64.parse(record["seed"], 0, MAX_SEED)}
        except ValidationError as e:
            raise malformed(f"{field}.seed", e.messages[0]) from None
    # orjson's text (a megabyte in a few ms), or json's for what orjson does not take (an
    # integer past 64 bits, which the engine then refuses by name).
    try:
        return orjson.dumps(record).decode()
    except orjson.JSONEncodeError:
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False)
