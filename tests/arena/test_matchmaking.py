"""The pure matchmaking function (ladders/matchmaking.py): properties over arbitrary sets
of free bots, and the cases that show each rule on its own."""

from hypothesis import given, settings
from hypothesis import strategies as st

from ladders.matchmaking import Candidate, next_table

RESIDENTS = [Candidate((f"house-{n}", "house"), "house", r, 0.0, True)
             for n, r in (("random", 18.0), ("greedy", 24.0), ("heuristic", 27.0),
                          ("search", 29.0))]


def bot(name, owner, rating, since, version="v1"):
    return Candidate((name, version), owner, rating, since)


bots = st.lists(st.builds(bot, st.text("abcdefgh", min_size=1, max_size=3),
                          st.sampled_from(["o1", "o2", "o3", "o4", "o5"]),
                          st.floats(0, 50), st.floats(0, 1000)),
                max_size=12, unique_by=lambda c: c.key)


@settings(max_examples=300, deadline=None)
@given(bots, st.sampled_from([4, 5]), st.integers(0, 20))
def test_any_table_has_the_longest_waiter_distinct_seats_and_residents_only_when_needed(
        free, seats, turn):
    table = next_table(free, RESIDENTS, seats, {}, turn)
    if not free or len(free) + len(RESIDENTS) < seats:
        assert table is None
        return
    assert table is not None and len(table) == seats
    keys = [c.key for c in table]
    assert len(set(keys)) == seats
    seed = min(free, key=lambda c: (c.waiting_since, c.key))
    assert seed in table
    residents = [c for c in table if c.resident]
    assert len(residents) < seats                       # never a table of residents only
    registered = [c for c in table if not c.resident]
    assert len(registered) == min(len(free), seats)     # residents only when too few bots
    owners_free = {c.owner for c in free}
    owners_seated = [c.owner for c in registered]
    if len(owners_free) >= len(registered):
        assert len(set(owners_seated)) == len(owners_seated)   # owners apart when they can be


def test_the_closest_in_rating_fill_the_table():
    free = [bot("seed", "o1", 30, 0), bot("near1", "o2", 31, 5), bot("near2", "o3", 28, 6),
            bot("far", "o4", 5, 1), bot("near3", "o5", 33, 9), bot("farther", "o6", 50, 2)]
    table = next_table(free, RESIDENTS, 4, {}, 0)
    assert {c.key[0] for c in table} == {"seed", "near1", "near2", "near3"}


def test_the_seed_is_the_longest_waiter_even_when_others_fit_better():
    free = [bot("new", "o1", 25, 100), bot("old", "o2", 0, 1), bot("b", "o3", 1, 50),
            bot("c", "o4", 2, 60), bot("d", "o5", 25, 70)]
    table = next_table(free, RESIDENTS, 4, {}, 0)
    assert {c.key[0] for c in table} == {"old", "b", "c", "d"}


def test_one_seat_per_owner_while_others_are_free_then_a_second_one():
    free = [bot("a1", "alice", 25, 0), bot("a2", "alice", 25, 1), bot("a3", "alice", 25, 2),
            bot("b1", "bob", 10, 3), bot("c1", "carol", 40, 4), bot("d1", "dan", 0, 5)]
    table = next_table(free, RESIDENTS, 4, {}, 0)
    assert sorted(c.owner for c in table) == ["alice", "bob", "carol", "dan"]
    only_two = [bot("a1", "alice", 25, 0), bot("a2", "alice", 25, 1), bot("b1", "bob", 25, 2)]
    table = next_table(only_two, RESIDENTS, 4, {}, 0)
    assert sorted(c.key[0] for c in table if not c.resident) == ["a1", "a2", "b1"]
    assert sum(c.resident for c in table) == 1      # a second seat for alice before the house


def test_residents_fill_in_only_when_too_few_bots_are_free_and_never_alone():
    alone = next_table([bot("solo", "o1", 25, 0)], RESIDENTS, 5, {}, 0)
    assert [c.key[0] for c in alone if not c.resident] == ["solo"]
    assert sum(c.resident for c in alone) == 4
    assert next_table([], RESIDENTS, 4, {}, 0) is None
    assert next_table([*RESIDENTS], RESIDENTS, 4, {}, 0) is None


def test_the_last_line_up_is_not_repeated_when_another_bot_can_sit():
    free = [bot(n, f"o{i}", 25 + i, i) for i, n in enumerate("abcde")]
    first = next_table(free, RESIDENTS, 4, {}, 0)
    last = frozenset(c.key for c in first)
    again = next_table(free, RESIDENTS, 4, {c.key: last for c in first}, 1)
    assert frozenset(c.key for c in again) != last
    # With nobody else free, the same line-up is played again rather than none.
    four = free[:4]
    same = next_table(four, [], 4, {c.key: frozenset(x.key for x in four) for c in four}, 0)
    assert frozenset(c.key for c in same) == frozenset(c.key for c in four)


@settings(max_examples=300, deadline=None)
@given(bots, st.sampled_from([4, 5]), st.integers(0, 20))
def test_before_the_house_may_come_a_table_is_of_bots_only_or_none(free, seats, turn):
    """With residents not let in yet, the table is the one bots alone make (the same as
    when residents may come, whenever no resident was needed), or none at all."""
    table = next_table(free, RESIDENTS, seats, {}, turn, residents_now=False)
    anyway = next_table(free, RESIDENTS, seats, {}, turn)
    if anyway is not None and not any(c.resident for c in anyway):
        assert table == anyway
    else:
        assert table is None


def test_a_table_that_needs_a_resident_waits_until_the_house_may_come():
    two = [bot("a", "o1", 25, 0), bot("b", "o2", 25, 1)]
    assert next_table(two, RESIDENTS, 4, {}, 0, residents_now=False) is None
    assert sum(c.resident for c in next_table(two, RESIDENTS, 4, {}, 0)) == 2
    # Four who just played together: only a resident could keep them from meeting again.
    four = [bot(n, f"o{i}", 25, i) for i, n in enumerate("abcd")]
    met = {c.key: frozenset(x.key for x in four) for c in four}
    assert next_table(four, RESIDENTS, 4, met, 0, residents_now=False) is None
    later = next_table(four, RESIDENTS, 4, met, 0)
    assert sum(c.resident for c in later) == 1
    # A fifth bot free: it takes the place, with no wait and no resident.
    five = [*four, bot("e", "o9", 26, 9)]
    table = next_table(five, RESIDENTS, 4, met, 0, residents_now=False)
    assert table is not None and not any(c.resident for c in table)
    assert "e" in {c.key[0] for c in table}


def test_seat_positions_rotate_from_table_to_table():
    free = [bot(n, f"o{i}", 25, i) for i, n in enumerate("abcd")]
    seatings = [tuple(c.key[0] for c in next_table(free, [], 4, {}, turn)) for turn in range(4)]
    assert len(set(seatings)) == 4
    for name in "abcd":
        assert sorted(s.index(name) for s in seatings) == [0, 1, 2, 3]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=200))
def test_the_rate_bound_seats_a_bot_at_most_30_times_in_any_60_s_and_never_holds_it_long(
        asks):
    """A bot asking to be seated after any pauses (matches of any length, waits of any
    length; the matchmaker looks every 0.25 s) is seated at most MATCHES_PER_MINUTE times in
    any 60 s, and each ask is held at most SEATING_GAP_S (and a look): never the
    half-minute wait that a count over the last 60 s made a fast bot's 31st ask."""
    from engine_service.core.arena.matchmaker import rate_held
    from engine_service.core.arena.spec import MATCHES_PER_MINUTE, SEATING_GAP_S

    now, last, seated = 0.0, None, []
    for pause in asks:
        asked = now = now + pause
        looks = 0
        while rate_held(last, now):
            looks += 1
            now = asked + 0.25 * looks
        assert now - asked <= SEATING_GAP_S + 0.25 + 1e-9
        seated.append(now)
        last = now
    for i, t in enumerate(seated):
        assert sum(1 for s in seated[i:] if s < t + 60) <= MATCHES_PER_MINUTE
