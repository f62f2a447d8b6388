"""A pool bot enlisted with every live engine of a cluster.

A pool seat is filled by the engine that plays the match, from the bots enlisted with
that engine (engine_service/core/matches/pools.py), and a match moves to another engine when its
owner dies. So a pool bot on a cluster keeps one Play stream per live engine, found
through ListEngines, and follows the membership: a stream for each engine that joins, and
none for one that has left. Against a lone engine (no cluster) it is exactly one Runner.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import grpc

from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc
from domino_wire.routing import addresses_of

from .play import pool_hello
from .runner import Runner, RunnerError, Stats
from .strategy_adapter import FirstLegal, as_strategy, listens

log = logging.getLogger("bots.fleet")

LOOK_EVERY_S = 2.0     # how often the membership is read again


def cluster_of(addresses: list[str], timeout: float = 3.0) -> list[str] | None:
    """The addresses of the live engines that take matches, as ListEngines says on the
    first engine that answers; None when no engine answered; [] when it is a lone engine
    (no cluster), whose address the caller already has."""
    for address in addresses:
        try:
            with grpc.insecure_channel(address) as channel:
                reply = engine_pb2_grpc.EngineStub(channel).ListEngines(
                    engine_pb2.ListEnginesRequest(), timeout=timeout)
        except grpc.RpcError:
            continue
        return [e.address for e in reply.engines
                if e.engine_id and e.live and not e.draining and e.address]
    return None


class PoolFleet:
    """`Runner`s for one pool bot (`hello` enlists it), one per live engine, until
    `matches` matches are over in all (0: until stop()). `give_up_after`: seconds in a
    row that no engine may answer."""

    def __init__(self, address: str | list[str], hello, make_bot: Callable, *,
                 matches: int = 0, label: str = "pool bot",
                 give_up_after: float | None = 120.0, **options):
        self.addresses = addresses_of(address)
        self.hello, self.make_bot, self.matches = hello, make_bot, matches
        self.label, self.give_up_after, self.options = label, give_up_after, options
        self.runners: dict[str, Runner] = {}    # the stream to each engine
        self._retired: list[Runner] = []        # streams ended earlier: their results count
        self._threads: dict[str, threading.Thread] = {}
        self._errors: list[str] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    # What a caller reads afterwards, summed over the streams.
    def _all(self) -> list[Runner]:
        return self._retired + list(self.runners.values())

    @property
    def results(self) -> list[dict]:
        return [r for runner in self._all() for r in runner.results]

    @property
    def finished(self) -> list[str]:
        return [m for runner in self._all() for m in runner.finished]

    @property
    def stats(self) -> Stats:
        total = Stats()
        for runner in self._all():
            s = runner.stats
            total.moves += s.moves
            total.fallbacks += s.fallbacks
            total.refusals += s.refusals   # (a list of reasons)
            total.connects += s.connects
            total.reconnects += s.reconnects
        return total

    def run(self) -> list[dict]:
        members = cluster_of(self.addresses)
        if not members:
            # A lone engine, or none answering yet: one stream, as against any engine.
            self._start("", self.addresses, self.give_up_after)
            self._wait()
        else:
            self._follow(members)
        if self._errors and not self.results:
            raise RunnerError(self._errors[0])
        return self.results

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for runner in self.runners.values():
                runner.stop()

    def holds(self, address: str) -> bool:
        """Whether a stream to the engine at `address` is running (a lone engine's counts
        under the first address it was given)."""
        with self._lock:
            thread = self._threads.get(address)
        return thread is not None and thread.is_alive() and not self._stopping.is_set()

    # ----- the streams ------------------------------------------------------------------
    def _start(self, key: str, addresses: list[str], give_up_after: float | None) -> None:
        runner = Runner(addresses, self.hello, self.make_bot, matches=0,
                        give_up_after=give_up_after, label=f"{self.label} @ {addresses[0]}",
                        **self.options)
        runner.matches = self.matches   # a lone stream stops by itself at `matches`

        def run():
            try:
                runner.run()
            except RunnerError as e:
                self._errors.append(str(e))
            except Exception as e:   # noqa: BLE001 - never silent; the other streams go on
                log.exception("%s: the stream to %s failed", self.label, addresses[0])
                self._errors.append(repr(e))

        with self._lock:
            if self._stopping.is_set():
                return
            self.runners[key or addresses[0]] = runner
            thread = self._threads[key or addresses[0]] = threading.Thread(
                target=run, name=f"pool-{addresses[0]}", daemon=True)
        thread.start()

    def _wait(self) -> None:
        for thread in list(self._threads.values()):
            while thread.is_alive():
                thread.join(0.5)

    def _done(self) -> bool:
        return self._stopping.is_set() or (0 < self.matches <= len(self.results))

    def _follow(self, members: list[str]) -> None:
        """A cluster: a stream per live engine, the membership read every LOOK_EVERY_S."""
        heard = time.monotonic()
        while True:
            if members is not None:
                heard = time.monotonic()
                for address in members:
                    if address not in self.runners or not self._threads[address].is_alive():
                        log.info("%s: enlisting with the engine at %s", self.label, address)
                        if address in self.runners:
                            self._retired.append(self.runners.pop(address))
                        self._start(address, [address], None)
                for address in [a for a in self.runners if a not in members]:
                    # That engine left (drained, or dead past its lease): its matches are
                    # taken by the others, which seat this bot through their own streams.
                    log.info("%s: the engine at %s left the cluster", self.label, address)
                    self.runners[address].stop()
            elif self.give_up_after and time.monotonic() - heard > self.give_up_after:
                self._errors.append(f"{self.label}: no engine of {','.join(self.addresses)} "
                                    f"answered for {self.give_up_after:.0f} s")
                break
            if self._done() or self._stopping.wait(LOOK_EVERY_S) or self._done():
                break
            members = cluster_of(self.addresses + [a for a in self.runners
                                                   if a not in self.addresses])
        self.stop()
        self._wait()


def play_pool(address: str, pool: str, name: str, bot=None, *, make_bot: Callable | None = None,
              matches: int = 1, capacity: int = 1, secret: str = "", **options) -> list[dict]:
    """Enlist in `pool` as `name` (with the pool's enlist `secret`) and play the matches
    the engine seats this bot in,
    `capacity` at once, until `matches` are over (0: until stopped). Each match gets
    `make_bot(match_id, seat)`, or the one `bot` for all (default: the first legal move).
    Returns the results in the order the matches ended. With `bot`, the stream asks for
    EventBatches only when it listens to them; with `make_bot`, pass `events=False` to go
    without."""
    if make_bot is None:
        bot = FirstLegal() if bot is None else bot
        options.setdefault("events", listens(as_strategy(bot)))
        make_bot = lambda match_id, seat: bot   # noqa: E731
    fleet = PoolFleet(address, pool_hello(pool, name, capacity, secret), make_bot,
                      matches=matches, label=options.pop("label", f"pool {pool} as {name}"),
                      **options)
    return fleet.run()
