"""Protobuf answers of the engine -> the plain objects the schemas dump.

The game's typed messages (views, events, results, options) become the dicts of
docs/views.md through domino_wire.game, the same map every Python client reads with; enums
become the lower-case words of the contract (domino_wire.names: "hhl", "person", "live").
"""

from __future__ import annotations

from domino_proto.domino.v1 import common_pb2, game_pb2
from domino_wire import game
from domino_wire.names import MATCH_STATUS, SEAT_KIND, VARIANT

from .house import strategy_of


def _seat_or_none(seat: int):
    return None if seat < 0 else seat


def seat(info: common_pb2.SeatInfo) -> dict:
    return {"seat": info.seat, "kind": SEAT_KIND.word(info.kind), "name": info.name,
            "strategy": strategy_of(info.pool), "claimed": info.claimed,
            "open": info.open and not info.claimed, "absent": info.absent,
            "timeouts_in_a_row": info.timeouts_in_a_row, "clock_ms": info.clock_ms}


def match(summary: common_pb2.MatchSummary) -> dict:
    return {"match_id": summary.match_id, "variant": VARIANT.word(summary.variant),
            "status": MATCH_STATUS.word(summary.status), "version": summary.version,
            "num_seats": summary.num_seats, "to_move": _seat_or_none(summary.to_move),
            "seats": [seat(s) for s in summary.seats],
            "options": game.options(summary.options),
            "created_unix_ms": summary.created_unix_ms,
            "result": game.match_result(summary.result)}


def seat_state(state: common_pb2.SeatState) -> dict:
    """A seat's state. Its legal moves are [{id, text}] in the view too, as beside it: one
    shape wherever REST sends them, with the id a move is submitted by."""
    legal = [{"id": m.id, "text": m.text} for m in state.legal_moves]
    view = game.seat_view(state)
    if "legal_moves" in view:
        view["legal_moves"] = legal
    return {"match_id": state.match_id, "seat": _seat_or_none(state.seat), "version": state.version,
            "to_move": _seat_or_none(state.to_move), "view": view, "legal_moves": legal,
            "deadline_unix_ms": state.deadline_unix_ms or None}


def spectator_state(summary: common_pb2.MatchSummary, view: game_pb2.View) -> dict:
    """A spectator's state, as GetMatch tells it (the seat state of a Watch without a token)."""
    return {"match_id": summary.match_id, "seat": None, "version": summary.version,
            "to_move": _seat_or_none(summary.to_move), "view": game.view(view),
            "legal_moves": [], "deadline_unix_ms": None}


events = game.events
