"""POST /api/v1/matches with a fork: a recorded match played on from its Nth play by
house bots, its refusals 400 naming the field, and room in the body for a record."""

import time

from gateway_support import error, replay

from tests.fork.fork_support import plays, recorded


def wait_over(client, match_id, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = client.get(f"/api/v1/matches/{match_id}").get_json()
        if match["status"] == "over":
            return match
        time.sleep(0.05)
    raise AssertionError("the forked match did not end")


def bots(n):
    return [{"kind": "bot", "strategy": "random"}] * n


def test_a_fork_over_rest_is_played_to_its_end_by_house_bots(client, tmp_path):
    original = recorded("domeng", seed=3)
    n = 6
    r = client.post("/api/v1/matches", json={"fork": {"record": original, "at": n},
                                             "seats": bots(5), "bot_clock_ms": 5000})
    assert r.status_code == 201, r.get_json()
    match = r.get_json()
    # The prefix's plays are its first n versions; its house bots, claimed at once, may
    # have played on before the answer was written (the record's plays are checked below).
    assert match["variant"] == "domeng" and match["version"] >= n and "seed" not in match
    wait_over(client, match["match_id"])
    new = client.get(f"/api/v1/matches/{match['match_id']}/record").get_json()
    assert plays(new)[:n] == plays(original)[:n]
    assert new["deals"][0]["sleeping"] == original["deals"][0]["sleeping"]
    done = replay(new, tmp_path)
    assert done.returncode == 0, done.stderr


def test_bad_forks_are_400_naming_the_field(client):
    original = recorded("hhl", seed=2)
    last = len(plays(original)) - 1
    body = error(client.post("/api/v1/matches", json={"fork": {"record": original,
                                                               "at": last + 1}}),
                 400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == ["fork.at"] and f"0..{last}" in body["message"]
    body = error(client.post("/api/v1/matches", json={"fork": {"record": {"format": "x"},
                                                               "at": 0}}),
                 400, "MALFORMED_REQUEST")
    assert list(body["errors"]) == ["fork.record"]
    body = error(client.post("/api/v1/matches", json={"fork": {"record": original, "at": "1"}}),
                 400, "MALFORMED_REQUEST")
    assert "fork.at" in body["errors"]
    body = error(client.post("/api/v1/matches", json={"fork": {"record": original, "at": 1},
                                                      "options": {"hands": 1}}),
                 400, "MALFORMED_REQUEST")
    assert "fork" in body["errors"]
    error(client.post("/api/v1/matches", json={"seats": bots(4)}), 400, "MALFORMED_REQUEST")


def test_a_record_may_be_larger_than_other_bodies_but_is_bounded(client):
    original = recorded("hhl", seed=2)
    roomy = {**original, "note": "x" * 200_000}   # fields the rules do not read are kept out
    r = client.post("/api/v1/matches", json={"fork": {"record": roomy, "at": 1}})
    assert r.status_code == 201, r.get_json()
    huge = {**original, "note": "x" * 1_200_000}
    error(client.post("/api/v1/matches", json={"fork": {"record": huge, "at": 1}}),
          413, "BODY_TOO_LARGE")
    error(client.post("/api/v1/matches/nope/moves", data="x" * 100_000,
                      content_type="application/json", headers={"Authorization": "Bearer x"}),
          413, "BODY_TOO_LARGE")


def test_a_record_as_rest_sends_it_forks_its_seed_a_string(client):
    """GET .../record writes the seed as a decimal string (a 64-bit integer); a fork takes
    the record back so, and a seed that is neither a number nor digits is named."""
    original = recorded("hhl", seed=2)
    r = client.post("/api/v1/matches", json={"fork": {"record": {**original, "seed": "2"},
                                                      "at": 1}})
    assert r.status_code == 201, r.get_json()
    for bad in ("2.5", "-2", str(2**63), True):
        body = error(client.post("/api/v1/matches", json={"fork": {
            "record": {**original, "seed": bad}, "at": 1}}), 400, "MALFORMED_REQUEST")
        assert list(body["errors"]) == ["fork.record.seed"], bad
