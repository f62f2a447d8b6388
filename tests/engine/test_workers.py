"""Worker processes for CPU work (plumbing/workers.py): a job runs in a child, its value or
its failure comes back; the pool is bounded (Busy at once past it), a job past its time
is refused and its process killed, a dead process is replaced, and the children go with
the pool. Budgets, gates and in-flight counts (core/security/rate.py) bound who may ask."""

import threading

import pytest

from engine_service.core.security.rate import Budgets, Gate, InFlight
from plumbing.workers import Busy, WorkerFailed, Workers
from tests.engine import worker_jobs
from tests.engine.support import wait_for


@pytest.fixture
def workers():
    pool = Workers(processes=1, waiting=1)
    yield pool
    pool.close()


def test_a_job_runs_in_a_child_process_and_keeps_its_values(workers):
    import os

    done = workers.run(worker_jobs.echo, {"text": "x" * 1_000_000, "b": b"\x00\xff"},
                       timeout=60)
    assert done["value"] == {"text": "x" * 1_000_000, "b": b"\x00\xff"}
    assert done["pid"] != os.getpid()
    assert workers.run(worker_jobs.echo, 1, timeout=60)["pid"] == done["pid"]   # kept


def test_past_its_processes_and_waiting_room_a_job_is_refused_at_once(workers):
    workers.run(worker_jobs.echo, 0, timeout=60)          # the child is up
    release = threading.Event()
    results = []

    def slow():
        results.append(workers.run(worker_jobs.sleep, 1.0, timeout=60))
        release.set()

    threads = [threading.Thread(target=slow) for _ in range(2)]   # one runs, one waits
    for t in threads:
        t.start()
    wait_for(lambda: workers.in_flight == 2, what="two jobs in the pool")
    with pytest.raises(Busy):
        workers.run(worker_jobs.echo, 0, timeout=60)
    for t in threads:
        t.join(60)
    assert len(results) == 2 and workers.in_flight == 0


def test_a_job_past_its_time_is_refused_and_its_process_replaced(workers):
    first = workers.run(worker_jobs.echo, 0, timeout=60)["pid"]
    with pytest.raises(Busy, match="took more than"):
        workers.run(worker_jobs.sleep, 30, timeout=0.5)
    assert workers.run(worker_jobs.echo, 0, timeout=60)["pid"] != first


def test_a_failing_job_and_a_dying_process_fail_their_job_only(workers):
    with pytest.raises(WorkerFailed, match="ValueError: no good"):
        workers.run(worker_jobs.fail, "no good", timeout=60)
    with pytest.raises(WorkerFailed, match="died"):
        workers.run(worker_jobs.die, timeout=60)
    assert workers.run(worker_jobs.echo, 5, timeout=60)["value"] == 5


def test_budgets_may_be_overdrawn_and_are_paid_back_in_time():
    now = [0.0]
    budget = Budgets(rate=0.1, burst=0.25, now=lambda: now[0])
    assert budget.wait("a") == 0
    budget.charge("a", 0.5)                  # a call that cost more than the burst
    assert budget.wait("a") == pytest.approx(2.5)
    assert budget.wait("b") == 0             # another key is not held back
    now[0] += 2.5
    assert budget.wait("a") == 0


def test_a_gate_lets_so_many_in_and_in_flight_counts_per_key():
    gate = Gate(running=2)
    assert gate.enter() and gate.enter() and not gate.enter()
    gate.leave()
    assert gate.enter()
    calls = InFlight(client=2, match=1)
    assert calls.enter(client="a", match="m") == ""
    assert calls.enter(client="a", match="m") == "match"
    assert calls.enter(client="a", match="n") == ""
    assert calls.enter(client="a", match="o") == "client"
    calls.leave(client="a", match="m")
    assert calls.enter(client="a", match="m") == ""
