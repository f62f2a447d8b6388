"""The kit's run: engines, the proxy, one scripted match and one bot process per case.

Every case gets a match of its own on the kit's engine, built from its script (the deal
given to CreateMatch, the kit's moves played by the kit's seats, table.py), and a fresh
process of the bot under test, told by its environment which engine, match, seat and
token to play (or which pool to enlist in). The bot talks to the kit's Play proxy, which
forwards to the engine and keeps every message (proxy.py, watch.py). A case that restarts
its engine gets an engine of its own, so that the others are not disturbed. Cases run a
few at once; the turn-clock cases run last, one by one, so that nothing else takes the
CPU while their short clocks run.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time
from dataclasses import dataclass

from engine_service import rules
from engine_service.core.matches.seats import BOT, PERSON, SeatSpec

from . import cases as C
from .bot import BotProcess
from .engines import LocalEngine
from .proxy import Proxy
from .table import Table
from .watch import CaseObserver, faults

PARALLEL = 3            # cases at once (the clock cases: by themselves)
CASE_LIMIT_S = 45.0     # a case's match must end within this
CONNECT_LIMIT_S = 15.0  # the bot must connect within this of its start
EXIT_WAIT_S = 5.0       # a bot must exit within this of its (last) MatchOver
AFTER_EXIT_S = 1.0      # a bot that exited mid-match: what it sent is all there is
POLL_S = 0.02
KIT_CLOCK_MS = 600_000  # the kit's own seats': never the one that runs out
SETTLE_S = 0.3          # after the bot's Welcome, before its situation starts


@dataclass
class Outcome:
    case: str        # "hhl refusal-stale"
    verdict: str     # pass, fail, skip
    reason: str
    seconds: float
    about: str = ""  # the situation, in words

    def to_dict(self) -> dict:
        variant, name = self.case.split(" ", 1)
        return {"case": name, "variant": variant, "verdict": self.verdict,
                "reason": self.reason, "seconds": round(self.seconds, 2), "about": self.about}


class Run:
    """One case's match as the checks see it."""

    def __init__(self, case, match_id: str, seat: int, observer: CaseObserver, table: Table):
        self.case, self.match_id, self.seat = case, match_id, seat
        self.observer, self.table = observer, table
        self.bot: BotProcess | None = None
        self.restarted_at: float | None = None
        self.restarted: asyncio.Event | None = None   # set once a restart case's restart is done
        self.over = False
        self.exit_after_over: float | None = None
        self.exit_wait_s = EXIT_WAIT_S

    @property
    def attempts(self):
        return self.observer.attempts(self.match_id)

    @property
    def turns(self):
        return self.observer.turns(self.match_id)

    def why_silent(self) -> str:
        """Why the bot may have said nothing, for the end of a reason ("" if running)."""
        return _why_silent(self.bot, self.observer)


def _why_silent(bot: BotProcess | None, observer: CaseObserver) -> str:
    if bot is None:
        return ""
    if bot.error:
        return f": {bot.error}"
    if not observer.conns:
        return f": it never connected ({bot.status()})" if not bot.running else \
            ": it never connected"
    return f" (it {bot.status()})" if not bot.running else ""


async def until(condition, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


class Kit:
    def __init__(self, command: list[str], workdir: str, pool: bool = False,
                 progress=None):
        self.command = command
        self.workdir = workdir
        self.pool = pool
        self.progress = progress or (lambda outcome: None)
        self.registry: list[BotProcess] = []      # every bot process started, for the way out
        self.engines: list[LocalEngine] = []
        self.proxy: Proxy | None = None
        self._n = 0

    # ----- the whole run ----------------------------------------------------------------------
    async def run(self, battery: list) -> list[Outcome]:
        self.engine = self._engine()
        self.proxy = Proxy(self.engine.address)
        await self.proxy.start()
        try:
            gate = asyncio.Semaphore(PARALLEL)
            clocked = [c for c in battery if getattr(c, "clock_ms", C.CLOCK_MS) < C.CLOCK_MS]
            first = [c for c in battery if c not in clocked]
            results: dict[str, Outcome] = {}

            async def one(case):
                async with gate:
                    results[case.key] = await self._case(case)
                    self.progress(results[case.key])

            await asyncio.gather(*(one(c) for c in first))
            for case in clocked:
                await self._timed(case, results)
            return [results[c.key] for c in battery]
        finally:
            for bot in self.registry:
                await bot.stop(grace=1)
            await self.proxy.stop()
            for e in self.engines:
                await asyncio.to_thread(e.stop)

    async def _timed(self, case, results) -> None:
        results[case.key] = await self._case(case)
        self.progress(results[case.key])

    def kill_bots(self) -> None:
        """The synchronous way out (Ctrl-C): no bot process outlives the kit."""
        for bot in self.registry:
            bot.kill_now()

    def _engine(self) -> LocalEngine:
        self._n += 1
        e = LocalEngine(os.path.join(self.workdir, f"engine-{self._n}.sqlite3")).start()
        self.engines.append(e)
        return e

    async def _case(self, case) -> Outcome:
        t0 = time.monotonic()
        try:
            if isinstance(case, C.PoolCase):
                verdict, reason = await self._pool_case(case)
            else:
                verdict, reason = await self._seat_case(case)
        except Exception as e:     # noqa: BLE001 - a kit failure is this case's, not the run's
            verdict, reason = C.FAIL, f"kit: {type(e).__name__}: {e}"
        return Outcome(case.key, verdict, reason, time.monotonic() - t0, case.about)

    # ----- one scripted match ------------------------------------------------------------------
    def _new_pool(self, host: LocalEngine) -> tuple[str, str]:
        self._n += 1
        name, secret = f"conformance-{self._n}", "ps_" + secrets.token_hex(12)
        host.define_pool(name, secret)
        return name, secret

    def _match(self, host: LocalEngine, script, clock_ms: int, pool: str) -> tuple[str, dict]:
        """Create the script's match; the tokens of the seats claimed (all but a pool seat).

        Only the bot's seat is a bot seat, with the case's clock; the kit's seats are
        person seats, whose long clock never runs out while the kit holds a move until
        the bot is connected (the engine would play it otherwise, and not the script's)."""
        n = rules.NUM_SEATS[script.variant]
        seats = [SeatSpec(BOT, pool=pool) if s == script.bot else SeatSpec(PERSON)
                 for s in range(n)]
        referee = host.engine.create_match(script.variant, script.options, seed=0,
                                           deals=[script.deal], seats=seats,
                                           bot_clock_ms=clock_ms, person_clock_ms=KIT_CLOCK_MS)
        return referee.id, {s: host.engine.claim_seat(referee.id, s) for s in range(n)
                            if not seats[s].pool}

    def _table(self, host: LocalEngine, match_id: str, tokens: dict, script,
               observer: CaseObserver, hold: asyncio.Event,
               restarted: asyncio.Event | None = None) -> Table:
        """The kit's seats. With `restarted` (a restart case), no kit seat plays after the
        bot has sent a move until the engine has been restarted: a bot that answers in a
        millisecond would otherwise finish the scripted match before the kit's loop (which
        restarts the engine on the bot's first accepted move) has seen that move."""
        table: Table | None = None
        settled = asyncio.Event()

        def bot_has_moved() -> bool:
            # The proxy notes the bot's move before the engine has it, so before any kit
            # seat's turn that follows it; a move the engine refused holds nothing.
            return any(a.answer is None or a.answer.accepted
                       for a in observer.attempts(match_id))

        async def gate(seat, state):
            # The move that starts the bot's situation waits for the bot: its turn then
            # starts with its whole clock ahead of it.
            if table.next == script.start and not settled.is_set():
                await until(lambda: observer.welcomed(match_id), CONNECT_LIMIT_S)
                # A bot may still be setting up after its Welcome (threads, lazy imports):
                # its turn is to test how it answers, not how fast it starts.
                await asyncio.sleep(SETTLE_S)
                settled.set()
            if restarted is not None and not restarted.is_set() and bot_has_moved():
                await until(lambda: restarted.is_set() or not bot_has_moved(), CASE_LIMIT_S)
            await hold.wait()

        table = Table(self.proxy.channel(host.address), match_id, tokens, script.moves, gate)
        table.changed = observer.changed
        return table

    def _bot(self, name: str, env: dict) -> BotProcess:
        safe = name.replace(" ", "-")
        return BotProcess(self.command, env, os.path.join(self.workdir, f"{safe}.out"),
                          os.path.join(self.workdir, f"{safe}.err"), self.registry)

    async def _seat_case(self, case: C.Case):
        # A pool seat cannot be played by the kit before the bot comes: a script with the
        # bot's own moves in it has a pool script instead.
        script = (case.pool_script or case.script) if self.pool else case.script
        host = self._engine() if case.restart else self.engine
        pool, secret = self._new_pool(host) if self.pool else ("", "")
        match_id, tokens = self._match(host, script, case.clock_ms, pool)
        observer = CaseObserver(case.tamper)
        observer.upstream = host.address
        route = ("pool", pool) if pool else ("match", match_id)
        self.proxy.route(route, observer)
        hold = asyncio.Event()
        hold.set()
        seat = script.bot
        kit_seats = {s: t for s, t in tokens.items() if s != seat or script.bot_moves_before}
        restarted = asyncio.Event() if case.restart else None
        table = self._table(host, match_id, kit_seats, script, observer, hold, restarted)
        run = Run(case, match_id, seat, observer, table)
        run.restarted = restarted
        table.start()
        try:
            if script.bot_moves_before:
                if not await until(lambda: table.script_played(script.start), 20):
                    return C.FAIL, f"kit: the script's first {script.start} moves were not " \
                        f"played ({table.problem or 'no answer'})"
                await table.release(seat)
            if self.pool:
                env = {"DOMINO_ENGINE": self.proxy.address, "DOMINO_POOL": pool,
                       "DOMINO_POOL_SECRET": secret, "DOMINO_POOL_NAME": "conformance",
                       "DOMINO_POOL_CAPACITY": "1", "DOMINO_POOL_MATCHES": "1"}
            else:
                env = {"DOMINO_ENGINE": self.proxy.address, "DOMINO_MATCH": match_id,
                       "DOMINO_SEAT": str(seat), "DOMINO_SEAT_TOKEN": tokens[seat]}
            run.bot = bot = self._bot(case.key, env)
            if not bot.start():
                return C.FAIL, bot.error
            await self._follow(run, host, hold)
            if not observer.conns:
                # Whatever the case looks for, the reason is that the bot never came.
                return C.FAIL, f"never connected within {CONNECT_LIMIT_S:.0f} s of its " \
                    f"start{run.why_silent().removeprefix(': it never connected')}"
            if table.problem:
                return C.FAIL, f"kit: {table.problem}"
            verdict, reason = case.check(run)
            if verdict == C.PASS:
                bad = faults(observer, match_id, seat, table.events_of("timeout", seat),
                             provoked=bool(case.tamper))
                if bad.first:
                    return C.FAIL, bad.first
            return verdict, reason
        finally:
            if run.bot is not None:
                await run.bot.stop(grace=1)
            await table.stop()
            self.proxy.routes.pop(route, None)
            if host is not self.engine:
                await asyncio.to_thread(host.stop)

    async def _follow(self, run: Run, host: LocalEngine, hold: asyncio.Event) -> None:
        """Until the match is over (and the bot has exited, or had its time to), restarting
        the engine once if the case asks for it."""
        table, bot = run.table, run.bot
        deadline = time.monotonic() + CASE_LIMIT_S
        exited_mid = None
        while not table.over.is_set() and time.monotonic() < deadline:
            if not run.observer.conns and time.monotonic() - bot.started > CONNECT_LIMIT_S:
                return
            if run.case.restart and run.restarted_at is None and any(
                    a.answer is not None and a.answer.accepted for a in run.attempts):
                hold.clear()       # the kit's seats wait while the engine is away
                # Stamped as the engine goes away, not once it is back: the bot reconnects
                # to the proxy (always up) as soon as its stream breaks, and on a loaded
                # machine that can be before the restart call has returned here.
                run.restarted_at = time.monotonic()
                await asyncio.to_thread(host.restart)
                run.restarted.set()
                hold.set()
            if not bot.running:
                exited_mid = exited_mid or time.monotonic()
                if time.monotonic() - exited_mid > AFTER_EXIT_S:
                    return
            await asyncio.sleep(POLL_S)
        if not table.over.is_set():
            return
        run.over = True
        over_at = _match_over_at(run.observer, run.match_id) or time.monotonic()
        if await bot.wait(EXIT_WAIT_S):
            run.exit_after_over = max(0.0, (bot.exited_at or time.monotonic()) - over_at)

    # ----- pool cases: several matches, one bot ------------------------------------------------
    async def _pool_case(self, case: C.PoolCase):
        if not self.pool:
            return C.SKIP, "for pool bots (--pool)"
        pool, secret = self._new_pool(self.engine)
        observer = CaseObserver()
        self.proxy.route(("pool", pool), observer)
        hold = asyncio.Event()
        hold.set()
        tables = []
        for _ in range(case.matches):
            match_id, tokens = self._match(self.engine, case.script, C.CLOCK_MS, pool)
            tables.append(self._table(self.engine, match_id, tokens, case.script, observer,
                                      hold))
        prun = PoolRun(case, observer, tables)
        for t in tables:
            t.start()
        try:
            prun.bot = bot = self._bot(case.key, {
                "DOMINO_ENGINE": self.proxy.address, "DOMINO_POOL": pool,
                "DOMINO_POOL_SECRET": secret, "DOMINO_POOL_NAME": "conformance",
                "DOMINO_POOL_CAPACITY": str(case.capacity),
                "DOMINO_POOL_MATCHES": str(case.matches)})
            if not bot.start():
                return C.FAIL, bot.error
            await until(lambda: all(t.over.is_set() for t in tables) or (
                not bot.running and time.monotonic() - (bot.exited_at or 0) > AFTER_EXIT_S),
                CASE_LIMIT_S)
            if all(t.over.is_set() for t in tables):
                over_at = max(_match_over_at(observer, t.match_id) or time.monotonic()
                              for t in tables)
                if await bot.wait(EXIT_WAIT_S):
                    prun.exit_after_over = max(0.0, (bot.exited_at or time.monotonic())
                                               - over_at)
            return case.check(prun)
        finally:
            if prun.bot is not None:
                await prun.bot.stop(grace=1)
            for t in tables:
                await t.stop()
            self.proxy.routes.pop(("pool", pool), None)


class PoolRun:
    def __init__(self, case: C.PoolCase, observer: CaseObserver, tables: list[Table]):
        self.case, self.observer, self.tables = case, observer, tables
        self.bot: BotProcess | None = None
        self.exit_after_over: float | None = None

    @property
    def hello(self):
        hellos = [c.hello for c in self.observer.conns
                  if c.hello is not None and c.hello.WhichOneof("auth") == "pool"]
        return hellos[0] if hellos else None

    def why_silent(self) -> str:
        return _why_silent(self.bot, self.observer)

    def most_at_once(self) -> int:
        """The most matches the bot's streams played at once (from Welcome to MatchOver)."""
        marks = []
        for conn in self.observer.conns:
            for seen in conn.seen:
                if seen.side != "to_bot":
                    continue
                kind = seen.message.WhichOneof("body")
                if kind == "welcome":
                    marks.append((seen.t, 1))
                elif kind == "match_over":
                    marks.append((seen.t, -1))
        most = now = 0
        for _, d in sorted(marks):
            now += d
            most = max(most, now)
        return most

    def all_played(self, prefix: str):
        for t in self.tables:
            if not t.over.is_set():
                return C.FAIL, f"{prefix}, but match {t.match_id} did not end{self.why_silent()}"
            seat = next(s for s in range(rules.NUM_SEATS[self.case.variant])
                        if s not in t.tokens)
            bad = faults(self.observer, t.match_id, seat, t.events_of("timeout", seat),
                         provoked=False)
            if bad.first:
                return C.FAIL, bad.first
        if self.exit_after_over is None:
            return C.FAIL, f"{prefix}, but was still running {EXIT_WAIT_S:.0f} s after its " \
                f"{self.case.matches} matches (DOMINO_POOL_MATCHES={self.case.matches})"
        if self.bot.returncode != 0:
            return C.FAIL, f"{prefix}, but {self.bot.status()}"
        return C.PASS, f"{prefix}; all {self.case.matches} played to the end, then it exited"


def _match_over_at(observer: CaseObserver, match_id: str) -> float | None:
    for conn in observer.conns:
        for seen in conn.seen:
            m = seen.message
            if seen.side == "to_bot" and m.WhichOneof("body") == "match_over" and (
                    m.match_over.match_id == match_id):
                return seen.t
    return None

