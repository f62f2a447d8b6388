"""GET /metrics of the gateway behind its real server: requests by route and status, their
latency, open event streams and failed engine calls count what the REST calls did. The
registry is the process's, shared with the session's other tests: only differences count."""

import http.client
import json
import urllib.error
import urllib.request

from gateway_support import wait_for

from tests.metrics_support import Scrape

MATCHES = "/api/v1/matches"
ONE = "/api/v1/matches/<match_id>"
EVENTS = "/api/v1/matches/<match_id>/events"


def call(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    r = urllib.request.Request(url, data=data, method=method,
                               headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_rest_calls_are_counted_by_route_status_and_engine_error(live):
    metrics = f"{live.url}/metrics"
    before = Scrape(metrics)
    assert before.content_type.startswith("text/plain")
    status, created = call(f"{live.url}{MATCHES}", "POST", {"variant": "hhl",
                                                             "options": {"hands": 1}})
    assert status == 201, created
    match_id = created["match_id"]
    assert call(f"{live.url}{MATCHES}/{match_id}")[0] == 200
    assert call(f"{live.url}{MATCHES}/{match_id}")[0] == 200
    assert call(f"{live.url}{MATCHES}/{'f' * 16}")[0] == 404        # the engine: NOT_FOUND
    assert call(f"{live.url}/no/such/page")[0] == 404                # no route at all

    after = Scrape(metrics)

    def grew(name, **labels):
        return after.get(name, **labels) - before.get(name, **labels)

    assert grew("domino_gateway_requests_total", route=MATCHES, status="201") == 1
    assert grew("domino_gateway_requests_total", route=ONE, status="200") == 2
    assert grew("domino_gateway_requests_total", route=ONE, status="404") == 1
    assert grew("domino_gateway_requests_total", route="(unmatched)", status="404") == 1
    assert grew("domino_gateway_request_seconds_count", route=ONE) == 3
    assert grew("domino_gateway_engine_call_errors_total", code="NOT_FOUND") == 1
    assert not any(match_id in line for line in after.text.splitlines()), \
        "a match id made a series of its own"


def test_an_open_event_stream_is_counted_until_it_closes(live):
    metrics = f"{live.url}/metrics"
    status, created = call(f"{live.url}{MATCHES}", "POST", {"variant": "hhl",
                                                             "options": {"hands": 1}})
    assert status == 201
    before = Scrape(metrics)
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=10)
    conn.request("GET", f"{MATCHES}/{created['match_id']}/events")
    answer = conn.getresponse()
    assert answer.status == 200 and answer.getheader("Content-Type").startswith(
        "text/event-stream")
    assert b"event: snapshot" in answer.read1(65536)     # (its first chunk)
    opened = Scrape(metrics)
    assert opened.get("domino_gateway_open_event_streams") == \
        before.get("domino_gateway_open_event_streams") + 1
    assert opened.get("domino_gateway_requests_total", route=EVENTS, status="200") == \
        before.get("domino_gateway_requests_total", route=EVENTS, status="200") + 1
    conn.close()
    wait_for(lambda: Scrape(metrics).get("domino_gateway_open_event_streams")
             == before.get("domino_gateway_open_event_streams"), timeout=10)


def test_metrics_are_not_part_of_the_api_document(client):
    doc = client.get("/api/v1/openapi.json").get_json()
    assert not any("metrics" in path for path in doc["paths"])
    r = client.get("/metrics")
    assert r.status_code == 200 and b"domino_gateway_requests_total" in r.data
