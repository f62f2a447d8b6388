"""The arena matches this engine plays, whoever made them.

An arena match is an ordinary match (its row, its log, its referee) whose settings carry
"arena": {"arena", "seats": [{"bot_id", "version", "resident"}], "set", "rotation"}, the
(bot, version) that sits at each seat. Its seats wait in no pool: their pool is the marker
"@arena/<arena>", a name no pool can have, so ClaimSeat refuses them (POOL_SEAT) and no
pool bot is ever offered one. A seat is claimed by the engine when its bot's seat stream
arrives with the bot key (Hello.arena_seat: `seat_stream`), or for a resident at once.

The match is made by the arena's matchmaker, on whichever engine holds its lease, as a
row owned by the engine it is placed on; that engine adopts it (`adopt_placed`, or at
once when it is this one). Every engine tracks the arena matches it holds however it came
to hold them (made here, placed here, taken over from a dead engine, restored after a
restart): residents play their seats, seats whose bot has not come within the arena's
seat_wait_s of being sent its seat are played by the clock (a no-show: charged, and the
bot paused), and when the match ends its arena result is inserted, once.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import queue
import threading
import time
from dataclasses import dataclass

from ..errors import EngineError, Reason
from ..matches.referee import WAITING, Referee
from ..matches.seats import BOT, SeatSpec, stored_seats
from ..matches.updates import Moved, Subscriber, Update
from ..storage.arena_sql import ARENA_CREATOR
from ..storage.rows import MatchRow
from .results import arena_result
from .spec import ARENA_POOL_PREFIX, COUNT, NO_SHOW

log = logging.getLogger(__name__)


def _locked(method):
    """A method of Host whose bookkeeping is done under its lock; the results it leaves
    to write are written after, outside it (write_results)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self._lock:
            done = method(self, *args, **kwargs)
        if self._unwritten:     # a look without the lock: the next tick retries anyway
            self.write_results()
        return done
    return run


def arena_of(referee: Referee) -> dict | None:
    return referee.row.settings.get("arena")


def match_row(spec: dict, match_id: str, seed: int, seats: list[dict], names: list[str],
              set_no: int, rotation: int, created: float) -> MatchRow:
    """The row of a new arena match: `seats` [{"bot_id", "version", "resident"}] by seat."""
    specs = [SeatSpec(BOT, name, ARENA_POOL_PREFIX + spec["id"]) for name in names]
    settings = {"seats": stored_seats(specs, [spec["clock_ms"]] * len(specs)),
                "arena": {"arena": spec["id"], "seats": seats, "set": set_no,
                          "rotation": rotation}}
    return MatchRow(match_id, spec["variant"], spec["options"], seed, None, settings, created,
                    WAITING, created_by=ARENA_CREATOR)


@dataclass
class Hosted:
    referee: Referee
    meta: dict
    sub: Subscriber
    told: dict[int, float] | None = None   # seat -> when its bot was sent it (no_shows)
    checking: int = 0             # seat streams come for it whose bot key is being checked


class Host:
    def __init__(self, room):
        self.room = room
        self.engine = room.engine
        self.store = room.store
        self.queue: queue.SimpleQueue = room.inbox
        self.tracked: dict[str, Hosted] = {}
        self._unwritten: dict[str, Referee] = {}   # over, result not stored yet (store away)
        self._other: set[str] = set()   # matches held here that are no arena's
        # The arena thread and the matchmaking one (room.py), which adopts the tables it
        # makes on this engine at once, both come to hold matches here. The lock covers
        # holding a match and the bookkeeping; the arena thread's reads (the matches placed
        # here, the seats sent) and the results' writes are made outside it: under load the
        # matchmaking thread waited on them, a twelfth of its time, while the tables it had
        # made waited to be held (docs/arena.md).
        self._lock = threading.RLock()
        self._writing: set[str] = set()   # results a thread is writing now: not the other

    # ----- coming to hold a match ----------------------------------------------------------
    @_locked
    def adopt(self, match_id: str, epoch: int, new: MatchRow | None = None) -> None:
        """Hold a match placed on this engine (its row names this engine at `epoch`);
        `new`, its row when nothing has claimed or played in it yet (Engine.adopt_match).
        Once: the matchmaking thread adopts what it makes here, and the arena thread's look
        for matches placed here may find the same one first (its wake-up comes as the
        match commits); a second referee would split the match's seats between two."""
        if self.engine.holds(match_id):
            return
        if self.engine.store.engine_id is not None:
            self.engine.store.epochs[match_id] = epoch
        if self.engine.adopt_match(match_id, new):
            self.track(self.engine.get(match_id))

    def adopt_placed(self) -> None:
        held = self.engine.live_ids()
        placed = [(m, epoch) for m, epoch in self.store.placed_here() if m not in held]
        if not placed:
            return
        # Those placed a moment ago (nothing claimed or played yet, nearly all of them) are
        # held from their rows, read in one go: restoring each from its log took four
        # reads, and under load the engine's arena thread spent a third of its time on
        # them while the seats it was to deliver waited (docs/arena.md, "End to end").
        fresh = self.store.fresh_rows([m for m, _ in placed])
        for match_id, epoch in placed:
            self.adopt(match_id, epoch, fresh.get(match_id))

    @_locked
    def scan(self) -> None:
        """Track the arena matches this engine holds and does not track yet (taken over
        by the cluster, restored after a restart)."""
        live = self.engine.live_ids()
        self._other &= live
        for match_id in live - set(self.tracked) - self._other:
            try:
                referee = self.engine.get(match_id)
            except EngineError:
                continue
            if arena_of(referee) is not None:
                self.track(referee)
            else:
                self._other.add(match_id)   # no arena's: not looked at again

    def track(self, referee: Referee) -> None:
        if referee.id in self.tracked:
            return
        meta = arena_of(referee)
        sub, _ = referee.subscribe(None, self.queue, events=False)
        self.tracked[referee.id] = Hosted(referee, meta, sub)
        bots = []
        for seat, s in enumerate(meta["seats"]):
            if s["resident"] and s["resident"] in self.room.residents.makers:
                self.take(referee, seat, self.room.bot_name(s["bot_id"]))
                self.room.residents.play(referee, seat, s["resident"])
            elif not s["resident"] and not referee.seats[seat].claimed:
                bots.append((seat, s["bot_id"]))
        if bots and not referee.match.over:
            self.room.standbys.seat(referee, meta["arena"], bots)   # those standing by here
        if referee.match.over:
            self.over(referee)

    def take(self, referee: Referee, seat: int, name: str) -> None:
        """Claim an arena seat for the bot that plays it (no token leaves the engine)."""
        self.engine.pools.withdraw(referee, seat)
        if referee.seats[seat].claimed:
            return
        try:
            referee.claim(seat, by_pool=True, name=name)
        except EngineError as e:
            if e.reason != Reason.SEAT_TAKEN:   # a seat stream won the race: fine
                raise

    # ----- a registered bot's seat stream ----------------------------------------------------
    def seat_stream(self, match_id: str, bot) -> tuple[Referee, int]:
        """The match and seat the bot plays (Hello.arena_seat), claimed for it on its first
        arrival; NOT_OWNER when another engine plays the match, NOT_SEATED when the bot
        has no seat in it."""
        referee = self.engine.get(match_id)
        meta = arena_of(referee)
        seats = [i for i, s in enumerate(meta["seats"]) if s["bot_id"] == bot.bot_id] \
            if meta else []
        if not seats:
            raise EngineError(Reason.NOT_SEATED, f"bot {bot.name} has no seat in match "
                              f"{match_id}")
        seat = seats[0]
        self._play(referee, seat, bot.name)
        return referee, seat

    @_locked
    def rejoin(self, bot, arena: str) -> list[tuple[Referee, int]]:
        """The bot's seats in this arena's matches held here, not over, each claimed for
        it (a standby stream that connects again plays them)."""
        found = []
        for hosted in list(self.tracked.values()):
            if hosted.meta["arena"] != arena or hosted.referee.match.over:
                continue
            for seat, s in enumerate(hosted.meta["seats"]):
                if s["bot_id"] == bot.bot_id:
                    self._play(hosted.referee, seat, bot.name)
                    found.append((hosted.referee, seat))
        return found

    def _play(self, referee: Referee, seat: int, name: str) -> None:
        """The seat is played by its bot's stream from now on: claimed for it, and back
        from the clock if it was a no-show."""
        if not referee.match.over:
            self.take(referee, seat, name)
            if referee.seats[seat].absent:
                referee._returns(seat)   # played by its bot again, as a seat token's return

    # ----- the clock of arena seats ----------------------------------------------------------
    @contextlib.contextmanager
    def arriving(self, match_id: str):
        """A seat stream for `match_id` has come and its bot key is being checked: until
        the check ends, no seat of the match is taken for a no-show before twice the seat
        wait on its own clock (no_shows). Under load a key's check (a store read) took
        seconds, and bots whose streams had come in time were charged a no-show, paused,
        and came back through their lobbies: more work, more lateness. The key is not
        known good yet, so the hold is bounded: whoever names a match in any number of
        Hellos delays each of its no-shows by one seat wait at most."""
        with self._lock:
            hosted = self.tracked.get(match_id)     # only matches held here: bounded
            if hosted is not None:
                hosted.checking += 1
        try:
            yield
        finally:
            if hosted is not None:
                with self._lock:
                    hosted.checking -= 1

    def no_shows(self, now: float) -> None:
        """Play the seats whose bot has not come within the arena's seat wait, counted
        from when its lobby was sent the seat: a bot is charged for its own lateness, not
        for the engines' in telling it (a lobby's engine behind by seconds under load).
        A seat never sent (no lobby) counts from the match's making. While a seat
        stream's key is being checked (`arriving`), every seat of its match has one more
        seat wait: which seat the stream is for is known only once its key is."""
        with self._lock:
            tracked = list(self.tracked.values())
        late = [h for h in tracked if h.referee.status == WAITING and
                now - h.referee.row.created >= self.room.seat_wait(h.meta["arena"])]
        unread = [h for h in late if h.told is None]
        if unread:
            sent = self.store.sent([h.referee.id for h in unread])
            for h in unread:
                h.told = {s: sent.get((h.referee.id, s), 0.0) for s in range(len(h.meta["seats"]))}
        for hosted in late:
            referee = hosted.referee
            wait = self.room.seat_wait(hosted.meta["arena"]) * (2 if hosted.checking else 1)
            for seat in referee.unfilled_pool_seats():
                if now - max(hosted.told[seat], referee.row.created) < wait:
                    continue
                bot_id = hosted.meta["seats"][seat]["bot_id"]
                self.engine.pools.withdraw(referee, seat)
                referee.no_show(seat)     # played by the clock at once; charged a crash
                self.store.pause(bot_id, hosted.meta["arena"], NO_SHOW)
                log.info("arena %s: match %s seat %d: bot %s did not come; paused",
                         hosted.meta["arena"], referee.id, seat, bot_id)

    # ----- what the matches say ---------------------------------------------------------------
    @_locked
    def handle(self, item) -> None:
        if isinstance(item, Update) and item.over:
            hosted = self.tracked.get(item.match_id)
            if hosted is not None:
                self.over(hosted.referee)
        elif isinstance(item, Moved):
            hosted = self.tracked.pop(item.match_id, None)
            if hosted is not None:
                self.room.residents.stop(item.match_id)

    def over(self, referee: Referee) -> None:
        hosted = self.tracked.pop(referee.id, None)
        if hosted is not None:
            referee.unsubscribe(hosted.sub)
        self.room.residents.stop(referee.id)
        self.engine.pools.forget(referee)
        self._unwritten[referee.id] = referee   # written as its caller lets go of the lock

    def write_results(self) -> None:
        """Insert the results of the matches that ended here; one the store refused now is
        tried again at the next tick. One being written by the other thread is left to it:
        neither waits for the other's round trip."""
        with self._lock:
            unwritten = [(m, r) for m, r in self._unwritten.items() if m not in self._writing]
            self._writing.update(m for m, _ in unwritten)
        for match_id, referee in unwritten:
            try:
                self._write_result(match_id, referee)
            finally:
                with self._lock:
                    self._writing.discard(match_id)

    def _write_result(self, match_id: str, referee: Referee) -> None:
        meta = arena_of(referee)
        lineup = [[s["bot_id"], s["version"]] for s in meta["seats"]]
        try:
            result = arena_result(referee, meta["arena"], lineup, time.time(),
                                  meta.get("set", 0), meta.get("rotation", 0))
            self.store.add_result(match_id, meta["arena"], result["ended"], result)
        except Exception:
            log.exception("arena %s: the result of match %s could not be stored; trying "
                          "again", meta["arena"], match_id)
            return
        with self._lock:
            self._unwritten.pop(match_id, None)
        if meta["arena"] in self.room.matchmakers:
            self.room.wake(COUNT)   # elsewhere the store tells the matchmaker's engine

    def close(self) -> None:
        with self._lock:
            for hosted in self.tracked.values():
                hosted.referee.unsubscribe(hosted.sub)
            self.tracked.clear()
