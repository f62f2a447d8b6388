"""GET /api/v1/matches/{id}/analysis/events on the live server (gateway/server.py) and the
real engine process: a finished match's analysis streams its progress, then one `done`
whose document is the polling route's, each event typed by the OpenAPI document; the same
request again is `done` at once, kept; and every refusal before the stream is the polling
route's JSON answer to the same request (409 a live match, 400 naming the field, 404), and
the stream counts against the gateway's stream caps."""

import json
import urllib.error
import urllib.request

import pytest
from gateway_support import ERROR_KEYS, play_until, seat_everyone, wait_for
from openapi_schema_validator import OAS31Validator

M = "/api/v1/matches"
PATH = M + "/{match_id}/analysis/events"


def stream(url: str, timeout: float = 120.0) -> list[dict]:
    """Every event of a stream, to its end: [{"event", "data"}] (comments skipped)."""
    out, block = [], {}
    with urllib.request.urlopen(url, timeout=timeout) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/event-stream")
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(": ")
                block[name] = value
                continue
            if "event" in block:
                out.append({"event": block["event"], "data": json.loads(block["data"])})
            block = {}
    return out


def refused(url: str) -> tuple[int, dict]:
    """The JSON error a request for a stream gets instead of its stream."""
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(url, timeout=30)
    assert caught.value.headers["Content-Type"].startswith("application/json")
    body = json.loads(caught.value.read())
    assert ERROR_KEYS <= set(body), body
    return caught.value.code, body


def same_as_polling(client, live, match_id: str, query: str) -> dict:
    """The stream's refusal of `query`, checked to be the polling route's answer."""
    status, body = refused(f"{live.url}{M}/{match_id}/analysis/events{query}")
    polled = client.get(f"{M}/{match_id}/analysis{query}")
    assert (status, body) == (polled.status_code, polled.get_json())
    return body


@pytest.fixture(scope="module")
def finished(app):
    """A short match, every move chosen here (the same match at every run), played out."""
    client = app.test_client()
    match_id, auths = seat_everyone(client, "hhl", 31, {"hands": 1})
    play_until(client, match_id, auths, lambda legal, n: legal[-1], lambda view: view["over"])
    return match_id


@pytest.mark.timeout(240)
def test_the_progress_streams_then_one_done_then_kept_at_once(client, live, finished):
    doc = client.get("/api/v1/openapi.json").get_json()
    media = doc["paths"][PATH]["get"]["responses"]["200"]["content"]["text/event-stream"]
    schemas = {name: e["schema"] for name, e in media["x-sse-events"].items()}
    url = f"{live.url}{M}/{finished}/analysis/events?seat=1&worlds=20"
    events = stream(url)
    for e in events:
        OAS31Validator({**schemas[e["event"]], "components": doc["components"]}).validate(
            e["data"])
    *progress, last = events
    assert last["event"] == "done", last
    assert progress and {e["event"] for e in progress} == {"progress"}
    done = [e["data"]["done"] for e in progress]
    assert done == sorted(done)                                    # never backwards
    assert any(e["data"]["total"] > 0 for e in progress)
    assert last["data"]["kept"] is False and last["data"]["total"] == progress[-1]["data"][
        "total"] > 0
    analysis = last["data"]["analysis"]
    assert analysis["format"] == "domino-analysis/1" and analysis["worlds"] == 20
    assert [s["seat"] for s in analysis["seats"]] == [1]
    polled = client.get(f"{M}/{finished}/analysis?seat=1&worlds=20").get_json()
    assert polled["state"] == "done" and polled["analysis"] == analysis
    # the same request again: the store answers at once, one event
    again = stream(url, timeout=30)
    assert [e["event"] for e in again] == ["done"]
    assert again[0]["data"]["kept"] is True and again[0]["data"]["analysis"] == analysis


@pytest.mark.timeout(60)
def test_a_live_match_is_refused_as_json_not_a_stream(client, live):
    match_id, _ = seat_everyone(client, "hhl", 32, {"hands": 1})
    body = same_as_polling(client, live, match_id, "?worlds=20")
    assert (body["code"], body["reason"]) == (409, "MATCH_NOT_OVER")
    # worlds=0 asks for the default, as on the polling route: no 400, the match is live
    assert same_as_polling(client, live, match_id, "?worlds=0")["reason"] == "MATCH_NOT_OVER"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("query,field", [("?seat=99", "seat"), ("?worlds=9999", "worlds"),
                                         ("?worlds=-1", "worlds"), ("?seat=&worlds=20", "seat"),
                                         ("?seat=one", "seat")])
def test_bad_numbers_are_400_naming_the_field(client, live, finished, query, field):
    body = same_as_polling(client, live, finished, query)
    assert (body["code"], body["reason"]) == (400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == [field] and body["message"].startswith(field + ": ")


@pytest.mark.timeout(60)
def test_an_unknown_match_is_404(client, live):
    body = same_as_polling(client, live, "nosuchmatch", "?worlds=20")
    assert (body["code"], body["reason"]) == (404, "UNKNOWN_MATCH")


@pytest.mark.timeout(60)
def test_the_stream_counts_against_the_gateways_stream_caps(engine_address, finished):
    """A gateway that holds no more streams refuses this one too, before asking the
    engine (429 TOO_MANY_STREAMS), as it refuses a match's event stream."""
    import threading

    from gateway.server import GatewayServer

    server = GatewayServer({"ENGINE_ADDRESS": engine_address, "MAX_STREAMS": 0})
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.port}{M}/{finished}/analysis/events?worlds=20"
        status, body = wait_for(lambda: _answer(url))
        assert (status, body["reason"]) == (429, "TOO_MANY_STREAMS")
    finally:
        server.close()
        thread.join(30)


def _answer(url: str):
    """(status, JSON body) once the server answers, None while it is still starting."""
    try:
        return refused(url)
    except urllib.error.URLError as e:
        if isinstance(e, urllib.error.HTTPError):
            raise
        return None
