"""An arena's definition and the arena's documented numbers (docs/arena.md).

An arena is one variant with fixed match options (a dict the rules validate): `hhl` (HHL,
4 hands) and `domeng` (Domeng, 1 cycle) by default. `duplicate` arenas play each deal once
per rotation of the seats; `literal` ones play the rules profile literal (docs/rules.md,
"Where a ruling departs from the literal text"), one arena, and so one leaderboard, per
variant and profile."""

from __future__ import annotations

from plumbing import settings

from ... import rules
from ..matches.seats import BOT, DEFAULT_CLOCK_MS
from ..security import limits

DEFAULT_OPTIONS = {"hhl": {"hands": 4}, "domeng": {"cycles": 1}}
DEFAULT_ARENAS = ("hhl", "domeng")
LITERAL = "literal"       # an arena's mode: the rules profile literal
SEAT_WAIT_S = 10          # a seated bot's seat stream must connect within this, or no-show
TIMEOUT_STREAK = 3        # matches in a row with timeouts before a bot is paused
MATCHES_PER_MINUTE = 30   # arena matches one bot is seated in, at most, in any 60 s,
# held as a gap between its seatings (2 s): a count over the last 60 s let a bot with
# one-second matches play 30 in a burst and then wait up to 14 s for its next seat, the
# arena's longest seat waits (python -m benchmarks arena)
SEATING_GAP_S = 60 / MATCHES_PER_MINUTE
CYCLE_S = 0.25            # the matchmaker's cycle (and at once when a bot becomes free)
DELIVERY_S = 0.2          # how often an engine looks for seats to deliver to its lobbies
# The steps of the arena thread's rounds (room.py): a matchmaker's cycle, adopting the
# matches placed on this engine, delivering seats, and the lobbies' look (delivering too).
COUNT, ADOPT, DELIVER, LOBBIES = "count", "adopt", "deliver", "lobbies"
# Both polls at once, in milliseconds: the tests raise them far above their timeouts, so
# that only the wake-ups (room.py) can make the arena go on.
POLL_ENV = "DOMINO_ARENA_POLL_MS"
POLL_MS_RANGE = (50, 3_600_000)
RECONCILE_S = 2.0         # how often the matchmaker checks its matches' rows
STALL_CLOCKS = 10         # a live match silent this many turn clocks (+30 s) is voided
# How long the longest-waiting free bot waits for other bots before residents may fill its
# table. Bots free up a few at a time: seated at once with whoever was free and the house
# for the rest, bots sat with residents at over a quarter of the tables in a 300-s run at a
# thousand bots, and a resident's move costs its engine far more than a remote bot's.
RESIDENTS_AFTER_S = 1.0
RESIDENT_VERSION = "house"
RESIDENT_OWNER = "house"
SEARCH_ITERATIONS = 16    # the search resident's samples per move: a small, fixed budget
EXPERT_UNITS = 9_000      # the expert resident's work per move (about a ninth of its own: ~10 ms)
RESIDENT_WORKERS = 2      # threads playing the residents' moves, for the whole engine
NO_SHOW, TIMEOUTS = "no_show", "timeouts"   # why a bot is paused (BotVersion.paused)
ARENA_POOL_PREFIX = "@arena/"   # the pool marker of arena seats: no pool name can be it


def polls() -> tuple[float, float]:
    """(the matchmaker's cycle, the delivery look) in seconds: CYCLE_S and DELIVERY_S, or
    both what POLL_ENV says; settings.BadSetting naming it when it is no such number."""
    ms = settings.whole_number(POLL_ENV, 0, *POLL_MS_RANGE, "milliseconds")
    return (ms / 1000, ms / 1000) if ms else (CYCLE_S, DELIVERY_S)


def parse(text: str) -> dict:
    """"hhl", "domeng", "VARIANT:duplicate" (id "VARIANT-duplicate"), and any of those with
    ":literal" after it (id "...-literal", options profile=literal): an arena spec."""
    variant, *modes = text.split(":")
    literal = modes[-1:] == [LITERAL]
    duplicate = modes[:len(modes) - literal] == ["duplicate"]
    if variant not in DEFAULT_OPTIONS or len(modes) != literal + duplicate:
        raise ValueError(f"an arena is hhl or domeng, then :duplicate and/or :literal (e.g. "
                         f"hhl:duplicate:literal); got {text!r}")
    spec = {"id": variant + "-duplicate" * duplicate + "-literal" * literal,
            "variant": variant, "duplicate": duplicate}
    if literal:
        spec["options"] = {**DEFAULT_OPTIONS[variant], "profile": LITERAL}
    return check(spec)


def check(spec: dict) -> dict:
    """An arena spec completed with its defaults; ValueError when the rules refuse it."""
    variant = spec["variant"]
    spec = {"options": DEFAULT_OPTIONS[variant], "duplicate": False,
            "clock_ms": DEFAULT_CLOCK_MS[BOT], "seat_wait_s": SEAT_WAIT_S, **spec}
    try:
        rules.new_match(variant, spec["options"], seed=0)
    except rules.MalformedInput as e:
        raise ValueError(f"arena {spec['id']}: {e.message}") from None
    return spec


def arena_id(value: str, field: str = "arena_id") -> str:
    return limits.text(value, field, limits.ARENA_ID_MAX, required=True)


def version(value: str, field: str = "version") -> str:
    return limits.text(value, field, limits.BOT_VERSION_MAX, required=True)
