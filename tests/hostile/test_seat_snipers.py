"""Seat snipers (docs/security.md, "Claiming a seat").

The attack that worked: ClaimSeat needed nothing, so a sniper polling ListMatches took 71
seats of other people's matches, and 5 of 15 `domino new-match` runs failed with
SEAT_TAKEN. Here, on an engine that needs keys (each store), a sniper polls ListMatches
and claims every seat it sees, with no key, with a key of its own and with made-up claim
secrets, while 15 `domino new-match` runs create and seat their matches: it gets no seat,
each refusal names why, and every run gets its four seats. An open seat (SeatSpec.open)
is the one thing anyone may claim, and the gateway's own key claims nothing for anyone.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading

import grpc
import pytest

from domino_cli.processes import DOMINO
from domino_proto.domino.v1 import common_pb2, engine_pb2, game_pb2
from domino_wire import game
from tests.engine.support import refusal
from tests.hostile.keyed import KeyedEngines, as_key, make_key

RUNS = 15


@pytest.fixture
def engines(durable_db, tmp_path):
    e = KeyedEngines(durable_db, str(tmp_path / "engines.log"))
    yield e
    e.close()


def claim(stub, match_id, seat, key="", secret=""):
    return stub.ClaimSeat(engine_pb2.ClaimSeatRequest(match_id=match_id, seat=seat,
                                                      claim_secret=secret),
                          timeout=5, metadata=as_key(key))


def refused(call) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    code, r = refusal(info.value)
    return code, r.reason


class Sniper(threading.Thread):
    """Polls every engine's waiting matches and claims every seat: with no key, with its
    own key, and with a claim secret of its own making."""

    def __init__(self, engines, own_key):
        super().__init__(daemon=True)
        self.engines, self.own_key = engines, own_key
        self.stop, self.taken, self.reasons = threading.Event(), 0, {}

    def run(self):
        while not self.stop.is_set():
            for stub in self.engines.engines:
                waiting = stub.ListMatches(engine_pb2.ListMatchesRequest(
                    status=common_pb2.MATCH_STATUS_WAITING, limit=1000), timeout=5).matches
                for m in waiting:
                    for s in m.seats:
                        if s.claimed:
                            continue
                        for how in ({}, {"key": self.own_key}, {"secret": "cs_" + "A" * 43}):
                            try:
                                claim(stub, m.match_id, s.seat, **how)
                                self.taken += 1
                            except grpc.RpcError as err:
                                code, r = refusal(err)
                                self.reasons.setdefault(r.reason, code)


def test_a_sniper_takes_no_seat_and_every_new_match_gets_its_own(engines, durable_db):
    alice = make_key(durable_db, "alice")
    # Two matches of alice's left waiting: the sniper sees their seats for sure.
    bait = [engines.engine(i).CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, here=True), timeout=5, metadata=as_key(alice)).match_id
        for i in range(2)]
    sniper = Sniper(engines, make_key(durable_db, "sniper"))
    sniper.start()
    env = {**os.environ, "DOMINO_API_KEY": alice}
    runs = [subprocess.Popen([*DOMINO, "new-match", "--engine", ",".join(engines.addresses),
                              "--variant", "hhl", "--option", "hands=1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(RUNS)]
    outs = [p.communicate(timeout=120) for p in runs]
    sniper.stop.set()
    sniper.join(30)
    failed = [err[-300:] for p, (_, err) in zip(runs, outs, strict=True) if p.returncode != 0]
    assert not failed, failed
    assert all(len(json.loads(out)["seat_tokens"]) == 4 for out, _ in outs)
    assert sniper.taken == 0
    # Each way it tried was refused, naming why (SEAT_TAKEN: a seat claimed as it tried).
    assert {"SEAT_NOT_OPEN", "NOT_YOURS", "BAD_CLAIM_SECRET"} <= set(sniper.reasons) <= {
        "SEAT_NOT_OPEN", "NOT_YOURS", "BAD_CLAIM_SECRET", "SEAT_TAKEN"}
    assert sniper.reasons["SEAT_NOT_OPEN"] == grpc.StatusCode.UNAUTHENTICATED
    assert sniper.reasons["NOT_YOURS"] == grpc.StatusCode.PERMISSION_DENIED
    for i, match_id in enumerate(bait):
        seats = engines.engine(i).GetMatch(engine_pb2.GetMatchRequest(match_id=match_id),
                                           timeout=5).summary.seats
        assert not any(s.claimed for s in seats)


def test_only_the_creator_claims_a_seat_unless_it_is_open(engines, durable_db):
    alice, bob = make_key(durable_db, "alice"), make_key(durable_db, "bob")
    stub = engines.engine(0)
    created = stub.CreateMatch(engine_pb2.CreateMatchRequest(
        variant=game_pb2.VARIANT_HHL, options=game.options_pb("hhl", {"hands": 1}), here=True,
        seats=[engine_pb2.SeatSpec(), engine_pb2.SeatSpec(),
               engine_pb2.SeatSpec(kind=common_pb2.SEAT_KIND_PERSON, open=True),
               engine_pb2.SeatSpec()]), timeout=5, metadata=as_key(alice))
    match_id, secrets = created.match_id, list(created.claim_secrets)
    assert secrets[2] == "" and all(s.startswith("cs_") for i, s in enumerate(secrets) if i != 2)
    assert [s.open for s in created.summary.seats] == [False, False, True, False]
    assert refused(lambda: claim(stub, match_id, 0)) == (grpc.StatusCode.UNAUTHENTICATED,
                                                         "SEAT_NOT_OPEN")
    assert refused(lambda: claim(stub, match_id, 0, key=bob)) == (
        grpc.StatusCode.PERMISSION_DENIED, "NOT_YOURS")
    assert refused(lambda: claim(stub, match_id, 0, secret=secrets[1])) == (
        grpc.StatusCode.UNAUTHENTICATED, "BAD_CLAIM_SECRET")       # another seat's secret
    assert refused(lambda: claim(stub, match_id, 0, key="dk_guess")) == (
        grpc.StatusCode.UNAUTHENTICATED, "BAD_KEY")
    assert refused(lambda: claim(stub, match_id, 9)) == (grpc.StatusCode.INVALID_ARGUMENT,
                                                         "BAD_SEAT")
    claim(stub, match_id, 2)                               # the open seat: anyone's
    claim(stub, match_id, 0, secret=secrets[0])            # a claim secret: whoever holds it
    claim(stub, match_id, 1, key=alice)                    # the creator's key
    assert refused(lambda: claim(stub, match_id, 1, key=alice)) == (
        grpc.StatusCode.ALREADY_EXISTS, "SEAT_TAKEN")
    assert refused(lambda: claim(stub, match_id, 3)) == (grpc.StatusCode.UNAUTHENTICATED,
                                                         "SEAT_NOT_OPEN")  # before TAKEN
    claim(stub, match_id, 3, secret=secrets[3])
    got = stub.GetMatch(engine_pb2.GetMatchRequest(match_id=match_id), timeout=5).summary
    assert got.status == common_pb2.MATCH_STATUS_LIVE


def test_the_gateway_lends_its_key_to_no_claim(engines, durable_db):
    """A lobby gateway creates matches with its own key for anyone; a sniper behind the
    same gateway still claims only the open seats, and the creator claims hers with the
    claim secret the creation answer gave her."""
    from gateway import create_app

    lobby_key = make_key(durable_db, "lobby")
    web = create_app({"ENGINE_ADDRESS": engines.addresses[0], "API_KEY": lobby_key}).test_client()
    r = web.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1}, "seats": [
        {"kind": "person"}, {"kind": "person", "open": True}, {"kind": "person"},
        {"kind": "person"}]})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    match_id, secrets = made["match_id"], made["claim_secrets"]
    assert secrets[1] is None and [s["open"] for s in made["seats"]] == [False, True, False, False]
    listed = web.get("/api/v1/matches?status=waiting").get_json()["matches"]
    assert "claim_secrets" not in json.dumps(listed) and secrets[0] not in json.dumps(listed)
    seat = f"/api/v1/matches/{match_id}/seats"
    r = web.post(f"{seat}/0/claim")
    assert (r.status_code, r.get_json()["reason"]) == (401, "SEAT_NOT_OPEN")
    r = web.post(f"{seat}/0/claim", json={"claim_secret": "cs_nope"})
    assert (r.status_code, r.get_json()["reason"]) == (401, "BAD_CLAIM_SECRET")
    other = make_key(durable_db, "other")
    r = web.post(f"{seat}/0/claim", headers={"Authorization": f"Bearer {other}"})
    assert (r.status_code, r.get_json()["reason"]) == (403, "NOT_YOURS")
    assert web.post(f"{seat}/1/claim").status_code == 200                     # open
    r = web.post(f"{seat}/0/claim", json={"claim_secret": secrets[0]})
    assert r.status_code == 200 and r.get_json()["seat_token"]
    r = web.post(f"{seat}/2/claim", headers={"Authorization": f"Bearer {lobby_key}"})
    assert r.status_code == 200          # the key that created it, sent by its holder
