"""Full matches over the Play service, with every message to every seat and to a spectator
checked for hidden tiles (docs/rules.md, "Views")."""

import json

import grpc
import pytest

from bots.play import play
from bots.strategies import make_strategy
from domino_proto.domino.v1 import engine_pb2
from domino_wire import game
from engine_service.rules import replay_record

from .support import run_threads

# Ends of hands and matches may show what was left in hand; they are not checked here.
REVEALING = {"deal_over", "cycle_over", "match_over"}


def tiles_in(message) -> set:
    """Every domino.v1.Tile anywhere in a message, as (low, high): the typed leak check
    looks at the fields themselves, however deep."""
    found = set()
    if message.DESCRIPTOR.full_name == "domino.v1.Tile":
        return {tuple(sorted((message.high, message.low)))}
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = value.values()
        elif field.is_repeated:
            values = value
        else:
            values = [value]
        for v in values:
            if hasattr(v, "DESCRIPTOR"):
                found |= tiles_in(v)
    return found


def tile(text) -> tuple:
    a, b = text.split("-")
    return tuple(sorted((int(a), int(b))))


def hidden_from(record, seat):
    """Per deal: the tiles `seat` (None: a spectator) never sees while that deal is live."""
    out = []
    for deal in record["deals"]:
        every = {tile(t) for hand in deal["hands"] for t in hand}
        every |= {tile(t) for key in ("stock", "sleeping") for t in deal.get(key, [])}
        seen = {tile(m["play"]) for m in deal["moves"] if "play" in m}
        if seat is not None:
            seen |= {tile(t) for t in deal["hands"][seat]}
            seen |= {tile(t) for m in deal["moves"] if m["seat"] == seat
                     for t in m.get("draw", [])}
        out.append(every - seen)
    return out


def check_stream(parts, hidden):
    """parts: one recipient's views and events, in order. Track the deal from views
    (deal_number) and deal_start events; no hidden tile of that deal may appear."""
    deal = 0
    for kind, message in parts:
        value = type(message)()
        value.CopyFrom(message)
        if kind == "view":
            deal = value.deal_number
            value.ClearField("last_result")
            value.ClearField("result")
            kept = [e for e in value.history if e.WhichOneof("body") not in REVEALING]
            del value.history[:]
            value.history.extend(kept)
        else:
            if value.WhichOneof("body") == "deal_start":
                deal = value.deal_start.deal
            if value.WhichOneof("body") in REVEALING:
                continue
        leaked = tiles_in(value) & hidden[deal]
        assert not leaked, f"{kind} in deal {deal} shows hidden tiles {leaked}: {value}"


def parts_of(message):
    """The views and events in one Play/Watch message."""
    out = []
    kind = message.WhichOneof("body")
    if kind == "snapshot":
        out.append(("view", message.snapshot.state.view))
    elif kind == "turn":
        out.append(("view", message.turn.state.view))
    elif kind == "events":
        out += [("event", e) for e in message.events.events]
    return out


@pytest.mark.parametrize("variant, options, seed", [("hhl", {"hands": 2}, 11),
                                                    ("domeng", {}, 12)])
def test_full_match_over_play_streams_shows_no_hidden_tile(served, variant, options, seed):
    match_id, tokens = served.new_match(variant, options, seed=seed, clock_ms=30_000)
    n = len(tokens)
    seen = {s: [] for s in range(n)}
    spectator, results = [], {}

    def bot(s):
        def run():
            # events=True: every EventBatch is sent too, and checked.
            results[s] = play(served.address, match_id, tokens[s], make_strategy("random", s),
                              on_message=lambda m: seen[s].extend(parts_of(m)), events=True)
        return run

    def watch():
        for message in served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id),
                                         timeout=60):
            spectator.extend(parts_of(message))
            if message.WhichOneof("body") == "match_over":
                results["spectator"] = game.match_result(message.match_over.result)

    run_threads([watch, *(bot(s) for s in range(n))])

    record = json.loads(served.stub.GetRecord(
        engine_pb2.GetRecordRequest(match_id=match_id)).record_json)
    assert all(r == record["result"] for r in results.values())
    assert replay_record(record).result == record["result"]
    for s in range(n):
        assert seen[s], f"seat {s} got nothing"
        hidden = hidden_from(record, s)
        assert all(hidden), "the check would be vacuous"
        check_stream(seen[s], hidden)
        # Positive control: the checker does find tiles, the seat's own among them.
        own = {tile(t) for t in record["deals"][0]["hands"][s]}
        assert own <= set().union(*(tiles_in(m) for _, m in seen[s]))
    check_stream(spectator, hidden_from(record, None))
    summary = served.summary(match_id).summary
    assert summary.status == 3 and summary.to_move == -1
    assert game.match_result(summary.result) == record["result"]


def test_seat_watch_and_view_show_only_the_seats_own_tiles(served):
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=5, clock_ms=30_000)
    record_hands = []
    for s, token in enumerate(tokens):
        view = game.view(served.view(match_id, token).view)
        record_hands.append(set(view["hand"]))
        stream = served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id,
                                                           seat_token=token), timeout=10)
        snapshot = next(stream).snapshot
        stream.cancel()
        assert snapshot.state.seat == s
        shown = tiles_in(snapshot.state.view)
        for hand in record_hands[:s]:
            assert not {tile(t) for t in hand} & shown - {tile(t) for t in record_hands[s]}
    with pytest.raises(grpc.RpcError) as info:
        next(served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id, seat_token="x"),
                               timeout=10))
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_a_stream_that_skips_events_gets_its_turns_answers_and_match_over_only(served):
    """Hello.skip_events: no EventBatch at all, yet every turn of the seat is asked once,
    every move answered, and the match ends the same as with events. Hello.skip_accepted
    (the runner's default): events, turns, but no answer to an accepted move."""
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=21, clock_ms=30_000)
    kinds = {s: [] for s in range(4)}
    results = {}

    def bot(s):
        def run():
            results[s] = play(served.address, match_id, tokens[s], make_strategy("greedy"),
                              on_message=lambda m: kinds[s].append(m), events=s != 0,
                              answers=s == 0)
        return run

    run_threads([bot(s) for s in range(4)])
    record = json.loads(served.stub.GetRecord(
        engine_pb2.GetRecordRequest(match_id=match_id)).record_json)
    assert all(r == record["result"] for r in results.values())
    mine = [k.WhichOneof("body") for k in kinds[0]]
    assert mine[:2] == ["welcome", "snapshot"] and mine[-1] == "match_over"
    assert "events" not in mine and "events" in [k.WhichOneof("body") for k in kinds[1]]
    quiet = [k.WhichOneof("body") for k in kinds[1]]
    assert "answer" not in quiet and quiet[-1] == "match_over"
    played_by = [sum(1 for deal in record["deals"] for m in deal["moves"]
                     if m["seat"] == s and "play" in m) for s in range(4)]
    assert quiet.count("turn") == played_by[1] > 0
    turns = [k.turn.state.version for k in kinds[0] if k.WhichOneof("body") == "turn"]
    answers = [k.answer for k in kinds[0] if k.WhichOneof("body") == "answer"]
    played = played_by[0]
    assert len(turns) == len(set(turns)) == played
    assert all(a.accepted for a in answers) and len(answers) >= played - 1


def test_a_bot_hears_of_its_accepted_move_before_the_move_s_events(served):
    """docs/bots.md: an accepted move's answer comes ahead of the EventBatch of that move,
    on either store (on PostgreSQL the move is played on a thread while the stream waits
    at the answer's place)."""
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=23, clock_ms=30_000)
    seen = []

    def bot(s):
        def run():
            mine = {"on_message": seen.append, "events": True, "answers": True} if s == 0 \
                else {}
            play(served.address, match_id, tokens[s], make_strategy("greedy"), **mine)
        return run

    run_threads([bot(s) for s in range(4)])
    batches = [m.events.events[0].version for m in seen
               if m.WhichOneof("body") == "events" and m.events.events]
    answers = [(i, m.answer.new_version) for i, m in enumerate(seen)
               if m.WhichOneof("body") == "answer" and m.answer.accepted]
    assert answers
    for i, version in answers:
        before = [m.events.events[0].version for m in seen[:i]
                  if m.WhichOneof("body") == "events" and m.events.events]
        assert version not in before and version in batches, (i, version)
