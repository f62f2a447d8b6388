"""One arena's matchmaker: it runs on the engine holding the arena's lease (room.py), one
engine at a time per cluster, and every write it makes is fenced by that lease's epoch.

Each cycle (CYCLE_S, and at once when a bot becomes free):
1. count: the results inserted since (by the engines their matches ended on) get the next
   sequence numbers, in the order their matches ended; the ratings follow that order;
   their bots are free again; a bot with timeouts in TIMEOUT_STREAK matches in a row is
   paused;
2. reconcile (every RECONCILE_S): a match whose creation half-happened (no match row)
   is voided; one over without a result (its owner died right after its end) has its
   result made from the store; one silent for STALL_CLOCKS turn clocks is voided. A
   voided match is never counted, and its bots are free at once;
3. seat: tables from the free bots (ladders/matchmaking.py), each an ordinary match with
   the arena's fixed options and a seed derived by HMAC from the arena's secret, placed
   on the least-loaded live engine (the cluster's placement) and made there as a row that
   engine adopts; its seats are assigned as rows that the bots' lobbies deliver.

After a kill -9 of its engine another engine takes the lease (room.py) and starts a new
matchmaker from the store: what was in play is read back and reconciled, so no result is
lost or counted twice (sequence numbers and the insert-once results), and no bot stays
seated in a match that never starts.
"""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict
from dataclasses import dataclass

from ladders.leaderboard import Board
from ladders.matchmaking import Candidate, next_table
from ladders.seeds import derive_seed

from ... import rules
from ..storage.arena_sql import COUNTED, PLACING, PLAYING, VOIDED
from ..storage.rows import AlreadyDone, Fenced
from .host import match_row
from .results import arena_result
from .spec import (
    DELIVER,
    RECONCILE_S,
    RESIDENTS_AFTER_S,
    SEATING_GAP_S,
    STALL_CLOCKS,
    TIMEOUT_STREAK,
    TIMEOUTS,
)

log = logging.getLogger(__name__)

PLACING_GRACE_S = 5.0    # a match without its row this long after being made: voided
RESULT_GRACE_S = 3.0     # a match over without a result this long: its result is made here


class Matchmaker:
    def __init__(self, room, spec: dict, secret: str):
        self.room, self.spec, self._secret = room, spec, secret
        self.id = spec["id"]
        self.seats = rules.NUM_SEATS[spec["variant"]]
        self.store = room.store
        self.playing: dict[str, dict] = {}   # match id -> lineup, created, status, set, rotation
        self.last_lineup: dict[tuple, frozenset] = {}
        self.streaks: dict[tuple, int] = defaultdict(int)
        self.seated_at: dict[str, float] = {}   # bot id -> when it was last seated
        self.sets: dict[frozenset, tuple[list, int, int]] = {}  # duplicate sets going on
        self.turn = 0
        self.held_until: float | None = None   # when the gap lets a bot go, or the house may come
        self.board: Board | None = None   # the arena's board, as of the last count (start)
        self.over_seen: dict[str, float] = {}
        self.last_reconcile = 0.0
        self.unfolded = False   # a count's numbers written, perhaps, and not folded here

    def start(self) -> None:
        """Read back what the arena has in play (after a takeover or a restart), and the
        board with every result counted so far."""
        self.board = self.room.board(self.id)
        for match_id, lineup, status, created, set_no, rotation in \
                self.store.matches_in_play(self.id):
            self.playing[match_id] = {"lineup": lineup, "created": created, "status": status,
                                      "set": set_no, "rotation": rotation}
        if self.spec["duplicate"]:
            # The sets waiting for their next rotation were the last matchmaker's, in its
            # memory: they are over, and their deals may be shown.
            self.store.close_idle_sets(self.id)
        log.info("arena %s: matchmaker running here, %d matches in play", self.id,
                 len(self.playing))

    @property
    def stall_s(self) -> float:
        return STALL_CLOCKS * self.spec["clock_ms"] / 1000 + 30

    def cycle(self, now: float) -> None:
        self.held_until = None
        self.count(now)
        if now - self.last_reconcile >= RECONCILE_S:
            self.last_reconcile = now
            self.reconcile(now)
        self.seat(now)

    # ----- 1. counting -------------------------------------------------------------------
    def count(self, now: float) -> None:
        uncounted = self.store.uncounted(self.id)
        if not uncounted:
            return
        # This matchmaker is the only writer of the sequence numbers: the next ones follow
        # the board's last, and the board folds them from memory once they are written.
        if self.unfolded:   # an earlier count's answer was lost: the board is read back
            self.board = self.room.board(self.id)
        sequence = self.board.last_sequence
        numbered = [(match_id, sequence + n, result)
                    for n, (match_id, _, result) in enumerate(uncounted, 1)]
        # A few statements for all of them in one transaction, not three each: at a
        # thousand bots a cycle counted dozens of results, one round trip after another,
        # while the bots they freed waited for their next table (docs/arena.md, "End to
        # end").
        self.unfolded = True
        try:
            self._leave([(m, result) for m, _, result in numbered], now, COUNTED,
                        numbers=[(m, s) for m, s, _ in numbered])
        except AlreadyDone:
            self._check_lease()     # Fenced when another engine runs the arena now
            log.warning("arena %s: a count found results counted already; they are read "
                        "again", self.id)
            return
        # Folded now, the board is current until the next count.
        self.board = self.room.fold(self.id, [{**result, "sequence": s}
                                              for _, s, result in numbered])
        self.unfolded = False
        # after the leaving: a duplicate set's last rotation closes it, and its record (the
        # analysis reads it) is public from then on; after the board's fold: the sample
        # (skill.py) is noted as the results are folded
        for match_id, _, _ in numbered:
            self.room.skill.counted(self.id, match_id)

    def _check_lease(self) -> None:
        if not self.store.holds_lease(self.id):
            raise Fenced(f"arena {self.id}: another engine runs its matchmaker now")

    def _leave(self, ends: list[tuple[str, dict | None]], now: float, status: str,
               numbers: list[tuple[str, int]] | None = None) -> None:
        """These matches leave play: counted, each with its result (and with `numbers`,
        the results' sequence numbers to write), or voided (None). In one transaction:
        the numbers, the statuses, their registered bots free again, the bots their
        timeouts pause, the duplicate sets they end. One failure makes none of it, and
        the next cycle does it all again: written one after another, a failure between
        the statuses and the freeing left bots seated in a match over, never to be seated
        again. This matchmaker's memory of them changes once it is all committed.
        AlreadyDone, with nothing made, when a result is numbered or a match out of play
        already."""
        free, streaks, paused, sets, closed = [], {}, [], {}, []
        for match_id, result in ends:
            info = self.playing.get(match_id)
            lineup = info["lineup"] if info else [tuple(k) for k in result["lineup"]]
            free += [k for k in lineup if not self.room.is_resident(k[0])]
            for seat, key in enumerate(lineup if result is not None else ()):
                if self.room.is_resident(key[0]):
                    continue
                late = result["faults"][seat].get("timeouts", 0) > 0
                streak = streaks.get(key, self.streaks[key]) + 1 if late else 0
                if streak >= TIMEOUT_STREAK:
                    streak = 0
                    paused.append(key[0])
                streaks[key] = streak
            if not self.spec["duplicate"]:
                continue
            if result is not None and info and info["rotation"] + 1 < self.seats:
                sets[frozenset(lineup)] = (_unrotate(lineup, info["rotation"]), info["set"],
                                           info["rotation"] + 1)
            else:   # its last rotation, or voided: no rotation of the set follows
                found = info or self.store.arena_match(match_id)   # read before the writes
                if found is not None:
                    closed.append(found["set"] if info else found[4])
        with self.store.together() as tx:
            if numbers:
                tx.count_results(self.id, numbers)
            tx.set_match_status(self.id, [m for m, _ in ends], status, every=True)
            tx.set_free(free, self.id, now)
            for bot_id in paused:
                tx.pause(bot_id, self.id, TIMEOUTS)
            for set_no in closed:
                tx.close_set(self.id, set_no)
        self._forget([m for m, _ in ends])
        self.streaks.update(streaks)
        self.sets.update(sets)
        for bot_id in paused:
            log.info("arena %s: bot %s paused: timeouts in %d matches in a row", self.id,
                     bot_id, TIMEOUT_STREAK)

    def _forget(self, match_ids: list[str]) -> None:
        for match_id in match_ids:
            self.playing.pop(match_id, None)
            self.over_seen.pop(match_id, None)

    def _end(self, match_id: str, now: float, status: str, result: dict | None) -> bool:
        """One match leaves play (_leave); one out of play already (the engine that ran the
        arena before ended it, its bots freed with it) is only forgotten here. Whether it
        left play here."""
        try:
            self._leave([(match_id, result)], now, status)
            return True
        except AlreadyDone:
            self._check_lease()     # Fenced when another engine runs the arena now
            self._forget([match_id])
            return False

    # ----- 2. reconciling ----------------------------------------------------------------
    def reconcile(self, now: float) -> None:
        states = self.store.match_state(list(self.playing))
        over = []
        for match_id, info in list(self.playing.items()):
            state = states.get(match_id)
            if state is None:
                if now - info["created"] > PLACING_GRACE_S:
                    self.void(match_id, now, "its creation did not finish")
                continue
            if info["status"] == PLACING:   # made in two steps, by an earlier version
                self.store.set_match_status(self.id, [match_id], PLAYING, only_from=(PLACING,))
                info["status"] = PLAYING
            status, last = state
            if status == "over":
                over.append(match_id)
            elif now - last > self.stall_s:
                self.void(match_id, now, f"no move for {now - last:.0f} s")
        if over:
            self._over(over, now)

    def _over(self, match_ids: list[str], now: float) -> None:
        """These matches are over and not counted here yet: their results, read at once."""
        results = self.store.results_of(match_ids)
        for match_id in match_ids:
            result = results.get(match_id)
            if result is not None and result["sequence"] is not None:
                # counted, but its status not yet written (a count of an earlier version,
                # stopped midway)
                self._end(match_id, now, COUNTED, result)
            elif result is None:     # with one, the next count takes it
                first = self.over_seen.setdefault(match_id, now)
                if now - first >= RESULT_GRACE_S:
                    self._result_from_store(match_id, now)

    def _result_from_store(self, match_id: str, now: float) -> None:
        """Its owner died between the last move and the result: made from the store."""
        referee = self.room.engine.get(match_id)
        meta = referee.row.settings["arena"]
        lineup = [[s["bot_id"], s["version"]] for s in meta["seats"]]
        result = arena_result(referee, self.id, lineup, now, meta.get("set", 0),
                              meta.get("rotation", 0))
        self.store.add_result(match_id, self.id, now, result)
        log.warning("arena %s: match %s ended without its result; made from the store",
                    self.id, match_id)

    def void(self, match_id: str, now: float, why: str) -> None:
        if self._end(match_id, now, VOIDED, None):
            log.warning("arena %s: match %s voided (%s): never counted; its bots are free",
                        self.id, match_id, why)

    # ----- 3. seating --------------------------------------------------------------------
    def seat(self, now: float) -> None:
        """Make the tables of the bots free now. The arena thread delivers the seats of
        this engine's lobbies, woken at once (the other engines' are told: room.py): the
        delivery's round trips on this thread were a seventh of its time at a thousand bots,
        and every bot waiting for the next cycle waited for them."""
        if self._make(self._tables(now), now):
            self.room.wake(DELIVER)

    def _tables(self, now: float) -> list[Table]:
        """The tables to make now: the next rotation of each duplicate set whose bots are
        all free, then tables of the free bots (ladders/matchmaking.py), as long as an
        engine can take them."""
        free, held = self._free(now)
        if not free and not self.sets:
            return []
        tables: list[Table] = []
        for key, (base, set_no, rotation) in list(self.sets.items()):
            wanted = [k for k in base if not self.room.is_resident(k[0])]
            if any(k in held for k in wanted):
                # Its bots were seated together, so the rate bound lets them go together:
                # the next rotation waits for them, and none of them plays elsewhere first.
                continue
            del self.sets[key]
            table = self._table(_rotate(base, rotation), set_no, rotation, tables) \
                if all(k in free for k in wanted) else None
            if table is None:   # a bot of it is not free now: the set ends, its deal shown
                self.store.close_set(self.id, set_no)
                continue
            tables.append(table)
            for k in wanted:
                free.pop(k)
        residents = self.room.resident_candidates(self.id, self.board)
        while free:
            # The house fills in only once the longest waiter has waited for other bots.
            since = min(c.waiting_since for c in free.values())
            residents_now = now - since >= RESIDENTS_AFTER_S
            chosen = next_table(list(free.values()), residents, self.seats, self.last_lineup,
                                self.turn, residents_now)
            if chosen is None:
                if not residents_now:   # the next cycle no later than the house may come
                    until = since + RESIDENTS_AFTER_S
                    self.held_until = min(self.held_until or until, until)
                break
            set_no = secrets.randbits(48) if self.spec["duplicate"] else 0
            table = self._table([c.key for c in chosen], set_no, 0, tables)
            if table is None:
                break
            tables.append(table)
            for c in chosen:
                free.pop(c.key, None)
        return tables

    def _free(self, now: float) -> tuple[dict[tuple, Candidate], set[tuple]]:
        """(the registered bots free now: connected (on a live engine), not paused, in no
        match of the arena, not seated within SEATING_GAP_S; those that would be but for
        that gap (rate_held))."""
        busy = {k[0] for info in self.playing.values() for k in info["lineup"]}
        # Free in the store too: seated bots and paused ones are not read (the busy set
        # above still guards a lobby that reconnected in the middle of its match).
        present = self.store.present(self.id, self.room.lease_s, free=True)
        if not present:
            return {}, set()     # an idle arena: nothing more is read
        infos = self.room.accounts.infos(r[0] for r in present)
        free, held = {}, set()
        for bot_id, version, free_since, paused, _, left in present:
            info = infos.get(bot_id)
            if paused or bot_id in busy or info is None or info.retired or left == 0:
                continue
            key = (bot_id, version)
            last = self.seated_at.get(bot_id)
            if rate_held(last, now):
                held.add(key)
                until = last + SEATING_GAP_S
                self.held_until = min(self.held_until or until, until)
                continue
            entry = self.board.entries.get(key)
            free[key] = Candidate(key, info.owner, entry.mu if entry else 25.0,
                                  float(free_since))
        return free, held

    def _table(self, lineup: list[tuple], set_no: int, rotation: int,
               chosen: list[Table]) -> Table | None:
        """A table of `lineup` (keys by seat) on the engine placement picks, after the
        `chosen` ones of this cycle; None when no engine can take it now."""
        engine = self.room.engine
        target, address = self._placement()
        here = sum(1 for t in chosen if not t.address)
        if not address and engine.live_count() + here >= engine.max_live:
            return None
        match_id = secrets.token_hex(8)
        seed = (derive_seed(self._secret, self.id, "set", set_no) if self.spec["duplicate"]
                else derive_seed(self._secret, self.id, match_id))
        keys = frozenset(lineup)
        for key in lineup:
            self.last_lineup[key] = keys
        self.turn += 1
        return Table(match_id, list(lineup), target, address, seed, set_no, rotation)

    def _make(self, tables: list[Table], now: float) -> bool:
        """Make these tables, each an arena match and its match row on its engine, all in
        one transaction of a few statements: a failure (the store away, the lease lost)
        makes none, and their bots stay free for the next cycle. Whether any was made."""
        if not tables:
            return False
        infos = self.room.accounts.infos(k[0] for t in tables for k in t.lineup)
        rows = []
        for t in tables:
            seats = [{"bot_id": b, "version": v, "resident": infos[b].resident}
                     for b, v in t.lineup]
            row = match_row(self.spec, t.match_id, t.seed, seats,
                            [infos[b].name for b, _ in t.lineup], t.set_no, t.rotation, now)
            rows.append((row, t.target or None, t.epoch))
        bots = [b for t in tables for b, _ in t.lineup if not self.room.is_resident(b)]
        with self.store.together() as made:
            made.add_matches(self.id, [(t.match_id, t.lineup, t.target, now, t.set_no,
                                        t.rotation) for t in tables])
            made.add_match_rows(rows)
            # In the same commit as the seats: a lobby's engine (this one's arena thread,
            # or another engine) that delivers them as they commit must read the seat
            # counts with them, or a lobby's last seat (ArenaEnlist.max_matches) is sent
            # as if more were to come, and the lobby never ends.
            made.count_seating(bots, self.id)
        for t, (row, _, _) in zip(tables, rows, strict=True):
            self.playing[t.match_id] = {"lineup": t.lineup, "created": now,
                                        "status": PLAYING, "set": t.set_no,
                                        "rotation": t.rotation}
            if not t.address:
                self.room.host.adopt(t.match_id, t.epoch, row)
            for bot_id, _ in t.lineup:
                self.seated_at[bot_id] = now
            log.info("arena %s: match %s made%s: %s", self.id, t.match_id,
                     f" on {t.address}" if t.address else "",
                     ", ".join(f"{infos[b].name}@{v}" for b, v in t.lineup))
        return True

    def _placement(self) -> tuple[str, str]:
        """(engine id, address) where the next match goes; address "" for this engine
        (engine id "" on a store no cluster shares)."""
        cluster = self.room.engine.cluster
        if cluster is None:
            return "", ""
        address = cluster.placement()
        if address:
            for e in cluster.live_members():
                if e["address"] == address:
                    return e["engine_id"], address
        return cluster.engine_id, ""

    def stop(self) -> None:
        log.info("arena %s: matchmaker stops here", self.id)


@dataclass(frozen=True)
class Table:
    """A match the matchmaker is about to make."""
    match_id: str
    lineup: list[tuple]       # (bot id, version) by seat
    target: str               # the engine id it is placed on ('' on a store no cluster shares)
    address: str              # that engine's address; '' for this engine
    seed: int
    set_no: int
    rotation: int

    @property
    def epoch(self) -> int:
        return 1 if self.target else 0


def rate_held(last_seated: float | None, now: float) -> bool:
    """Whether a bot last seated at `last_seated` must wait before its next seat: a gap
    of SEATING_GAP_S between seatings keeps it within MATCHES_PER_MINUTE in any 60 s."""
    return last_seated is not None and now < last_seated + SEATING_GAP_S


def _rotate(lineup: list, r: int) -> list:
    return lineup[r:] + lineup[:r]


def _unrotate(lineup: list, r: int) -> list:
    return lineup[-r:] + lineup[:-r] if r else list(lineup)
