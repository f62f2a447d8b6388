"""Hostile clients (docs/security.md): hypothesis sends arbitrary values in every field
of CreateMatch, ClaimSeat, SubmitMove, Hello (seat, pool, arena lobby and arena seat),
MoveChoice and every Arena call to a real `domino engine` process,
and arbitrary JSON bodies, paths and queries (matches, moves, the arena's routes) to a real
gateway in front of it, both on 127.0.0.1.

Whatever is sent: no call ends with UNKNOWN or INTERNAL, no REST answer is a 5xx, nothing
stored poisons the lobby, the turn clocks keep running, and the engine starts again on
the same store. The loops are bounded (max_examples) to keep `make test` short.
"""

from __future__ import annotations

import http.client
import json
import queue

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino_proto.domino.v1 import (
    arena_pb2,
    arena_pb2_grpc,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    play_pb2,
    play_pb2_grpc,
)
from domino_wire import game
from tests.engine.support import refusal, start_engine, wait_for
from tests.pg_server import STORES

ALLOWED = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
           grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
           grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED,
           grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.RESOURCE_EXHAUSTED,
           grpc.StatusCode.DEADLINE_EXCEEDED}
HOSTILE = settings(max_examples=150, deadline=None, derandomize=True,
                   suppress_health_check=list(HealthCheck))

# ----- values a hostile client sends -------------------------------------------------------
any_char = st.characters(codec=None, exclude_categories=["Cs"])    # protobuf strings are UTF-8
texts = st.one_of(st.text(any_char, max_size=40), st.just("x" * 70_000), st.just("²"),
                  st.just("\x00\x07"), st.just("ladder-x/y"), st.just(""))
int32s = st.integers(-(2**31), 2**31 - 1)
int64s = st.integers(-(2**63), 2**63 - 1)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                 max_size=4),
    max_leaves=12)
option_values = st.dictionaries(st.sampled_from(["hands", "minutes", "cycles", "round_cap", "x"]),
                                json_values, max_size=3)
record_deals = st.lists(st.fixed_dictionaries({}, optional={
    "hands": st.lists(st.lists(st.sampled_from(["6-6", "4-6", "[1|0]", "9-9", "x", ""]) | json_values,
                               max_size=7), max_size=6) | json_values,
    "stock": st.lists(st.sampled_from(["0-0", "6-5"]), max_size=5) | json_values}), max_size=3)
maybe_int32 = st.none() | int32s


def _options(hhl, minutes, hands, cycles, round_cap):
    kept = lambda **kw: {k: v for k, v in kw.items() if v is not None}   # noqa: E731
    if hhl is None:
        return game_pb2.Options()
    if hhl:
        return game_pb2.Options(hhl=game_pb2.HHLOptions(**kept(minutes=minutes, hands=hands)))
    return game_pb2.Options(domeng=game_pb2.DomengOptions(**kept(cycles=cycles,
                                                                 round_cap=round_cap)))


typed_options = st.builds(_options, st.none() | st.booleans(), maybe_int32, maybe_int32,
                          maybe_int32, maybe_int32)
tiles = st.builds(game_pb2.Tile, high=st.integers(-2, 9) | int32s, low=st.integers(-2, 9))
hands = st.builds(engine_pb2.Hand, tiles=st.lists(tiles, max_size=8))
deals = st.lists(st.builds(engine_pb2.Deal, hands=st.lists(hands, max_size=6),
                           rest=st.lists(tiles, max_size=6)), max_size=3) | st.just(
    [engine_pb2.Deal()] * 2000)
seat_specs = st.builds(engine_pb2.SeatSpec, kind=int32s, name=texts, pool=texts,
                       open=st.booleans())


class Engine:
    """A real engine process, its store, and a canary match whose clocks must keep moving."""

    def __init__(self, tmp_path, db: str):
        self.db, self.log = db, tmp_path / "engine.log"
        self.start()

    def start(self, port: int = 0):
        self.proc, self.port = start_engine(self.db, port, self.log)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = engine_pb2_grpc.EngineStub(self.channel)

    def stop(self):
        self.channel.close()
        self.proc.kill()
        self.proc.wait(60)

    def canary(self) -> str:
        """An hour-long HHL match nobody plays: its clocks play every move, all along."""
        created = self.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, bot_clock_ms=100), timeout=5)
        for s in range(4):
            self.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=created.match_id, seat=s),
                                timeout=5)
        return created.match_id

    def version(self, match_id: str) -> int:
        return self.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                  timeout=5).summary.version


@pytest.fixture(scope="module", params=STORES)
def engine(request, tmp_path_factory):
    """A real engine process on each store in turn, for the whole module: what the fuzzer
    sends must poison neither."""
    folder = tmp_path_factory.mktemp("hostile")
    db = (str(folder / "engine.sqlite3") if request.param == "sqlite"
          else request.getfixturevalue("pg_server").database())
    e = Engine(folder, db)
    e.match_id = e.canary()
    created = e.stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}), bot_clock_ms=3_600_000),
        timeout=5)
    e.target = created.match_id            # a match the fuzzer moves in and claims seats of
    e.tokens = [e.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=e.target, seat=s),
                                 timeout=5).seat_token for s in range(2)]
    e.arena = arena_pb2_grpc.ArenaStub(e.channel)
    e.bot_key = e.arena.RegisterBot(arena_pb2.RegisterBotRequest(name="fuzzed"),
                                    timeout=5).bot_key
    yield e
    e.stop()


def survives(call):
    """The call answers, or refuses with an allowed code: never UNKNOWN or INTERNAL; a
    malformed request names the field at fault. STORE_UNAVAILABLE (PostgreSQL past the
    store's 0.5 s bound on a loaded machine) says "try again shortly": it is asked again,
    as a client does, and the answer after it is the one checked."""
    refused = []

    def attempt():
        try:
            call()
        except grpc.RpcError as err:
            if (err.code() == grpc.StatusCode.UNAVAILABLE
                    and (err.details() or "").startswith("STORE_UNAVAILABLE")):
                return False
            refused.append(err)
        return True
    wait_for(attempt, timeout=60, what="an answer other than STORE_UNAVAILABLE")
    for err in refused:
        assert err.code() in ALLOWED, (err.code(), err.details())
        if err.code() == grpc.StatusCode.INVALID_ARGUMENT:
            assert refusal(err)[1].field, err.details()


# ----- the Engine service -------------------------------------------------------------------
@HOSTILE
@given(variant=int32s | st.sampled_from([1, 2]), options=typed_options, seed=st.none() | int64s,
       deals=deals, seats=st.lists(seat_specs, max_size=6), bot_clock_ms=int64s,
       person_clock_ms=int64s)
def test_create_match_with_anything(engine, variant, options, seed, deals, seats,
                                    bot_clock_ms, person_clock_ms):
    request = engine_pb2.CreateMatchRequest(
        variant=variant, options=options, deals=deals, seats=seats,
        bot_clock_ms=bot_clock_ms, person_clock_ms=person_clock_ms)
    if seed is not None:
        request.seed = seed
    survives(lambda: engine.stub.CreateMatch(request, timeout=10))


@HOSTILE
@given(match_id=texts | st.just("TARGET"), seat=int32s, claim_secret=texts,
       key=st.sampled_from(["", "dk_guess", "x" * 200]))
def test_claim_seat_with_anything(engine, match_id, seat, claim_secret, key):
    match_id = engine.target if match_id == "TARGET" else match_id
    survives(lambda: engine.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
        match_id=match_id, seat=seat, claim_secret=claim_secret), timeout=5,
        metadata=(("authorization", f"Bearer {key}"),) if key else ()))


@HOSTILE
@given(match_id=texts | st.just("TARGET"), token=texts | st.sampled_from(["T0", "T1"]),
       version=int64s | st.integers(0, 3), move=st.one_of(
           st.builds(lambda t: {"move_id": t}, texts | st.sampled_from(["0", "1", "99"])),
           st.builds(lambda t: {"move_text": t}, texts | st.sampled_from(["0-0", "6-6 up"]))))
def test_submit_move_with_anything(engine, match_id, token, version, move):
    match_id = engine.target if match_id == "TARGET" else match_id
    token = {"T0": engine.tokens[0], "T1": engine.tokens[1]}.get(token, token)
    request = engine_pb2.SubmitMoveRequest(match_id=match_id, seat_token=token,
                                           expected_version=version, **move)
    survives(lambda: engine.stub.SubmitMove(request, timeout=5))
    survives(lambda: engine.stub.GetView(engine_pb2.GetViewRequest(match_id=match_id,
                                                                   seat_token=token), timeout=5))


# ----- the Play service ---------------------------------------------------------------------
hellos = st.one_of(
    st.builds(lambda m, t, c: play_pb2.Hello(seat=play_pb2.SeatAuth(match_id=m, seat_token=t),
                                             client=c),
              texts | st.just("TARGET"), texts | st.just("T0"), texts),
    st.builds(lambda p, n, k, s: play_pb2.Hello(pool=play_pb2.PoolEnlist(
        pool=p, name=n, capacity=k, secret=s)), texts, texts, int32s, texts),
    st.builds(lambda k, v, a, n, c: play_pb2.Hello(arena=play_pb2.ArenaEnlist(
        bot_key=k, version=v, arena=a, max_matches=n), client=c),
              texts | st.just("BOTKEY"), texts | st.just("v1"),
              texts | st.sampled_from(["hhl", "domeng"]), int32s | st.just(1), texts),
    st.builds(lambda m, k: play_pb2.Hello(arena_seat=play_pb2.ArenaSeatAuth(
        match_id=m, bot_key=k)), texts | st.just("TARGET"), texts | st.just("BOTKEY")),
    st.builds(lambda k, a: play_pb2.Hello(arena_standby=play_pb2.ArenaStandby(
        bot_key=k, arena=a)), texts | st.just("BOTKEY"),
              texts | st.sampled_from(["hhl", "domeng"])),
    st.just(play_pb2.Hello()))
choices = st.builds(lambda m, v, i, t: play_pb2.MoveChoice(
    match_id=m, version=v, **({"move_id": i} if t is None else {"move_text": t})),
    texts, int64s | st.integers(0, 3), texts, st.none() | texts)


@HOSTILE
@given(hello=hellos, moves=st.lists(choices, max_size=4), first_is_move=st.booleans())
def test_play_streams_with_anything(engine, hello, moves, first_is_move):
    if hello.WhichOneof("auth") == "seat":
        if hello.seat.match_id == "TARGET":
            hello.seat.match_id = engine.target
        if hello.seat.seat_token == "T0":
            hello.seat.seat_token = engine.tokens[0]
    for part in (hello.arena, hello.arena_seat, hello.arena_standby):
        if part.bot_key == "BOTKEY":
            part.bot_key = engine.bot_key
    if hello.arena_seat.match_id == "TARGET":
        hello.arena_seat.match_id = engine.target
    messages = [play_pb2.BotMessage(move=m) for m in moves]
    if not first_is_move:
        messages.insert(0, play_pb2.BotMessage(hello=hello))
    outbox = queue.SimpleQueue()
    for m in messages:
        outbox.put(m)
    outbox.put(None)                     # then the bot half-closes its side
    stream = play_pb2_grpc.PlayStub(engine.channel).Connect(iter(outbox.get, None), timeout=3)

    def read():
        for message in stream:
            if message.WhichOneof("body") == "answer":
                assert message.answer.accepted or message.answer.refusal.reason != "INTERNAL"
    try:
        read()
    except grpc.RpcError as err:         # the 3 s deadline of a seat stream that plays on
        assert err.code() in ALLOWED, (err.code(), err.details())


# ----- the Arena service ----------------------------------------------------------------------
ascii_keys = st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=60)
bot_names = texts | st.sampled_from(["fuzzed", "house-greedy", "a" * 40, "ok.name-1"])
arena_ids = texts | st.sampled_from(["hhl", "domeng"])
floats = st.floats(allow_nan=True, allow_infinity=True)
arena_requests = st.one_of(
    st.builds(lambda n, d: ("RegisterBot", arena_pb2.RegisterBotRequest(name=n, description=d)),
              bot_names, texts),
    st.builds(lambda n: ("RotateBotKey", arena_pb2.RotateBotKeyRequest(name=n)), bot_names),
    st.builds(lambda n: ("RetireBot", arena_pb2.RetireBotRequest(name=n)),
              texts | st.just("house-greedy")),
    st.just(("ListArenas", arena_pb2.ListArenasRequest())),
    st.builds(lambda a, v, n: ("GetLeaderboard", arena_pb2.GetLeaderboardRequest(
        arena_id=a, view=v, limit=n)), arena_ids, int32s | st.sampled_from([0, 1, 2]), int32s),
    st.builds(lambda n: ("GetBot", arena_pb2.GetBotRequest(name=n)), bot_names),
    st.builds(lambda n, k, b: ("ListBotMatches", arena_pb2.ListBotMatchesRequest(
        name=n, limit=k, before_unix_s=b)), bot_names, int32s, floats),
    st.builds(lambda a, n, v, k: ("GetRatingHistory", arena_pb2.GetRatingHistoryRequest(
        arena_id=a, name=n, version=v, limit=k)), arena_ids, bot_names, texts, int32s))


@HOSTILE
@given(request=arena_requests, bearer=st.none() | ascii_keys | st.just("BOTKEY"))
def test_arena_calls_with_anything(engine, request, bearer):
    method, message = request
    key = engine.bot_key if bearer == "BOTKEY" else bearer
    metadata = (("authorization", f"Bearer {key}"),) if key is not None else ()
    if method == "RotateBotKey" and message.name == "fuzzed" and not key:
        return        # the fixture's bot keeps its key: the Play streams use it
    survives(lambda: getattr(engine.arena, method)(message, timeout=10, metadata=metadata))


# ----- REST ---------------------------------------------------------------------------------
def rest(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        # bytes go as they are; anything else as JSON (a lone surrogate as its \\u escape)
        data = body if isinstance(body, bytes) or body is None else json.dumps(body)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json",
                                                       **(headers or {})})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def gateway(engine):
    from tests.gateway.gateway_support import LiveGateway

    gw = LiveGateway(f"127.0.0.1:{engine.port}", ["random"])
    yield gw
    gw.close()


surrogate_text = st.text(st.characters(codec=None), max_size=10)   # lone surrogates too
rest_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | surrogate_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(surrogate_text, inner,
                                                                 max_size=4),
    max_leaves=10)
match_bodies = st.fixed_dictionaries({}, optional={
    "variant": st.sampled_from(["hhl", "domeng", "chess"]) | rest_values,
    "options": option_values | rest_values, "seed": int64s | rest_values,
    "deals": record_deals | rest_values, "bot_clock_ms": int64s, "person_clock_ms": int64s,
    "seats": st.lists(st.fixed_dictionaries({}, optional={
        "kind": st.sampled_from(["bot", "person", "human"]) | rest_values,
        "strategy": st.sampled_from(["random", "nope"]) | rest_values,
        "name": surrogate_text}), max_size=6) | rest_values})


@HOSTILE
@given(body=match_bodies | rest_values | st.just(b"[" * 10_000 + b"]" * 10_000)
       | st.just(b'{"variant": "hhl", "seed": 1e999}') | st.just(b"\xff\xfe"))
def test_rest_create_match_with_anything(gateway, body):
    status, data = rest(gateway.port, "POST", "/api/v1/matches", body)
    assert status < 500, (status, data[:300])
    assert json.loads(data)                  # every answer is a JSON body


@HOSTILE
@given(body=st.fixed_dictionaries({}, optional={
    "version": int64s | rest_values, "move_id": surrogate_text | rest_values,
    "move_text": surrogate_text | rest_values}) | rest_values,
    token=st.sampled_from(["T0", "nope", ""]), match=st.sampled_from(["TARGET", "x" * 9000]))
def test_rest_moves_with_anything(engine, gateway, body, token, match):
    match_id = engine.target if match == "TARGET" else match
    token = engine.tokens[0] if token == "T0" else token
    status, data = rest(gateway.port, "POST", f"/api/v1/matches/{match_id}/moves", body,
                        {"Authorization": f"Bearer {token}"} if token else {})
    assert status < 500, (status, data[:300])


rest_names = surrogate_text | st.sampled_from(["house-greedy", "a" * 40, "ok.name-1", "x" * 9000,
                                               "..", "%00", "a/b"])
query_values = surrogate_text | st.integers(-(2**70), 2**70).map(str) | st.sampled_from(
    ["nan", "inf", "-1", "1e999", "latest", "all", "hhl", ""])
arena_gets = st.one_of(
    st.builds(lambda a, v: (f"/api/v1/arenas/{a}/leaderboard", v), rest_names | st.just("hhl"),
              st.fixed_dictionaries({}, optional={"versions": query_values,
                                                   "limit": query_values})),
    st.builds(lambda n, v: (f"/api/v1/arena/bots/{n}/matches", v), rest_names,
              st.fixed_dictionaries({}, optional={"limit": query_values,
                                                   "before": query_values})),
    st.builds(lambda n, v: (f"/api/v1/arena/bots/{n}/history", v), rest_names,
              st.fixed_dictionaries({}, optional={"arena": query_values,
                                                   "version": query_values,
                                                   "limit": query_values})),
    st.builds(lambda n: (f"/api/v1/arena/bots/{n}", {}), rest_names),
    st.just(("/api/v1/arenas", {})))


def quoted(path: str) -> str:
    from urllib.parse import quote

    head, _, tail = path.partition("/api/v1/")
    return "/api/v1/" + quote(tail.encode("utf-8", "surrogatepass"), safe="/")


@HOSTILE
@given(request=arena_gets, etag=st.none() | ascii_keys | st.just('"abc", W/"x", *'))
def test_rest_arena_reads_with_anything(gateway, request, etag):
    from urllib.parse import urlencode

    path, query = request
    query = {k: v.encode("utf-8", "surrogatepass") for k, v in query.items()}
    url = quoted(path) + ("?" + urlencode(query) if query else "")
    status, data = rest(gateway.port, "GET", url, headers={"If-None-Match": etag} if etag
                        else {})
    assert status < 500, (status, data[:300])
    if status != 304:
        assert data[:1] == b"{", (status, url, data[:300])    # the JSON error body, or an answer


@HOSTILE
@given(body=st.fixed_dictionaries({}, optional={"name": surrogate_text | rest_values,
                                                "description": surrogate_text | rest_values})
       | rest_values | st.just(b"\xff\xfe"),
       name=rest_names, verb=st.sampled_from(["", "rotate", "retire"]),
       bearer=st.none() | st.just("BOTKEY") | ascii_keys)
def test_rest_arena_accounts_with_anything(engine, gateway, body, name, verb, bearer):
    """Registrations with any body, rotations and retirements of any name, with any key
    (the fixture's bot key among them: no operator key)."""
    key = engine.bot_key if bearer == "BOTKEY" else bearer
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    path = "/api/v1/arena/bots" + (quoted(f"/api/v1/{name}/{verb}")[7:] if verb else "")
    status, data = rest(gateway.port, "POST", path, None if verb else body, headers)
    assert status < 500, (status, data[:300])
    assert json.loads(data)


# ----- and afterwards ----------------------------------------------------------------------
def test_after_all_of_it_the_engine_is_whole(engine):
    """Runs last in this module: the lobby encodes, the clocks run, a restart works."""
    listed = engine.stub.ListMatches(engine_pb2.ListMatchesRequest(limit=1000), timeout=10)
    for m in listed.matches:
        assert m.options.WhichOneof("variant") in ("hhl", "domeng")
        game.options(m.options)
        game.match_result(m.result)
    before = engine.version(engine.match_id)
    wait_for(lambda: engine.version(engine.match_id) > before + 2, timeout=10,
             what="the canary's turn clock")
    engine.stop()
    engine.start(engine.port)                # kill -9, then the same store and port
    after = engine.version(engine.match_id)
    assert after >= before + 2
    wait_for(lambda: engine.version(engine.match_id) > after, timeout=10,
             what="the canary's clock after the restart")
    again = engine.stub.ListMatches(engine_pb2.ListMatchesRequest(limit=1000), timeout=10)
    assert len(again.matches) >= 1
