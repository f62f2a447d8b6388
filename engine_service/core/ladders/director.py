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
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time

from ladders.formats import FORMATS, ROTATION, schedule, set_size
from ladders.results import ladder_result, read_stored
from ladders.skill import skill_figures
from ladders.standings import compute

from ... import rules
from ...rules.errors import shown
from ..errors import EngineError, Reason
from ..matches.referee import LIVE, WAITING
from ..matches.seats import BOT, DEFAULT_CLOCK_MS, SeatSpec
from ..matches.updates import Update
from ..security import limits
from ..security.keys import OPEN, OPEN_PRINCIPAL, Principal
from ..storage.rows import Fenced, store_away
from ..storage.sql import SQLLadderStore

log = logging.getLogger(__name__)

RUNNING, DONE, CANCELLED, FAILED = "running", "done", "cancelled", "failed"
# What became of a match the ladder started (LadderMatchStatus); rows stored before the
# word was settled say "void" for voided.
PLAYING, COUNTED, VOIDED = "playing", "counted", "voided"
_FORMER_STATUS = {"void": VOIDED}
DEFAULT_OPTIONS = {"hhl": {"hands": 4}, "domeng": {"cycles": 1}}
SEATS = rules.NUM_SEATS
POLL_S = 0.5
FAIL_AFTER = 5
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
    spec = {**spec, "yardsticks": asked}
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
    spec["options"] = spec.get("options") or DEFAULT_OPTIONS[spec["variant"]]
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
        self.voided = sum(1 for _, _, st in started if st == VOIDED)
        self.next_index = max((idx for _, idx, _ in started), default=-1) + 1
        self.replay = sorted(voided - self.counted - {idx for idx, _ in self.playing.values()})
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._subs = {}
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
        if self.status != RUNNING:
            return
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
        with self._lock:
            while self._may_schedule() and len(self.playing) < self.spec["concurrency"]:
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
        lineup, seed, _ = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
        yardsticks = s.get("yardsticks", ())
        seats = [SeatSpec(BOT, name, yardstick=name) if name in yardsticks
                 else SeatSpec(BOT, name, pool_of(s["key"], name)) for name in lineup]
        referee = self.engine.create_match(
            s["variant"], s["options"], seed, seats=seats, bot_clock_ms=s["clock_ms"],
            ladder=True, principal=Principal(self.created_by, OPEN_PRINCIPAL.quotas))
        self.store.add_match(self.id, referee.id, idx)
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
        lineup, seed, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
        result = ladder_result(s["variant"], idx, set_no, self.set_size, seed, lineup,
                               referee.match.result, len(referee.match.deals),
                               faults=referee.faults_by_name())
        if self.store.add_result(self.id, idx, result):
            self.results.append(result)
            self.counted.add(idx)
            self._standings = self._compute()
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
        """A match the engine broke: not counted; its slot is played again."""
        with self._lock:
            if match_id not in self.playing:
                return
            idx, _ = self.playing.pop(match_id)
            self._unwatch(match_id)
            self.store.set_match_status(self.id, match_id, VOIDED)
            self.voided += 1
            self.replay.append(idx)
            log.warning("ladder %s: match %s voided (%s); slot %d is played again", self.id,
                        match_id, why, idx)

    def _check_waiting_and_stalled(self) -> None:
        now = time.time()
        for match_id, (_, changed) in list(self.playing.items()):
            referee = self.engine.get(match_id)
            if referee.status == WAITING and now - referee.row.created > self.spec["seat_wait_s"]:
                for seat in referee.unfilled_pool_seats():
                    self.engine.pools.withdraw(referee, seat)
                    referee.no_show(seat)  # played automatically; the entrant is charged
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
                              "key; only its creator may cancel it")
        with self._lock:
            if self.status != RUNNING:
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
                    "seed": None if self.status == RUNNING else self.spec["seed"],
                    "created_by": self.created_by, "error": self.error}

    def standings(self) -> dict:
        with self._lock:
            skill = self._skill()
            none = {"analysed": 0, "mean_loss": None, "luck_share": None}
            entries = [{**e, **{k: skill.get(e["entrant"], none).get(k) for k in none}}
                       for e in self._standings["entries"]]
            return {**self._standings, "entries": entries, "voided": self.voided}

    def matches(self) -> list[dict]:
        by_index = {r["index"]: r for r in self.results}
        out = []
        s = self.spec
        for match_id, idx, status in self._started():
            lineup, _, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
            out.append({"index": idx, "set": set_no, "match_id": match_id, "lineup": lineup,
                        "status": status, "result": by_index.get(idx) if status == COUNTED else None})
        return out


class Ladders:
    """Every ladder of the engine."""

    def __init__(self, engine, store: SQLLadderStore):
        self.engine, self.store = engine, store
        self._directors: dict[str, Director] = {}
        self._lock = threading.Lock()

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
            return {i for i, d in self._directors.items() if d.status == RUNNING}

    def drop(self, ladder_id: str, why: str) -> None:
        """Stop directing a ladder another engine owns now (nothing is written)."""
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
        with self._lock:
            running = sum(d.status == RUNNING and d.created_by == principal.name
                          for d in self._directors.values())
            if running >= principal.quotas.ladders:
                raise EngineError(Reason.QUOTA_EXCEEDED, f"{principal.name} runs {running} "
                                  f"ladders, its quota is {principal.quotas.ladders}")
            ladder_id = secrets.token_hex(6)
            spec["key"] = f"ladder-{ladder_id}"
            spec["created_by"] = principal.name
            enlist = {name: self.engine.pools.define(pool_of(spec["key"], name))
                      for name in spec["entrants"] if name not in spec["yardsticks"]}
            created = time.time()
            self.store.add_ladder(ladder_id, spec, created)
            d = Director(self.engine, self.store, ladder_id, spec, created)
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
        for d in self._directors.values():
            d.stop()
