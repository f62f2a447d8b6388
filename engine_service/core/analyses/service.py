"""Analyses of finished matches on request (docs/analysis.md): a job per (match, seats,
worlds), run behind a bounded queue with a cap on how many run at once and a quota per
key, its progress told to every one waiting on it, its result kept in the store so that a
second request is free.

The analyser itself (analysis/, which imports bots) is handed to the engine by the
composition root, like the yardsticks: ``analyser(record, seats, worlds, progress) ->
document``. It reads every hidden tile, so it is given only what GetRecord would give:
the record comes from the same call (``record_of``: MATCH_NOT_OVER while the match is
live, and any other reason a record is held back).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable

from plumbing.daemon_pool import DaemonPool

from ..errors import EngineError, Reason
from ..security import limits

log = logging.getLogger(__name__)

MAX_WORLDS = 2000    # per decision, on request (the CLI allows more: it is the user's CPU)
DEFAULT_WORLDS = 0   # in a request: the analyser's default
RUNNING = 1          # jobs computed at once: each spreads over the cores by itself
QUEUED = 16          # jobs waiting or running, in all
PER_KEY = 2          # jobs one key (or the open principal) may have waiting or running


class Job:
    """One analysis: ``state`` queued, running, done or failed; ``done``/``total`` moments
    valued; ``doc`` the document's JSON text once done; ``kept``: it came from the store."""

    def __init__(self, key: tuple, owner: str | None):
        self.key, self.owner = key, owner
        self.state, self.done, self.total = "queued", 0, 0
        self.doc: str | None = None
        self.error = ""
        self.kept = False
        self.changed = threading.Condition()

    @classmethod
    def finished(cls, key: tuple, doc: str) -> Job:
        job = cls(key, "")
        job.state, job.doc, job.kept = "done", doc, True
        return job

    def _set(self, **values) -> None:
        with self.changed:
            for k, v in values.items():
                setattr(self, k, v)
            self.changed.notify_all()

    def updates(self, wait_s: float = 1.0):
        """(state, done, total) whenever it changes (and every ``wait_s`` at most, so a
        caller may notice its client went away), until done or failed."""
        seen = None
        while True:
            with self.changed:
                now = (self.state, self.done, self.total)
                if now == seen:
                    self.changed.wait(wait_s)
                    now = (self.state, self.done, self.total)
            if now != seen:
                seen = now
                yield now
            if now[0] in ("done", "failed"):
                return


class AnalysisService:
    def __init__(self, store, analyser: Callable | None, record_of: Callable[[str], dict],
                 running: int = RUNNING, queued: int = QUEUED, per_key: int = PER_KEY):
        self.store, self.analyser, self.record_of = store, analyser, record_of
        self.queued, self.per_key = queued, per_key
        self._jobs: dict[tuple, Job] = {}     # waiting or running
        self._lock = threading.Lock()
        # Daemon threads: an engine told to stop does not wait for the analysis at work
        # (it is made again when asked again); a ThreadPoolExecutor's are joined at exit.
        self._pool = DaemonPool(running, "analysis")

    @staticmethod
    def params(seats: list[int], worlds: int) -> str:
        """How a kept analysis is keyed besides its match (the seed is always 0: one
        analysis per parameters, the same on every engine)."""
        return f"seats={','.join(map(str, seats))};worlds={worlds};seed=0"

    def request(self, match_id: str, seat: int | None, worlds: int, owner: str | None) -> Job:
        """The job of this analysis: kept, running, or new. ``owner``: the key asking (its
        principal's name), or None for the engine's own (a ladder's director), which only
        the queue's bound holds. Refuses before anything runs:
        INVALID_ARGUMENT for the numbers, MATCH_NOT_OVER (or any refusal of the record),
        ANALYSIS_OFF, ENGINE_FULL when the queue is full, QUOTA_EXCEEDED over the key's
        share of it."""
        limits.integer(worlds, "worlds", 0, MAX_WORLDS)
        if self.analyser is None:
            raise EngineError(Reason.ANALYSIS_OFF, "this engine analyses no matches (it was "
                              "started without the analyser)")
        record = self.record_of(match_id)
        n = len(record["deals"][0]["hands"])
        if seat is not None:
            limits.integer(seat, "seat", 0, n - 1)
        seats = list(range(n)) if seat is None else [seat]
        key = (match_id, self.params(seats, worlds))
        kept = self.store.analysis(*key)
        if kept is not None:
            return Job.finished(key, kept)
        with self._lock:
            job = self._jobs.get(key)
            if job is not None:
                return job          # someone asked already: follow the same job
            if len(self._jobs) >= self.queued:
                raise EngineError(Reason.ENGINE_FULL, f"{len(self._jobs)} analyses are queued "
                                  "or running, the most this engine takes: try again later")
            mine = sum(j.owner == owner for j in self._jobs.values())
            if owner is not None and mine >= self.per_key:
                raise EngineError(Reason.QUOTA_EXCEEDED, f"{mine} analyses of yours are queued "
                                  f"or running, at most {self.per_key}: wait for them")
            job = self._jobs[key] = Job(key, owner)
        self._pool.submit(self._run, job, record, seats, worlds)
        return job

    def _run(self, job: Job, record: dict, seats: list[int], worlds: int) -> None:
        job._set(state="running")
        try:
            doc = self.analyser(record, seats, worlds or None,
                                lambda done, total: job._set(done=done, total=total))
            text = json.dumps(doc, separators=(",", ":"))
            self.store.add_analysis(job.key[0], job.key[1], text)
            job._set(state="done", doc=text)
        except Exception as e:   # a bug, or the store away: the job fails, the engine lives
            log.exception("analysis of match %s failed", job.key[0])
            job._set(state="failed", error=f"{type(e).__name__}: {str(e)[:200]}")
        finally:
            with self._lock:
                self._jobs.pop(job.key, None)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
