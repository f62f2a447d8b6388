"""The referee of one match: seats, version, clock, log and watchers.

The rules core (engine_service.rules) decides what is legal and what happens; the referee
decides who may act, when, and in what order, and makes each accepted move durable before
anyone hears of it. Every state change happens under the referee's own lock, so matches
never wait for each other. `referee.match` is the rules Match it referees.

Order of checks for a move (docs/design.md, "One move, end to end"): token (`authenticate`) -> version ->
rules -> store.append -> publish to watchers.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from bisect import bisect_left
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from plumbing.alarms import Alarm, Alarms

from ... import rules
from ...rules.errors import shown
from .. import metrics
from ..errors import EngineError, Reason
from ..security import limits
from ..storage.rows import Fenced, LogConflict, MatchRow, MoveRow, StoreUnavailable
from ..storage.sql import SQLStore
from . import forking
from .seats import (
    ABSENT_AFTER,
    Seat,
    claim_hashes,
    hash_token,
    may_claim,
    new_token,
    seat_of,
    seat_specs,
)
from .updates import EngineEvent, Subscriber, TurnAgain, Update, UpdateQueue

log = logging.getLogger(__name__)

WAITING, LIVE, OVER = "waiting", "live", "over"
# Causes of an accepted move, as logged in the store.
BY_SEAT, BY_TIMEOUT, BY_ABSENT, TIME_UP = "seat", "timeout", "absent", "time_up"
# The first plays of a match forked by an engine before forks were resumed (forking.py):
# replayed from its row (settings "prefix"), never logged.
FORKED = "fork"
# A move of a seat the engine plays itself, in process: a ladder's yardstick (the oracle).
BY_ENGINE = "engine"


@dataclass(frozen=True)
class Accepted:
    version: int             # the version right after the move
    move_text: str           # the move as applied, in text notation
    events: tuple


@dataclass(frozen=True)
class SeatView:
    """A seat's (or, seat None, a spectator's) state at one version."""
    seat: int | None
    version: int
    to_move: int | None
    view: dict               # the rules' view, without its history (below) and legal moves
    # The deal's events, uncut (.to_dict(seat) cuts each): the rules' events, and the
    # engine's own (timeout, absent, returned, time_up) where a watcher heard them.
    history: list
    legal_moves: list        # [(id, text)]; ids are the move's index in the legal list
    deadline: float          # Unix seconds when the clock plays for the seat; 0 if none
    # Encodings made from this match by the rpc layer, shared by all its streams (the
    # layout at a version, each history event per recipient); the rpc layer bounds it.
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def rules_history(self) -> list:
        """The history without the engine's events: the deal as Match.view tells it, which
        is what the rules core's reasoning about hidden tiles reads."""
        return [e for e in self.history if not isinstance(e, EngineEvent)]


@dataclass(frozen=True)
class Turn:
    """An accepted move, kept to answer a resubmission of it (and to know a late
    answer to a turn the clock played)."""
    seat: int
    move_text: str
    move_id: str
    accepted: Accepted
    cause: str = BY_SEAT


def legal_ids(moves) -> list[tuple[str, str]]:
    return [(str(i), str(m)) for i, m in enumerate(moves)]


# A clock callback that failed (a bug; a store nothing probes, away) tries again after this
# long. While a probed store (PostgreSQL) is away the clocks wait for it instead: its
# return restarts them (store_back).
RETRY_S = 1.0
# A waiting match's open seat (a person's, that nobody claimed) is taken by the engine this
# long after the match was created, and played automatically like an absent seat, so that
# no match waits in the lobby's "Open seats" for ever (docs/protocol.md, docs/gateway.md).
OPEN_SEAT_EXPIRY_S = 15 * 60
# Accepted moves whose resubmission is answered again, as accepted (a client that lost
# the answer sends its move again); older ones are refused as stale. A window, so that a
# long match does not keep every move's answer.
RESUBMITS_KEPT = 16
# Refusals that are the engine's state, not the seat's mistake: no fault is charged.
ENGINE_SIDE = {Reason.STORE_UNAVAILABLE, Reason.NOT_OWNER}


class Referee:
    def __init__(self, row: MatchRow, store: SQLStore, alarms: Alarms | None,
                 token_hashes: dict[int, str] | None = None,
                 on_over: Callable[[Referee], None] | None = None,
                 on_lost: Callable[[Referee], None] | None = None,
                 yardsticks: dict | None = None):
        self.id = row.id
        self.row = forking.lean(row)
        self.forked = forking.is_fork(row)   # its record is rebuilt from the store
        self.match, self.version = forking.match_of(row)
        self.status = row.status
        # The latest accepted moves, to answer a client that sends one of them again.
        self.history: deque[Turn] = deque(maxlen=RESUBMITS_KEPT)
        self._time_told = False   # the rules were told the time is up (HHL-10)
        s = row.settings
        specs = seat_specs(s)
        self.seats = [Seat(spec.kind, spec.name, clock_ms, pool=spec.pool, open=spec.open,
                           claim_hash=claim)
                      for (spec, clock_ms), claim in zip(specs, claim_hashes(s), strict=True)]
        # The claim secrets made with the match, handed to its creator once
        # (take_claim_secrets); empty for a match restored from the store.
        self._claim_secrets: list[str] = []
        for seat, digest in (token_hashes or {}).items():
            self.seats[seat].token_hash = digest
        self._store = store
        self._alarms = alarms
        self._on_over = on_over
        self._on_lost = on_lost     # another engine took the match (a fenced write)
        self._alarm: Alarm | None = None
        self._deadline = 0.0
        self._time_alarm: Alarm | None = None
        self._expiry_alarm: Alarm | None = None
        self._lock = threading.RLock()
        self._subscribers: set[Subscriber] = set()
        # The legal moves of the seat to move, computed once per version (the rules core
        # recomputes them on every call): (match, version, moves, [(id, text)]).
        self._legal_cache: tuple | None = None
        self.cache: dict = {}    # SeatView.cache
        self.released = False   # another engine plays the match now (release)
        self._closed = False    # the engine is shutting down (close)
        # The store stopped answering in the middle of a write: the log may hold a move
        # this referee was told had failed (_settle reads it back before the next one).
        self._unsure = False
        self._held = False      # a clock action waits for the store to answer again
        self._over_unsaved = False   # over, but the store has not heard of it yet
        self._log: list[MoveRow] = []   # the moves in the store's log, as played here
        # The engine's own events, each with its place among the rules' events (the index
        # in match.events it came before), so that a view's history holds them where
        # every watcher heard them: a history read after a reload is the one seen live.
        self._engine_events: list[tuple[int, EngineEvent]] = []
        # Faults per seat that the move log does not show (ladders charge them): refused
        # moves, streams that ended while seated, seats nobody came to play.
        self.faults = [{"illegal": 0, "disconnects": 0, "no_show": 0, "spam": 0}
                       for _ in self.seats]
        for seat, text in s.get("prefix", ()):
            self._apply(seat, text, FORKED, durable=False)
        # The seats the engine plays itself: seat -> a strategy (made when a clock needs
        # it; a finished match read back from the store plays nothing).
        self._yardstick_names = {i: spec.yardstick for i, (spec, _) in enumerate(specs)
                                 if spec.yardstick}
        self._yardstick_makers = yardsticks or {}
        self._yardsticks: dict = {}

    # ----- restoring ------------------------------------------------------------------
    @classmethod
    def restore(cls, row: MatchRow, store: SQLStore, alarms: Alarms | None,
                on_over: Callable[[Referee], None] | None = None,
                on_lost: Callable[[Referee], None] | None = None,
                yardsticks: dict | None = None) -> Referee:
        """Rebuild a match from its log: the rules core is deterministic, so replaying the
        accepted moves in order gives the identical state and version."""
        claims = store.seat_claims(row.id)
        referee = cls(row, store, None, {s: h for s, (h, _) in claims.items()}, on_over,
                      on_lost, yardsticks)
        for seat, (_, name) in claims.items():
            if name:
                referee.seats[seat].name = name
        in_a_row = [0] * len(referee.seats)
        for move in store.moves(row.id):
            referee._apply(move.seat, move.move_text, move.cause, durable=False,
                           extra=logged_events(move, in_a_row))
        referee._alarms = alarms
        if referee.match.over:
            referee.status = OVER
        return referee

    def start(self) -> None:
        """Start the clocks (after creation or restore)."""
        with self._lock:
            self._arm_time_limit()
            self._arm_seat_expiry()
            self._autoplay_and_arm()

    def _now(self) -> float:
        return self._alarms.now() if self._alarms is not None else time.time()

    # ----- seats ----------------------------------------------------------------------
    def claim(self, seat: int, by_pool: bool = False, name: str = "") -> str:
        """Hand out the seat's token, once. The last claim makes the match live. A pool
        seat is claimed only by the engine for the pool bot it seats (by_pool)."""
        with self._lock:
            if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
                raise EngineError(Reason.BAD_SEAT, f"seat must be 0..{len(self.seats) - 1}, "
                                  f"got {shown(seat)}", self.version, field="seat")
            if bool(self.seats[seat].pool) != by_pool:
                raise EngineError(Reason.POOL_SEAT, f"seat {seat} is filled from the bot pool "
                                  f"{shown(self.seats[seat].pool)}", self.version)
            token = new_token()
            digest = hash_token(token)
            name = name if name and not self.seats[seat].name else ""
            if not self.seats[seat].claimed and not self._owned_write(
                    self._store.claim_seat, self.id, seat, digest, name):
                # The store has a claim of this seat that the referee has not: one whose
                # answer was lost (the store stopped answering after it took the write).
                # The store is the truth: taken in, or the seat waits for a claim that can
                # never come, and its match never starts.
                try:
                    stored = self._store.seat_hashes(self.id).get(seat, "")
                except StoreUnavailable as e:
                    raise EngineError(Reason.STORE_UNAVAILABLE, f"{e}", self.version) from None
                self._claimed(seat, stored)
            if self.seats[seat].claimed:
                raise EngineError(Reason.SEAT_TAKEN, f"seat {seat} of match {self.id} is "
                                  "already claimed", self.version)
            self._claimed(seat, digest, name)
            return token

    def _claimed(self, seat: int, digest: str, name: str = "") -> None:
        """Seat `seat` is claimed (its token's digest); the match starts with its last
        claim. Caller holds the lock."""
        if not digest:
            return
        self.seats[seat].token_hash = digest
        if name:
            self.seats[seat].name = name  # a pool bot's name, shown in the record
        if self.status == WAITING and all(s.claimed for s in self.seats):
            self.status = LIVE
            if self._expiry_alarm:        # no open seat is left to expire
                self._expiry_alarm.cancel()
                self._expiry_alarm = None
            self._owned_write(self._store.set_status, self.id, LIVE)
            log.info("match %s started: %s, %d seats", self.id, self.row.variant,
                     len(self.seats))
            self._autoplay_and_arm()

    def claim_as(self, seat: int, who: str | None, claim_secret: str = "") -> str:
        """ClaimSeat: the seat's token, if the claimant may have it (seats.may_claim):
        `who` is the claimant's principal name (None: no key on an engine that needs
        keys), `claim_secret` the seat's claim secret if it sent one. Refuses with
        SEAT_NOT_OPEN (sent neither), BAD_CLAIM_SECRET (a wrong one) or NOT_YOURS (the
        key of someone else), before saying whether the seat is taken."""
        with self._lock:
            if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
                raise EngineError(Reason.BAD_SEAT, f"seat must be 0..{len(self.seats) - 1}, "
                                  f"got {shown(seat)}", self.version, field="seat")
            held = self.seats[seat]
            if not held.pool and not may_claim(held.open, held.claim_hash,
                                               self.row.created_by, who, claim_secret):
                where = f"seat {seat} of match {self.id} is not open"
                how = "claim it with the API key that created the match, or with its claim secret"
                if claim_secret:
                    raise EngineError(Reason.BAD_CLAIM_SECRET, f"{where}, and that is not its "
                                      f"claim secret; {how}", self.version)
                if who is not None:
                    raise EngineError(Reason.NOT_YOURS, f"{where}, and another key created "
                                      f"the match; {how}", self.version)
                raise EngineError(Reason.SEAT_NOT_OPEN, f"{where}: {how}", self.version)
            return self.claim(seat)

    def take_claim_secrets(self) -> list[str]:
        """The claim secrets made with the match, one per seat ("" for a seat that needs
        none): given once, to the creation answer, then forgotten."""
        with self._lock:
            secrets, self._claim_secrets = self._claim_secrets, []
            return secrets

    def authenticate(self, seat_token: str) -> int:
        """The seat this token holds. A returning absent seat is played by its holder again."""
        if not seat_token:
            raise EngineError(Reason.NO_TOKEN, "a seat token is required", self.version)
        seat = seat_of(self.seats, seat_token)
        if seat is None:
            raise EngineError(Reason.BAD_TOKEN, f"the token holds no seat of match {self.id}",
                              self.version)
        if self.seats[seat].absent:
            self._returns(seat)
        return seat

    def _returns(self, seat: int) -> None:
        with self._lock:
            held = self.seats[seat]
            if not held.absent:
                return
            held.absent, held.timeouts_in_a_row = False, 0
            # Absent seats are played at once, so the returning seat is not the one to
            # move and no clock needs re-arming.
            self._publish_engine_event(EngineEvent("returned", seat=seat))

    def note_disconnect(self, seat: int) -> None:
        """The stream playing this seat ended while the match was on."""
        with self._lock:
            if not self.match.over:
                self.faults[seat]["disconnects"] += 1

    def charge_spam(self, seat: int) -> None:
        """The seat's stream sent too many refused moves in a row (rpc/play_session.py)."""
        with self._lock:
            self.faults[seat]["spam"] += 1

    def unfilled_pool_seats(self) -> list[int]:
        with self._lock:
            return [i for i, s in enumerate(self.seats) if s.pool and not s.claimed]

    def no_show(self, seat: int) -> None:
        """Nobody came to play this pool seat: the engine claims it and plays it at once."""
        with self._lock:
            if self.seats[seat].claimed:
                return
            self.seats[seat].absent = True
            self.faults[seat]["no_show"] += 1
            self._publish_engine_event(EngineEvent("absent", seat=seat))
            try:
                self.claim(seat, by_pool=True)
            except EngineError as e:
                if e.reason != Reason.SEAT_TAKEN:
                    raise
                # claimed in the store all along (claim): absent, the clock plays it

    def faults_by_seat(self) -> list[dict]:
        """Faults per seat, as ladders and arenas charge them, from the move log as played
        here (the store's, without reading it) and the counters: timeouts (the clock
        played: a timeout, or an absent seat's turn), illegal, disconnects, crashes (a
        seat that never came, or that was still absent at the end) and spam (refused moves
        too many in a row)."""
        with self._lock:
            timeouts = [0] * len(self.seats)
            for move in self._log:
                if move.cause in (BY_TIMEOUT, BY_ABSENT) and move.seat >= 0:
                    timeouts[move.seat] += 1
            return [{"timeouts": timeouts[i], "illegal": f["illegal"],
                     "disconnects": f["disconnects"], "spam": f["spam"],
                     "crashes": 1 if f["no_show"] or seat.absent else 0}
                    for i, (seat, f) in enumerate(zip(self.seats, self.faults, strict=True))]

    def faults_by_name(self) -> dict:
        """faults_by_seat summed per seat name (a ladder's entrant)."""
        out: dict[str, dict] = {}
        for i, (seat, faults) in enumerate(zip(self.seats, self.faults_by_seat(),
                                               strict=True)):
            f = out.setdefault(seat.name or f"seat{i}", dict.fromkeys(faults, 0))
            for kind, n in faults.items():
                f[kind] += n
        return out

    def moved_by(self, cause: str) -> bool:
        """Whether any move in the match's log has this cause (BY_SEAT: a seat's holder
        played one itself; a ladder pauses when none did)."""
        with self._lock:
            return any(move.cause == cause for move in self._log)

    # ----- reading --------------------------------------------------------------------
    def seat_view(self, seat: int | None) -> SeatView:
        with self._lock:
            return self._seat_view(seat)

    def _legal(self, seat: int | None) -> tuple[list, list]:
        """The legal moves of `seat` now and their (id, text) pairs; empty unless it is the
        seat's turn. Cached for the version (caller holds the lock)."""
        match = self.match
        if seat is None or seat != match.to_move:
            return [], []
        cached = self._legal_cache
        if cached is None or cached[0] is not match or cached[1] != self.version:
            moves = match.legal_moves(seat)
            cached = self._legal_cache = (match, self.version, moves, legal_ids(moves))
        return cached[2], cached[3]

    def _seat_view(self, seat: int | None) -> SeatView:
        match = self.match
        legal = self._legal(seat)[1]
        deadline = self._deadline if (legal and self._alarm) else 0.0
        return SeatView(seat, self.version, match.to_move, match.view(seat, history=False),
                        self._deal_history(), legal, deadline, self.cache)

    def _deal_history(self) -> list:
        """The deal's rules events with the engine's events of the deal put in their places.
        Within a deal it only grows at its end, as the rules' own list does (the codec's
        cache of encoded history parts relies on that)."""
        deal = self.match.deal_events
        start = len(self.match.events) - len(deal)
        first = bisect_left(self._engine_events, start, key=lambda kept: kept[0])
        if first == len(self._engine_events):
            return deal
        out, done = [], 0
        for at, event in self._engine_events[first:]:
            out += deal[done:at - start]
            out.append(event)
            done = at - start
        out += deal[done:]
        return out

    def check_over(self) -> None:
        if not self.match.over:
            raise EngineError(Reason.MATCH_NOT_OVER, f"match {self.id} is not over; its "
                              "record holds hidden tiles", self.version)

    def seat_names(self) -> list[str]:
        """The names a record shows for the seats."""
        return [s.name or f"seat{i}" for i, s in enumerate(self.seats)]

    def record(self) -> dict:
        with self._lock:
            self.check_over()
            if self.forked:
                raise RuntimeError("a fork's record is rebuilt from the store: Engine.record")
            return self.match.record(self.seat_names())

    # ----- moves ----------------------------------------------------------------------
    def submit(self, seat: int, version: int, move_id: str = "", move_text: str = "") -> Accepted:
        """Play a move for `seat` chosen at `version`; refuses with EngineError (nothing
        changed). Resubmitting an accepted move at its version returns the same answer."""
        with self._lock:
            self._settle()
            if not move_id and not move_text:   # (a MoveChoice or SubmitMove with no move)
                self.faults[seat]["illegal"] += 1
                raise EngineError(Reason.MALFORMED_MOVE, "give a legal-move id or the move "
                                  "text", self.version, legal_ids(self.match.legal_moves(seat)),
                                  field="move")
            if version != self.version:
                again = self._resubmission(seat, version, move_id, move_text)
                if again:
                    return again
                if not self._timed_out_at(seat, version):
                    # (a late answer to a turn the clock played is that timeout's, charged
                    # once: as the timeout)
                    self.faults[seat]["illegal"] += 1
                raise EngineError(Reason.STALE_VERSION, f"the move was chosen at version "
                                  f"{version}; the match is at version {self.version}",
                                  self.version)
            try:
                move = self._resolve(seat, move_id, move_text)
                # Remember the move's id too, so a resubmission by id or by text both match.
                legal = self._legal(seat)[0]
                move_id = str(legal.index(move)) if move in legal else ""
                accepted = self._apply(seat, move, BY_SEAT, move_id=move_id)
            except EngineError as err:
                # (a version moved on by _settle, a store away: not the seat's doing)
                if err.reason not in ENGINE_SIDE and self.version == version:
                    self.faults[seat]["illegal"] += 1
                raise
            self._continue()
            return accepted

    def _turn_at(self, version: int) -> Turn | None:
        first = self.version - len(self.history)    # the version history[0] was made at
        return self.history[version - first] if first <= version < self.version else None

    def _timed_out_at(self, seat: int, version: int) -> bool:
        turn = self._turn_at(version)
        return turn is not None and turn.seat == seat and turn.cause == BY_TIMEOUT

    def _resubmission(self, seat, version, move_id, move_text) -> Accepted | None:
        turn = self._turn_at(version)
        if turn is None:
            return None
        if turn.seat != seat:
            return None
        if (move_id and move_id == turn.move_id) or (move_text and _same_move(move_text,
                                                                               turn.move_text)):
            return turn.accepted
        return None

    def _resolve(self, seat: int, move_id: str, move_text: str):
        if move_id:
            legal = self._legal(seat)[0]
            if not legal:
                raise self._not_now(seat)
            # isascii: "²" is a digit to isdigit() but no number to int()
            if (len(move_id) > limits.MOVE_ID_MAX or not (move_id.isascii() and move_id.isdigit())
                    or int(move_id) >= len(legal)):
                raise EngineError(Reason.UNKNOWN_MOVE_ID, f"no legal move has id {shown(move_id)} "
                                  f"at version {self.version}", self.version, legal_ids(legal),
                                  field="move_id")
            return legal[int(move_id)]
        if len(move_text) > limits.MOVE_TEXT_MAX:
            raise EngineError(Reason.MALFORMED_MOVE, f"move_text is at most "
                              f"{limits.MOVE_TEXT_MAX} characters", self.version,
                              legal_ids(self.match.legal_moves(seat)), field="move_text")
        try:
            return rules.Move.parse(move_text)
        except rules.MalformedInput as e:
            raise EngineError(Reason.MALFORMED_MOVE, e.message, self.version,
                              legal_ids(self.match.legal_moves(seat)), field="move_text") from None

    def _not_now(self, seat: int) -> EngineError:
        """The refusal for a seat that has nothing to play now (same reasons as the rules)."""
        if self.match.over:
            return EngineError(Reason.MATCH_OVER, f"match {self.id} is over", self.version)
        return EngineError(Reason.NOT_YOUR_TURN, f"it is seat {self.match.to_move}'s turn, not "
                           f"seat {seat}'s", self.version)

    def _apply(self, seat: int, move, cause: str, move_id: str = "", durable: bool = True,
               extra: tuple = (), stored: bool = False) -> Accepted:
        """Apply one move (or the time_up action): rules, then log, then publish. `extra`
        are the engine's events that come with it, heard before the rules' events. Not
        `durable`: replayed from the log, nothing written or published. `stored`: a move
        the log has already, published now (_settle)."""
        version = self.version
        place = len(self.match.events)    # where `extra` goes among the rules' events
        try:
            events = [] if cause == TIME_UP else self.match.play(seat, move)
        except rules.IllegalMove as e:
            raise EngineError(e.reason, e.message, version,
                              legal_ids(self.match.legal_moves(seat))) from None
        except rules.MalformedInput as e:
            raise EngineError(Reason.MALFORMED_MOVE, e.message, version,
                              legal_ids(self.match.legal_moves(seat)), field="move_text") from None
        if cause == TIME_UP:
            self.match.time_up()
            self._time_told = True
        text = "" if cause == TIME_UP else str(move)
        logged = MoveRow(version + 1, seat, text, cause, self._now())
        if durable and not stored:
            try:
                self._owned_write(self._store.append_move, self.id, logged)
            except Exception as e:
                # The log is the truth: back to what it holds, then fail. From the moves
                # kept here, not from the store, which may be what failed (PostgreSQL
                # down): a move must never stay played on a state the log does not have.
                self._rebuild()
                if isinstance(e, LogConflict):
                    # It has a row at this version already (a write refused earlier that
                    # reached it after all): read the log back, and this move is stale.
                    self._unsure = True
                    self._settle()
                    raise EngineError(Reason.STALE_VERSION, f"the match is at version "
                                      f"{self.version}: a move the store took late came "
                                      "first", self.version) from None
                if isinstance(e, EngineError) and e.reason == Reason.STORE_UNAVAILABLE:
                    self._unsure = True   # sent, maybe taken: unknown until it answers
                raise
        if durable:
            metrics.move_committed(self.row.variant)
        if cause != FORKED:
            self._log.append(logged)
        self._engine_events += [(place, e) for e in extra]
        self.version = version + 1
        accepted = Accepted(self.version, text, (*extra, *events))
        if seat >= 0:
            self.history.append(Turn(seat, text, move_id, accepted, cause))
        else:
            self.history.append(Turn(-1, "", "", accepted, cause))
        if cause == BY_SEAT:
            self.seats[seat].timeouts_in_a_row = 0
        if durable:
            self._publish(accepted.events)
            if self.match.over:
                self._finish()
        return accepted

    def _owned_write(self, write, *args):
        """A write of this match to the store. Refused because another engine owns the
        match now (cluster/membership.py: a failover while this one was paused or cut off): the
        match is given up here (on_lost) and the caller is told where it went. A store
        that does not answer refuses the move with STORE_UNAVAILABLE."""
        if self.released:
            raise EngineError(Reason.NOT_OWNER, f"match {self.id} is played by another "
                              "engine now: connect again", self.version)
        try:
            return write(*args)
        except StoreUnavailable as e:
            raise EngineError(Reason.STORE_UNAVAILABLE, f"{e}; try again shortly",
                              self.version) from None
        except Fenced:
            if self._on_lost is not None:
                self._on_lost(self)
            raise EngineError(Reason.NOT_OWNER, f"match {self.id} is played by another "
                              "engine now: connect again", self.version) from None

    def _rebuild(self) -> None:
        """The rules match as the log has it: the row (a fork's resumed) and the moves
        logged, replayed (the rules core is deterministic)."""
        fresh = Referee(self.row, self._store, None, {})
        for move in self._log:
            fresh._apply(move.seat, move.move_text, move.cause, durable=False)
        self.match, self.version, self.history = fresh.match, fresh.version, fresh.history
        self._time_told = fresh._time_told

    def _finish(self) -> None:
        self.status = OVER
        self._stop_clocks()
        try:
            self._owned_write(self._store.set_status, self.id, OVER, self.match.result,
                              self.version)
        except EngineError as e:
            if e.reason != Reason.STORE_UNAVAILABLE:
                raise
            # The last move is in the log, so the match is over whatever its row says
            # (a replay ends it too); the row is written once the store answers, and until
            # then the match stays among the engine's live ones.
            self._over_unsaved = True
            log.warning("match %s over at version %d; the store will be told when it "
                        "answers", self.id, self.version)
            self._hold_or_retry(self._save_over_later)
            return
        self._over_unsaved = False
        log.info("match %s over at version %d: %s", self.id, self.version,
                 json.dumps(self.match.result))
        if self._on_over is not None:
            self._on_over(self)

    def _save_over_later(self) -> None:
        self._on_clock("writing that the match is over failed", self._save_over,
                       self._save_over_later)

    def _save_over(self) -> None:
        with self._lock:
            if self._over_unsaved and not self.released:
                self._finish()

    def _settle(self) -> None:
        """Make the match what its log holds, after a write whose fate is unknown (the
        store stopped answering in the middle of it; a frozen server commits what it had
        received when it thaws): a move that reached the log stands, and is published as
        if played now. Caller holds the lock. Refuses (STORE_UNAVAILABLE) while the log
        cannot be read: nothing may be played on a state that may not be the log's."""
        if not self._unsure:
            return
        try:
            stored = self._store.moves(self.id)
        except StoreUnavailable as e:
            raise EngineError(Reason.STORE_UNAVAILABLE, f"{e}", self.version) from None
        self._unsure = False
        late = [m for m in stored if m.version > self.version]
        for row in late:
            log.warning("match %s: the move of version %d, refused when the store did not "
                        "answer, reached its log after all: it stands", self.id, row.version)
            move, move_id = None, ""
            if row.cause != TIME_UP:
                move = rules.Move.parse(row.move_text)
                legal = self._legal(row.seat)[0]
                move_id = str(legal.index(move)) if move in legal else ""
            self._apply(row.seat, move, row.cause, move_id=move_id, stored=True)
        if late:
            self._autoplay_and_arm()

    # ----- clocks ---------------------------------------------------------------------
    def _autoplay_and_arm(self) -> None:
        """Play absent seats at once, then start the clock of the seat to move.

        Only while someone is still at the table: when every seat is absent, nobody waits
        for the moves, and playing them at once would spin through deal after deal (an HHL
        match plays until its time limit) holding this match's lock. An abandoned match is
        played at the pace of its turn clocks instead."""
        self._cancel_alarm()
        if self.status != LIVE:
            return
        if not all(s.absent for s in self.seats):
            while not self.match.over:
                seat = self.match.to_move
                if not self.seats[seat].absent:
                    break
                self._apply(seat, self._legal(seat)[0][0], BY_ABSENT)
        if self.match.over or self._alarms is None:
            return
        seat, version = self.match.to_move, self.version
        if seat in self._yardstick_names:
            # On the clock's thread, one move per alarm: the match's lock is not held
            # through a whole deal, and a restored match moves on the same way.
            self._alarm = self._arm(0.0, lambda: self._engine_turn(seat, version))
            return
        seconds = self.seats[seat].clock_ms / 1000
        self._alarm = self._arm(seconds, lambda: self._timeout(seat, version))
        if self._alarm is not None:
            self._deadline = self._now() + seconds

    def _arm(self, seconds: float, callback) -> Alarm | None:
        """Every alarm of this match is armed here (caller holds the lock): none once the
        match is released to another engine or closed, so none outlives its match."""
        if self.released or self._closed or self._alarms is None:
            return None
        return self._alarms.set(seconds, callback)

    def _continue(self) -> None:
        """After an accepted move: play the absent seats and start the next clock. The move
        stands whatever happens here: a store away puts the rest on hold."""
        try:
            self._autoplay_and_arm()
        except EngineError as e:
            if e.reason == Reason.STORE_UNAVAILABLE:
                self._hold_or_retry(self._continue_later)
            elif e.reason != Reason.NOT_OWNER:
                raise

    def _continue_later(self) -> None:
        self._on_clock("playing its absent seats failed", self._locked_continue,
                       self._continue_later)

    def _locked_continue(self) -> None:
        with self._lock:
            self._alarm = None
            self._autoplay_and_arm()

    def _hold_or_retry(self, again, slot: str = "_alarm") -> None:
        """A clock action failed with the store away (caller holds the lock). A probed store
        says when it is back, and then store_back does it; a store nothing probes is tried
        again after RETRY_S (`slot`: the alarm it takes, the turn's or the time limit's)."""
        health = self._store.health
        if health.probing and not health.up:
            # Down now, so its return is still to come, and store_back takes this
            # match's lock, held here: it will see the hold.
            self._held = True
        else:
            self._retry(again, slot)   # (or it answered again already: just try again)

    def _retry(self, again, slot: str) -> None:
        """Arm `again` after RETRY_S in `slot`, in place of what it held (caller holds the
        lock): an alarm is never left armed where nothing can cancel it."""
        old = getattr(self, slot)
        if old is not None:
            old.cancel()
        setattr(self, slot, self._arm(RETRY_S, again))

    def _on_clock(self, what: str, act, again, slot: str = "_alarm",
                  version: int | None = None) -> None:
        """Run a clock callback (one for `version`: none once the match has moved on).
        Once the match is released (another engine plays it) or closed: nothing, quietly.
        With the store away: the clock waits for it (_hold_or_retry), in one line of log.
        Any other failure is a bug: logged with its traceback and tried again after
        RETRY_S; it holds up this match only."""
        if self.released or self._closed:
            return
        failure = None
        try:
            act()
            return
        except EngineError as e:
            if e.reason == Reason.NOT_OWNER:
                return       # dropped meanwhile (a fenced write): the new owner plays on
            if e.reason != Reason.STORE_UNAVAILABLE:
                failure = e
        except Exception as e:   # noqa: BLE001 - logged below, with its traceback
            failure = e
        with self._lock:
            if self.released or self._closed or version not in (None, self.version):
                return
            if failure is None:
                log.warning("match %s: %s: the store did not answer; %s", self.id, what,
                            "the clock waits for it" if self._store.health.probing else
                            f"trying again in {RETRY_S:.0f} s")
                self._hold_or_retry(again, slot)
                return
            log.error("match %s: %s; trying again in %.0f s", self.id, what, RETRY_S,
                      exc_info=failure)
            self._retry(again, slot)

    def _cancel_alarm(self) -> None:
        if self._alarm:
            self._alarm.cancel()
        self._alarm, self._deadline = None, 0.0

    def _timeout(self, seat: int, version: int) -> None:
        """The clock ran out: play the documented default move, the first legal move."""
        self._on_clock(f"the turn clock could not play for seat {seat} at version {version}",
                       lambda: self._play_for(seat, version),
                       lambda: self._timeout(seat, version), version=version)

    def _play_for(self, seat: int, version: int) -> None:
        with self._lock:
            self._settle()
            if self.version != version or self.match.over or self.status != LIVE:
                return   # the seat moved in time; this alarm lost the race
            self._alarm = None
            held = self.seats[seat]
            streak = held.timeouts_in_a_row + 1
            move = self._legal(seat)[0][0]
            extra = [EngineEvent("timeout", seat=seat, move=str(move),
                                 timeouts_in_a_row=streak)]
            absent = streak >= ABSENT_AFTER and not held.absent
            if absent:
                extra.append(EngineEvent("absent", seat=seat))
            self._apply(seat, move, BY_TIMEOUT, extra=tuple(extra))
            # Counted once the move stands (a refused one is tried again, not counted twice).
            held.timeouts_in_a_row = streak
            held.absent = held.absent or absent
            metrics.timed_out(self.row.variant)
            self._continue()

    def _engine_turn(self, seat: int, version: int) -> None:
        """A clock callback, guarded like _timeout."""
        self._on_clock(f"the engine could not play seat {seat} at version {version}",
                       lambda: self._engine_plays(seat, version),
                       lambda: self._engine_turn(seat, version), version=version)

    def _engine_plays(self, seat: int, version: int) -> None:
        """Play a yardstick seat: its strategy chooses, in process, from the true match
        (the oracle reads every hand through attach). A strategy that fails plays the
        first legal move, as the clock would, and says so in the log."""
        with self._lock:
            self._settle()
            if self.version != version or self.match.over or self.status != LIVE:
                return
            self._alarm = None
            legal = self._legal(seat)[0]
            try:
                move = self._choose_for(seat, legal)
            except Exception:
                log.exception("match %s: yardstick %s failed at version %d; it plays the "
                              "first legal move", self.id, self._yardstick_names[seat], version)
                move = legal[0]
            self._apply(seat, move, BY_ENGINE)
            self._continue()

    def _choose_for(self, seat: int, legal: list):
        strategy = self._yardsticks.get(seat)
        if strategy is None:
            strategy = self._yardstick_makers[self._yardstick_names[seat]]()
            self._yardsticks[seat] = strategy
        attach = getattr(strategy, "attach", None)
        if attach is not None:
            attach(self.match)   # the live rules match (replaced when rebuilt from the log)
        move = strategy.choose(self.match.view(seat), legal)
        if move not in legal:
            raise ValueError(f"chose {move}, which is not a legal move")
        return move

    def _arm_time_limit(self) -> None:
        """HHL-10: a time limit counts from the match's creation; the hand in progress is
        finished (the rules core does that once told)."""
        minutes = self.match.options.get("minutes") if self.match.variant == "hhl" else None
        if not minutes or self.match.over or self._alarms is None or self._time_alarm:
            return
        if self._time_told:
            return   # already told (restored from the log)
        left = self.row.created + minutes * 60 - self._now()
        self._time_alarm = self._arm(max(left, 0.0), self._time_up)

    def _time_up(self) -> None:
        self._on_clock("ending it at its time limit failed", self._end_at_time_limit,
                       self._time_up, slot="_time_alarm")

    def _end_at_time_limit(self) -> None:
        with self._lock:
            self._time_alarm = None
            self._settle()
            if not self.match.over and not self._time_told:
                self._apply(-1, None, TIME_UP, extra=(EngineEvent("time_up"),))
                self._continue()

    def _open_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if not s.claimed and not s.pool]

    def _arm_seat_expiry(self) -> None:
        """OPEN_SEAT_EXPIRY_S after creation, a waiting match's open seats are the engine's
        (pool seats have their own wait: the ladder's and the arena's seat_wait_s)."""
        if self.status != WAITING or self._alarms is None or self._expiry_alarm:
            return
        if not self._open_seats():
            return
        left = self.row.created + OPEN_SEAT_EXPIRY_S - self._now()
        self._expiry_alarm = self._arm(max(left, 0.0), self._seats_expire)

    def _seats_expire(self) -> None:
        self._on_clock("taking its open seats failed", self._take_open_seats,
                       self._seats_expire, slot="_expiry_alarm")

    def _take_open_seats(self) -> None:
        """Nobody came for these seats: the engine claims each (nobody gets its token) and
        plays it at once, as absent; the last claim makes the match live."""
        with self._lock:
            self._expiry_alarm = None
            if self.status != WAITING:
                return
            open_seats = self._open_seats()
            log.info("match %s: nobody claimed seat(s) %s in %d min: the engine plays them",
                     self.id, ", ".join(map(str, open_seats)), OPEN_SEAT_EXPIRY_S // 60)
            for seat in open_seats:
                self.seats[seat].absent = True
                self._publish_engine_event(EngineEvent("absent", seat=seat))
                self.claim(seat)

    def store_back(self) -> None:
        """The store answers again (Engine, told by the store's health): read back what it
        may have taken while this referee was told it had not (_settle), write what it
        could not be told, restart what the clocks held for it, and ask each seat whose
        move it refused to move again (TurnAgain). Raises EngineError while it is away
        again (the next return does it all)."""
        with self._lock:
            if self.released or self._closed:
                return
            self._settle()
            if self._over_unsaved:
                self._finish()
            if self._held and not self.match.over:
                self._autoplay_and_arm()   # the seat to move has its clock again, in full
            self._held = False
            self._arm_time_limit()        # (when its alarm was spent while away)
            to_move = self.match.to_move if not self.match.over else None
            for sub in self._subscribers:
                if sub.seat is not None and sub.seat == to_move:
                    sub.put(TurnAgain(self.id, self.version))

    def close(self) -> None:
        """Stop the clocks and end every watcher's stream (engine shutdown)."""
        with self._lock:
            self._closed = True
            self._stop_clocks()
            for sub in self._subscribers:
                sub.close()

    def release(self) -> None:
        """Another engine plays the match now: stop every clock of it here (the turn clock,
        the time limit, a yardstick's turn, a retry), so that an alarm that fires after
        this finds the match released and does nothing; and tell every watcher, so that
        their streams of this match end (and no move is played here any more)."""
        with self._lock:
            self.released = True
            self._held = False
            self._stop_clocks()
            for sub in self._subscribers:
                sub.moved(self.id)
            self._subscribers.clear()

    def _stop_clocks(self) -> None:
        self._cancel_alarm()
        for slot in ("_time_alarm", "_expiry_alarm"):
            alarm = getattr(self, slot)
            if alarm:
                alarm.cancel()
            setattr(self, slot, None)

    # ----- watchers -------------------------------------------------------------------
    def subscribe(self, seat: int | None, queue: UpdateQueue,
                  events: bool = True) -> tuple[Subscriber, SeatView]:
        """A new watcher and the snapshot it starts from; taken together under the lock so
        no event falls between them. Without `events` it hears only of its turns and of
        the match's end (see Subscriber)."""
        with self._lock:
            sub = Subscriber(seat, queue, events)
            self._subscribers.add(sub)
            return sub, self._seat_view(seat)

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    def _publish_engine_event(self, event: EngineEvent) -> None:
        """An engine event that comes with no move (a return, a no-show): kept for the
        history, and heard at the current version."""
        self._engine_events.append((len(self.match.events), event))
        self._publish((event,))

    def _publish(self, events: tuple) -> None:
        update = Update(self.id, self.version, tuple(events), self.match.to_move,
                        self.match.over)
        # The seat to move first: its stream sends the next TurnRequest, the move's
        # critical path; the other watchers only follow.
        later = []
        for sub in self._subscribers:
            if sub.seat is not None and sub.seat == update.to_move:
                sub.put(update)
            elif sub.wants(update):
                later.append(sub)
        for sub in later:
            sub.put(update)

    # ----- summary --------------------------------------------------------------------
    def summary(self) -> dict:
        with self._lock:
            return {
                "match_id": self.id, "variant": self.row.variant, "status": self.status,
                "version": self.version, "num_seats": len(self.seats),
                "to_move": self.match.to_move,
                "seats": [public_seat(s.kind, s.name, s.claimed, s.absent, s.timeouts_in_a_row,
                                      s.clock_ms, s.pool, s.open) for s in self.seats],
                "options": self.match.options, "created": self.row.created,
                "result": self.match.result,
            }


def logged_events(move: MoveRow, in_a_row: list[int]) -> tuple:
    """The engine's events a logged move came with, as far as the log tells them (a
    restored match's history holds them too): the clock's `timeout`, counted in a row from
    the seat's last own move, with the `absent` of the ABSENT_AFTER-th, and the time
    limit's `time_up`. A return and a no-show are no moves, so the log has neither: a
    history rebuilt from it lacks them, and a returned seat's later timeouts count on.
    `in_a_row` is the count by seat, updated here."""
    if move.cause == TIME_UP:
        return (EngineEvent("time_up"),)
    if move.seat < 0:
        return ()
    if move.cause in (BY_SEAT, BY_ENGINE):
        in_a_row[move.seat] = 0
    if move.cause != BY_TIMEOUT:
        return ()
    in_a_row[move.seat] += 1
    timeout = EngineEvent("timeout", seat=move.seat, move=move.move_text,
                          timeouts_in_a_row=in_a_row[move.seat])
    if in_a_row[move.seat] == ABSENT_AFTER:
        return (timeout, EngineEvent("absent", seat=move.seat))
    return (timeout,)


def _same_move(text: str, applied: str) -> bool:
    try:
        return str(rules.Move.parse(text)) == applied
    except rules.MalformedInput:
        return False


def public_seat(kind: str, name: str, claimed: bool, absent: bool, timeouts_in_a_row: int,
                clock_ms: int, pool: str, open_: bool = False) -> dict:
    """A seat as summaries show it: never its token's (or claim secret's) hash, since
    summaries are public. `open_`: anyone may claim it."""
    return {"kind": kind, "name": name, "claimed": claimed, "absent": absent,
            "timeouts_in_a_row": timeouts_in_a_row, "clock_ms": clock_ms, "pool": pool,
            "open": open_}
