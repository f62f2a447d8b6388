"""The game's typed contract (proto/domino/v1/game.proto) and the plain shapes of
docs/views.md and docs/records.md, mapped both ways: one import for all of it.

The rules core speaks plain values: a view is a dict (Match.view), an event a dict
(Event.to_dict), results and options dicts. The engine encodes them into the typed
messages (`*_pb`), and every Python client decodes the messages back (the bot runner and
its strategies, the gateway's REST bodies, the `domino` command), so both sides read the
one documented shape. Each job has its module, named for what it maps:

- tiles.py: tiles and moves, their text notation; a missing seat is -1 (None here)
- results.py: deal, cycle and match results; a Domeng stone payer of -1 is the table
- events.py: events, the rules' and the engine's
- views.py: views, built from serialized parts (the move path) and read back, also lazily
- options.py: rules options and explicit deals

Enum values are the lower-case words of domino_wire.names. tests/wire checks that a round
trip gives back exactly what the rules made, over thousands of matches.
"""

from __future__ import annotations

from .events import Event, event, event_pb, events
from .options import REST_KEY, deal, deal_pb, options, options_given, options_pb
from .results import (
    CAPPU_KIND,
    DEAL_END,
    cycle_result,
    cycle_result_pb,
    deal_result,
    deal_result_pb,
    match_result,
    match_result_pb,
)
from .tiles import (
    MODE,
    PLACE,
    Move,
    Tile,
    move_fields,
    move_pb,
    move_pb_of_text,
    move_text,
    tile_pb,
    tile_text,
    tiles_pb,
    tiles_text,
)
from .views import (
    LazyView,
    View,
    arm_part,
    history_part,
    layout_parts,
    line_part,
    result_part,
    seat_view,
    spinner_part,
    view,
    view_bytes,
)

__all__ = [
    "CAPPU_KIND", "DEAL_END", "MODE", "PLACE", "REST_KEY", "Event", "LazyView", "Move", "Tile",
    "View", "arm_part", "cycle_result", "cycle_result_pb", "deal", "deal_pb", "deal_result",
    "deal_result_pb", "event", "event_pb", "events", "history_part", "layout_parts",
    "line_part", "match_result", "match_result_pb", "move_fields", "move_pb",
    "move_pb_of_text", "move_text", "options", "options_given", "options_pb",
    "result_part", "seat_view", "spinner_part", "tile_pb", "tile_text", "tiles_pb",
    "tiles_text", "view", "view_bytes",
]
