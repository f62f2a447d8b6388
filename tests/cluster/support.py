"""Engines on one PostgreSQL database as real `domino engine` processes on 127.0.0.1,
and what the cluster tests and the cluster benchmark ask of them: kill, pause, drain,
restart on the same port, and who owns a match now."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time

import psycopg

from domino_proto.domino.v1 import engine_pb2
from domino_wire.routing import Router
from tests.engine.support import start_engine

LEASE_S = 2.0      # engine_service/core/cluster/membership.py: a silent engine is dead after this


class EngineCluster:
    """`n` engines on `dsn`, each advertised at its own 127.0.0.1 port; restarted ones keep
    their port (so bots given every address find them again)."""

    def __init__(self, dsn: str, n: int, log_path: str, extra: tuple = ()):
        self.dsn, self.log_path, self.extra = dsn, log_path, extra
        self.procs: list[subprocess.Popen | None] = []
        self.ports: list[int] = []
        for _ in range(n):
            proc, port = self._launch(0)
            self.procs.append(proc)
            self.ports.append(port)
        placement_ready(dsn, n)

    def _launch(self, port: int):
        """An engine on `port`; 0: on the port it picks itself, which it then advertises
        (nothing else can take that port between a test choosing it and the engine binding
        it). A restart gives the engine's own port back: bots hold every address."""
        return start_engine(self.dsn, port, self.log_path, extra=self.extra)

    # ----- addresses ------------------------------------------------------------------
    def address(self, i: int) -> str:
        return f"127.0.0.1:{self.ports[i]}"

    @property
    def addresses(self) -> str:
        return ",".join(self.address(i) for i in range(len(self.ports)))

    def router(self, *which: int) -> Router:
        return Router([self.address(i) for i in (which or range(len(self.ports)))])

    # ----- faults ---------------------------------------------------------------------
    def kill(self, i: int) -> None:
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait(60)

    def drain(self, i: int, timeout: float = 30) -> int:
        """SIGTERM: the engine drains and exits; its exit status."""
        self.procs[i].send_signal(signal.SIGTERM)
        return self.procs[i].wait(timeout)

    def restart(self, i: int) -> None:
        proc, _ = self._launch(self.ports[i])
        self.procs[i] = proc

    def pause(self, i: int) -> None:
        self.procs[i].send_signal(signal.SIGSTOP)

    def resume(self, i: int) -> None:
        self.procs[i].send_signal(signal.SIGCONT)

    def close(self) -> None:
        for proc in self.procs:
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait(60)

    # ----- what the database says -------------------------------------------------------
    def sql(self, query: str, args: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            return conn.execute(query, args).fetchall()

    def owner_of(self, match_id: str) -> int | None:
        """The index of the engine that owns the match now (None: no live owner)."""
        rows = self.sql("SELECT e.address FROM matches m JOIN engines e ON e.id = m.owner "
                        "WHERE m.id = %s", (match_id,))
        if not rows or rows[0][0] not in [self.address(i) for i in range(len(self.ports))]:
            return None
        return [self.address(i) for i in range(len(self.ports))].index(rows[0][0])

    def committed(self, match_id: str) -> int:
        """The last version in the match's log."""
        return self.sql("SELECT COALESCE(max(version), 0) FROM moves WHERE match_id = %s",
                        (match_id,))[0][0]

    def epoch_of(self, match_id: str) -> int:
        return self.sql("SELECT epoch FROM matches WHERE id = %s", (match_id,))[0][0]

    def members(self, via: int = 0) -> list:
        with contextlib.closing(self.router(via)) as router:
            return list(router.call("ListEngines", engine_pb2.ListEnginesRequest()).engines)

    def wait_members(self, n: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while True:
            live = self.sql("SELECT count(*) FROM engines WHERE heartbeat > now() - "
                            "make_interval(secs => %s) AND NOT draining", (LEASE_S,))[0][0]
            if live >= n:
                return
            assert time.monotonic() < deadline, f"{live} of {n} engines live"
            time.sleep(0.05)


def placement_ready(dsn: str, n: int, timeout: float = 30) -> None:
    """Until `n` engines are live on `dsn` and each has since read the membership, which
    it does at each heartbeat right after writing it: an engine's heartbeat seen to move
    twice after all were live means it read them all at the first of those beats (placement
    spreads matches only over the engines it has read)."""
    deadline = time.monotonic() + timeout
    beats: dict[str, set] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        while True:
            rows = conn.execute("SELECT id, heartbeat FROM engines WHERE heartbeat > now() - "
                                "make_interval(secs => %s) AND NOT draining",
                                (LEASE_S,)).fetchall()
            if len(rows) < n:
                beats.clear()           # count beats from when all n are live
            else:
                for engine_id, heartbeat in rows:
                    beats.setdefault(engine_id, set()).add(heartbeat)
                if len(beats) >= n and all(len(b) >= 3 for b in beats.values()):
                    return   # the first value seen, then two beats after it
            assert time.monotonic() < deadline, f"{len(rows)} of {n} engines live"
            time.sleep(0.05)


def versions(router: Router, match_ids: list[str]) -> dict[str, int]:
    """Each match's version now, asked of whichever engine owns it."""
    return {m: router.call("GetMatch", engine_pb2.GetMatchRequest(match_id=m), about=m)
            .summary.version for m in match_ids}


def start_bots(addresses: str, match_id: str, tokens: list[str], delay: float = 0.02
               ) -> list[subprocess.Popen]:
    """`domino bot` per seat, given every engine's address (greedy: deterministic)."""
    return [subprocess.Popen(
        [sys.executable, "-m", "domino_cli", "bot", "--engine", addresses, "--match", match_id,
         "--seat", str(s), "--delay", str(delay), "--progress-every", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DOMINO_SEAT_TOKEN": t}) for s, t in enumerate(tokens)]


def kill_loop(cluster: EngineCluster, router: Router, match_ids: list[str], kills: int,
              rng: random.Random, on_kill=None) -> list[float]:
    """Kill -9 the owner of a live match at a random moment, `kills` times, restarting each
    killed engine on its port; returns, per kill, the seconds from the kill to the first
    move accepted by the new owner. Asserts after each that no accepted move was lost."""
    times = []
    for _ in range(kills):
        time.sleep(rng.uniform(0.2, 1.0))
        before = versions(router, match_ids)
        live = [m for m in match_ids if cluster.owner_of(m) is not None and not over(router, m)]
        if not live:
            break
        victim_match = rng.choice(live)
        victim = cluster.owner_of(victim_match)
        acknowledged = versions(router, [victim_match])[victim_match]
        killed_at = time.monotonic()
        cluster.kill(victim)
        # What the dead owner committed (a move may have been committed since it was read).
        seen = cluster.committed(victim_match)
        assert seen >= acknowledged
        if on_kill is not None:
            on_kill(victim)
        # The first move the new owner accepts: the version grows past what was seen.
        deadline = killed_at + 30
        while True:
            after = versions(router, [victim_match])[victim_match]
            assert after >= seen, f"match {victim_match}: version {after} < {seen}: lost"
            if after > seen or over(router, victim_match):
                break
            assert time.monotonic() < deadline, "no engine took the match over"
            time.sleep(0.02)
        times.append(time.monotonic() - killed_at)
        now = versions(router, match_ids)
        assert all(now[m] >= before[m] for m in match_ids), (before, now)
        cluster.restart(victim)
    return times


def over(router: Router, match_id: str) -> bool:
    return router.call("GetMatch", engine_pb2.GetMatchRequest(match_id=match_id),
                       about=match_id).summary.status == 3


def new_match(router: Router, variant: str, options: dict, seed: int, clock_ms: int = 20_000,
              here: bool = False) -> tuple[str, list[str]]:
    """Create a match through `router` (placed by load unless `here`) and claim every
    seat; (match id, seat tokens)."""
    from domino_wire import game
    from tests.engine.support import VARIANTS

    created = router.call("CreateMatch", engine_pb2.CreateMatchRequest(
        variant=VARIANTS[variant], options=game.options_pb(variant, options), seed=seed,
        bot_clock_ms=clock_ms, here=here))
    tokens = [router.call("ClaimSeat", engine_pb2.ClaimSeatRequest(
        match_id=created.match_id, seat=s), about=created.match_id).seat_token
        for s in range(created.num_seats)]
    return created.match_id, tokens


def record_of(router: Router, match_id: str) -> dict:
    import json
    return json.loads(router.call("GetRecord", engine_pb2.GetRecordRequest(match_id=match_id),
                                  about=match_id).record_json)
