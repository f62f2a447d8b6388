"""The typed contract tells exactly what the rules core tells (game.proto, domino_wire.game,
engine_service/rpc/codec.py), over 800 random matches of both games.

For every recipient (each seat and a spectator) at sampled versions: the typed view the
engine would send, made the way the engine makes it (the parts cached in one match's cache
across the whole match), decodes to the very dict Match.view gives; every event, for every
recipient, decodes to Event.to_dict's own; results and options round-trip; and no typed
view or event holds a tile its recipient may not know (checked on the Tile messages
themselves, not on text)."""

import random

import pytest

from domino_proto.domino.v1 import common_pb2, game_pb2
from domino_wire import game
from engine_service.core.matches.referee import SeatView
from engine_service.core.matches.updates import EngineEvent
from engine_service.rpc import codec
from engine_service.rules import new_match

# Per case: 400 random matches a variant, 800 in all. Each event is checked for every
# recipient, so this is over a million typed events; the rules themselves are checked over
# thousands of matches in tests/rules.
MATCHES = 200
EVERY_VIEW_IN = 10        # of them, every view of every recipient at every version


def tiles_in(message) -> set:
    """Every Tile message anywhere in `message`, as its text."""
    if message.DESCRIPTOR.full_name == "domino.v1.Tile":
        return {game.tile_text(message)}
    found = set()
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        for v in (value if field.is_repeated else [value]):
            found |= tiles_in(v)
    return found


def known_to(match, seat) -> set:
    """The tiles `seat` (None: a spectator) may know in the deal in play: those laid, and
    its own as dealt plus what it drew."""
    known = set()
    for e in match.deal_events:
        d = e.to_dict(seat)
        if d["kind"] == "play":
            known.add(d["play"])
        known |= set(d.get("tiles", ()))
    return known


def typed_view(match, seat, version, cache):
    """The view as the engine's codec builds it, parts cached in `cache` across the match."""
    legal = [(str(i), str(m)) for i, m in enumerate(match.legal_moves(seat))] if seat is not None else []
    sv = SeatView(seat, version, match.to_move, match.view(seat, history=False),
                  match.deal_events, legal, 0.0, cache)
    return common_pb2.SeatState(view=codec.typed_view(sv), legal_moves=codec.legal_moves(legal))


def check_view(match, seat, version, cache):
    state = typed_view(match, seat, version, cache)
    assert game.seat_view(state) == match.view(seat), (seat, version)
    lazy = game.LazyView(state)
    assert dict(lazy) == match.view(seat) and len(lazy) == len(match.view(seat))
    revealing = {"deal_over", "cycle_over", "match_over"}
    if not match.over:
        # a deal's result shows what was left in hand: leave results out of the leak check
        view = type(state.view)()
        view.CopyFrom(state.view)
        view.ClearField("last_result")
        kept = [e for e in view.history if e.WhichOneof("body") not in revealing]
        del view.history[:]
        view.history.extend(kept)
        assert tiles_in(view) <= known_to(match, seat), (seat, version)
    for m in state.legal_moves:   # each legal move's fields say what its text says
        assert game.move_text(m.move) == m.text


def play_and_check(variant, options, seed, every_view: bool):
    rng = random.Random(seed)
    match = new_match(variant, options, seed)
    recipients = [None, *range(match.num_seats)]
    cache: dict = {}
    version = 0
    checked_kinds = set()
    # what each recipient may know in the deal so far, kept as the events happen
    known = {r: known_to(match, r) for r in recipients}
    while not match.over:
        if every_view or rng.random() < 0.08:
            for r in recipients if every_view else [rng.choice(recipients)]:
                check_view(match, r, version, cache)
        seat = match.to_move
        events = match.play(seat, rng.choice(match.legal_moves(seat)))
        version += 1
        for e in events:
            for r in recipients:
                d = e.to_dict(r)
                typed = game.event_pb(d, version)
                assert typed.version == version and game.event(typed) == d
                if d["kind"] == "deal_start":
                    known[r] = set()
                known[r] |= set(d.get("tiles", ())) | ({d["play"]} if "play" in d else set())
                if d["kind"] not in ("deal_over", "cycle_over", "match_over"):
                    assert tiles_in(typed) <= known[r], (d, r)
            checked_kinds.add(e.kind)
    for r in recipients:
        check_view(match, r, version, cache)
    assert game.match_result(game.match_result_pb(match.result)) == match.result
    assert game.options(game.options_pb(variant, match.options)) == match.options
    for d in match.deals:
        assert game.deal_result(game.deal_result_pb(d.result)) == d.result
    assert len(cache) < 400, "the cache must stay within one deal"
    return checked_kinds


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 2}), ("domeng", {"cycles": 1}),
                                             ("hhl", {"hands": 2, "profile": "literal"}),
                                             ("domeng", {"profile": "literal"})])
def test_typed_views_and_events_are_the_rules_truth(variant, options):
    kinds = set()
    for seed in range(MATCHES):
        kinds |= play_and_check(variant, options, seed, every_view=seed < EVERY_VIEW_IN)
    expected = {"deal_start", "play", "pass", "deal_over", "match_over"}
    expected |= {"draw"} if variant == "hhl" else {"cycle_over"}
    assert kinds >= expected


def test_engine_events_round_trip():
    for e in (EngineEvent("timeout", seat=2, move="4-4 up barricade", timeouts_in_a_row=3),
              EngineEvent("timeout", seat=0, move="6-6", timeouts_in_a_row=1),
              EngineEvent("absent", seat=1), EngineEvent("returned", seat=4),
              EngineEvent("time_up")):
        typed = game.event_pb(e.to_dict(), 9)
        assert game.event(typed) == e.to_dict() and typed.version == 9


def test_a_deal_and_options_from_a_request_reach_the_rules_as_sent():
    deal = {"hands": [["6-6", "4-6", "[1|0]"], []], "stock": ["0-0"]}
    typed = game.deal_pb("hhl", deal)
    assert game.deal("hhl", typed) == {"hands": [["6-6", "6-4", "1-0"], []], "stock": ["0-0"]}
    # numbers out of range go through as written, for the rules to refuse by name
    odd = game.deal("hhl", game.deal_pb("hhl", {"hands": [["9-9"]]}))
    assert odd == {"hands": [["9-9"]], "stock": []}
    with pytest.raises(ValueError):
        game.deal_pb("hhl", {"hands": [["six-four"]]})
    assert game.options_given(game.options_pb("hhl", {"hands": 3, "minutes": None})) == {"hands": 3}
    for bad in ({"cycles": 1}, {"hands": "3"}, {"hands": 2**31}, {"hands": True},
                {"profile": "letter"}, {"dead_stock": 2}, {"profile": "PROFILE_LITERAL"}):
        with pytest.raises(ValueError):
            game.options_pb("hhl", bad)
    assert tuple(game.options(game.options_pb("domeng", {}))) == (
        "cycles", "round_cap", "profile", "closing_pass", "first_lead")
    # an enum option travels as its enum (game.proto Profile, DeadStock, ...) and reads
    # back as its word; UNSPECIFIED is unset, and a number the enum does not name is kept
    # for the rules to refuse by name
    typed = game.options_pb("hhl", {"profile": "literal", "dead_stock": "stop"})
    assert typed.hhl.profile == game_pb2.PROFILE_LITERAL and typed.hhl.dead_stock == game_pb2.DEAD_STOCK_STOP
    assert game.options_given(typed) == {"profile": "literal", "dead_stock": "stop"}
    odd = game_pb2.Options(domeng=game_pb2.DomengOptions(closing_pass=0, first_lead=7))
    assert game.options(odd)["closing_pass"] is None and game.options(odd)["first_lead"] == 7
    assert game_pb2.Options().WhichOneof("variant") is None and game.options(game_pb2.Options()) == {}
