"""The OpenAPI document: generated from the schemas, valid, complete; the docs page; and a
bounded schemathesis run against the live gateway finds no 5xx and no answer that breaks
its schema."""

import os
import re
import shutil
import subprocess
import sys

import pytest
from openapi_spec_validator import validate

ROUTES = {
    ("/api/v1/variants", "get"), ("/api/v1/matches", "get"), ("/api/v1/matches", "post"),
    ("/api/v1/matches/{match_id}", "get"),
    ("/api/v1/matches/{match_id}/seats/{seat}/claim", "post"),
    ("/api/v1/matches/{match_id}/view", "get"), ("/api/v1/matches/{match_id}/moves", "post"),
    ("/api/v1/matches/{match_id}/worlds", "get"),
    ("/api/v1/matches/{match_id}/events", "get"), ("/api/v1/matches/{match_id}/record", "get"),
    ("/api/v1/matches/{match_id}/analysis", "get"),
    ("/api/v1/matches/{match_id}/analysis/events", "get"),
    ("/api/v1/ladders", "get"), ("/api/v1/ladders", "post"), ("/api/v1/ladders/{ladder_id}", "get"),
    ("/api/v1/ladders/{ladder_id}/standings", "get"), ("/api/v1/ladders/{ladder_id}/matches", "get"),
    ("/api/v1/ladders/{ladder_id}/cancel", "post"), ("/api/v1/engines", "get"),
    ("/api/v1/arenas", "get"), ("/api/v1/arenas/{arena_id}/leaderboard", "get"),
    ("/api/v1/arena/bots", "post"), ("/api/v1/arena/bots/{name}", "get"),
    ("/api/v1/arena/bots/{name}/rotate", "post"), ("/api/v1/arena/bots/{name}/retire", "post"),
    ("/api/v1/arena/bots/{name}/matches", "get"), ("/api/v1/arena/bots/{name}/history", "get"),
}


def test_the_openapi_document_validates_and_lists_every_route(client):
    r = client.get("/api/v1/openapi.json")
    assert r.status_code == 200
    doc = r.get_json()
    validate(doc)
    assert doc["openapi"].startswith("3.")
    found = {(p, m) for p, ops in doc["paths"].items() for m in ops if m != "parameters"}
    assert found == ROUTES
    error = doc["components"]["schemas"]["Error"]
    assert {"code", "status", "reason", "message", "version", "legal_moves"} <= set(
        error["required"])
    moves = doc["paths"]["/api/v1/matches/{match_id}/moves"]["post"]
    assert {"400", "401", "404", "409", "503"} <= set(moves["responses"])
    assert moves["security"] == [{"seatToken": []}]
    assert "422" not in moves["responses"]
    sampled = doc["paths"]["/api/v1/matches/{match_id}/worlds"]["get"]
    assert {"400", "401", "404", "409", "429"} <= set(sampled["responses"])
    assert sampled["security"] == [{"seatToken": []}]
    assert {p["name"] for p in sampled["parameters"] if p["in"] == "query"} == {"count", "seed"}


def test_the_event_stream_is_documented_as_it_is_served(client, live):
    """GET .../events is served by the gateway's own loop, not by a Flask route: its entry
    in the document is made from gateway/streams.py, and every answer the real server gives
    here is one the entry lists (each error as the one error body), and every message it
    streams is one of sse.EVENTS."""
    import json
    import urllib.error
    import urllib.request

    from gateway import sse, streams

    doc = client.get("/api/v1/openapi.json").get_json()
    path = doc["paths"]["/api/v1/matches/{match_id}/events"]
    op = path["get"]
    assert [(p["in"], p["name"], p["required"]) for p in path["parameters"] + op["parameters"]
            ] == [("path", "match_id", True), ("query", streams.SEAT_TOKEN, False)]
    assert path["parameters"][0]["schema"]["maxLength"] == streams.MATCH_ID_MAX
    assert op["security"] == [{"seatToken": []}, {}]      # a token in the header, or none
    assert set(op["responses"]) == {"200", "default", *map(str, streams.ERRORS)}
    assert set(op["responses"]["200"]["content"]["text/event-stream"]["x-sse-events"]) == set(
        sse.EVENTS)

    created = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1}})
    match_id = created.get_json()["match_id"]
    token = client.post(f"/api/v1/matches/{match_id}/seats/0/claim").get_json()["seat_token"]
    events = f"{live.url}/api/v1/matches/{match_id}/events"

    def answer(url: str, headers: dict | None = None) -> tuple[int, str, str | None]:
        """(status, content type, the first event's name or the error's reason)."""
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                        timeout=10) as r:
                first = next(line.decode()[7:].strip() for line in r
                             if line.startswith(b"event: "))
                return r.status, r.headers["Content-Type"], first
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], json.loads(e.read())["reason"]

    answers = [
        answer(events),                                                # a spectator
        answer(events, {"Authorization": f"Bearer {token}"}),          # a seat, by header
        answer(f"{events}?{streams.SEAT_TOKEN}={token}"),              # a seat, by query
        answer(f"{live.url}/api/v1/matches/{'x' * (streams.MATCH_ID_MAX + 1)}/events"),
        answer(f"{events}?{streams.SEAT_TOKEN}={'t' * 200}"),          # too long for the engine
        answer(events, {"Authorization": "Basic abc"}),                 # no bearer token
        answer(f"{events}?{streams.SEAT_TOKEN}=nope"),                  # a wrong one
        answer(f"{live.url}/api/v1/matches/nosuchmatch/events"),
    ]
    assert [(status, reason) for status, _, reason in answers] == [
        (200, "snapshot"), (200, "snapshot"), (200, "snapshot"), (400, "MALFORMED_REQUEST"),
        (400, "MALFORMED_REQUEST"), (401, "NO_TOKEN"), (401, "BAD_TOKEN"), (404, "UNKNOWN_MATCH")]
    for status, content_type, _ in answers:
        assert str(status) in op["responses"]
        media = "text/event-stream" if status == 200 else "application/json"
        assert content_type.startswith(media) and media in op["responses"][str(status)]["content"]


def test_the_docs_page_and_the_web_page_are_served(client):
    r = client.get("/api/v1/docs")
    assert r.status_code == 200 and b"openapi.json" in r.data
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    assert b"http://" not in r.data and b"https://" not in r.data   # no CDN


@pytest.mark.skipif(shutil.which("schemathesis", path=os.path.dirname(sys.executable)) is None,
                    reason="schemathesis is not installed (pip install schemathesis)")
@pytest.mark.timeout(480)    # schemathesis itself is given 400 s (some 45 s quiet)
def test_schemathesis_finds_no_server_error_and_no_schema_break(live, client, tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "schemathesis")
    # A real match and seat token, so the fuzzer gets past 404 and 401 too.
    match = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1}})
    match = match.get_json()
    token = client.post(f"/api/v1/matches/{match['match_id']}/seats/{match['to_move']}/claim")
    (tmp_path / "schemathesis.toml").write_text(
        f'[parameters]\nmatch_id = "{match["match_id"]}"\n\n'
        f'[headers]\nAuthorization = "Bearer {token.get_json()["seat_token"]}"\n\n'
        # Drawing up to 1000 worlds is CPU work in the engine, and on a machine that runs
        # another suite beside this one it can outlast the gateway's deadline (5 s): the
        # answer is then the documented 504 ENGINE_TIMEOUT, whose body is checked like any
        # other. Every other 5xx of this route, and any of the others, still fails.
        '[[operations]]\ninclude-name = "GET /api/v1/matches/{match_id}/worlds"\n'
        'checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "504"]\n')
    run = subprocess.run(
        [exe, "run", f"{live.url}/api/v1/openapi.json", "--url", live.url,
         "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                     "response_schema_conformance",
         "--phases", "examples,coverage,fuzzing", "--max-examples", "12", "--seed", "1",
         "--workers", "1", "--request-timeout", "10", "--generation-deterministic",
         # the event stream never ends while its match is live
         "--exclude-path", "/api/v1/matches/{match_id}/events",
         # a finished match's analysis stream lasts as long as its job (the polling route
         # is fuzzed; test_analysis_events.py holds the stream to the document)
         "--exclude-path", "/api/v1/matches/{match_id}/analysis/events",
         # a created ladder schedules matches for the rest of the session (test_ladders.py
         # covers creating them)
         "--exclude-name", "POST /api/v1/ladders",
         # it needs a ladder of this key's own; test_ladders.py cancels one
         "--exclude-name", "POST /api/v1/ladders/{ladder_id}/cancel",
         # each bot registered counts against the open key's quota (20) for the session,
         # and names are never reused (test_arena_rest.py covers registering)
         "--exclude-name", "POST /api/v1/arena/bots"],
        capture_output=True, text=True, timeout=400, cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"})
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    # Every generated case passed every check (warnings, such as ids that name nothing
    # and so answer 404, are not failures).
    counted = re.search(r"(\d+) generated, (\d+) passed", run.stdout)
    assert counted and counted[1] == counted[2] and int(counted[1]) > 100, run.stdout[-3000:]
