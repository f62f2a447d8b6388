"""Several engines on one PostgreSQL store: membership, one owner per match, failover.

Every live match (and every running ladder, with its matches) has exactly one owner
engine, the one whose id is in its row; the row's epoch grows by one each time the owner
changes. An engine heartbeats its own row every HEARTBEAT_S; one silent for LEASE_S is
dead, and its matches are orphans. Every live engine looks for orphans at each heartbeat
and takes some (a compare-and-set on the epoch: one engine wins), restores each from its
log, exactly as recovery after a restart does, and restarts its clocks; its bots reconnect
and are sent to it.

What keeps a match whole: every write of a match is fenced by (owner, epoch) in the same
statement (storage/sql.py), so an engine that lost a match — paused past its lease, then
resumed — has its next write refused (Fenced) and drops the match instead of splitting it;
the log's (match, version) key refuses a second row for one version in any case. Each
heartbeat also compares what this engine holds with what the database says it owns, and
drops the difference. Draining (SIGTERM) lets go of everything at once, so that the others
take it at their next look. docs/cluster.md has the picture and what each failure does.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import Counter

from .. import metrics
from ..storage.rows import StoreUnavailable

log = logging.getLogger(__name__)

HEARTBEAT_S = 0.5     # how often an engine beats, looks for orphans and checks what it owns
LEASE_S = 2.0         # an engine silent this long is dead: its matches are taken
EXPIRY_MARGIN_S = 0.02  # a beat meant for a lease's end comes this much after it
FORGET_S = 600.0      # the row of an engine silent this long is removed
SLACK = 2             # a match is made here unless another engine has this many fewer


class Cluster:
    """This engine as a member of the cluster on `store` (a PostgresStore)."""

    def __init__(self, engine, store):
        self.engine, self.store = engine, store
        self.engine_id = secrets.token_hex(6)
        self.address = ""
        self.draining = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._orphans_seen: dict[str, float] = {}   # id -> when first seen as an orphan
        self._members: list[dict] = []
        self._members_at = 0.0                  # time.monotonic() when _members was read
        self._sent: Counter[str] = Counter()   # matches sent to each engine since _members

    # ----- joining and leaving --------------------------------------------------------
    def join(self, address: str) -> list[str]:
        """Become a member, advertised at `address`; take the orphans there are now (after
        a restart: this engine's own matches of its previous run). Returns their ids."""
        self.address = address
        self.store.join(self.engine_id, address, time.time())
        self._read_members()
        taken = self._take_orphans(everything=len(self.live_members()) <= 1)
        self._thread = threading.Thread(target=self._run, name="cluster", daemon=True)
        self._thread.start()
        log.info("engine %s joined the cluster at %s (%d members live)", self.engine_id,
                 address, len(self.live_members()))
        return taken

    def drain(self) -> None:
        """Take no more matches, and let go of every match and ladder held: the other
        engines take them at their next look (within HEARTBEAT_S)."""
        self.draining = True
        try:
            self.store.beat(0, True)
            self.store.release()
        finally:
            self.engine.drop_everything("the engine is draining")
        log.info("engine %s drained: its matches and ladders are released", self.engine_id)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self.draining:
            try:
                self.store.leave()
            except Exception:   # noqa: BLE001 - the row then ages out like a dead engine's
                log.warning("engine %s: could not remove its row", self.engine_id)

    # ----- the heartbeat --------------------------------------------------------------
    def _run(self) -> None:
        last_forget = time.monotonic()
        away = False    # the store is away: said once, not at every beat
        while not self._stop.wait(next_beat(self._members, self.engine_id,
                                            time.monotonic() - self._members_at)):
            try:
                self._beat()
                away = False
                if time.monotonic() - last_forget > FORGET_S / 10:
                    self.store.forget_dead(FORGET_S)
                    last_forget = time.monotonic()
            except StoreUnavailable as e:
                if not away:
                    log.warning("engine %s: no heartbeat while the store is away: %s",
                                self.engine_id, e)
                away = True
            except Exception:   # never silent; the next beat tries again
                log.exception("engine %s: a heartbeat failed", self.engine_id)

    def _beat(self) -> None:
        alive = self.store.beat(self.engine.live_count(), self.draining)
        if not alive:
            # Taken for dead and forgotten: everything it held belongs to others now.
            log.warning("engine %s: its row is gone; dropping what it held and joining again",
                        self.engine_id)
            self.engine.drop_everything("this engine was taken for dead")
            self.store.epochs.clear()
            self.store.ladder_epochs.clear()
            self.store.join(self.engine_id, self.address, time.time())
        self._read_members()
        self._sent = Counter()
        self._drop_lost()
        if not self.draining:
            self._take_orphans()

    def _read_members(self) -> None:
        self._members = self.store.members(LEASE_S)
        self._members_at = time.monotonic()

    def _drop_lost(self) -> None:
        """Drop what this engine holds and the database says another owns (it was paused
        past its lease, or cut off)."""
        # What is held is read first: a match made after the query below is not lost.
        held_ladders, held_matches = self.engine.ladders.running_ids(), self.engine.live_ids()
        matches, ladders = self.store.owned()
        for ladder_id in held_ladders - ladders:
            self.engine.ladders.drop(ladder_id, "another engine owns the ladder now")
        for match_id in held_matches - matches:
            self.engine.drop_match(match_id, "another engine owns the match now")

    def _take_orphans(self, everything: bool = False) -> list[str]:
        """Take a share of the orphans: those at this engine's rank among the live
        engines, and any left an orphan for more than a lease (its taker failed)."""
        ladders, matches = self.store.orphans(LEASE_S)
        live = sorted(e["engine_id"] for e in self.live_members() if not e["draining"])
        rank = live.index(self.engine_id) if self.engine_id in live else 0
        now = time.monotonic()
        seen, self._orphans_seen = self._orphans_seen, {}
        taken = []
        candidates = [("L", k, e) for k, e in ladders] + [("M", k, e) for k, e in matches]
        for j, (kind, key, epoch) in enumerate(candidates):
            first = seen.get(key, now)
            self._orphans_seen[key] = first
            if not (everything or not live or j % len(live) == rank or now - first > LEASE_S):
                continue
            if kind == "L":
                taken += self._take_ladder(key, epoch)
            elif self.store.take("matches", key, epoch) is not None:
                if self.engine.adopt_match(key):
                    taken.append(key)
                    metrics.owner_changed("match")
        return taken

    def _take_ladder(self, ladder_id: str, epoch: int) -> list[str]:
        if self.store.take("ladders", ladder_id, epoch) is None:
            return []
        taken = []
        for match_id, match_epoch in self.store.ladder_match_epochs(ladder_id):
            if self.store.take("matches", match_id, match_epoch) is not None:
                if self.engine.adopt_match(match_id):
                    taken.append(match_id)
        self.engine.ladders.adopt(ladder_id)
        metrics.owner_changed("ladder")
        metrics.owner_changed("match", len(taken))
        return taken

    # ----- what the others need to know -----------------------------------------------
    def live_members(self) -> list[dict]:
        return [e for e in self._members if e["live"]]

    def members(self) -> list[dict]:
        return self.store.members(LEASE_S)

    def placement(self) -> str | None:
        """Where a new match goes: None for here, else the address of a live engine that
        is less loaded by more than SLACK matches. This engine's own load is counted now;
        another's is its last heartbeat plus the matches sent its way since this engine
        read it (else a burst of creations would all go to the one that looked idlest)."""
        others = [e for e in self.live_members()
                  if e["engine_id"] != self.engine_id and not e["draining"]]
        if not others:
            return None

        def load(e):
            return e["live_matches"] + self._sent[e["address"]]

        best = min(others, key=load)
        if not self.draining and load(best) + SLACK >= self.engine.live_count():
            return None
        self._sent[best["address"]] += 1
        return best["address"]

    def owner_of(self, table: str, key: str) -> tuple[str, bool] | None:
        """(address of the owner, alive) of an unfinished match or running ladder held
        elsewhere; None when the store has no such one."""
        found = self.store.owner(table, key, LEASE_S)
        if found is None:
            return None
        owner, address, alive = found
        return (address if alive else ""), alive


def next_beat(members: list[dict], engine_id: str, elapsed: float) -> float:
    """Seconds until this engine's next beat: HEARTBEAT_S, or sooner when another engine
    has missed a beat and its lease ends first. Its matches are then orphans, and taken,
    as the lease ends rather than up to a beat later (docs/cluster.md has what it changed
    in the failover times). ``members`` was read ``elapsed`` seconds ago; a lease that
    has ended since (a beat that failed, the store away) hurries nothing."""
    wait = HEARTBEAT_S
    for e in members:
        age = e["heartbeat_age_s"]
        if e["engine_id"] != engine_id and e["live"] and age > HEARTBEAT_S:
            left = LEASE_S - age - elapsed + EXPIRY_MARGIN_S
            if left > 0:
                wait = min(wait, left)
    return wait
