"""When an engine beats next (cluster/membership.py next_beat): at the usual interval, or
at the end of a silent engine's lease, so that its matches are taken as soon as they are
orphans."""

from __future__ import annotations

import pytest

from engine_service.core.cluster.membership import (
    EXPIRY_MARGIN_S,
    HEARTBEAT_S,
    LEASE_S,
    next_beat,
)

pytestmark = pytest.mark.timeout(10)


def member(engine_id: str, age: float) -> dict:
    return {"engine_id": engine_id, "address": "", "heartbeat_age_s": age,
            "live": age <= LEASE_S, "live_matches": 0, "draining": False}


def test_beats_at_the_usual_interval_while_every_engine_beats():
    members = [member("me", 0.0), member("b", 0.1), member("c", HEARTBEAT_S)]
    assert next_beat(members, "me", 0.0) == HEARTBEAT_S


def test_beats_at_the_end_of_a_silent_engines_lease_when_it_comes_first():
    members = [member("me", 0.0), member("b", 1.8), member("c", 0.2)]
    assert next_beat(members, "me", 0.0) == pytest.approx(LEASE_S - 1.8 + EXPIRY_MARGIN_S)
    # read 0.1 s ago: 0.1 s sooner
    assert next_beat(members, "me", 0.1) == pytest.approx(LEASE_S - 1.9 + EXPIRY_MARGIN_S)


def test_a_lease_that_ends_after_the_next_beat_changes_nothing():
    assert next_beat([member("me", 0.0), member("b", 0.9)], "me", 0.0) == HEARTBEAT_S


def test_its_own_row_a_dead_engine_and_a_lease_already_over_hurry_nothing():
    # its own row (old when this engine's beat failed), an engine already taken for dead,
    # and a lease that ended since the list was read (the store away: no busy loop)
    assert next_beat([member("me", 1.9)], "me", 0.0) == HEARTBEAT_S
    assert next_beat([member("me", 0.0), member("b", LEASE_S + 1)], "me", 0.0) == HEARTBEAT_S
    assert next_beat([member("me", 0.0), member("b", 1.9)], "me", 5.0) == HEARTBEAT_S
