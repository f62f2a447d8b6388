"""The engine: every match of this process, created, found, restored and closed here.

The rpc layer calls one method per request. Looking a match up is a dict read; after
that each request holds only its match's lock (the referee's), so no lock spans matches.

Every input is checked here, at the edge, before anything is looked up or stored
(security/limits.py); work is created only by a principal within its quotas
(security/keys.py). A match that
ends leaves memory: at most FINISHED_KEPT finished matches stay loaded for readers, the
others are read back from the store when asked for.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager

from plumbing.alarms import Alarms
from plumbing.workers import Busy, WorkerFailed, Workers

from .. import rules
from ..rules.errors import shown
from .analyses.service import AnalysisService
from .arena.room import Arenas
from .cluster.membership import Cluster
from .errors import EngineError, Reason
from .ladders.director import Ladders
from .matches import forking
from .matches.pools import Pools
from .matches.referee import LIVE, OVER, WAITING, Accepted, Referee, SeatView, public_seat
from .matches.seats import (
    BOT,
    DEFAULT_CLOCK_MS,
    PERSON,
    SeatSpec,
    hash_token,
    new_claim_secret,
    seat_specs,
    stored_seats,
)
from .matches.updates import Subscriber, UpdateQueue
from .sampling.service import WorldService
from .security import limits, quotas
from .security.keys import OPEN_PRINCIPAL, Keys, Principal
from .security.rate import InFlight
from .storage.factory import open_store
from .storage.rows import MatchRow, StoreDamaged
from .storage.sql import SQLStore

log = logging.getLogger(__name__)

FINISHED_KEPT = 256          # finished matches kept loaded (replayed from the store otherwise)
# Forks' work (a record parsed and replayed; a finished fork's record rebuilt) runs in
# worker processes, FORK_PROCESSES at once and FORK_WAITING more waiting; beyond, BUSY.
FORK_PROCESSES, FORK_WAITING = 1, 2
FORK_TIMEOUT_S = 30.0        # a fork's work (a 1 MB record takes about half a second)
# One fork in work per client address; a fork refused for the engine's bounds (BUSY, a
# quota) is answered after this long, so that a client asking again at once cannot make
# a flood of megabyte requests out of refusals.
FORK_REFUSAL_DELAY_S = 0.5
# Watch streams at once, of one client address (a gateway's spectators share one a match,
# a seat's page has one of its own) and of one match.
WATCHES_PER_CLIENT, WATCHES_PER_MATCH = 1024, 8
RECORDS_KEPT = 8             # finished forks' rebuilt records kept, as JSON text
MAX_LIVE_MATCHES = 5000      # matches not over, for the whole engine
LADDER_POOL_PREFIX = "ladder-"   # the ladders' own pools: no one else may name them


class Engine:
    def __init__(self, store: SQLStore | None = None, alarms: Alarms | None = None,
                 keys_required: bool = False,
                 max_live: int = MAX_LIVE_MATCHES, yardsticks: dict | None = None,
                 worlds: WorldService | None = None, arenas=(), residents: dict | None = None,
                 analyser=None):
        """`yardsticks`: name -> a function making a strategy the engine plays itself, in
        process, for a ladder's yardstick entrant (the oracle, which reads the true hands
        and so never plays over the wire). The composition root (domino_cli) gives them:
        the engine imports no bots. `worlds`: the SampleWorlds service (its rate).
        `arenas`: the arenas this engine runs (arena/spec.py); `residents`: strategy name ->
        a function making it, the house bots of every arena (arena/residents.py).
        `analyser`: ``(record, seats, worlds, progress) -> document``, the analysis of a
        finished match (analysis/; analyses/service.py), or None: the engine analyses
        nothing (ANALYSIS_OFF)."""
        self.yardsticks = dict(yardsticks or {})
        self.store = store if store is not None else open_store(":memory:")
        self.alarms = alarms if alarms is not None else Alarms()
        self.keys = Keys(self.store, keys_required)
        self.max_live = max_live
        self._referees: dict[str, Referee] = {}          # waiting and live
        self._finished: OrderedDict[str, Referee] = OrderedDict()   # recently over
        self._lock = threading.Lock()    # the maps above, and loading a finished match
        self.pools = Pools(self.store)
        self.worlds = worlds if worlds is not None else WorldService()
        self.ladders = Ladders(self, self.store.ladders)
        self.address = ""   # where this engine serves, as told by its command line
        self.workers = Workers(FORK_PROCESSES, FORK_WAITING)
        self._forking = InFlight(client=1)      # client address -> its fork in work
        self._watching = InFlight(client=WATCHES_PER_CLIENT, match=WATCHES_PER_MATCH)
        self._records: OrderedDict[str, str] = OrderedDict()   # finished forks' records
        # Only a store several engines can share makes a cluster; it starts at join().
        self.cluster = Cluster(self, self.store) if self.store.shared else None
        self.store.health.listen(self._store_health)
        self.arenas = Arenas(self, arenas, residents)   # runs from recover() or join()
        # The analysis of a match reads what its record holds: the record's own checks.
        self.analyses = AnalysisService(self.store, analyser, self.record)

    @classmethod
    def open(cls, db: str, **options) -> Engine:
        """An engine on the store `db`: a SQLite file (or ":memory:"), or a PostgreSQL
        database (postgresql://...): matches and ladders."""
        store = open_store(db)
        with store.starting():
            return cls(store, **options)

    # ----- lifecycle ------------------------------------------------------------------
    def recover(self) -> list[str]:
        """Restore every unfinished match from the store (same state and version) and
        restart its clocks. Returns the restored match ids. StoreDamaged when the store
        is damaged (checked first) or a match's log cannot be read."""
        with self.store.starting():
            return self._recover()

    def _recover(self) -> list[str]:
        self.store.check()
        restored = []
        for row in self.store.unfinished():
            try:
                referee = Referee.restore(row, self.store, self.alarms, self._over,
                                          on_lost=self._lost, yardsticks=self.yardsticks)
            except (rules.MalformedInput, rules.IllegalMove, KeyError, TypeError,
                    ValueError) as e:
                raise StoreDamaged(f"match {row.id} in the store cannot be replayed "
                                   f"({type(e).__name__}: {str(e)[:120]}): the store was "
                                   "changed by hand or is damaged") from None
            with self._lock:
                self._referees[row.id] = referee
            referee.start()
            self._seat_from_pools(referee)
            restored.append(row.id)
            log.info("match %s restored at version %d", row.id, referee.version)
        self.ladders.resume()
        self.arenas.start()
        return restored

    def join(self, address: str) -> list[str]:
        """Join the cluster of the engines on this store, advertised at `address`: what
        recovery is for one engine (recover()), taking the matches and ladders that no live
        engine owns. Returns the ids of the matches taken."""
        with self.store.starting():
            self.store.check()
            self.address = address
            self.ladders.resume(running=False)   # the finished ones, to read; running: owned
            taken = self.cluster.join(address)
            self.arenas.start()
        return taken

    def adopt_match(self, match_id: str, new: MatchRow | None = None) -> bool:
        """Restore a match this engine now owns (a failover, or made for it elsewhere)
        from its log and start its clocks; False (logged) when it cannot be replayed.
        `new`: its row, when nothing has claimed a seat of it or played in it yet (an arena
        match just made here or placed here): taken as it is, with no read of the log."""
        row = new or self.store.match(match_id)
        try:
            if new is not None:
                referee = Referee(row, self.store, self.alarms, on_over=self._over,
                                  on_lost=self._lost, yardsticks=self.yardsticks)
            else:
                referee = Referee.restore(row, self.store, self.alarms, self._over,
                                          on_lost=self._lost, yardsticks=self.yardsticks)
        except Exception:
            log.exception("match %s: taken over, but its log does not replay", match_id)
            return False
        with self._lock:
            self._referees[match_id] = referee
            self._finished.pop(match_id, None)
        referee.start()
        self._seat_from_pools(referee)
        log.info("match %s taken over at version %d", match_id, referee.version)
        return True

    def drop_match(self, match_id: str, why: str) -> None:
        """Stop holding a match another engine owns now: its streams end (their clients
        reconnect and are sent to the owner), its clocks stop, nothing is written."""
        with self._lock:
            referee = self._referees.get(match_id)
            if referee is None or referee.match.over:
                return
            del self._referees[match_id]
        self.pools.forget(referee)
        referee.release()
        self.store.epochs.pop(match_id, None)
        log.warning("match %s dropped at version %d: %s", match_id, referee.version, why)

    def _store_health(self, up: bool) -> None:
        """The store went away or came back (storage/health.py, on its probe's thread).
        Away: nothing to do, every write is refused at once. Back: each live match reads
        back what the store took late and restarts what its clocks held (store_back)."""
        if not up:
            return
        for referee in list(self._referees.values()):
            try:
                referee.store_back()
            except EngineError as e:
                if e.reason == Reason.STORE_UNAVAILABLE:
                    return   # away again: its next return does the rest
                log.exception("match %s: restarting it after the store's return failed",
                              referee.id)
            except Exception:   # one match's bug must not keep the others waiting
                log.exception("match %s: restarting it after the store's return failed",
                              referee.id)

    def _lost(self, referee: Referee) -> None:
        self.drop_match(referee.id, "another engine owns the match now (a write was refused)")

    def drop_everything(self, why: str) -> None:
        self.arenas.let_go(why)
        self.ladders.drop_all(why)
        for match_id in self.live_ids():
            self.drop_match(match_id, why)

    def members(self) -> list[dict]:
        """The engines on this store (ListEngines), this one marked."""
        if self.cluster is None:
            return [{"engine_id": "", "address": self.address, "live": True,
                     "live_matches": self.live_count(), "draining": False,
                     "heartbeat_age_s": 0.0, "this_engine": True}]
        return [{**e, "this_engine": e["engine_id"] == self.cluster.engine_id}
                for e in self.cluster.members()]

    def live_ids(self) -> set[str]:
        with self._lock:
            return set(self._referees)

    def live_count(self) -> int:
        return len(self._referees)

    def holds(self, match_id: str) -> bool:
        with self._lock:
            return match_id in self._referees

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
        self.arenas.close()
        self.analyses.close()
        self.ladders.close()
        for referee in list(self._referees.values()):
            referee.close()
        self.alarms.stop()
        self.workers.close()
        self.worlds.close()
        self.store.close()

    # ----- creating and seating -------------------------------------------------------
    def create_match(self, variant: str, options: dict | None = None, seed: int | None = None,
                     deals: list | None = None, seats: list[SeatSpec] | None = None,
                     bot_clock_ms: int = 0, person_clock_ms: int = 0,
                     principal: Principal = OPEN_PRINCIPAL, ladder: bool = False,
                     here: bool = False, fork: tuple[str, int] | None = None,
                     wait_s: float | None = None) -> Referee:
        """A new match; `seats`: one SeatSpec per seat (None: a bot seat each, claimed by
        token). Every argument is checked first; nothing is stored for a refused one. A
        seat's `pool` names the bot pool that fills it; a ladder's own matches (`ladder`)
        may use the ladder's pools and count against no quota but the engine's. A seat's
        `yardstick` names the engine's own strategy that plays it: a ladder's yardstick
        entrant, seated by the engine at once. `fork` = (record JSON text, N): the match
        starts after the record's first N plays, with its variant, options and deals;
        `options` and `deals` are then refused when given at all (None: not given). In a
        cluster a match goes to the least-loaded engine: NOT_OWNER names it, unless `here`
        (a client following that refusal). `wait_s`: how long the caller waits for a
        fork's work (its call's deadline); a fork not done by then is refused (BUSY), not
        made."""
        # A fork's work (its record parsed and replayed) comes after every check that
        # costs nothing, as late as its variant allows: the seats are checked against the
        # variant, which a request may leave to the record.
        forked = None
        if fork is not None:
            if options is not None or deals is not None:
                raise limits.refuse("fork", "a forked match has the record's options and "
                                    "deals; give neither")
            if variant and variant not in rules.VARIANTS:
                raise limits.refuse("variant", f"must be one of {', '.join(rules.VARIANTS)}, "
                                    f"got {shown(variant)}")
            forking.check_request(*fork)
        if seed is not None:
            limits.integer(seed, "seed", *limits.SEEDS)
        limits.integer(bot_clock_ms, "bot_clock_ms", *limits.CLOCK_MS, zero_ok=True)
        limits.integer(person_clock_ms, "person_clock_ms", *limits.CLOCK_MS, zero_ok=True)
        if fork is not None:
            if seed is None:
                seed = secrets.randbelow(limits.SEEDS[1] + 1)
            if not variant:
                self._place(ladder, here)
                forked = self._fork(fork, seed, principal, ladder, wait_s)
                variant, options = forked["variant"], forked["options"]
        if variant not in rules.VARIANTS:
            raise limits.refuse("variant", f"must be one of {', '.join(rules.VARIANTS)}, "
                                f"got {shown(variant)}")
        n = rules.NUM_SEATS[variant]
        seats = list(seats) if seats else [SeatSpec()] * n
        if len(seats) != n:
            raise limits.refuse("seats", f"{variant} has {n} seats; got {len(seats)} seat entries")
        for i, spec in enumerate(seats):
            if spec.kind not in (BOT, PERSON):
                raise limits.refuse(f"seats[{i}].kind", "must be a bot or a person seat")
            limits.text(spec.name, f"seats[{i}].name", limits.NAME_MAX)
            if spec.pool:
                self._check_pool(spec.pool, f"seats[{i}].pool", ladder)
            if spec.yardstick and spec.yardstick not in self.yardsticks:
                raise limits.refuse(f"seats[{i}].yardstick", "must be one of "
                                    f"{', '.join(self.yardsticks) or 'none on this engine'}")
            if spec.yardstick and spec.pool:
                raise limits.refuse(f"seats[{i}].yardstick", "a yardstick seat is played by "
                                    "the engine, not filled from a pool")
            if spec.open and not spec.by_token:
                raise limits.refuse(f"seats[{i}].open", "only a seat claimed with ClaimSeat "
                                    "can be open; a pool's seat is filled by its pool")
        if seed is None:
            seed = secrets.randbelow(limits.SEEDS[1] + 1)
        if forked is None:
            self._place(ladder, here)
        if fork is not None and forked is None:
            forked = self._fork(fork, seed, principal, ladder, wait_s)
            if variant != forked["variant"]:
                raise limits.refuse("variant", f"the record is a {forked['variant']} match, "
                                    f"not {shown(variant)}")
            options = forked["options"]
        try:
            match = rules.new_match(variant, options or {}, seed=seed, deals=deals)
        except rules.MalformedInput as e:
            raise limits.refuse(e.field or "options", e.message) from None
        clock_ms = {BOT: bot_clock_ms or DEFAULT_CLOCK_MS[BOT],
                    PERSON: person_clock_ms or DEFAULT_CLOCK_MS[PERSON]}
        # A claim secret for each seat only the creator may hand out (seats.may_claim).
        claims = [new_claim_secret() if spec.by_token and not spec.open else ""
                  for spec in seats]
        settings = {"seats": stored_seats(seats, [clock_ms[spec.kind] for spec in seats],
                                          [hash_token(c) if c else "" for c in claims])}
        if forked:
            # Stored with the match, not in its move log: one row makes the fork, and
            # recovery resumes it at its fork point (forking.py) before the log.
            settings[forking.FORK] = forked["fork"]
        with self._lock:
            if len(self._referees) >= self.max_live:
                raise EngineError(Reason.ENGINE_FULL, f"the engine runs {self.max_live} "
                                  "matches, its most; try again when some are over")
            row = MatchRow(forked["match_id"] if forked else secrets.token_hex(8), variant,
                           match.options, seed, deals, settings, self.alarms.now(), WAITING,
                           created_by=principal.name)
            if ladder:   # bounded by its ladder's size and concurrency instead
                self.store.add_match(row)
            else:        # counted in the store: the quota holds across the cluster
                # (a fork's minute was charged before its work: _fork)
                quotas.charge_match(self.store, principal, row, time.time(),
                                    per_minute=not forked)
            referee = Referee(row, self.store, self.alarms, on_over=self._over,
                              on_lost=self._lost, yardsticks=self.yardsticks)
            if ladder:   # hidden until its director lists it (a duplicate set's deal)
                self.ladders.pending(row.id)
            referee._claim_secrets = claims
            self._referees[row.id] = referee
        for seat, spec in enumerate(seats):
            if spec.yardstick:
                referee.claim(seat)   # the engine holds the seat: nobody gets its token
        referee.start()
        # No seed here: it would tell every hidden tile (docs/security.md).
        log.info("match %s created by %s: %s", row.id, principal.name, variant)
        self._seat_from_pools(referee)
        return referee

    @contextmanager
    def forking_for(self, client: str):
        """Around a fork request of the client at address `client` (rpc/server.py): one
        in work per address; a refusal for the engine's bounds comes after a pause."""
        if self._forking.enter(client=client):
            time.sleep(FORK_REFUSAL_DELAY_S)
            raise EngineError(Reason.BUSY, "a fork of your address is being made; wait for "
                              "its answer")
        try:
            yield
        except EngineError as e:
            if e.reason in (Reason.BUSY, Reason.QUOTA_EXCEEDED):
                time.sleep(FORK_REFUSAL_DELAY_S)
            raise
        finally:
            self._forking.leave(client=client)

    def _place(self, ladder: bool, here: bool) -> None:
        """In a cluster a new match goes to the least-loaded engine (NOT_OWNER names it),
        unless it is a ladder's or the client follows that refusal already (`here`)."""
        if self.cluster is not None and not ladder and not here:
            elsewhere = self.cluster.placement()
            if elsewhere:
                raise EngineError(Reason.NOT_OWNER, f"the engine at {elsewhere} has fewer "
                                  "matches: create it there", owner=elsewhere)

    def _fork(self, fork: tuple[str, int], seed: int, principal: Principal,
              ladder: bool, wait_s: float | None) -> dict:
        """A fork request's work (forking.prepare), in a worker process; charged to the
        principal's quotas first, since it costs that work even when refused."""
        match_id = secrets.token_hex(8)   # the id it will have: its charge's
        if not ladder:
            quotas.charge_work(self.store, principal, match_id, time.time())
        done = self._in_worker(forking.prepare, *fork, seed, wait_s=wait_s)
        if "refused" in done:
            field, message = done["refused"]
            raise limits.refuse(field, message.removeprefix(f"{field}: "))
        if "failed" in done:
            log.error("a fork could not be resumed at its fork point: %s", done["failed"])
            raise EngineError(Reason.INTERNAL, "internal error; the engine logged it")
        return {**done, "match_id": match_id}

    def _in_worker(self, job, *args, wait_s: float | None = None):
        timeout = FORK_TIMEOUT_S if wait_s is None else min(FORK_TIMEOUT_S, wait_s)
        try:
            return self.workers.run(job, *args, timeout=timeout)
        except Busy:
            raise EngineError(Reason.BUSY, f"the engine is busy with other forks "
                              f"({FORK_PROCESSES} at once, {FORK_WAITING} waiting); try "
                              "again shortly") from None
        except WorkerFailed:
            log.exception("a fork's worker process died")
            raise EngineError(Reason.INTERNAL, "internal error; the engine logged it") from None

    def _check_pool(self, pool: str, field: str, ladder: bool) -> None:
        limits.text(pool, field, limits.POOL_MAX, pattern=limits.POOL_NAME)
        if pool.startswith(LADDER_POOL_PREFIX) and not ladder:
            raise limits.refuse(field, "pools named ladder-... belong to the ladders")
        if not self.pools.exists(pool):
            raise limits.refuse(field, f"no pool {shown(pool)}: make one with "
                                "`domino pools create NAME`")

    def _seat_from_pools(self, referee: Referee) -> None:
        # After a restart pool seats are claimed already; they still need a bot.
        if not referee.match.over:
            for seat, held in enumerate(referee.seats):
                if held.pool:
                    self.pools.need(held.pool, referee, seat)

    def _over(self, referee: Referee) -> None:
        """A match ended: it leaves the live set, and memory once FINISHED_KEPT newer ones
        ended (its readers then get it back from the store)."""
        with self._lock:
            self._referees.pop(referee.id, None)
            self._keep_finished(referee)

    def _keep_finished(self, referee: Referee) -> None:
        self._finished[referee.id] = referee
        self._finished.move_to_end(referee.id)
        while len(self._finished) > FINISHED_KEPT:
            self._finished.popitem(last=False)

    def claim_seat(self, match_id: str, seat: int, who: Principal | None = OPEN_PRINCIPAL,
                   claim_secret: str = "") -> str:
        """A seat's token for `who` (None: a request with no key on an engine that needs
        keys) holding `claim_secret` or not: Referee.claim_as has the rule."""
        limits.text(claim_secret, "claim_secret", limits.TOKEN_MAX)
        return self.get(match_id).claim_as(seat, None if who is None else who.name,
                                           claim_secret)

    # ----- finding --------------------------------------------------------------------
    def get(self, match_id: str) -> Referee:
        limits.match_id(match_id)
        referee = self._referees.get(match_id) or self._finished.get(match_id)
        if referee is not None:
            return referee
        with self._lock:   # a match finished a while ago, or in an earlier run: replay it
            referee = self._referees.get(match_id) or self._finished.get(match_id)
            if referee is None:
                row = self.store.match(match_id)
                if row is None:
                    raise EngineError(Reason.UNKNOWN_MATCH, f"no match with id {shown(match_id)}")
                if row.status != OVER:
                    self._not_here("matches", match_id)
                referee = Referee.restore(row, self.store, None)
                self._keep_finished(referee)
            return referee

    def _not_here(self, table: str, key: str) -> None:
        """Refuse a request for a match (or ladder) this engine does not hold: in a cluster,
        NOT_OWNER with the address of its owner (empty during a failover)."""
        what = "match" if table == "matches" else "ladder"
        if self.cluster is None:
            # Every unfinished match of the store is restored at start: this one was
            # created since by someone else, which this engine does not hold.
            raise EngineError(Reason.UNKNOWN_MATCH if what == "match" else
                              Reason.UNKNOWN_LADDER, f"{what} {shown(key)} is not held by "
                              "this engine")
        found = self.cluster.owner_of(table, key)
        address = found[0] if found else ""
        if address == self.cluster.address:
            address = ""      # taken by this engine a moment ago, not loaded yet: again
        raise EngineError(Reason.NOT_OWNER, f"{what} {shown(key)} is played by "
                          + (f"the engine at {address}" if address else
                             "no engine at this moment (it is being taken over): try "
                             "again shortly"), owner=address)

    def list_matches(self, status: str = "", limit: int = 100) -> list[dict]:
        """Public summaries of matches, newest first: the waiting and live ones of this
        engine, and the finished ones from the store."""
        limit = limits.integer(limit, "limit", 1, limits.LIST_MAX, zero_ok=True) or 100
        if status not in ("", WAITING, LIVE, OVER):
            raise limits.refuse("status", "must be waiting, live or over")
        found = []
        if status != OVER:
            found = [r.summary() for r in list(self._referees.values())
                     if not status or r.status == status]
        if status in ("", OVER):
            found += [self._row_summary(row) for row in self.store.finished(limit)]
        found.sort(key=lambda s: s["created"], reverse=True)
        return found[:limit]

    def _row_summary(self, row: MatchRow) -> dict:
        """The summary of a finished match from its stored row, without replaying it."""
        referee = self._finished.get(row.id)
        if referee is not None:
            return referee.summary()
        names = self.store.seat_names(row.id)
        seats = [public_seat(spec.kind, names.get(i) or spec.name, True, False, 0, clock_ms,
                             spec.pool, spec.open)
                 for i, (spec, clock_ms) in enumerate(seat_specs(row.settings))]
        return {"match_id": row.id, "variant": row.variant, "status": OVER,
                "version": row.version, "num_seats": len(seats), "to_move": None,
                "seats": seats, "options": row.options, "created": row.created,
                "result": row.result}

    # ----- acting for a seat ----------------------------------------------------------
    def seat(self, match_id: str, seat_token: str) -> tuple[Referee, int]:
        """The match and the seat that `seat_token` holds in it."""
        limits.seat_token(seat_token)
        referee = self.get(match_id)
        return referee, referee.authenticate(seat_token)

    def view(self, match_id: str, seat_token: str) -> SeatView:
        referee, seat = self.seat(match_id, seat_token)
        return referee.seat_view(seat)

    def submit(self, match_id: str, seat_token: str, version: int, move_id: str = "",
               move_text: str = "") -> tuple[int, Accepted]:
        """Returns (seat, accepted)."""
        referee, seat = self.seat(match_id, seat_token)
        return seat, referee.submit(seat, version, move_id, move_text)

    def sample_worlds(self, match_id: str, seat_token: str, count: int, seed: int,
                      client: str = "", job=None):
        """Worlds for the token's seat from its own view (sampling/service.py), for the
        caller at address `client`, in this thread: returns (seat, the SeatView they
        agree with, the sampling job's answer). `job`: how the worker gives the worlds
        (jobs.draw: as lists of tile indices)."""
        ticket = self.admit_worlds(match_id, seat_token, count, seed, client)
        seen, done = self.worlds.work(ticket, *([job] if job is not None else []))
        return ticket.seat, seen, done

    def admit_worlds(self, match_id: str, seat_token: str, count: int, seed: int,
                     client: str = ""):
        """The first, cheap half of sample_worlds: the call checked and let in (a ticket
        for self.worlds.work), or refused without waiting (the rpc layer holds a refusal
        back: WorldService.pause_of)."""
        self.worlds.check(count, seed)
        referee, seat = self.seat(match_id, seat_token)
        return self.worlds.admit(referee, seat, count, seed, client)

    def watch(self, match_id: str, seat_token: str, queue: UpdateQueue, client: str = ""
              ) -> tuple[Referee, Subscriber, SeatView]:
        """A watcher of the match for the caller at address `client`: the seat's private
        one with a token, a spectator without. Returns the referee, the subscriber and the
        snapshot it starts from. At most WATCHES_PER_CLIENT of an address and
        WATCHES_PER_MATCH of a match at once (TOO_MANY_STREAMS); unwatch() when it ends."""
        limits.seat_token(seat_token)
        referee = self.get(match_id) if seat_token else self.spectate(match_id)
        seat = referee.authenticate(seat_token) if seat_token else None
        full = self._watching.enter(client=client, match=referee.id)
        if full:
            raise EngineError(Reason.TOO_MANY_STREAMS, (
                f"your address watches {WATCHES_PER_CLIENT} streams already" if full == "client"
                else f"match {referee.id} has {WATCHES_PER_MATCH} watchers already; watch it "
                "through the gateway (GET /api/v1/matches/{id}/events), which shares one"),
                referee.version)
        try:
            sub, view = referee.subscribe(seat, queue)
        except BaseException:
            self.unwatch(referee, client)
            raise
        return referee, sub, view

    def spectate(self, match_id: str) -> Referee:
        """The match, for what shows its tiles to anyone (its spectator view, its record):
        refused with DEAL_IN_PLAY while another match plays or may yet play the same deal
        (a duplicate ladder's set, Ladders.deal_hidden; a duplicate arena's,
        Arenas.deal_hidden)."""
        referee = self.get(match_id)
        why = self.ladders.deal_hidden(referee.id) or self.arenas.deal_hidden(
            referee.row.settings)
        if why is not None:
            raise EngineError(Reason.DEAL_IN_PLAY, f"match {referee.id} is hidden: {why}",
                              referee.version)
        return referee

    def unwatch(self, referee: Referee, client: str = "") -> None:
        self._watching.leave(client=client, match=referee.id)

    def record(self, match_id: str) -> dict:
        referee = self.get(match_id)
        referee.check_over()   # (a live one is refused first: MATCH_NOT_OVER)
        self.spectate(match_id)
        if not referee.forked:
            return referee.record()
        with self._lock:
            text = self._records.get(match_id)
            if text is not None:
                self._records.move_to_end(match_id)
        if text is None:
            # A forked match does not keep its record in memory: it is rebuilt from the
            # store, in a worker (the replay of every forked play), and kept a while.
            row = self.store.match(match_id)
            text = self._in_worker(forking.record_of, row.variant, row.options, row.seed,
                                   row.settings[forking.FORK]["record"],
                                   forking.moves_of(self.store.moves(match_id)),
                                   referee.seat_names())
            with self._lock:
                self._records[match_id] = text
                while len(self._records) > RECORDS_KEPT:
                    self._records.popitem(last=False)
        return json.loads(text)


__all__ = ["Engine", "LIVE", "OVER", "WAITING", "PERSON", "BOT", "SeatSpec"]
