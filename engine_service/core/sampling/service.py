"""SampleWorlds: worlds for one seat, drawn from that seat's own view (rules/worlds.py).

The sampler is given the view the seat itself receives (its SeatView, the history cut for
it), never the match, so a world cannot carry anything the seat has not seen.

Worlds are CPU time of the engine, so they are bounded four ways (docs/security.md):

* a call asks for 1..MAX_WORLDS worlds;
* each seat has a token bucket counted in worlds (WORLDS_PER_S, WORLDS_BURST);
* the CPU time of the work (the counting of a view the seat has not asked about before,
  the expensive part, and the draws; at least MIN_CALL_COST_S, the engine's own part of
  any call) is charged to three budgets, each in CPU seconds a second: the client's (its
  network address: every seat it plays, every match), the match's (all its seats) and
  the engine's. A call is admitted while none of the three is in debt, and pays what it
  cost once done;
* the work runs in a worker process (plumbing/workers.py), and at most CALLS_AT_ONCE
  calls are at work in the engine at once, the rest refused (BUSY). The gRPC server
  holds a refusal back (pause_of: the wait a rate or a budget names, 0.5 to 1 s)
  without a thread, so that a client asking again at once cannot make a flood of calls
  out of refusals. So sampling holds up no other request of the engine, however much of
  it is asked for.

A view's counting is kept in the worker for the next call at the same view (jobs.py):
a bot asks again and again while it thinks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from plumbing.workers import Busy, WorkerFailed, Workers

from ..errors import EngineError, Reason
from ..matches.referee import Referee
from ..security import limits
from ..security.rate import Budgets, Gate, TokenBuckets
from . import jobs

log = logging.getLogger(__name__)

MAX_WORLDS = 1000            # per call
WORLDS_PER_S = 2000          # per seat, sustained
WORLDS_BURST = 5000          # per seat, at once (five full calls)
SEED_MAX = 2**64 - 1         # the proto's uint64
# CPU seconds of sampling a second (and at once), for the whole engine, one client
# address, one match. A thousand worlds take some 20 ms; counting a new view 0.2..50 ms.
CPU_BUDGETS = {"engine": (0.25, 0.5), "client": (0.2, 0.5), "match": (0.2, 0.5)}


def budgets_with(share: float) -> dict[str, tuple[float, float]]:
    """CPU_BUDGETS with a client address's and a match's rate set to `share` (an operator's
    choice: `domino engine --sampling-budget`); the bursts and the engine's own stay."""
    return {level: (share if level != "engine" else rate, burst)
            for level, (rate, burst) in CPU_BUDGETS.items()}

# A call costs the engine its own work too (the view, the answer, the hand-over to the
# worker: a millisecond or two, however few worlds): each is charged at least this much.
MIN_CALL_COST_S = 0.002
SAMPLING_PROCESSES = 1
CALLS_AT_ONCE = 2            # calls at work in the engine at once (the rest: BUSY)
MIN_PAUSE_S, MAX_PAUSE_S = 0.5, 1.0   # how long a refusal is held back (pause_of)
SAMPLE_TIMEOUT_S = 10.0
_WHO = {"engine": "the engine's sampling", "client": "your address's sampling",
        "match": "this match's sampling"}


@dataclass(frozen=True)
class Ticket:
    """A SampleWorlds call let in (admit), for work()."""
    referee: Referee
    seat: int
    count: int
    seed: int
    keys: dict
    seen: object             # the SeatView the worlds are drawn for


class WorldService:
    def __init__(self, rate: float = WORLDS_PER_S, burst: float = WORLDS_BURST,
                 now: Callable[[], float] = time.monotonic,
                 budgets: dict[str, tuple[float, float]] | None = None,
                 workers: Workers | None = None):
        self.buckets = TokenBuckets(rate, burst, now)
        self.budgets = {level: Budgets(r, b, now)
                        for level, (r, b) in (budgets or CPU_BUDGETS).items()}
        self.workers = workers or Workers(SAMPLING_PROCESSES, CALLS_AT_ONCE)
        self.gate = Gate(CALLS_AT_ONCE, 0, 0.0)

    @staticmethod
    def check(count: int, seed: int) -> None:
        """The request's numbers, before anything is looked up."""
        limits.integer(count, "count", 1, MAX_WORLDS)
        limits.integer(seed, "seed", 0, SEED_MAX)

    def sample(self, referee: Referee, seat: int, count: int, seed: int, client: str = "",
               job=jobs.draw):
        """(the SeatView the worlds agree with, the job's answer: "worlds" as `job` gives
        them, "exact", "count", "counted", "cost"), in the caller's thread. `client`: the
        caller's address."""
        return self.work(self.admit(referee, seat, count, seed, client), job)

    def admit(self, referee: Referee, seat: int, count: int, seed: int,
              client: str = "") -> Ticket:
        """A call let in, or refused (RATE_LIMITED, BUSY): cheap, and never waiting, so
        that a server may make the refusal wait without a thread (pause_of). Hand the
        ticket to work() (it frees the call's place)."""
        keys = {"engine": "", "client": client, "match": referee.id}
        for level, budget in self.budgets.items():
            wait = budget.wait(keys[level])
            if wait:
                raise _rate_limited(f"{_WHO[level]} is over its budget ({budget.rate:g} CPU "
                                    "seconds a second)", wait, referee.version)
        seen = referee.seat_view(seat)
        if seen.view.get("over"):
            raise EngineError(Reason.MATCH_OVER, "the match is over; its record shows every "
                              "tile", seen.version)
        if not self.gate.enter():
            raise EngineError(Reason.BUSY, f"the engine's sampler is busy ({CALLS_AT_ONCE} "
                              "calls at once); try again shortly", referee.version)
        wait = self.buckets.take((referee.id, seat), count)
        if wait:
            self.gate.leave()
            raise _rate_limited(f"seat {seat} asked for more worlds than its rate "
                                f"({self.buckets.rate:g} a second, {self.buckets.burst:g} at "
                                "once)", wait, referee.version)
        return Ticket(referee, seat, count, seed, keys, seen)

    def work(self, ticket: Ticket, job=jobs.draw) -> tuple:
        """The admitted call's work, in a worker process (this thread waits for it):
        (the SeatView, the job's answer); its CPU time charged to the budgets."""
        t = ticket
        try:
            done = self.workers.run(job, [t.referee.id, t.seat], seat_view_dict(t.seen),
                                    t.count, t.seed, timeout=SAMPLE_TIMEOUT_S)
        except Busy:
            raise EngineError(Reason.BUSY, "the engine's sampler is busy; try again shortly",
                              t.referee.version) from None
        except WorkerFailed:
            log.exception("match %s seat %d: sampling failed", t.referee.id, t.seat)
            raise EngineError(Reason.INTERNAL, "internal error; the engine logged it",
                              t.referee.version) from None
        finally:
            self.gate.leave()
        for level, budget in self.budgets.items():
            budget.charge(t.keys[level], max(done["cost"], MIN_CALL_COST_S))
        return t.seen, done

    @staticmethod
    def pause_of(err: EngineError) -> float:
        """How long a server holds back a refusal of SampleWorlds before it answers: the
        wait a rate or budget names, within MIN_PAUSE_S..MAX_PAUSE_S, MAX_PAUSE_S for
        BUSY; so that a client asking again at once cannot make a flood of calls out of
        refusals."""
        if err.reason == Reason.RATE_LIMITED:
            return max(MIN_PAUSE_S, min(getattr(err, "wait", MAX_PAUSE_S), MAX_PAUSE_S))
        return MAX_PAUSE_S if err.reason == Reason.BUSY else 0.0

    def close(self) -> None:
        self.workers.close()


def _rate_limited(what: str, wait: float, version: int) -> EngineError:
    err = EngineError(Reason.RATE_LIMITED, f"{what}; try again in "
                      f"{max(1, round(wait * 1000))} ms", version)
    err.wait = wait
    return err


def lifted() -> WorldService:
    """A service with no rate or budget to speak of (benchmarks of the engine's ceiling)."""
    return WorldService(rate=1e12, burst=1e12,
                        budgets={level: (1e12, 1e12) for level in CPU_BUDGETS})


def seat_view_dict(seen) -> dict:
    """The rules' view dict of a SeatView, its history cut for the seat: what
    Match.view(seat) gives, less the legal moves (the worlds do not need them). The
    engine's events are left out: the rules' reasoning reads a draw and the play of the
    drawn tile as neighbours, and a timeout may stand between them."""
    return {**seen.view, "history": [e.to_dict(seen.seat) for e in seen.rules_history]}
