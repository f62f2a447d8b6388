"""The kit at the table: it plays every seat but the bot's, and watches the match.

Each kit seat is a Play stream of its own, straight to the engine (not through the
proxy), with its seat token. At its turn a kit seat plays the script's next move if the
script has one for it, otherwise the engine's default move (the first legal move).
Before it plays, it asks the case (``Table.gate``): that is how the kit holds the move
that lets the bot's scripted turn begin until the bot is connected, or holds a turn while
it restarts the engine. A spectator Watch stream keeps every event of the match, stamped
with its version, for the case's checks. Every stream reconnects after an engine restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

import grpc

from domino_proto.domino.v1 import engine_pb2, engine_pb2_grpc, play_pb2, play_pb2_grpc
from engine_service.rules import Move

log = logging.getLogger("domino.conformance")

CLIENT = "domino conformance kit"
RETRY_S = 0.1


class Table:
    """The kit's side of one match: `tokens` {seat: token} of the seats it plays, the
    script's `moves` (record turn entries) to play first, `first` of them already played
    (or left to the bot's own token, for seats the bot plays later)."""

    def __init__(self, channel: grpc.aio.Channel, match_id: str, tokens: dict[int, str],
                 moves: list[dict], gate: Callable[[int, object], Awaitable[None]] | None = None):
        self.channel = channel
        self.match_id = match_id
        self.tokens = dict(tokens)
        self.moves = list(moves)
        self.next = 0                  # index of the script's next move
        self.gate = gate
        self.decided: dict[int, str] = {}     # version -> move id the kit chose then
        self.played: dict[int, int] = {}      # version -> seat, for the kit's accepted moves
        self.events: list = []                # every Event of the match (spectator view)
        self.over = asyncio.Event()
        self.result = None
        self.version = 0
        self.problem = ""              # the script went wrong (a kit bug, or the engine's)
        self.changed: Callable[[], None] = lambda: None
        self._scripted: list[int] = []     # the versions the script's moves were chosen at
        self._tasks: list[asyncio.Task] = []
        self._seats: dict[int, asyncio.Task] = {}

    # ----- running ----------------------------------------------------------------------
    def start(self) -> None:
        self._tasks.append(asyncio.ensure_future(self._watch()))
        for seat in self.tokens:
            self._seats[seat] = asyncio.ensure_future(self._seat(seat))

    async def release(self, seat: int) -> None:
        """Stop playing `seat` (the bot's own, played by the kit only before the bot starts)."""
        self.tokens.pop(seat, None)
        task = self._seats.pop(seat, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def stop(self) -> None:
        tasks = self._tasks + list(self._seats.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._seats.clear()

    # ----- the kit's seats --------------------------------------------------------------
    async def _seat(self, seat: int) -> None:
        while not self.over.is_set() and seat in self.tokens:
            call = play_pb2_grpc.PlayStub(self.channel).Connect()
            pending: set[asyncio.Task] = set()
            try:
                await call.write(play_pb2.BotMessage(hello=play_pb2.Hello(
                    seat=play_pb2.SeatAuth(match_id=self.match_id, seat_token=self.tokens[seat]),
                    client=CLIENT, skip_events=True)))
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:
                        break
                    kind = message.WhichOneof("body")
                    if kind == "turn" and message.turn.state.legal_moves:
                        task = asyncio.ensure_future(self._play(seat, message.turn.state, call))
                        pending.add(task)
                        task.add_done_callback(pending.discard)
                    elif kind == "answer":
                        self._answered(seat, message.answer)
                    elif kind == "match_over":
                        return
                    if seat not in self.tokens:
                        return
            except grpc.RpcError:
                pass     # the engine is away (restarting): connect again
            finally:
                for task in pending:
                    task.cancel()
                call.cancel()
            await asyncio.sleep(RETRY_S)

    async def _play(self, seat: int, state, call) -> None:
        if self.gate is not None:
            await self.gate(seat, state)
        move_id = self.decided.get(state.version)
        if move_id is None:
            move_id = self._choose(seat, state)
            self.decided[state.version] = move_id
        with contextlib.suppress(grpc.RpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
            await call.write(play_pb2.BotMessage(move=play_pb2.MoveChoice(
                match_id=self.match_id, version=state.version, move_id=move_id)))

    def _choose(self, seat: int, state) -> str:
        legal = state.legal_moves
        if self.next < len(self.moves):
            entry = self.moves[self.next]
            if entry["seat"] != seat:
                self._wrong(f"seat {seat} is to move at version {state.version}, but the "
                            f"script's next move is seat {entry['seat']}'s")
                return legal[0].id
            wanted = Move.from_dict(entry)
            for m in legal:
                move = Move.parse(m.text)
                if move.tile == wanted.tile and (wanted.at is None or move.at == wanted.at) and (
                        wanted.mode is None or move.mode == wanted.mode):
                    self.next += 1
                    self._scripted.append(state.version)
                    return m.id
            self._wrong(f"the script's move {wanted} for seat {seat} is not legal at version "
                        f"{state.version}")
        return legal[0].id    # the engine's default move

    def _wrong(self, what: str) -> None:
        if not self.problem:
            self.problem = what
            log.warning("match %s: %s", self.match_id, what)
        self.next = len(self.moves)

    def _answered(self, seat: int, answer) -> None:
        if answer.accepted:
            self.played[answer.submitted_version] = seat
            self.changed()

    def script_played(self, count: int) -> bool:
        """True once the script's first `count` moves were accepted."""
        return len(self._scripted) >= count and all(v in self.played
                                                    for v in self._scripted[:count])

    # ----- the spectator's view ---------------------------------------------------------
    async def _watch(self) -> None:
        stub = engine_pb2_grpc.EngineStub(self.channel)
        while not self.over.is_set():
            try:
                async for message in stub.Watch(engine_pb2.WatchRequest(match_id=self.match_id)):
                    kind = message.WhichOneof("body")
                    if kind == "snapshot":
                        self.version = message.snapshot.summary.version
                    elif kind == "events":
                        self.events.extend(message.events.events)
                        if message.events.events:
                            self.version = message.events.events[-1].version
                    elif kind == "match_over":
                        self.version = message.match_over.version
                        self.result = message.match_over.result
                        self.over.set()
                    self.changed()
            except grpc.RpcError:
                pass
            if not self.over.is_set():
                await asyncio.sleep(RETRY_S)
        self.changed()

    def events_of(self, kind: str, seat: int | None = None) -> list:
        """The match's events of one kind (e.g. "timeout", "pass"), for one seat or all."""
        out = []
        for e in self.events:
            if e.WhichOneof("body") != kind:
                continue
            if seat is None or getattr(e, kind).seat == seat:
                out.append(e)
        return out
