"""A spy against a running duplicate ladder (docs/security.md, "What is public, and when").

The spy reads everything public about the ladder, on every channel, as anyone can: the
ladder, its standings, its matches and their results (gRPC and REST), every match's
summary, spectator view, spectator Watch (and REST event stream) and record. From what it
gets it tries what worked before the seeds were keyed: rebuild deals from every seed it
saw (with the rules core, as `domino replay` would), solve the old affine rule for the
ladder's seed, read a finished sibling's record (a duplicate set plays one deal), and read
the tiles sibling matches showed their spectators. The test knows each live match's true
deal (in process) and asserts that none of it tells a single hidden tile of a live match,
then that the same spy, given the sibling's record the guard keeps, would have told them
all (so the spy is no straw man), and that once the ladder ends the set becomes public.
On both stores: SQLite and a real PostgreSQL.
"""

from __future__ import annotations

import http.client
import json

import grpc
import pytest

from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, ladder_pb2, ladder_pb2_grpc
from domino_wire import game
from engine_service import rules
from engine_service.core.engine import Engine
from engine_service.rpc.server import start_server
from tests.engine.support import refusal, wait_for
from tests.gateway.gateway_support import LiveGateway
from tests.hostile.test_hostile_clients import rest

OPTIONS = {"hands": 1}
OLD_STEP = 100003            # the rule seeds followed before: (ladder seed * 100003 + n) mod 2^63
SPACE = 2**63


@pytest.fixture
def served(store_db):
    """An engine on each store, behind its real gRPC server and a real gateway."""
    engine = Engine.open(store_db)
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=64)
    gateway = LiveGateway(f"127.0.0.1:{port}", ["random"])
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    yield engine, engine_pb2_grpc.EngineStub(channel), ladder_pb2_grpc.LadderStub(channel), gateway
    channel.close()
    gateway.close()
    server.stop(0)
    engine.close()


def events_refusal(port: int, match_id: str) -> str:
    """The reason GET .../events was refused with; "" when its stream opened (only its
    headers are read: a live match's stream goes on)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", f"/api/v1/matches/{match_id}/events")
        response = conn.getresponse()
        return "" if response.status == 200 else json.loads(response.read())["reason"]
    finally:
        conn.close()


def hands_of(deal) -> list[list[str]]:
    return [[str(t) for t in hand] for hand in deal.hands]


class Spy:
    """Reads what anyone may read; keeps every seed, record and spectator view it got."""

    def __init__(self, stub, ladders, gateway, ladder_id):
        self.stub, self.ladders, self.port, self.ladder_id = stub, ladders, gateway.port, ladder_id
        self.seeds: set[int] = set()
        self.records: list[dict] = []
        self.views: list[dict] = []
        self.refused: dict[str, set] = {}     # channel -> the reasons it was refused with

    def _refused(self, channel, reason):
        self.refused.setdefault(channel, set()).add(reason)

    def _grpc(self, channel, call):
        try:
            return call()
        except grpc.RpcError as err:
            code, r = refusal(err)
            assert code != grpc.StatusCode.INTERNAL, err
            self._refused(channel, r.reason)
            return None

    def _rest(self, channel, path):
        status, body = rest(self.port, "GET", path)
        if status != 200:
            self._refused(channel, json.loads(body)["reason"])
            return None
        return json.loads(body)

    def read_everything(self) -> list[str]:
        """Every public channel, once; returns the ladder's match ids."""
        get = ladder_pb2.GetLadderRequest(ladder_id=self.ladder_id)
        info = self.ladders.GetLadder(get, timeout=5)
        if info.HasField("seed"):
            self.seeds.add(info.seed)
        self.ladders.GetStandings(get, timeout=5)
        matches = self.ladders.ListLadderMatches(get, timeout=5).matches
        for m in matches:
            if m.HasField("result") and m.result.HasField("seed"):
                self.seeds.add(m.result.seed)
        for m in self._rest("rest ladder matches", f"/api/v1/ladders/{self.ladder_id}/matches")[
                "matches"]:
            if m["result"] and m["result"]["seed"] is not None:
                self.seeds.add(m["result"]["seed"])
        self.stub.ListMatches(engine_pb2.ListMatchesRequest(limit=1000), timeout=5)
        ids = [m.match_id for m in matches]
        for match_id in ids:
            got = self._grpc("GetMatch", lambda i=match_id: self.stub.GetMatch(
                engine_pb2.GetMatchRequest(match_id=i), timeout=5))
            if got is not None:
                self.views.append(game.view(got.view))
            record = self._grpc("GetRecord", lambda i=match_id: self.stub.GetRecord(
                engine_pb2.GetRecordRequest(match_id=i), timeout=5))
            if record is not None:
                self.records.append(json.loads(record.record_json))
            first = self._grpc("Watch", lambda i=match_id: next(iter(self.stub.Watch(
                engine_pb2.WatchRequest(match_id=i), timeout=5))))
            if first is not None:
                self.views.append(game.seat_view(first.snapshot.state))
            got = self._rest("rest match", f"/api/v1/matches/{match_id}")
            if got is not None:
                self.views.append(got["view"])
            got = self._rest("rest record", f"/api/v1/matches/{match_id}/record")
            if got is not None:
                self.records.append(got)
            refused = events_refusal(self.port, match_id)
            if refused:
                self._refused("rest events", refused)
            else:
                self.views.append({"history": []})   # an event stream opened: a leak
        for record in self.records:
            self.seeds.add(record["seed"])
        return ids

    def candidate_deals(self) -> list[list[list[str]]]:
        """The first deal of every match the spy can rebuild: from each seed it saw, from
        the ladder seeds the old affine rule would give (and their next 32 matches), and
        from each record it read."""
        seeds = set(self.seeds)
        inverse = pow(OLD_STEP, -1, SPACE)
        for seen in self.seeds:
            for n in range(32):
                ladder_seed = (seen - n) * inverse % SPACE
                seeds |= {(ladder_seed * OLD_STEP + k) % SPACE for k in range(32)}
        deals = [hands_of(rules.new_match("hhl", OPTIONS, seed=s).deals[0]) for s in seeds]
        return deals + [record["deals"][0]["hands"] for record in self.records]

    def seen_in_hand(self) -> set[tuple[int, str]]:
        """(seat, tile) pairs the spectator views showed: each was in that seat's hand."""
        return {(e["seat"], e["play"].split()[0]) for v in self.views
                for e in v.get("history", []) if e.get("kind") == "play"}


def hidden_tiles(referee) -> set[tuple[int, str]]:
    """(seat, tile) of every tile still hidden in a live match's hands (dealt, not played)."""
    deal = referee.match.deals[-1]
    played = {(e.seat, str(e.move.tile)) for e in deal.state.events if e.kind == "play"}
    return {(s, str(t)) for s, hand in enumerate(deal.hands) for t in hand} - played


def told(spy_deals, seen, live) -> tuple[int, int]:
    """What the spy's knowledge tells about the live matches: (live deals it holds whole,
    hidden tiles it places in the right hand)."""
    whole = sum(hands_of(r.match.deals[0]) in spy_deals for r in live)
    tiles = sum(len(seen & hidden_tiles(r)) for r in live)
    return whole, tiles


# Its matches are played by their clocks alone (no bot enlists), which a machine loaded
# many times over its cores slows down: it is given the minutes they may take there.
@pytest.mark.timeout(600)
def test_nothing_public_tells_a_hidden_tile_of_a_running_duplicate_ladder(served):
    engine, stub, ladders, gateway = served
    d, _ = engine.ladders.create({
        "variant": "hhl", "entrants": ["a", "b", "c", "d"], "format": "duplicate",
        "matches": 8, "concurrency": 2, "options": OPTIONS, "clock_ms": 100, "seat_wait_s": 1})
    assert d.set_size == 4
    set_of = {}

    def finished_and_live_in_one_set():
        """A set with a counted match and a live one that has played some tiles."""
        by_set = {}
        for m in d.matches():
            set_of[m["match_id"]] = m["set"]
            referee = engine.get(m["match_id"])
            by_set.setdefault(m["set"], []).append((m["status"], referee))
        for plays in by_set.values():
            counted = [r for st, r in plays if st == "counted"]
            live = [r for st, r in plays if st == "playing" and not r.match.over
                    and r.version >= 4]
            if counted and live:
                return counted, live
        return None
    found = []
    wait_for(lambda: found.append(finished_and_live_in_one_set()) or found[-1], timeout=240,
             what="a set with a finished and a live match")
    counted, live = found[-1]
    spy = Spy(stub, ladders, gateway, d.id)
    spy.read_everything()
    # The matches live when the spy began (on a loaded machine one may end while it reads:
    # its set, with matches still to play, stays hidden all the same).
    assert d.active, "the ladder ended while the spy read"

    # Nothing the spy got tells a hidden tile: (live deals held whole, hidden tiles placed).
    assert told(spy.candidate_deals(), spy.seen_in_hand(), live) == (0, 0)
    # It got no seed of the set, no record, no view of any match of the ladder: each
    # channel refused it, naming why.
    assert not spy.records and not spy.views
    for channel in ("GetMatch", "GetRecord", "Watch", "rest match", "rest record", "rest events"):
        assert "DEAL_IN_PLAY" in spy.refused[channel], (channel, spy.refused)

    # The spy is no straw man: the record the guard keeps would have told every live tile.
    sibling = engine.get(counted[0].id).record()
    spy.records.append(sibling)
    spy.seeds.add(sibling["seed"])
    whole, _ = told(spy.candidate_deals(), set(), live)
    assert whole == len(live)
    # ... and the old rule is solved by its algebra, from one public seed.
    ladder_seed = 12345678901234567
    spy.seeds = {(ladder_seed * OLD_STEP + 3) % SPACE}
    spy.records = []
    old_next = hands_of(rules.new_match("hhl", OPTIONS, seed=(ladder_seed * OLD_STEP + 7)
                                        % SPACE).deals[0])
    assert old_next in spy.candidate_deals()

    # Once the ladder is over (cancelled here) and its last matches too, all is public.
    d.cancel(engine.keys.principal(""))
    # Over as stored, which is what the guard reads (on any engine of a cluster): the
    # stored status follows the match's end by a write, and a match started just before
    # the cancel is the ladder's too.
    wait_for(lambda: all(engine.store.match(i).status == "over"
                         for i, _, _ in d.store.matches(d.id)), timeout=300,
             what="the ladder's matches to end, as stored")
    after = Spy(stub, ladders, gateway, d.id)
    after.read_everything()
    assert not after.refused, after.refused
    by_seed = {}
    for record in after.records:
        by_seed.setdefault(record["seed"], []).append(record["deals"][0]["hands"])
    assert any(len(hands) >= 2 and all(h == hands[0] for h in hands)
               for hands in by_seed.values())   # a set: one deal in every match
