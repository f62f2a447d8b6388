"""Play.SampleWorlds over a real gRPC server: worlds from the seat's own view, bounded, rated.

* the worlds agree with what the seat sees, and the engine samples from exactly the view
  that seat receives (Match.view(seat));
* independence: two matches whose true deals differ but whose views for one seat are the
  same give that seat the same worlds for the same seed;
* every bad input is INVALID_ARGUMENT naming its field; a wrong token, an unknown match and
  a finished match are refused as everywhere else; over its rate a seat gets
  RESOURCE_EXHAUSTED (RATE_LIMITED), other seats are not held back.
"""

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, play_pb2, play_pb2_grpc
from domino_wire import game
from engine_service.core.engine import Engine
from engine_service.core.sampling.service import WorldService, seat_view_dict
from engine_service.core.storage.sqlite import SQLiteStore
from engine_service.rpc.server import start_server
from engine_service.rules import new_match, worlds
from engine_service.rules.tiles import Tile

from .support import VARIANTS, Served, refusal


def play_stub(served):
    return play_pb2_grpc.PlayStub(served.channel)


def ask(served, match_id, token, count=10, seed=0):
    return play_stub(served).SampleWorlds(play_pb2.SampleWorldsRequest(
        match_id=match_id, seat_token=token, count=count, seed=seed), timeout=10)


def as_world(w: play_pb2.World) -> worlds.World:
    return worlds.World(tuple(tuple(Tile.of(t.high, t.low) for t in h.tiles) for h in w.hands),
                        tuple(Tile.of(t.high, t.low) for t in w.rest))


def advance(served, match_id, tokens, moves):
    """Play `moves` moves, each seat its first legal move."""
    for _ in range(moves):
        referee = served.engine.get(match_id)
        seat = referee.match.to_move
        if seat is None:
            return
        state = served.view(match_id, tokens[seat])
        served.submit(match_id, tokens[seat], state.version, move_id=state.legal_moves[0].id)


@pytest.mark.parametrize("variant", ["hhl", "domeng"])
def test_the_worlds_agree_with_the_seat_view_it_is_given(served, variant):
    match_id, tokens = served.new_match(variant, {"hands": 1} if variant == "hhl" else {}, seed=8)
    for step in range(4):
        referee = served.engine.get(match_id)
        for seat, token in enumerate(tokens):
            view = seat_view_dict(referee.seat_view(seat))
            whole = referee.match.view(seat)
            assert view == {k: v for k, v in whole.items() if k != "legal_moves"}
            got = ask(served, match_id, token, count=40, seed=step)
            assert (got.match_id, got.seat, got.version) == (match_id, seat, referee.version)
            assert got.exact and got.consistent_worlds >= 1 and len(got.worlds) == 40
            consistent = worlds.checker(view)
            assert all(consistent(as_world(w)) for w in got.worlds)
        advance(served, match_id, tokens, 3)


def twin_deals():
    """Two HHL deals that differ only in a tile swapped between seats 2 and 3."""
    d = new_match("hhl", {"hands": 1}, 21).record()["deals"][0]
    a = {"hands": [list(h) for h in d["hands"]], "stock": list(d["stock"])}
    b = {"hands": [list(h) for h in d["hands"]], "stock": list(d["stock"])}
    x = next(t for t in a["hands"][2] if t.split("-")[0] != t.split("-")[1])
    y = next(t for t in a["hands"][3] if t.split("-")[0] != t.split("-")[1])
    b["hands"][2][b["hands"][2].index(x)] = y
    b["hands"][3][b["hands"][3].index(y)] = x
    return a, b


def test_a_different_hidden_truth_behind_the_same_view_gives_the_same_worlds(served):
    matches = []
    for d in twin_deals():
        created = served.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=VARIANTS["hhl"], options=game.options_pb("hhl", {"hands": 1}), seed=1,
            deals=[game.deal_pb("hhl", d)]), timeout=5)
        tokens = [served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=5).seat_token for s in range(4)]
        matches.append((created.match_id, tokens))
    (a, ta), (b, tb) = matches
    compared = 0
    for _ in range(12):
        va, vb = served.view(a, ta[0]), served.view(b, tb[0])
        if (va.view, va.version, list(va.legal_moves)) != (vb.view, vb.version,
                                                          list(vb.legal_moves)):
            break           # the swapped tiles showed: the views part here
        for seed in (0, 7, 2**64 - 1):
            wa, wb = ask(served, a, ta[0], 30, seed), ask(served, b, tb[0], 30, seed)
            assert list(wa.worlds) == list(wb.worlds)
            assert (wa.exact, wa.consistent_worlds) == (wb.exact, wb.consistent_worlds)
        compared += 1
        # both matches play the same move: the first one legal in both
        ra, rb = served.engine.get(a), served.engine.get(b)
        seat = ra.match.to_move
        if seat is None or seat != rb.match.to_move:
            break
        sa, sb = served.view(a, ta[seat]), served.view(b, tb[seat])
        common = [m.text for m in sa.legal_moves if m.text in {n.text for n in sb.legal_moves}]
        if not common:
            break
        served.submit(a, ta[seat], sa.version, move_text=common[0])
        served.submit(b, tb[seat], sb.version, move_text=common[0])
    assert compared >= 4
    # and the truths really differ
    ha = served.engine.get(a).match.position.hands
    hb = served.engine.get(b).match.position.hands
    assert ha[2] != hb[2] and ha[0] == hb[0]


@pytest.mark.parametrize("fields,field", [
    ({"count": 0}, "count"),
    ({"count": -1}, "count"),
    ({"count": 1001}, "count"),
    ({"count": 2**31 - 1}, "count"),
    ({"count": 5, "match_id": "x" * 65}, "match_id"),
    ({"count": 5, "seat_token": "t" * 129}, "seat_token"),
])
def test_bad_inputs_are_invalid_argument_naming_the_field(served, fields, field):
    match_id, tokens = served.new_match("domeng", seed=3)
    request = {"match_id": match_id, "seat_token": tokens[0], **fields}
    with pytest.raises(grpc.RpcError) as info:
        play_stub(served).SampleWorlds(play_pb2.SampleWorldsRequest(**request), timeout=5)
    code, r = refusal(info.value)
    assert (code, r.reason, r.field) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST",
                                         field)


def test_tokens_matches_and_finished_matches(served):
    match_id, tokens = served.new_match("hhl", {"hands": 1}, seed=5)
    other, _ = served.new_match("hhl", {"hands": 1}, seed=6)
    for mid, token, code, reason in [
            (match_id, "", grpc.StatusCode.UNAUTHENTICATED, "NO_TOKEN"),
            (match_id, "nope", grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"),
            (other, tokens[0], grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN"),
            ("no-such-match", tokens[0], grpc.StatusCode.NOT_FOUND, "UNKNOWN_MATCH")]:
        with pytest.raises(grpc.RpcError) as info:
            ask(served, mid, token)
        assert (refusal(info.value)[0], refusal(info.value)[1].reason) == (code, reason)
    advance(served, match_id, tokens, 500)
    assert served.engine.get(match_id).match.over
    with pytest.raises(grpc.RpcError) as info:
        ask(served, match_id, tokens[0])
    code, r = refusal(info.value)
    assert (code, r.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MATCH_OVER")


@pytest.fixture
def slow_rate():
    """An engine whose seats may take 1000 worlds at once and one more a second."""
    engine = Engine(SQLiteStore(":memory:"), worlds=WorldService(rate=1, burst=1000))
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=8)
    served = Served(engine, server, port)
    yield served
    served.channel.close()
    server.stop(0).wait()
    engine.close()


def test_a_seat_over_its_rate_is_refused_and_others_are_not(slow_rate):
    match_id, tokens = slow_rate.new_match("domeng", seed=2)
    assert len(ask(slow_rate, match_id, tokens[0], count=1000).worlds) == 1000
    with pytest.raises(grpc.RpcError) as info:
        ask(slow_rate, match_id, tokens[0], count=5)
    code, r = refusal(info.value)
    assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RATE_LIMITED")
    assert "try again in" in r.message and r.version == 0
    assert len(ask(slow_rate, match_id, tokens[1], count=1000).worlds) == 1000
