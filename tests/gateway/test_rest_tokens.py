"""A wrong or missing token never reads a seat's view or moves for it; the token, not the
URL, says which seat; the public views and the spectator stream never show a hand."""

import json
import threading

import pytest

BAD = ["", "Bearer", "Bearer ", "Basic abc", "Bearer not-a-token", "bearer x" * 3]


@pytest.fixture
def seated(client):
    created = client.post("/api/v1/matches", json={"variant": "domeng", "seed": 4}).get_json()
    match_id = created["match_id"]
    tokens = [client.post(f"/api/v1/matches/{match_id}/seats/{s}/claim").get_json()["seat_token"]
              for s in range(5)]
    return match_id, tokens, created["to_move"]


def test_wrong_or_missing_tokens_read_nothing_and_move_nothing(client, seated):
    match_id, tokens, leader = seated
    other = client.post("/api/v1/matches", json={"variant": "domeng"}).get_json()["match_id"]
    foreign = client.post(f"/api/v1/matches/{other}/seats/0/claim").get_json()["seat_token"]
    headers = [{"Authorization": h} for h in BAD if h] + [{}]
    headers += [{"Authorization": f"Bearer {foreign}"},
                {"Authorization": f"Bearer {tokens[leader][:-1]}"},
                {"Authorization": f"Bearer {tokens[leader]}x"}]
    for h in headers:
        r = client.get(f"/api/v1/matches/{match_id}/view", headers=h)
        assert r.status_code == 401, (h, r.get_json())
        assert r.get_json()["reason"] in ("NO_TOKEN", "BAD_TOKEN")
        assert "hand" not in json.dumps(r.get_json())
        r = client.post(f"/api/v1/matches/{match_id}/moves", headers=h,
                        json={"version": 0, "move_id": "0"})
        assert r.status_code == 401, (h, r.get_json())
    # a token in the query string is for event streams only
    r = client.get(f"/api/v1/matches/{match_id}/view?seat_token={tokens[leader]}")
    assert r.status_code == 401
    assert client.get(f"/api/v1/matches/{match_id}").get_json()["version"] == 0


def test_the_token_decides_the_seat(client, seated):
    match_id, tokens, _ = seated
    hands = []
    for seat, token in enumerate(tokens):
        state = client.get(f"/api/v1/matches/{match_id}/view",
                           headers={"Authorization": f"Bearer {token}"}).get_json()
        assert state["seat"] == seat
        hands.append(state["view"]["hand"])
    assert all(len(h) == 5 for h in hands) and len({t for h in hands for t in h}) == 25


def test_public_answers_never_show_a_hand(client, seated):
    match_id, tokens, _ = seated
    public = client.get(f"/api/v1/matches/{match_id}").get_json()
    assert "hand" not in public["view"] and "legal_moves" not in public["view"]
    listed = client.get("/api/v1/matches").get_json()
    assert "view" not in listed["matches"][0]


def read_events(live_url, match_id, token=None, until="events", limit=20, snapshot=None):
    """(kind, data) messages of an SSE stream up to the first `until` message; `snapshot`
    (a threading.Event) is set once the stream's snapshot has come."""
    import urllib.request

    url = f"{live_url}/api/v1/matches/{match_id}/events" + (f"?seat_token={token}" if token else "")
    out = []
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/event-stream")
        kind = None
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                out.append((kind, json.loads(line[6:])))
                if kind == "snapshot" and snapshot is not None:
                    snapshot.set()
                if kind == until or len(out) >= limit:
                    return out
    return out


def test_the_event_stream_is_private_with_a_token_and_public_without(client, live, seated):
    match_id, tokens, leader = seated
    got = {}
    snapshots = {"seat": threading.Event(), "public": threading.Event()}

    def listen(name, token):
        got[name] = read_events(live.url, match_id, token, snapshot=snapshots[name])
    threads = [threading.Thread(target=listen, args=("seat", tokens[leader])),
               threading.Thread(target=listen, args=("public", None))]
    for t in threads:
        t.start()
    for name, had in snapshots.items():   # the move below must come after both snapshots
        assert had.wait(30), f"the {name} stream sent no snapshot"
    auth = {"Authorization": f"Bearer {tokens[leader]}"}
    state = client.get(f"/api/v1/matches/{match_id}/view", headers=auth).get_json()
    r = client.post(f"/api/v1/matches/{match_id}/moves", headers=auth,
                    json={"version": state["version"], "move_id": state["legal_moves"][0]["id"]})
    assert r.status_code == 200
    for t in threads:
        t.join(10)
    seat, public = got["seat"], got["public"]
    assert seat[0][0] == "snapshot" and public[0][0] == "snapshot"
    assert seat[0][1]["state"]["seat"] == leader and "hand" in seat[0][1]["state"]["view"]
    assert public[0][1]["state"]["seat"] is None and "hand" not in public[0][1]["state"]["view"]
    assert seat[-1][0] == "events" and public[-1][0] == "events"
    assert seat[-1][1]["events"][0]["kind"] == "play"
    assert seat[-1][1]["version"] == state["version"] + 1


def test_a_bad_token_on_the_event_stream_is_401_json(live, seated):
    import urllib.error
    import urllib.request
    match_id, _, _ = seated
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{live.url}/api/v1/matches/{match_id}/events?seat_token=nope",
                               timeout=10)
    assert info.value.code == 401
    assert json.loads(info.value.read())["reason"] == "BAD_TOKEN"
