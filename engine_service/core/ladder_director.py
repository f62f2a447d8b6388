"""Ladders inside the engine: a director per ladder schedules its matches, watches them
end, and turns each finished match into one immutable ladder result.

Seats are filled from pools: the seat of entrant E in ladder K waits in pool "K/E", and a
bot that enlists with Hello.pool = {pool: K, name: E} is offered exactly those seats
(pools.py). Faults are charged to the entrant whose seat committed them; a match broken
by the engine itself (it stops moving although its clocks should move it) is voided and
its schedule slot played again, never counted as anyone's loss. Each counted match
leaves one immutable ladder result (ladders/results.py).
"""

from __future__ import annotations

import logging
import queue
import re
import secrets
import threading
import time

from ladders.formats import FORMATS, ROTATION, schedule, set_size
from ladders.results import ladder_result
from ladders.standings import compute

from .. import rules
from .errors import EngineError, Reason
from .ladder_store import LadderStore
from .referee import LIVE, WAITING
from .seats import BOT, DEFAULT_CLOCK_MS
from .updates import Update

log = logging.getLogger(__name__)

RUNNING, DONE = "running", "done"
PLAYING, COUNTED, VOID = "playing", "counted", "void"
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
DEFAULT_OPTIONS = {"hhl": {"hands": 4}, "domeng": {"cycles": 1}}
SEATS = rules.NUM_SEATS
POLL_S = 0.5


def pool_of(key: str, entrant: str) -> str:
    return f"{key}/{entrant}"


def check_spec(spec: dict) -> dict:
    """Validate and complete a ladder definition; EngineError names the bad field."""
    def bad(msg):
        raise EngineError(Reason.MALFORMED_REQUEST, msg)

    if spec.get("variant") not in SEATS:
        bad("variant must be hhl or domeng")
    entrants = spec.get("entrants") or []
    if len(entrants) < 2 or len(set(entrants)) != len(entrants):
        bad("a ladder needs at least two entrants, each named once")
    for name in entrants:
        if not NAME.match(name):
            bad(f"entrant name {name!r}: use 1-40 letters, digits, '-', '_' or '.'")
    if spec.get("format", ROTATION) not in FORMATS:
        bad(f"format must be one of {', '.join(FORMATS)}")
    # 0 or empty means "the default" for these fields (as in the proto); the seed keeps 0.
    defaults = {"format": ROTATION, "matches": 0, "until_separated": False, "max_matches": 2000,
                "concurrency": 4, "clock_ms": DEFAULT_CLOCK_MS[BOT], "seat_wait_s": 30}
    given = {k: v for k, v in spec.items() if v is not None and (k == "seed" or v not in (0, ""))}
    spec = {**defaults, **given}
    spec["options"] = spec.get("options") or DEFAULT_OPTIONS[spec["variant"]]
    try:  # refuse bad options now, not when the first match is created in the background
        rules.new_match(spec["variant"], spec["options"], seed=0)
    except rules.MalformedInput as e:
        bad(f"options: {e.message}")
    if not spec["until_separated"] and spec["matches"] < 1:
        bad("give a number of matches, or until_separated")
    for key in ("matches", "max_matches", "concurrency", "clock_ms", "seat_wait_s"):
        if not isinstance(spec[key], int) or spec[key] < 0:
            bad(f"{key} must be a non-negative integer")
    if "seed" not in spec:
        spec["seed"] = secrets.randbelow(2**31)
    return spec


class Director:
    """One ladder's scheduler. All state changes happen on its own thread or under its lock."""

    def __init__(self, engine, store: LadderStore, ladder_id: str, spec: dict, created: float,
                 status: str = RUNNING):
        self.engine, self.store = engine, store
        self.id, self.spec, self.created, self.status = ladder_id, spec, created, status
        self.seats = SEATS[spec["variant"]]
        self.set_size = set_size(spec["format"], spec["entrants"], self.seats)
        self.results: list[dict] = store.results(ladder_id)
        self.counted = {r["index"] for r in self.results}
        self.playing: dict[str, tuple[int, float]] = {}  # match id -> (index, last change)
        self.replay: list[int] = []  # voided slots to play again
        started = store.matches(ladder_id)
        for match_id, idx, st in started:
            if st == PLAYING:
                self.playing[match_id] = (idx, time.time())
        voided = {idx for _, idx, st in started if st == VOID}
        self.voided = sum(1 for _, _, st in started if st == VOID)
        self.next_index = max((idx for _, idx, _ in started), default=-1) + 1
        self.replay = sorted(voided - self.counted - {idx for idx, _ in self.playing.values()})
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._subs = {}
        self._lock = threading.RLock()
        self._standings = compute(spec["variant"], spec["entrants"], self.results)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

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
        try:
            while not self._stop.is_set():
                with self._lock:
                    while self._may_schedule() and len(self.playing) < self.spec["concurrency"]:
                        self._start_next()
                    if not self.playing and not self._may_schedule():
                        self._finish()
                        return
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
        except Exception:  # a bug must not kill the engine; the ladder resumes on restart
            log.exception("ladder %s stopped by an error", self.id)

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
        referee = self.engine.create_match(
            s["variant"], s["options"], seed, names=list(lineup), bot_clock_ms=s["clock_ms"],
            pools=[pool_of(s["key"], name) for name in lineup])
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
            self._standings = compute(s["variant"], s["entrants"], self.results)
        self.store.set_match_status(self.id, match_id, COUNTED)

    def void(self, match_id: str, why: str) -> None:
        """A match the engine broke: not counted; its slot is played again."""
        with self._lock:
            if match_id not in self.playing:
                return
            idx, _ = self.playing.pop(match_id)
            self._unwatch(match_id)
            self.store.set_match_status(self.id, match_id, VOID)
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

    def _finish(self) -> None:
        self.status = DONE
        self.store.set_status(self.id, DONE)
        log.info("ladder %s done: %d matches counted, %d voided", self.id, len(self.counted),
                 self.voided)

    # ----- reading --------------------------------------------------------------------
    def info(self) -> dict:
        with self._lock:
            table = self._standings["entries"]
            leader = table[0]["entrant"] if self.results and table else ""
            return {"ladder_id": self.id, "spec": self.spec, "status": self.status,
                    "counted": len(self.counted), "voided": self.voided,
                    "playing": len(self.playing), "leader": leader, "created": self.created}

    def standings(self) -> dict:
        with self._lock:
            return {**self._standings, "voided": self.voided}

    def matches(self) -> list[dict]:
        by_index = {r["index"]: r for r in self.results}
        out = []
        s = self.spec
        for match_id, idx, status in self.store.matches(self.id):
            lineup, _, set_no = schedule(s["format"], s["entrants"], self.seats, s["seed"], idx)
            out.append({"index": idx, "set": set_no, "match_id": match_id, "lineup": lineup,
                        "status": status, "result": by_index.get(idx) if status == COUNTED else None})
        return out


class Ladders:
    """Every ladder of the engine."""

    def __init__(self, engine, store: LadderStore):
        self.engine, self.store = engine, store
        self._directors: dict[str, Director] = {}
        self._lock = threading.Lock()

    def resume(self) -> None:
        """After a restart (the engine has restored its matches): carry on every ladder."""
        for ladder_id, spec, status, created in self.store.ladders():
            d = Director(self.engine, self.store, ladder_id, spec, created, status)
            self._directors[ladder_id] = d
            d.start()

    def create(self, spec: dict) -> Director:
        spec = check_spec(spec)
        ladder_id = secrets.token_hex(6)
        spec["key"] = f"ladder-{ladder_id}"
        created = time.time()
        self.store.add_ladder(ladder_id, spec, created)
        d = Director(self.engine, self.store, ladder_id, spec, created)
        with self._lock:
            self._directors[ladder_id] = d
        d.start()
        log.info("ladder %s created: %s, %s, %s", ladder_id, spec["variant"], spec["format"],
                 ",".join(spec["entrants"]))
        return d

    def get(self, ladder_id: str) -> Director:
        d = self._directors.get(ladder_id)
        if d is None:
            raise EngineError(Reason.UNKNOWN_LADDER, f"no ladder with id {ladder_id!r}")
        return d

    def list(self) -> list[Director]:
        return sorted(self._directors.values(), key=lambda d: d.created, reverse=True)

    def close(self) -> None:
        for d in self._directors.values():
            d.stop()
