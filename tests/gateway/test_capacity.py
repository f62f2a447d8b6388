"""The gateway holds a crowd (docs/gateway.md, "How it serves"): hundreds of event streams
at once while REST still answers at once and every event reaches every watcher; idle and
slow connections cannot lock anyone out; two gateway processes serve the same matches.

Bounded counts here (300 streams), and no timing: `make bench` (section gateway) takes
1,000 and gives the latency figures (REST p99 with the streams open, an event's delay to
every watcher). A test on a loaded machine would measure the load.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from gateway_support import LiveGateway, wait_for

from benchmarks.sse_crowd import Crowd

STREAMS = 300


def person_match(client) -> tuple[str, list[str]]:
    created = client.post("/api/v1/matches", json={
        "variant": "hhl", "options": {"hands": 3}, "person_clock_ms": 3_600_000}).get_json()
    tokens = [client.post(f"/api/v1/matches/{created['match_id']}/seats/{s}/claim")
              .get_json()["seat_token"] for s in range(4)]
    return created["match_id"], tokens


def play_one(client, match_id, tokens) -> int:
    """The seat to move plays its first legal move; returns the new version."""
    to_move = client.get(f"/api/v1/matches/{match_id}").get_json()["to_move"]
    auth = {"Authorization": f"Bearer {tokens[to_move]}"}
    state = client.get(f"/api/v1/matches/{match_id}/view", headers=auth).get_json()
    done = client.post(f"/api/v1/matches/{match_id}/moves", headers=auth, json={
        "version": state["version"], "move_id": state["legal_moves"][0]["id"]})
    assert done.status_code == 200, done.get_json()
    return done.get_json()["version"]


def test_hundreds_of_streams_rest_answers_and_every_event_reaches_every_watcher(live, client):
    match_id, tokens = person_match(client)
    crowd = Crowd(live.port, f"/api/v1/matches/{match_id}/events", STREAMS)
    try:
        wait_for(lambda: crowd.snapshots == STREAMS, timeout=60)
        assert not crowd.refused
        # One engine stream serves them all: the spectators of a match share it.
        streams = live.server.app.streams
        assert list(streams.fanouts) == [match_id] and len(streams.fanouts[match_id].queues) == STREAMS
        for _ in range(40):       # REST answers with the streams open
            with urllib.request.urlopen(f"{live.url}/api/v1/matches/{match_id}", timeout=10) as r:
                assert r.status == 200
        for _ in range(4):        # and each move's event reaches every watcher, once
            version = play_one(client, match_id, tokens)
            wait_for(lambda v=version: crowd.count("events", v) == STREAMS, timeout=60)
        assert not crowd.refused and crowd.snapshots == STREAMS
    finally:
        crowd.close()
    wait_for(lambda: not live.server.app.streams.fanouts, timeout=10)   # let go when all left


@pytest.mark.parametrize("http", ["auto", "h11"])
def test_idle_and_slow_connections_cannot_lock_anyone_out(engine_address, client, http):
    # The request deadline is long enough that "served at once" means "served while the
    # slowloris is still held open", however loaded the machine.
    gw = LiveGateway(engine_address, ["random"], max_per_address=20, request_timeout_s=3.0,
                     http=http)
    held = []
    # A spectator's event stream, opened first: its request was in at once, so the deadline
    # that closes the idle ones below never closes it.
    match_id, _ = person_match(client)
    watching = urllib.request.urlopen(f"{gw.url}/api/v1/matches/{match_id}/events", timeout=15)
    try:
        assert watching.readline().startswith(b"retry:")
        # One address takes all it may: the next connection is refused with 503 at once.
        for _ in range(20):
            held.append(socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.9", 0)))
        extra = socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.9", 0))
        extra.settimeout(5)
        assert extra.recv(200).startswith(b"HTTP/1.1 503")
        extra.close()
        # A slowloris from another address trickles one header line now and then.
        slow = socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.10", 0))
        slow.sendall(b"GET /api/v1/variants HTTP/1.1\r\n")
        # Another sends a whole head, then a body that never comes.
        body = socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.11", 0))
        body.sendall(b"POST /api/v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: 100\r\n\r\n{")
        held.append(body)
        # Meanwhile everyone else is served at once: before the deadline closes the slowloris.
        with urllib.request.urlopen(f"{gw.url}/api/v1/variants", timeout=5) as r:
            assert r.status == 200
        slow.setblocking(False)
        with pytest.raises(BlockingIOError):    # still open, nothing sent to it yet
            slow.recv(100)
        slow.setblocking(True)
        # The idle ones and the slowloris are closed by the request deadline (3 s here),
        # however the slowloris trickles: a header line now and then does not extend it.
        slow.settimeout(0.2)
        for _ in range(100):
            slow.sendall(b"X-Trickle: 1\r\n")
            try:
                if slow.recv(100) == b"":
                    break
            except TimeoutError:
                continue
            except ConnectionResetError:
                break
        else:
            raise AssertionError("the server kept the slowloris's request open for 20 s")
        for sock in held:
            sock.settimeout(20)
            assert sock.recv(100) == b"", "the server kept an incomplete request open"
        # The stream outlived them: its next keepalive (every 5 s) still comes.
        assert any(line.startswith(b"event: keepalive") for line in watching)
        # and the address may connect again
        with urllib.request.urlopen(f"{gw.url}/api/v1/variants", timeout=5) as r:
            assert r.status == 200
    finally:
        watching.close()
        for sock in held:
            sock.close()
        gw.close()


def test_two_gateway_processes_serve_the_same_matches(engine_address, tmp_path):
    def gateway():
        proc = subprocess.Popen([sys.executable, "-m", "domino_cli", "gateway", "--engine",
                                 engine_address, "--port", "0", "--bots", "random"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ))
        line = proc.stdout.readline()
        assert line.startswith("gateway listening on http://127.0.0.1:"), line
        return proc, line.split()[3].rstrip("/")

    def call(url, method="GET", body=None, token=""):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                         method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())

    (a, url_a), (b, url_b) = gateway(), gateway()
    try:
        created = call(url_a + "/api/v1/matches", "POST", {
            "variant": "hhl", "options": {"hands": 1}, "person_clock_ms": 3_600_000,
            "seats": [{"kind": "person"}] + [{"kind": "bot", "strategy": "random"}] * 3})
        match_id = created["match_id"]
        port_a, port_b = (int(u.rsplit(":", 1)[1]) for u in (url_a, url_b))
        watch_a = Crowd(port_a, f"/api/v1/matches/{match_id}/events", 3)
        watch_b = Crowd(port_b, f"/api/v1/matches/{match_id}/events", 3)
        token = call(f"{url_b}/api/v1/matches/{match_id}/seats/0/claim", "POST")["seat_token"]
        urls = [url_a, url_b]
        moves = 0
        while True:                                   # the person's moves, through both
            url = urls[moves % 2]
            state = call(f"{url}/api/v1/matches/{match_id}/view", token=token)
            if state["to_move"] is None:
                break
            if state["to_move"] != 0:
                time.sleep(0.02)
                continue
            call(f"{url}/api/v1/matches/{match_id}/moves", "POST",
                 {"version": state["version"], "move_id": state["legal_moves"][0]["id"]}, token)
            moves += 1
        final = call(f"{url_a}/api/v1/matches/{match_id}")["version"]
        for crowd in (watch_a, watch_b):             # both saw the whole match
            wait_for(lambda c=crowd: c.count("match_over", final) == 3, timeout=20)
        assert moves >= 2
        assert call(f"{url_b}/api/v1/matches/{match_id}/record")["result"] == \
            call(f"{url_a}/api/v1/matches/{match_id}")["result"]
        watch_a.close()
        watch_b.close()
    finally:
        for p in (a, b):
            p.terminate()
            p.wait(60)
