"""`domino conformance --arena`: the bot under test as a registered bot of an arena.

The kit runs an engine of its own with the arena of each variant and its residents (the
house strategies), registers a bot under a fresh name, and starts the bot's command once
with the environment naming what to play: DOMINO_ENGINE, DOMINO_ARENA, DOMINO_BOT_VERSION
and the bot key in DOMINO_BOT_KEY. The bot must open its lobby (Hello.arena), take the seat
the matchmaker gives it, on a seat stream of its own (Hello.arena_seat) or on a standby
stream (Hello.arena_standby), and play that match to its end: the case passes once the
engine has counted an arena result with the bot in its line-up and no fault charged to
its seat. Residents fill the other seats, so the bot is alone (docs/arena.md).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import time

from domino_cli.engine_cmd import residents

from .bot import BotProcess
from .cases import FAIL, PASS
from .kit import Outcome

ARENA_LIMIT_S = 120.0   # registered to counted: a seat within a second, then a 4-hand match
POLL_S = 0.1
COUNT_WAIT_S = 5.0      # after the bot exits, for its match's result to be counted
VERSION = "conformance"
ABOUT = ("a registered bot alone in the arena: it opens its lobby, is seated with the "
         "residents, plays the match on its own seat stream or standby stream, and the "
         "result is counted")


def _engine(db: str, variant: str):
    from engine_service.core.arena import spec
    from engine_service.core.engine import Engine
    from engine_service.rpc.server import start_server

    engine = Engine.open(db, arenas=[spec.parse(variant)], residents=residents())
    engine.recover()            # starts the arena's matchmaker (room.py)
    server, port = start_server(engine, "127.0.0.1", 0, max_workers=16)
    return engine, server, port


def _counted(engine, arena: str, bot_id: str):
    """The bot's first counted arena match, or None."""
    from engine_service.core.storage.arena_sql import COUNTED

    name = engine.arenas.accounts.infos([bot_id])[bot_id].name
    found, _ = engine.arenas.bot_matches(name, 5, 0.0)
    return next((m for m in found if m["status"] == COUNTED and m["arena_id"] == arena), None)


async def run_arena(command: list[str], workdir: str, variant: str) -> Outcome:
    from engine_service.core.security.keys import OPEN_PRINCIPAL

    t0 = time.monotonic()
    key_name = f"{variant} arena"
    engine, server, port = await asyncio.to_thread(
        _engine, os.path.join(workdir, f"arena-{variant}.sqlite3"), variant)
    bot = None
    try:
        info, key = engine.arenas.register(OPEN_PRINCIPAL, "kit-" + secrets.token_hex(4),
                                           "the bot under test")
        env = {"DOMINO_ENGINE": f"127.0.0.1:{port}", "DOMINO_ARENA": variant,
               "DOMINO_BOT_VERSION": VERSION, "DOMINO_BOT_KEY": key}
        bot = BotProcess(command, env, os.path.join(workdir, f"arena-{variant}.out"),
                         os.path.join(workdir, f"arena-{variant}.err"), [])
        if not bot.start():
            return Outcome(key_name, FAIL, bot.error, time.monotonic() - t0, ABOUT)
        deadline = time.monotonic() + ARENA_LIMIT_S
        match = None
        while match is None and time.monotonic() < deadline:
            match = await asyncio.to_thread(_counted, engine, variant, info.bot_id)
            # a bot that exited: its last match may still be counted (the matchmaker counts
            # results every 0.25 s), then there is nothing more to wait for
            if match is None and not bot.running and time.monotonic() - bot.exited_at > COUNT_WAIT_S:
                break
            if match is None:
                await asyncio.sleep(POLL_S)
        if match is None:
            why = (f"the bot {bot.status()} before any match of it was counted"
                   if not bot.running
                   else f"no match of it was counted within {ARENA_LIMIT_S:.0f} s")
            return Outcome(key_name, FAIL, why, time.monotonic() - t0, ABOUT)
        seat = next(i for i, e in enumerate(match["lineup"]) if e["bot_id"] == info.bot_id)
        faults = {k: v for k, v in match["result"]["faults"][seat].items() if v}
        if faults:
            charged = ", ".join(f"{v} {k}" for k, v in faults.items())
            return Outcome(key_name, FAIL, f"its match {match['match_id']} was counted with "
                           f"faults at its seat {seat}: {charged}", time.monotonic() - t0, ABOUT)
        return Outcome(key_name, PASS, f"seated at {seat} of match {match['match_id']} with "
                       f"{', '.join(e['name'] for e in match['lineup'] if e['bot_id'] != info.bot_id)}"
                       "; counted, no fault", time.monotonic() - t0, ABOUT)
    finally:
        if bot is not None:
            await bot.stop(grace=2)
        await asyncio.to_thread(_stop, engine, server)


def _stop(engine, server) -> None:
    server.stop(grace=0).wait(10)
    engine.close()
