"""The attacks of hostile clients, each turned into a test of the bound that answers it
(docs/security.md), against a real `domino engine` process (and a real gateway) on
127.0.0.1, on each store: SQLite, and a real PostgreSQL.

* forks of a long record: a forked match holds its fork point's deal, not the record;
  it comes back at its version after a restart; its record is rebuilt from the store;
  forks are charged to the creator's quotas before their work; too long a record is
  refused naming the field; one fork in work per client address;
* SampleWorlds from many seats of one client: refused on the client's CPU budget;
* spectators that never read: at most so many Watch streams of a match, and a stream
  left unread is dropped (SLOW_READER) while the seats play on;
* a bot that floods illegal moves: held by the network's window, not buffered, and a bot
  that reads nothing is dropped;
* event streams past the gateway's caps: refused (429 TOO_MANY_STREAMS) while REST
  answers.

The figures (memory, latencies, restart times) are benchmarks: `python -m benchmarks
safety` (benchmarks/safety_bench.py); tests/bench_smoke runs it in its smoke mode, and
checks that each attack said what it measured.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import queue
import threading
import time
import urllib.request

import grpc
import pytest

from bots.arena import play_match
from bots.strategies import make_strategy
from domino_cli.processes import metrics_port_of
from domino_proto.domino.v1 import (
    common_pb2,
    engine_pb2,
    engine_pb2_grpc,
    game_pb2,
    play_pb2,
    play_pb2_grpc,
)
from domino_wire import game
from domino_wire.refusals import refusal_of
from engine_service import rules
from engine_service.core.engine import WATCHES_PER_MATCH
from engine_service.core.engine import Engine as CoreEngine
from engine_service.core.errors import EngineError
from engine_service.core.security.keys import Quotas
from engine_service.rpc import play_session
from engine_service.rules.fork import MAX_FORK_PLAYS
from tests.engine.support import refusal, start_engine, wait_for
from tests.metrics_support import Scrape
from tests.pg_server import STORES

CLOCK_MS = 3_600_000


def long_record(hands: int = 60) -> dict:
    bots = [make_strategy("random", 40 + s) for s in range(4)]
    return play_match("hhl", {"hands": hands}, 3, bots).record()


def plays_of(record: dict) -> list[dict]:
    return [e for d in record["deals"] for e in d["moves"] if "play" in e]


@pytest.fixture(scope="module")
def record():
    return long_record()


class Served:
    """A real engine process on `db`, restartable on the same store and port."""

    def __init__(self, db: str, log):
        self.db, self.log, self.port = db, log, 0
        self.start()

    def start(self):
        # A client's sampling budget small enough that its burst, not the machine's
        # speed, decides when it runs out: a loaded machine's slow workers used the
        # default 0.2 CPU s a second no faster than it refilled, and no refusal came.
        self.proc, self.port = start_engine(self.db, self.port, self.log,
                                            extra=("--sampling-budget", "0.01",
                                                   "--metrics-port", "0"))
        self.address = f"127.0.0.1:{self.port}"
        self.metrics = f"http://127.0.0.1:{metrics_port_of(self.proc.ready_line)}/metrics"
        self.channel = grpc.insecure_channel(self.address)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)
        self.play = play_pb2_grpc.PlayStub(self.channel)
        # A client whose receive window does not grow (as the engine's does not): what it
        # leaves unread stays with the engine, which must then let it go. (A client whose
        # window grows takes the engine's messages into its own memory instead.)
        self.narrow = grpc.insecure_channel(self.address, options=[("grpc.http2.bdp_probe", 0)])

    def moves(self, match_id: str, tokens: list[str], count: int) -> int:
        for _ in range(count):
            version = self.move(match_id, tokens)
        return version

    def moves_until_dropped(self, match_id: str, tokens: list[str]) -> tuple[int, int]:
        """Play on until the engine has ended one more stream SLOW_READER (its refusal
        counter says so), at most UNREAD_MOVES moves: (moves played, the match's version).
        Playing a fixed number of moves "far more than needed" cost minutes a store."""
        dropped = self.slow_readers()
        played = 0
        while self.slow_readers() == dropped:
            assert played < UNREAD_MOVES, f"no stream was dropped in {played} moves"
            version = self.moves(match_id, tokens, DROP_CHECK_EVERY)
            played += DROP_CHECK_EVERY
        return played, version

    def slow_readers(self) -> float:
        return Scrape(self.metrics).get("domino_engine_refusals_total", reason="SLOW_READER")

    def stop(self):
        self.channel.close()
        self.narrow.close()
        self.proc.kill()
        self.proc.wait(10)

    def match(self, hands: int = 1000, seats: int = 4) -> tuple[str, list[str]]:
        created = self.stub.CreateMatch(engine_pb2.CreateMatchRequest(
            variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": hands}),
            person_clock_ms=CLOCK_MS, bot_clock_ms=CLOCK_MS), timeout=10)
        return created.match_id, [self.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(
            match_id=created.match_id, seat=s), timeout=10).seat_token for s in range(seats)]

    def move(self, match_id: str, tokens: list[str]) -> int:
        """The seat to move plays its first legal move; returns the new version. A move
        the store was too slow for (STORE_UNAVAILABLE: a loaded machine's PostgreSQL past
        the engine's 0.5 s bound) is made again, as the refusal asks a client to, and so
        is one whose turn the engine played meanwhile (a seat it plays as absent: the view
        then lists no legal move, or the move comes STALE_VERSION or NOT_YOUR_TURN)."""
        deadline = time.monotonic() + 60
        while True:
            try:
                version = self._move(match_id, tokens)
                if version is not None or time.monotonic() > deadline:
                    assert version is not None, "the seat to move was never shown a move"
                    return version
            except grpc.RpcError as e:
                again = (e.code() == grpc.StatusCode.UNAVAILABLE and "STORE_UNAVAILABLE" in
                         (e.details() or "")) or getattr(refusal_of(e), "reason", "") in (
                             "STALE_VERSION", "NOT_YOUR_TURN")
                if not again or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)   # "try again shortly": the store's probe lets calls in

    def _move(self, match_id: str, tokens: list[str]) -> int | None:
        seat = self.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                  timeout=10).summary.to_move
        state = self.stub.GetView(engine_pb2.GetViewRequest(match_id=match_id,
                                                            seat_token=tokens[seat]), timeout=10)
        if not state.legal_moves:
            return None
        return self.stub.SubmitMove(engine_pb2.SubmitMoveRequest(
            match_id=match_id, seat_token=tokens[seat], expected_version=state.version,
            move_id=state.legal_moves[0].id), timeout=10).version


@pytest.fixture(scope="module", params=STORES)
def served(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("attacks")
    db = (str(folder / "engine.sqlite3") if request.param == "sqlite"
          else request.getfixturevalue("pg_server").database())
    s = Served(db, folder / "engine.log")
    yield s
    s.stop()


def fork_request(record, at: int, **fields) -> engine_pb2.CreateMatchRequest:
    text = record if isinstance(record, str) else json.dumps(record)
    return engine_pb2.CreateMatchRequest(fork=engine_pb2.ForkFrom(record_json=text, at=at),
                                         **fields)


# ----- forks ------------------------------------------------------------------------------
def test_a_fork_of_a_long_record_holds_its_deal_and_comes_back_after_a_restart(
        served, record):
    at = len(plays_of(record)) - 1
    created = served.stub.CreateMatch(fork_request(record, at, bot_clock_ms=CLOCK_MS),
                                      timeout=60)
    assert created.summary.version == at
    match_id = created.match_id
    tokens = [served.stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=match_id, seat=s),
                                    timeout=10).seat_token for s in range(4)]
    before = [served.stub.GetView(engine_pb2.GetViewRequest(match_id=match_id, seat_token=t),
                                  timeout=10) for t in tokens]
    served.stop()                                  # kill -9
    served.start()
    after = [served.stub.GetView(engine_pb2.GetViewRequest(match_id=match_id, seat_token=t),
                                 timeout=10) for t in tokens]
    for state in before + after:
        state.ClearField("deadline_unix_ms")       # the clock starts again at a restart
    assert after == before and after[0].version == at
    while served.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                               timeout=10).summary.status != common_pb2.MATCH_STATUS_OVER:
        served.move(match_id, tokens)
    new = json.loads(served.stub.GetRecord(engine_pb2.GetRecordRequest(match_id=match_id),
                                           timeout=60).record_json)
    assert [(e["seat"], e["play"]) for e in plays_of(new)[:at]] == \
        [(e["seat"], e["play"]) for e in plays_of(record)[:at]]
    assert len(new["deals"]) == len(record["deals"]) and "result" in new
    rules.replay_record(new)                       # the rebuilt record replays


def test_a_live_fork_keeps_only_its_fork_points_deal_in_memory(store_db, record):
    """In the engine: the rules match of a fork at the record's last play holds that
    deal's events only, and the referee's row none of the record (it is in the store)."""
    engine = CoreEngine.open(store_db)
    try:
        at = len(plays_of(record)) - 1
        referee = engine.create_match("", fork=(json.dumps(record), at))
        deal_start = max(i for i, e in enumerate(referee.match.events)
                         if e.kind == "deal_start")
        assert deal_start == 0                      # no event of an earlier deal
        assert len(referee.match.deals) == len(record["deals"])   # but it counts them
        assert "record" not in referee.row.settings["fork"]
        assert "record" in engine.store.match(referee.id).settings["fork"]
        assert len(referee.history) == 0           # no answer kept for the forked plays
    finally:
        engine.close()


def test_forks_are_charged_to_the_creators_quotas_before_their_work(tmp_path, record):
    engine = CoreEngine.open(str(tmp_path / "e.sqlite3"), keys_required=True)
    try:
        who = engine.keys.principal(engine.keys.create("forker",
                                                       Quotas(matches_per_minute=2)))
        text = json.dumps(record)
        with pytest.raises(EngineError) as bad:       # refused by the rules: charged too
            engine.create_match("", fork=(text, 10**6), principal=who)
        assert bad.value.field == "fork.at"
        engine.create_match("", fork=(text, 5), principal=who)
        with pytest.raises(EngineError) as over:
            engine.create_match("", fork=(text, 5), principal=who)
        assert over.value.reason == "QUOTA_EXCEEDED"
        assert engine.workers.in_flight == 0
    finally:
        engine.close()


def test_a_record_with_too_many_plays_is_refused_naming_the_field(served):
    record = {"format": rules.RECORD_FORMAT, "variant": "hhl", "options": {"hands": 1},
              "deals": [{"hands": [[], [], [], []], "stock": [],
                         "moves": [{"seat": 0, "play": "0-0"}] * (MAX_FORK_PLAYS + 1)}]}
    with pytest.raises(grpc.RpcError) as e:
        served.stub.CreateMatch(fork_request(record, 1), timeout=30)
    code, r = refusal(e.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and r.field == "fork.record_json"
    assert f"at most {MAX_FORK_PLAYS} plays" in r.message


def test_one_fork_in_work_per_client_address(tmp_path, monkeypatch):
    from engine_service.core import engine as engine_module

    monkeypatch.setattr(engine_module, "FORK_REFUSAL_DELAY_S", 0.0)
    engine = CoreEngine.open(str(tmp_path / "e.sqlite3"))
    try:
        with engine.forking_for("10.0.0.1"):
            with pytest.raises(EngineError) as busy, engine.forking_for("10.0.0.1"):
                pass
            assert busy.value.reason == "BUSY"
            with engine.forking_for("10.0.0.2"):    # another address is not held back
                pass
        with engine.forking_for("10.0.0.1"):        # free again once answered
            pass
    finally:
        engine.close()


# ----- SampleWorlds -------------------------------------------------------------------------
def test_many_seats_of_one_client_are_held_to_the_clients_budget(served):
    seats = [(m, t) for m, tokens in (served.match() for _ in range(8)) for t in tokens]
    reasons = []
    for _ in range(20):              # each seat asks twice at most: under its own rate
        for match_id, token in seats:
            try:
                served.play.SampleWorlds(play_pb2.SampleWorldsRequest(
                    match_id=match_id, seat_token=token, count=1000), timeout=30)
            except grpc.RpcError as err:
                code, r = refusal(err)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
                reasons.append(r.message)
        if any("your address" in m for m in reasons):
            break
    assert any("your address's sampling is over its budget" in m for m in reasons), reasons


# ----- spectators ---------------------------------------------------------------------------
def test_a_match_takes_so_many_watchers_and_an_unread_one_is_dropped(served):
    match_id, tokens = served.match()
    request = engine_pb2.WatchRequest(match_id=match_id)
    narrow = engine_pb2_grpc.EngineStub(served.narrow)
    held = [narrow.Watch(request, timeout=300)] + [
        served.stub.Watch(request, timeout=120) for _ in range(WATCHES_PER_MATCH - 1)]
    for call in held:
        assert next(call).WhichOneof("body") == "snapshot"
    extra = served.stub.Watch(request, timeout=30)
    with pytest.raises(grpc.RpcError) as e:
        next(extra)
    code, r = refusal(e.value)
    assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS")
    for call in held[1:]:
        call.cancel()
    wait_for(lambda: all(c.done() for c in held[1:]), what="the watchers to go")
    unread = held[0]                 # read no further: it falls behind, and is dropped
    played, version = served.moves_until_dropped(match_id, tokens)  # the seats play on
    got = read_until_refused(unread)
    # One message a move, had it stayed (and a keepalive now and then); the WATCH_BEHIND
    # waiting when it overflowed were never sent.
    assert got < played, (got, played)
    fresh = served.stub.Watch(request, timeout=30)     # it may come back: a fresh snapshot
    assert next(fresh).snapshot.state.version == version
    fresh.cancel()


UNREAD_MOVES = 4000      # far more than a stream's bound plus what a 64 KB window holds
DROP_CHECK_EVERY = 50    # moves between two looks at the engine's SLOW_READER count


def read_until_refused(stream) -> int:
    """Read what a dropped stream still had on its way; it ends with SLOW_READER (the
    status comes after the messages that wait in the window). Returns how many came."""
    got = 0
    with pytest.raises(grpc.RpcError) as dropped:
        for _ in stream:
            got += 1
    code, r = refusal(dropped.value)
    assert (code, r.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SLOW_READER")
    return got


# ----- refusal floods ------------------------------------------------------------------------
def test_a_bot_flooding_illegal_moves_is_held_by_the_window(served):
    match_id, tokens = served.match()
    leader = served.stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                  timeout=10).summary.to_move
    bad = play_pb2.BotMessage(move=play_pb2.MoveChoice(version=0, move_text="6-6 sideways"))

    async def flood() -> tuple[int, int]:
        async with grpc.aio.insecure_channel(served.address) as channel:
            # The call's deadline ends whatever still waits in it (a write the engine
            # never takes): nothing here waits on a cancelled gRPC operation.
            call = play_pb2_grpc.PlayStub(channel).Connect(timeout=60)
            await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                seat=play_pb2.SeatAuth(match_id=match_id, seat_token=tokens[leader]))))
            sent = [0]

            async def write() -> None:
                while sent[0] < 200_000:
                    await call.write(bad)
                    sent[0] += 1

            writer = asyncio.ensure_future(write())
            # Until the writes slow to the pace the engine reads at (a refusal's token a
            # second; gRPC hands back the window a message at a time): the window is full.
            seen = -1
            while sent[0] - seen > 100 and not writer.done():
                seen = sent[0]
                await asyncio.sleep(2.0)
            answers = 0
            while answers <= play_session.REFUSALS_BURST:
                message = await call.read()
                assert message is not grpc.aio.EOF
                answers += message.WhichOneof("body") == "answer"
            call.cancel()
            return sent[0], answers

    sent, answers = asyncio.run(flood())
    # A 64 KB window holds some thousands of these; without it gRPC took hundreds of
    # thousands, buffered in the engine.
    assert sent < 20_000, sent
    assert answers == play_session.REFUSALS_BURST + 1


def test_a_bot_that_reads_nothing_is_dropped_and_its_seat_played_on(served):
    match_id, tokens = served.match()
    hello = play_pb2.BotMessage(hello=play_pb2.Hello(
        seat=play_pb2.SeatAuth(match_id=match_id, seat_token=tokens[0])))
    outbox = queue.SimpleQueue()
    outbox.put(hello)                # and then nothing: the stream stays open, unread
    stream = play_pb2_grpc.PlayStub(served.narrow).Connect(iter(outbox.get, None), timeout=300)
    # every seat played by the test (its own too, with its token), its stream unread
    played, _ = served.moves_until_dropped(match_id, tokens)
    got = read_until_refused(stream)
    outbox.put(None)
    assert got < played, (got, played)   # one message a move at least, had it stayed


# ----- event streams at the gateway -----------------------------------------------------------
def test_event_streams_past_the_gateways_caps_are_refused_and_rest_answers(served):
    from benchmarks.sse_crowd import Crowd
    from gateway.server import GatewayServer

    server = GatewayServer({"ENGINE_ADDRESS": served.address, "HOUSE_STRATEGIES": [],
                            "MAX_STREAMS": 6, "MAX_STREAMS_PER_ADDRESS": 4}, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    match_id, _ = served.match()
    path = f"/api/v1/matches/{match_id}/events"
    one = Crowd(server.port, path, 5, addresses=1)           # 127.0.0.1 only
    try:
        wait_for(lambda: one.snapshots + len(one.refused) == 5, what="five streams")
        assert one.snapshots == 4 and one.refused == ["HTTP/1.1 429 Too Many Requests"]
        two = Crowd(server.port, path, 4, addresses=3)       # 127.0.0.1 .. 127.0.0.3
        try:
            wait_for(lambda: two.snapshots + len(two.refused) == 4, what="four more")
            assert one.snapshots + two.snapshots == 6        # the gateway's cap
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/v1/matches/"
                                        f"{match_id}", timeout=10) as answer:
                assert answer.status == 200                  # REST is not held back
        finally:
            two.close()
    finally:
        one.close()
        server.close()
        thread.join(10)


def test_a_second_fork_body_of_an_address_is_refused_before_it_is_read(served, record):
    from gateway.server import GatewayServer

    server = GatewayServer({"ENGINE_ADDRESS": served.address, "HOUSE_STRATEGIES": []},
                           "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    body = json.dumps({"fork": {"record": record, "at": len(plays_of(record)) - 1}}).encode()
    assert len(body) > 64 * 1024             # a body only a fork may send

    def post():
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        conn.request("POST", "/api/v1/matches", body=body,
                     headers={"Content-Type": "application/json"})
        answer = conn.getresponse()
        out = (answer.status, json.loads(answer.read()), answer.getheader("Connection"))
        conn.close()
        return out

    try:
        first = []
        worker = threading.Thread(target=lambda: first.append(post()))
        worker.start()
        wait_for(lambda: server.app.fork_gate.in_hand == 1, what="the first fork in hand")
        status, answer, connection = post()
        worker.join(120)
        # The first holds the gate until the engine made its fork (a good part of a
        # second for this record): the second comes while it does.
        assert first and first[0][0] == 201, first
        assert (status, answer["reason"], connection) == (429, "BUSY", "close")
        # (the gate is left once the answer is sent: the client may read it first)
        wait_for(lambda: server.app.fork_gate.in_hand == 0, what="the gate left")
    finally:
        server.close()
        thread.join(10)
