"""Ladders inside the engine: a director per ladder schedules its matches, watches them
end, and turns each finished match into one immutable ladder result.

Seats are filled from pools: the seat of entrant E in ladder K waits in pool "K/E", and a
bot that enlists with Hello.pool = {pool: K, name: E, secret: S} is offered exactly those
seats (matches/pools.py), S being that entrant's enlist secret, handed to the ladder's creator
once. Faults are charged to the entrant whose seat committed them; a match broken by the
engine itself (it stops moving although its clocks should move it) is voided and its
schedule slot played again, never counted as anyone's loss. Each counted match leaves one
immutable ladder result (ladders/results.py).

A director's thread never dies silently: a step that fails is logged with the ladder's
id and tried again; after FAIL_AFTER failures in a row the ladder is marked failed, with
the error, and only that ladder stops.

An abandoned ladder costs nothing: after PAUSE_AFTER counted matches in a row in which no
seat made a move of its own (every move the clock's), it is paused, scheduling nothing,
until a bot enlists in one of its pools again. It stops when its creator cancels it, when
an operator does (`domino ladder cancel --operator`, on the store: the director sees the
store's row say so within STORE_POLL_S), or when its creator's key is revoked (`domino
keys revoke` cancels the key's ladders in the store the same way).
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time
from collections import Counter, OrderedDict

from ladders.formats import DUPLICATE, FORMATS, ROTATION, schedule, set_size, set_slots
from ladders.results import ladder_result, read_stored
from ladders.seeds import deal_seed, new_secret
from ladders.skill import skill_figures
from ladders.standings import compute

from ... import rules
from ...rules.errors import shown
from ..errors import EngineError, Reason
from ..matches.referee import BY_SEAT, LIVE, WAITING
from ..matches.seats import BOT, DEFAULT_CLOCK_MS, SeatSpec
from ..matches.updates import Update
from ..security import limits, quotas
from ..security.keys import OPEN, OPEN_PRINCIPAL, Principal
from ..storage.rows import Fenced, store_away
from ..storage.sql import SQLLadderStore

log = logging.getLogger(__name__)

CLOSE_WAIT_S = 10.0   # how long closing waits for a director's step to end

RUNNING, DONE, CANCELLED, FAILED = "running", "done", "cancelled", "failed"
# Running, but scheduling nothing until a bot enlists again (an abandoned ladder). Kept as
# running in the store: the ladder is still owned, counted in its key's quota, resumable.
PAUSED = "paused"
ACTIVE = (RUNNING, PAUSED)
# What became of a match the ladder started (LadderMatchStatus); rows stored before the
# word was settled say "void" for voided.
PLAYING, COUNTED, VOIDED = "playing", "counted", "voided"
_FORMER_STATUS = {"void": VOIDED}
DEFAULT_OPTIONS = {"hhl": {"hands": 4}, "domeng": {"cycles": 1}}
SEATS = rules.NUM_SEATS
POLL_S = 0.5
FAIL_AFTER = 5
PAUSE_AFTER = 3      # counted matches in a row with no seat's own move: then paused
STORE_POLL_S = 2.0   # how often a director reads its row (an operator may have cancelled it)
# The bounds of a ladder (docs/security.md): what one request may ask the engine to play.
ENTRANTS = (2, 16)
MATCHES_MAX = 10_000
CONCURRENCY_MAX = 16
SEAT_WAIT_S = (1, 600)
# The skill figures of the standings (docs/analysis.md): the first ANALYSED counted matches
# of a ladder are analysed (every seat, ANALYSIS_WORLDS worlds a decision), each asked of
# the engine's analysis queue when it is counted (the engine's own: no key's quota, only
# the queue's bound); one the queue refuses (full) is left out, and the standings say how
# many each entrant's figures rest on.
ANALYSED = 8
ANALYSIS_WORLDS = 200


def pool_of(key: str, entrant: str) -> str:
    return f"{key}/{entrant}"


def options_of(variant: str, given: dict | None) -> dict:
    """A ladder's match options: its default length (DEFAULT_OPTIONS) unless the options
    give a length of their own (any integer option: hands, minutes, cycles, round_cap); the
    rules profile and its readings (enum options) join either, so profile=literal alone
    plays the default length by the letter."""
    given = dict(given or {})
    specs = rules.VARIANTS[variant].option_specs() if variant in rules.VARIANTS else {}
    if any(v is not None and k in specs and not specs[k].is_enum for k, v in given.items()):
        return given
    return {**DEFAULT_OPTIONS.get(variant, {}), **given}


def check_spec(spec: dict, yardsticks=()) -> dict:
    """Validate and complete a ladder definition; EngineError names the bad field.
    `yardsticks`: the names the engine can play itself; each one the spec asks for
    becomes an entrant too (after the others)."""
    if spec.get("variant") not in SEATS:
        raise limits.refuse("variant", "must be hhl or domeng")
    asked = list(spec.get("yardsticks") or [])
    for i, name in enumerate(asked):
        if name not in yardsticks or asked.count(name) > 1:
            raise limits.refuse(f"yardsticks[{i}]", f"must be one of "
                                f"{', '.join(yardsticks) or 'none: this engine has none'}, "
                                f"each once; got {shown(name)}")
        if name in (spec.get("entrants") or []):
            raise limits.refuse(f"yardsticks[{i}]", f"{name} is an entrant already; a "
                                "yardstick is played by the engine, not by an enlisted bot")
    # The secret of the deals is the engine's own, never a client's (Ladders.create).
    spec = {k: v for k, v in spec.items() if k != "secret"} | {"yardsticks": asked}
    entrants = [*(spec.get("entrants") or []), *asked]
    spec["entrants"] = entrants
    if not ENTRANTS[0] <= len(entrants) <= ENTRANTS[1] or len(set(entrants)) != len(entrants):
        raise limits.refuse("entrants", f"a ladder has {ENTRANTS[0]}..{ENTRANTS[1]} entrants, "
                            "each named once")
    for i, name in enumerate(entrants):
        limits.text(name, f"entrants[{i}]", limits.NAME_MAX, required=True,
                    pattern=limits.ENTRANT_NAME)
    if spec.get("format", ROTATION) not in FORMATS:   # None: an unknown LadderFormat value
        raise limits.refuse("format", f"must be one of {', '.join(FORMATS)}")
    # 0 or empty means "the default" for these fields (as in the proto); the seed keeps 0.
    defaults = {"format": ROTATION, "matches": 0, "until_separated": False, "max_matches": 2000,
                "concurrency": 4, "clock_ms": DEFAULT_CLOCK_MS[BOT], "seat_wait_s": 30}
    given = {k: v for k, v in spec.items() if v is not None and (k == "seed" or v not in (0, ""))}
    spec = {**defaults, **given}
    limits.integer(spec["matches"], "matches", 1, MATCHES_MAX, zero_ok=True)
    limits.integer(spec["max_matches"], "max_matches", 1, MATCHES_MAX)
    limits.integer(spec["concurrency"], "concurrency", 1, CONCURRENCY_MAX)
    limits.integer(spec["clock_ms"], "clock_ms", *limits.CLOCK_MS)
    limits.integer(spec["seat_wait_s"], "seat_wait_s", *SEAT_WAIT_S)
    if "seed" in spec:
        limits.integer(spec["seed"], "seed", *limits.SEEDS)
    spec["options"] = options_of(spec["variant"], spec.get("options"))
    try:  # refuse bad options now, not when the first match is created in the background
        rules.new_match(spec["variant"], spec["options"], seed=0)
    except rules.MalformedInput as e:
        raise limits.refuse(e.field or "options", e.message) from None
    if not spec["until_separated"] and spec["matches"] < 1:
        raise limits.refuse("matches", "give a number of matches, or until_separated")
    if "seed" not in spec:
        spec["seed"] = secrets.randbelow(limits.SEEDS[1] + 1)
    return spec


class Director:
    """One ladder's scheduler. All state changes happen on its own thread or under its lock."""

    def __init__(self, engine, store: SQLLadderStore, ladder_id: str, spec: dict, created: float,
                 status: str = RUNNING, error: str = ""):
        self.engine, self.store = engine, store
        self.id, self.spec, self.created, self.status = ladder_id, spec, created, status
        self.error = error
        self.seats = SEATS[spec["variant"]]
        self.set_size = set_size(spec["format"], spec["entrants"], self.seats)
        self.results: list[dict] = [read_stored(r) for r in store.results(ladder_id)]
        self.counted = {r["index"] for r in self.results}
        self.playing: dict[str, tuple[int, float]] = {}  # match id -> (index, last change)
        self.replay: list[int] = []  # voided slots to play again
        started = self._started()
        for match_id, idx, st in started:
            if st == PLAYING:
                self.playing[match_id] = (idx, time.time())
        voided = {idx for _, idx, st in started if st == VOIDED}
        self.attempts = Counter(idx for _, idx, _ in started)   # matches started per slot
        self.voided = sum(1 for _, _, st in started if st == VOIDED)
        self.next_index = max((idx for _, idx, _ in started), default=-1) + 1
        self.replay = sorted(voided - self.counted - {idx for idx, _ in self.playing.values()})
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._subs = {}
        self._polled = time.monotonic()
        # Paused: the enlistments in its pools when it paused (a new one resumes it).
        self._enlisted_at_pause = 0
        if status == RUNNING and self._unplayed_run() >= PAUSE_AFTER:
            self.status = PAUSED   # it was abandoned before the restart: still is
        self._lock = threading.RLock()
        self._standings = self._compute()
        self._analyses: dict[str, dict] = {}   # match id -> its kept analysis (_skill)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _started(self) -> list[tuple[str, int, str]]:
        """(match id, schedule index, status) of every match the ladder started, in order."""
        return [(match_id, idx, _FORMER_STATUS.get(status, status))
                for match_id, idx, status in self.store.matches(self.id)]

    def _compute(self) -> dict:
        s = self.spec
        return compute(s["variant"], s["entrants"], self.results, s.get("yardsticks", ()))

    @property
    def created_by(self) -> str:
        return self.spec.get("created_by", OPEN)

    # ----- the loop -------------------------------------------------------------------
    def start(self) -> None:
        if not self.active:
            return
        if not self.spec.get("secret"):
            # A ladder stored before its deals were keyed: it gets its secret now, so that
            # nothing public tells its next deals (a set in play gets a new deal).
            self.spec["secret"] = new_secret()
            self.store.set_spec(self.id, self.spec)
        for match_id in list(self.playing):
            self._watch(match_id)
        self._thread = threading.Thread(target=self._run, daemon=True, name=f"ladder-{self.id}")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        failures = 0
        away = False     # waiting for the store: said once per outage
        while not self._stop.is_set():
            try:
                if self._step():
                    return
                failures, away = 0, False
            except Fenced:           # another engine owns the ladder now: it carries on
                self.engine.ladders.drop(self.id, "another engine owns the ladder now")
                return
            except Exception as e:   # never silent, and it stops this ladder only
                if store_away(e):   # not the ladder's failure: it waits for the store
                    if not away:
                        log.warning("ladder %s: waiting for the store: %s", self.id, e)
                    away = True
                    self._stop.wait(POLL_S)
                    continue
                failures += 1
                log.exception("ladder %s: a step failed (%d in a row)", self.id, failures)
                if failures >= FAIL_AFTER:
                    self._end(FAILED, f"{type(e).__name__}: {str(e)[:200]}")
                    return
                self._stop.wait(POLL_S)

    def _step(self) -> bool:
        """Schedule, wait for one update, count; True once the ladder is done."""
        if self._stopped_in_store():
            return True
        with self._lock:
            if self.status == PAUSED and self._enlistments() > self._enlisted_at_pause:
                self.status = RUNNING
                log.info("ladder %s resumed: a bot enlisted again", self.id)
            while (self.status == RUNNING and self._may_schedule()
                   and len(self.playing) < self.spec["concurrency"]):
                self._start_next()
            if not self.playing and not self._may_schedule():
                self._end(DONE)
                return True
        try:
            item = self.inbox.get(timeout=POLL_S)
        except queue.Empty:
            item = None
        with self._lock:
            if isinstance(item, Update):
                if item.match_id in self.playing:
                    idx, _ = self.playing[item.match_id]
                    self.playing[item.match_id] = (idx, time.time())
                if item.over:
                    self._count(item.match_id)
            self._check_waiting_and_stalled()
        return False

    def _stopped_in_store(self, now: bool = False) -> bool:
        """True (and the ladder ended here) when its row in the store says it stopped: an
        operator cancelled it, or revoked its creator's key. Read every STORE_POLL_S (or
        `now`)."""
        if not now and time.monotonic() - self._polled < STORE_POLL_S:
            return False
        self._polled = time.monotonic()
        found = self.store.ladder(self.id)
        if found is None or found[2] == RUNNING:
            return False
        with self._lock:
            if not self.active:
                return True
            self._stop.set()
            self._end(found[2], found[4])
        return True

    def _enlistments(self) -> int:
        s = self.spec
        return self.engine.pools.enlistments([pool_of(s["key"], name) for name in s["entrants"]
                                              if name not in s.get("yardsticks", ())])

    def _unplayed_run(self) -> int:
        """Counted matches in a row, the latest last, in which no seat moved by itself."""
        run = 0
        for r in sorted(self.results, key=lambda r: r["index"], reverse=True):
            if not r.get("unplayed"):
                break
            run += 1
        return run

    def _target_left(self) -> int:
        s = self.spec
        cap = s["max_matches"] if s["until_separated"] else s["matches"]
        return cap - len(self.counted) - len(self.playing)

    def _may_schedule(self) -> bool:
        if self._target_left() <= 0:
            return False
        return not (self.spec["until_separated"] and self._standings["separated"])

    def _start_next(self) -> None:
        idx = self.replay.pop(0) if self.replay else self.next_index
        if idx == self.next_index:
            self.next_index += 1
        s = self.spec
        lineup, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
        seed = deal_seed(s["secret"], s["format"], idx, set_no, self.attempts[idx])
        yardsticks = s.get("yardsticks", ())
        seats = [SeatSpec(BOT, name, yardstick=name) if name in yardsticks
                 else SeatSpec(BOT, name, pool_of(s["key"], name)) for name in lineup]
        referee = self.engine.create_match(
            s["variant"], s["options"], seed, seats=seats, bot_clock_ms=s["clock_ms"],
            ladder=True, principal=Principal(self.created_by, OPEN_PRINCIPAL.quotas))
        self.attempts[idx] += 1
        self.store.add_match(self.id, referee.id, idx)
        self.engine.ladders.listed(referee.id)
        self.playing[referee.id] = (idx, time.time())
        self._watch(referee.id)

    def _watch(self, match_id: str) -> None:
        referee = self.engine.get(match_id)
        sub, _ = referee.subscribe(None, self.inbox)
        self._subs[match_id] = (referee, sub)
        if referee.match.over:
            self._count(match_id)

    def _unwatch(self, match_id: str) -> None:
        referee, sub = self._subs.pop(match_id, (None, None))
        if referee is not None:
            referee.unsubscribe(sub)

    def _count(self, match_id: str) -> None:
        if match_id not in self.playing:
            return
        idx, _ = self.playing.pop(match_id)
        self._unwatch(match_id)
        referee = self.engine.get(match_id)
        s = self.spec
        lineup, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
        result = ladder_result(s["variant"], idx, set_no, self.set_size, referee.row.seed, lineup,
                               referee.match.result, len(referee.match.deals),
                               faults=referee.faults_by_name(),
                               unplayed=not referee.moved_by(BY_SEAT))
        if self.store.add_result(self.id, idx, result):
            self.results.append(result)
            self.counted.add(idx)
            self._standings = self._compute()
            if self.status == RUNNING and self._unplayed_run() >= PAUSE_AFTER:
                self.status = PAUSED
                self._enlisted_at_pause = self._enlistments()
                log.warning("ladder %s paused: no bot played its last %d matches; a bot "
                            "enlisting in its pools resumes it", self.id, PAUSE_AFTER)
            if len(self.counted) <= ANALYSED:
                self._analyse(match_id)
        self.store.set_match_status(self.id, match_id, COUNTED)

    def _analyse(self, match_id: str) -> None:
        try:
            self.engine.analyses.request(match_id, None, ANALYSIS_WORLDS, None)
        except EngineError as e:   # no analyser, the queue full: the sample is smaller
            log.info("ladder %s: match %s not analysed (%s)", self.id, match_id, e.reason)

    def _skill(self) -> dict[str, dict]:
        """The entrants' skill figures from the analyses kept of the first ANALYSED counted
        matches (read from the store once each, then kept here)."""
        counted = sorted((idx, m) for m, idx, status in self._started() if status == COUNTED)
        params = self.engine.analyses.params(list(range(self.seats)), ANALYSIS_WORLDS)
        for _, match_id in counted[:ANALYSED]:
            if match_id not in self._analyses:
                doc = self.engine.store.analysis(match_id, params)
                if doc is not None:
                    self._analyses[match_id] = json.loads(doc)
        return skill_figures(list(self._analyses.values()))

    def void(self, match_id: str, why: str) -> None:
        """A match the engine broke, or one in play when the ladder ended: not counted; its
        slot is played again if the ladder goes on."""
        with self._lock:
            if match_id not in self.playing:
                return
            idx, _ = self.playing.pop(match_id)
            self._unwatch(match_id)
            self.store.set_match_status(self.id, match_id, VOIDED)
            self.voided += 1
            self.replay.append(idx)
            log.warning("ladder %s: match %s voided (%s); slot %d %s", self.id, match_id,
                        why, idx, "is played again" if self.active else "is not played")
        # Nothing watches it now: one still waiting for its entrants would wait forever
        # (and keep its set's deal hidden), so its empty seats are played by the engine.
        referee = self.engine.get(match_id)
        if referee.status == WAITING:
            self._play_no_shows(referee)

    def _play_no_shows(self, referee) -> None:
        for seat in referee.unfilled_pool_seats():
            self.engine.pools.withdraw(referee, seat)
            referee.no_show(seat)  # played automatically; the entrant is charged

    def _check_waiting_and_stalled(self) -> None:
        now = time.time()
        for match_id, (_, changed) in list(self.playing.items()):
            referee = self.engine.get(match_id)
            if referee.status == WAITING and now - referee.row.created > self.spec["seat_wait_s"]:
                self._play_no_shows(referee)
            elif referee.status == LIVE and now - changed > self._stall_s():
                self.void(match_id, f"no move for {now - changed:.0f} s")

    def _stall_s(self) -> float:
        # The clocks move a live match at least once per turn clock; ten clocks of silence
        # means the engine itself is broken.
        return 10 * self.spec["clock_ms"] / 1000 + 30

    def _end(self, status: str, error: str = "") -> None:
        with self._lock:
            self.status, self.error = status, error
            for match_id in list(self.playing):
                if status != DONE:
                    self.void(match_id, f"the ladder is {status}")
            self.store.set_status(self.id, status, error)
        log.info("ladder %s %s: %d matches counted, %d voided%s", self.id, status,
                 len(self.counted), self.voided, f" ({error})" if error else "")

    def cancel(self, principal: Principal) -> None:
        """Stop scheduling; matches in play are voided (they finish, uncounted)."""
        if principal.name != self.created_by:
            raise EngineError(Reason.NOT_YOURS, f"ladder {self.id} was created by another "
                              "key; only its creator may cancel it (or an operator: `domino "
                              "ladder cancel --operator`)")
        with self._lock:
            if not self.active:
                raise EngineError(Reason.LADDER_OVER, f"ladder {self.id} is {self.status}")
            self._stop.set()
            self._end(CANCELLED)

    # ----- reading --------------------------------------------------------------------
    def info(self) -> dict:
        with self._lock:
            table = self._standings["entries"]
            leader = table[0]["entrant"] if self.results and table else ""
            return {"ladder_id": self.id, "spec": self.spec, "status": self.status,
                    "counted": len(self.counted), "voided": self.voided,
                    "playing": len(self.playing), "leader": leader, "created": self.created,
                    # The seed tells every hidden tile of the ladder's live matches.
                    "seed": None if self.active else self.spec["seed"],
                    "created_by": self.created_by, "error": self.error}

    def standings(self) -> dict:
        with self._lock:
            skill = self._skill()
            none = {"analysed": 0, "mean_loss": None, "luck_share": None}
            entries = [{**e, **{k: skill.get(e["entrant"], none).get(k) for k in none}}
                       for e in self._standings["entries"]]
            return {**self._standings, "entries": entries, "voided": self.voided}

    def matches(self) -> list[dict]:
        """The matches started, in order, each with its ladder result once counted; the
        result's seed is None while its set is hidden (Ladders.set_hidden)."""
        by_index = {r["index"]: r for r in self.results}
        out = []
        s = self.spec
        hidden: dict[int, bool] = {}   # set number -> its deal is still in play
        for match_id, idx, status in self._started():
            lineup, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
            result = by_index.get(idx) if status == COUNTED else None
            if result is not None:
                if set_no not in hidden:
                    hidden[set_no] = self.engine.ladders.set_hidden(
                        self.id, s, self.active, set_no) is not None
                if hidden[set_no]:
                    result = {**result, "seed": None}
            out.append({"index": idx, "set": set_no, "match_id": match_id, "lineup": lineup,
                        "status": status, "result": result})
        return out

    @property
    def active(self) -> bool:
        """Running (or paused): it may still start matches."""
        return self.status in ACTIVE


PUBLIC_KEPT = 10_000   # match ids remembered as public for good (Ladders.deal_hidden)


class Ladders:
    """Every ladder of the engine."""

    def __init__(self, engine, store: SQLLadderStore):
        self.engine, self.store = engine, store
        self._directors: dict[str, Director] = {}
        self._lock = threading.Lock()
        # Matches a director made and has not listed in the store yet: hidden meanwhile.
        self._pending: set[str] = set()
        # Matches whose deal is public for good (no ladder's, or their set is over).
        self._public: OrderedDict[str, None] = OrderedDict()

    # ----- whose deal is public (docs/security.md, "What is public, and when") -------------
    def pending(self, match_id: str) -> None:
        """A ladder's match is being made: hidden until its director lists it (listed)."""
        with self._lock:
            self._pending.add(match_id)

    def listed(self, match_id: str) -> None:
        with self._lock:
            self._pending.discard(match_id)

    def deal_hidden(self, match_id: str) -> str | None:
        """Why what shows this match's tiles (its record, its spectator view, a spectator's
        Watch) is not public yet; None once it is. Only a duplicate ladder's matches are
        ever hidden: the matches of one set play one deal, so each one's tiles tell the
        others'. A set is public once every match of it is over and no match will play its
        deal again (every slot counted, or the ladder ended)."""
        with self._lock:
            if match_id in self._pending:
                return "it was just made by a ladder"
            if match_id in self._public:
                return None
        why = None
        slot = self.store.slot_of(match_id)
        if slot is not None:
            ladder_id, idx = slot
            d = self._directors.get(ladder_id)
            found = (None, d.spec, d.active) if d is not None else self.store.ladder(ladder_id)
            if found is not None:
                spec, active = found[1], found[2] in (True, RUNNING)
                _, set_no = schedule(spec["format"], spec["entrants"], SEATS[spec["variant"]],
                                     spec["seed"], idx)
                why = self.set_hidden(ladder_id, spec, active, set_no)
        if why is None:
            with self._lock:
                self._public[match_id] = None
                while len(self._public) > PUBLIC_KEPT:
                    self._public.popitem(last=False)
        return why

    def set_hidden(self, ladder_id: str, spec: dict, active: bool, set_no: int) -> str | None:
        """Why set `set_no` of a ladder is hidden (`active`: the ladder may start matches
        still); None when it is public."""
        if spec["format"] != DUPLICATE:
            return None   # every rotation match has a deal of its own (seeds.deal_seed)
        slots = set_slots(spec["format"], spec["entrants"], SEATS[spec["variant"]], set_no)
        unfinished, counted = self.store.set_progress(ladder_id, slots.start, slots.stop)
        if unfinished == 0 and (counted >= len(slots) or not active):
            return None
        return (f"it plays the deal of set {set_no} of duplicate ladder {ladder_id}, "
                f"{len(slots)} matches on one deal ({counted} counted, {unfinished} not over)"
                ": its tiles would tell the others'; its record and views are public once "
                "every match of the set is over")

    def resume(self, running: bool = True) -> None:
        """After a restart (the engine has restored its matches): carry on every ladder.
        In a cluster (running=False) only the finished ones are loaded here, to be read;
        a running ladder is its owner's (adopt)."""
        for ladder_id, spec, status, created, error in self.store.ladders():
            if status == RUNNING and not running:
                continue
            d = Director(self.engine, self.store, ladder_id, spec, created, status, error)
            self._directors[ladder_id] = d
            d.start()

    def adopt(self, ladder_id: str) -> None:
        """Carry on a ladder this engine now owns (a failover); its matches were taken
        with it (cluster/membership.py)."""
        found = self.store.ladder(ladder_id)
        if found is None:
            return
        _, spec, status, created, error = found
        d = Director(self.engine, self.store, ladder_id, spec, created, status, error)
        with self._lock:
            self._directors[ladder_id] = d
        d.start()
        log.info("ladder %s taken over: %d matches counted, %d playing", ladder_id,
                 len(d.counted), len(d.playing))

    def running_ids(self) -> set[str]:
        with self._lock:
            return {i for i, d in self._directors.items() if d.active}

    def drop(self, ladder_id: str, why: str) -> None:
        """Stop directing a ladder another engine owns now (nothing is written). A ladder
        that no engine runs any more because its row says it stopped (an operator's
        cancel, a revoked key: the cluster sees it as not this engine's before its director
        does) is ended here instead, its matches in play voided, and kept to be read."""
        d = self._directors.get(ladder_id)
        if d is not None and d.active:
            try:
                if d._stopped_in_store(now=True):
                    return
            except Fenced:   # another engine owns it indeed
                pass
            except Exception:   # the store away: drop it, as asked (its owner ends it)
                log.exception("ladder %s: its row could not be read", ladder_id)
        with self._lock:
            d = self._directors.pop(ladder_id, None)
        if d is not None:
            d.stop()
            log.warning("ladder %s dropped: %s", ladder_id, why)

    def drop_all(self, why: str) -> None:
        for ladder_id in self.running_ids():
            self.drop(ladder_id, why)

    def create(self, spec: dict, principal: Principal = OPEN_PRINCIPAL
               ) -> tuple[Director, dict[str, str]]:
        """A new ladder and its entrants' enlist secrets ({entrant: secret}, shown once)."""
        spec = check_spec(spec, self.engine.yardsticks)
        ladder_id = secrets.token_hex(6)
        spec["key"] = f"ladder-{ladder_id}"
        spec["created_by"] = principal.name
        # Keys every match seed (ladders/seeds.py): kept in the store, sent nowhere.
        spec["secret"] = new_secret()
        created = time.time()
        # Counted in the store with the ladder's row: the quota holds across the cluster.
        quotas.charge_ladder(self.store, principal, ladder_id, spec, created)
        enlist = {name: self.engine.pools.define(pool_of(spec["key"], name))
                  for name in spec["entrants"] if name not in spec["yardsticks"]}
        d = Director(self.engine, self.store, ladder_id, spec, created)
        with self._lock:
            self._directors[ladder_id] = d
        d.start()
        log.info("ladder %s created by %s: %s, %s, %s", ladder_id, principal.name,
                 spec["variant"], spec["format"], ",".join(spec["entrants"]))
        return d, enlist

    def get(self, ladder_id: str) -> Director:
        limits.text(ladder_id, "ladder_id", limits.ID_MAX, required=True)
        d = self._directors.get(ladder_id)
        if d is not None:
            return d
        found = self.store.ladder(ladder_id) if self.engine.cluster is not None else None
        if found is None:
            raise EngineError(Reason.UNKNOWN_LADDER, f"no ladder with id {shown(ladder_id)}")
        _, spec, status, created, error = found
        if status == RUNNING:
            self.engine._not_here("ladders", ladder_id)
        d = Director(self.engine, self.store, ladder_id, spec, created, status, error)
        with self._lock:   # a finished ladder of another engine: loaded to be read
            return self._directors.setdefault(ladder_id, d)

    def list(self) -> list[Director]:
        return sorted(self._directors.values(), key=lambda d: d.created, reverse=True)

    def close(self) -> None:
        """Stop every director and wait for its step to end: the engine closes the store
        next, and a step still running then failed on the closed store."""
        for d in self._directors.values():
            d.stop()
        for d in self._directors.values():
            if d._thread is not None and d._thread is not threading.current_thread():
                d._thread.join(CLOSE_WAIT_S)
