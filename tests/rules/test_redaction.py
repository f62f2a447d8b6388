"""Which events are public is decided by the rules core alone (events.PUBLIC_KINDS): an
event of a public kind reads the same for every seat and for a spectator; every other kind
is cut per recipient. Checked over random matches of both games."""

import random

import pytest

from engine_service.rules import events as ev
from engine_service.rules import new_match


def random_events(variant, options, seed):
    rng = random.Random(seed)
    m = new_match(variant, options, seed)
    while not m.over:
        m.play(m.to_move, rng.choice(m.legal_moves(m.to_move)))
    return m, m.events


@pytest.mark.parametrize("variant,options", [("hhl", {"hands": 3}), ("domeng", {"cycles": 1})])
def test_public_kinds_read_the_same_for_everyone_and_the_others_do_not(variant, options):
    seen_kinds, differing = set(), set()
    for seed in range(60):
        m, events = random_events(variant, options, seed)
        recipients = [None, *range(m.num_seats)]
        for e in events:
            seen_kinds.add(e.kind)
            forms = [e.to_dict(r) for r in recipients]
            if e.public:
                assert all(f == forms[0] for f in forms), (seed, e.kind)
            elif any(f != forms[0] for f in forms):
                differing.add(e.kind)
    assert set(ev.KINDS) - ev.PUBLIC_KINDS == {ev.DRAW, ev.DEAL_START}
    # the private kinds really differ between recipients (else the list is too strict)
    expected = {ev.DEAL_START, ev.DRAW} if variant == "hhl" else {ev.DEAL_START}
    assert differing == expected
    assert seen_kinds >= (ev.PUBLIC_KINDS - ({ev.CYCLE_OVER} if variant == "hhl" else set()))
