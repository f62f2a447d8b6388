"""Helpers for the gateway tests: real engine and bot processes, a live gateway, a REST
player that plays one seat of a match to its end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

from tests.engine.support import start_engine

__all__ = ["start_engine", "start_house_bots", "LiveGateway", "RestPlayer", "wait_for", "error",
           "ERROR_KEYS"]

# House bots the suite runs (pool "house-random"): real `domino bot` processes.
STRATEGIES = ["random"]


def bot_seats(n, human=(0,), open_=()):
    """Seat specs: human seats at `human` (claimed by the creator), open ones (anyone may
    claim them: the lobby's open seats) at `open_`, house bots elsewhere."""
    return [{"kind": "person"} if s in human else {"kind": "person", "open": True}
            if s in open_ else {"kind": "bot", "strategy": "random"} for s in range(n)]


def start_house_bots(address: str, strategies: list[str], secrets: dict[str, str],
                     log_path: str) -> list[subprocess.Popen]:
    """The house bots `domino serve` would start, as real processes, with their pools'
    secrets (domino_cli.serve_cmd.house_pools)."""
    from domino_cli.serve_cmd import house_bot_commands
    from domino_cli.serve_cmd import start_house_bots as start

    with open(log_path, "a") as log:
        return start(house_bot_commands(address, strategies), secrets, strategies, log)


class LiveGateway:
    """The gateway behind its real server (gateway/server.py) in a thread of the test process."""

    def __init__(self, engine_address: str, strategies: list[str], cors=None, **guards):
        from domino_cli.serve_cmd import make_server

        self.server = make_server(engine_address, "127.0.0.1", 0, strategies, threads=16,
                                  cors=cors, **guards)
        self.port = self.server.port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    def close(self):
        self.server.close()


def wait_for(predicate, timeout=30.0, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout} s")


class RestPlayer:
    """Plays one seat through the REST API (a Flask test client or anything with the same
    get/post), alternating moves by id and by text."""

    def __init__(self, client, match_id: str, seat: int):
        self.client, self.match_id, self.seat = client, match_id, seat
        r = client.post(f"/api/v1/matches/{match_id}/seats/{seat}/claim")
        assert r.status_code == 200, r.get_json()
        self.token = r.get_json()["seat_token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}
        self.moves = 0

    def view(self) -> dict:
        r = self.client.get(f"/api/v1/matches/{self.match_id}/view", headers=self.auth)
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def play_to_end(self, timeout=90.0) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.view()
            if state["to_move"] is None:
                return state
            if state["to_move"] != self.seat or not state["legal_moves"]:
                time.sleep(0.01)
                continue
            choice = state["legal_moves"][self.moves % len(state["legal_moves"])]
            body = ({"version": state["version"], "move_id": choice["id"]} if self.moves % 2
                    else {"version": state["version"], "move_text": choice["text"]})
            r = self.client.post(f"/api/v1/matches/{self.match_id}/moves", json=body,
                                 headers=self.auth)
            if r.status_code == 409 and r.get_json()["reason"] == "STALE_VERSION":
                continue   # the clock played for us meanwhile
            assert r.status_code == 200, r.get_json()
            answer = r.get_json()
            assert answer["version"] > state["version"]
            assert answer["move_text"] == choice["text"]
            assert answer["events"] and answer["events"][0]["kind"] in ("play", "draw")
            self.moves += 1
        raise AssertionError("the match did not end in time")


def replay(record: dict, tmp_path) -> subprocess.CompletedProcess:
    path = os.path.join(tmp_path, "record.json")
    with open(path, "w") as f:
        json.dump(record, f)
    return subprocess.run([sys.executable, "-m", "domino_cli", "replay", path],
                          capture_output=True, text=True, timeout=60)


ERROR_KEYS = {"code", "status", "reason", "message", "version", "legal_moves"}


def error(r, status, reason):
    """Assert a Flask test response is the one JSON error body with this status and reason."""
    body = r.get_json()
    assert r.status_code == status, body
    assert r.mimetype == "application/json"
    assert ERROR_KEYS <= set(body), body
    assert body["code"] == status and body["reason"] == reason, body
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["legal_moves"], list)
    return body


def seat_everyone(client, variant: str, seed: int, options: dict) -> tuple[str, list[dict]]:
    """A match whose every seat is a person's, claimed here: (match_id, auth headers by seat).
    The test then chooses every move, so the position it reaches is always the same."""
    r = client.post("/api/v1/matches", json={"variant": variant, "seed": seed, "options": options})
    assert r.status_code == 201, r.get_json()
    match = r.get_json()
    auths = []
    for seat in range(match["num_seats"]):
        r = client.post(f"/api/v1/matches/{match['match_id']}/seats/{seat}/claim")
        assert r.status_code == 200, r.get_json()
        auths.append({"Authorization": f"Bearer {r.get_json()['seat_token']}"})
    return match["match_id"], auths


def play_until(client, match_id: str, auths: list[dict], choose, stop) -> dict:
    """Play the seat to move, `choose(legal_texts, move_number)`, until `stop(view)` says so;
    returns the spectator's match then."""
    for number in range(200):
        match = client.get(f"/api/v1/matches/{match_id}").get_json()
        if stop(match["view"]) or match["to_move"] is None:
            return match
        seat = match["to_move"]
        state = client.get(f"/api/v1/matches/{match_id}/view", headers=auths[seat]).get_json()
        text = choose([m["text"] for m in state["legal_moves"]], number)
        r = client.post(f"/api/v1/matches/{match_id}/moves", headers=auths[seat],
                        json={"version": state["version"], "move_text": text})
        assert r.status_code == 200, r.get_json()
    raise AssertionError("no stop in 200 moves")


def sse_messages(url: str, headers: dict | None = None, until: str = "match_over",
                 timeout: float = 60.0, opened=None):
    """The messages of a real event stream, parsed as a client's EventSource would hand
    them: [{"event", "id"?, "data"}], up to the first `until` (the stream's `retry` line,
    a block of no event, is skipped). `opened`, a threading.Event, is set at the first."""
    import urllib.request

    out: list[dict] = []
    block: dict = {}
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=timeout) as stream:
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line:
                name, _, value = line.partition(": ")
                block[name] = value
                continue
            if "event" in block:
                message = {"event": block["event"], "data": json.loads(block["data"])}
                if "id" in block:
                    message["id"] = block["id"]
                out.append(message)
                if opened is not None:
                    opened.set()
                if message["event"] == until:
                    return out
            block = {}
    raise AssertionError(f"the stream ended before {until!r}: {[m['event'] for m in out]}")
