"""GET /api/v1/matches/{id}/analysis on the real engine process: a live match is refused
(409 MATCH_NOT_OVER: the analysis reads every hidden tile); a finished one is analysed as a
job polled to its end, then answered from the store; bad numbers are 400 naming the field."""

from gateway_support import error, play_until, seat_everyone, wait_for


def test_a_live_match_is_refused(client):
    match_id, _ = seat_everyone(client, "hhl", 21, {"hands": 1})
    error(client.get(f"/api/v1/matches/{match_id}/analysis"), 409, "MATCH_NOT_OVER")


def test_a_finished_match_is_analysed_then_kept(client):
    match_id, auths = seat_everyone(client, "hhl", 22, {"hands": 1})
    play_until(client, match_id, auths, lambda legal, n: legal[0], lambda view: view["over"])
    url = f"/api/v1/matches/{match_id}/analysis?seat=2&worlds=3"
    answers = []

    def done():
        r = client.get(url)
        assert r.status_code == 200, r.get_json()
        answers.append(r.get_json())
        return answers[-1]["state"] in ("done", "failed")
    wait_for(done, timeout=300, step=0.2)
    last = answers[-1]
    assert last["state"] == "done", last
    doc = last["analysis"]
    assert doc["format"] == "domino-analysis/1" and doc["policy"] == "greedy"
    assert [s["seat"] for s in doc["seats"]] == [2]
    hand = doc["seats"][0]["hands"][0]
    assert abs(hand["skill"] + hand["luck"] - (hand["result"] - hand["v0"])) < 0.01
    again = client.get(url).get_json()
    assert again["state"] == "done" and again["kept"] and again["analysis"] == doc


def test_bad_numbers_are_400_naming_the_field(client):
    match_id, _ = seat_everyone(client, "hhl", 23, {"hands": 1})
    body = error(client.get(f"/api/v1/matches/{match_id}/analysis?worlds=99999"), 400,
                 "MALFORMED_REQUEST")
    assert "worlds" in str(body.get("errors"))
