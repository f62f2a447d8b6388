"""Whole matches played through REST by a script: one human seat, house bots on the others;
the record replays with `domino replay`."""

import pytest
from gateway_support import RestPlayer, bot_seats, replay, wait_for


@pytest.mark.parametrize("variant,options,seats", [
    ("hhl", {"hands": 2}, 4),
    ("domeng", {"cycles": 1}, 5),
])
def test_a_whole_match_through_rest_replays(client, tmp_path, variant, options, seats):
    r = client.post("/api/v1/matches", json={"variant": variant, "options": options, "seed": 11,
                                             "seats": bot_seats(seats)})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    match_id = created["match_id"]
    assert r.headers["Location"].endswith(f"/api/v1/matches/{match_id}")
    assert "seed" not in created and created["num_seats"] == seats   # secret while it is live
    # Seat 0 is no open seat (only its creator claims it: this open engine's "open", or
    # with its claim secret); the house bots' seats need no secret.
    assert [s["open"] for s in created["seats"]] == [False] * seats
    assert created["claim_secrets"][0].startswith("cs_")
    assert created["claim_secrets"][1:] == [None] * (seats - 1)
    assert [s["strategy"] for s in created["seats"]][1:] == ["random"] * (seats - 1)
    # Its version is not checked: a waiting match already takes the moves of its claimed
    # seats (docs/protocol.md), and the house bots may have played up to seat 0's turn
    # before the answer was written. Seat 0 is nobody's yet, so it is waiting.
    assert created["status"] == "waiting"

    player = RestPlayer(client, match_id, 0)
    first = player.view()
    assert first["seat"] == 0 and "hand" in first["view"]
    final = player.play_to_end()
    assert player.moves > 0
    assert final["legal_moves"] == []

    match = client.get(f"/api/v1/matches/{match_id}").get_json()
    assert match["status"] == "over" and match["to_move"] is None
    assert match["result"]["ranking"]
    record = client.get(f"/api/v1/matches/{match_id}/record").get_json()
    assert record["format"] == "domino-record/1" and record["variant"] == variant
    # REST writes 64-bit integers as strings (gateway/int64.py); domino replay reads both
    assert record["seed"] == "11" and record["result"] == match["result"]
    done = replay(record, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "record OK" in done.stdout

    listed = client.get(f"/api/v1/matches?status=over&variant={variant}").get_json()["matches"]
    assert match_id in [m["match_id"] for m in listed]
    assert all(m["variant"] == variant and m["status"] == "over" for m in listed)


def test_an_all_bot_match_plays_itself(client):
    r = client.post("/api/v1/matches", json={"variant": "hhl", "options": {"hands": 1},
                                             "seats": bot_seats(4, human=())})
    assert r.status_code == 201
    match_id = r.get_json()["match_id"]
    over = wait_for(lambda: client.get(f"/api/v1/matches/{match_id}").get_json()["status"]
                    == "over", timeout=60)
    assert over
