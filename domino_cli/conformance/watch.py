"""What the kit saw of the bot under test, read from the proxy's notes: its turns and its moves.

The proxy keeps every message of the bot's streams (proxy.Connection). A case asks
questions of them here: which TurnRequests the bot was shown, which moves it sent, what
the engine answered to each, and whether the kit had changed that move or that request
on its way (a refusal the kit provoked is no fault of the bot's). ``CaseObserver`` is the
proxy's Observer for one case: it notes the streams and, for the refusal cases, changes
the first TurnRequest shown to the bot or the first move it sends (``Tamper``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from domino_proto.domino.v1 import play_pb2

from . import scripts
from .proxy import Connection, Observer, now


@dataclass
class Attempt:
    """One MoveChoice of the bot: when it came, what it said, what the engine got (the
    kit may have changed it) and what the engine answered (None: no answer yet, or the
    move ended the match)."""
    conn: Connection
    t: float
    wall_ms: int
    choice: play_pb2.MoveChoice
    forwarded: play_pb2.MoveChoice | None = None
    answer: play_pb2.MoveAnswer | None = None
    tampered: bool = False

    @property
    def said(self) -> str:
        c = self.choice
        return f"id {c.move_id!r}" if c.WhichOneof("move") == "move_id" else (
            f"text {c.move_text!r}" if c.WhichOneof("move") == "move_text" else "no move")


@dataclass
class Turn:
    """One TurnRequest as the bot was shown it (perhaps changed by the kit)."""
    conn: Connection
    t: float
    wall_ms: int
    state: object          # SeatState
    tampered: bool = False


class Tamper:
    """How a refusal case makes the engine refuse the bot's first move."""
    NONE = ""
    STALE = "stale"            # the first TurnRequest shown with version - 1
    UNKNOWN_ID = "unknown-id"  # the bot's first move sent with an id the engine never gave
    ILLEGAL = "illegal"        # the bot's first move replaced by a tile it does not hold


FAKE_ID_PREFIX = "kit-"


class CaseObserver(Observer):
    def __init__(self, tamper: str = Tamper.NONE):
        self.tamper = tamper
        self.conns: list[Connection] = []
        self.tampered_turn: Turn | None = None
        self.tampered_move = False
        self.wake = asyncio.Event()
        self._shown: dict[int, Turn] = {}      # id(message sent to the bot) -> its Turn

    # ----- the proxy's hooks --------------------------------------------------------------
    def connected(self, conn: Connection) -> None:
        self.conns.append(conn)
        self.changed()

    def changed(self) -> None:
        self.wake.set()

    async def from_engine(self, conn: Connection, message: play_pb2.EngineMessage) -> list:
        if message.WhichOneof("body") != "turn":
            return [message]
        shown = message
        tampered = False
        if self.tampered_turn is None and self.tamper == Tamper.STALE:
            shown = play_pb2.EngineMessage()
            shown.CopyFrom(message)
            shown.turn.state.version = message.turn.state.version - 1
            tampered = True
        t, wall = now()
        turn = Turn(conn, t, wall, shown.turn.state, tampered)
        if tampered:
            self.tampered_turn = turn
        conn.turns.append(turn)
        return [shown]

    async def from_bot(self, conn: Connection, message: play_pb2.BotMessage) -> list:
        if (message.WhichOneof("body") != "move" or self.tamper not in (
                Tamper.ILLEGAL, Tamper.UNKNOWN_ID) or self.tampered_move or not conn.turns):
            return [message]
        self.tampered_move = True
        changed = play_pb2.BotMessage()
        changed.CopyFrom(message)
        if self.tamper == Tamper.UNKNOWN_ID:
            changed.move.move_id = FAKE_ID_PREFIX + (message.move.move_id or "0")
            return [changed]
        state = conn.turns[-1].state
        hand = [f"{t.high}-{t.low}" for t in state.view.hand]
        tile = next(t for t in scripts.tiles_not_in(hand) if t[0] != t[2])   # not a double
        changed.move.move_text = f"{tile} left"    # the bot never leads in a script
        return [changed]

    # ----- reading the notes ----------------------------------------------------------------
    def welcomed(self, match_id: str) -> bool:
        return any(match_id in c.welcomed for c in self.conns)

    def attempts(self, match_id: str) -> list[Attempt]:
        """Every move the bot sent in this match, on every stream, in order."""
        out: list[Attempt] = []
        for conn in self.conns:
            mine: list[Attempt] = []
            forwarded: list[Attempt] = []
            answered = 0
            for seen in conn.seen:
                m = seen.message
                kind = m.WhichOneof("body")
                if seen.side == "from_bot" and kind == "move":
                    mine.append(Attempt(conn, seen.t, seen.wall_ms, m.move))
                elif seen.side == "to_engine" and kind == "move" and mine:
                    a = mine[len(forwarded)] if len(forwarded) < len(mine) else mine[-1]
                    a.forwarded = m.move
                    a.tampered = m.move != a.choice
                    forwarded.append(a)
                elif seen.side == "from_engine" and kind == "answer":
                    if answered < len(forwarded):
                        forwarded[answered].answer = m.answer
                    answered += 1
            out += [a for a in mine if (a.choice.match_id or match_id) == match_id
                    or (a.forwarded is not None and a.forwarded.match_id == match_id)]
        out.sort(key=lambda a: a.t)
        return out

    def turns(self, match_id: str) -> list[Turn]:
        out = [t for c in self.conns for t in c.turns
               if t.state.match_id == match_id]
        out.sort(key=lambda t: t.t)
        return out


@dataclass
class Problems:
    """The bot's faults anywhere in a match: each one line, the first few kept."""
    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        if len(self.lines) < 3:
            self.lines.append(line)

    @property
    def first(self) -> str:
        return self.lines[0] if self.lines else ""


def faults(observer: CaseObserver, match_id: str, seat: int, timeouts: list,
           provoked: bool) -> Problems:
    """What no case forgives: a move out of turn, at a version it was never asked, too
    late, or refused when the kit had provoked nothing; the clock playing for the bot."""
    p = Problems()
    turns = observer.turns(match_id)
    asked = {}
    for t in turns:
        asked.setdefault(t.state.version, t)
    for a in observer.attempts(match_id):
        v = a.choice.version
        turn = asked.get(v)
        if turn is None:
            p.add(f"sent a move ({a.said}) at version {v} without being asked (its seat is "
                  f"{seat}): a bot moves only on a TurnRequest, at its version")
            continue
        deadline = turn.state.deadline_unix_ms
        if deadline and a.wall_ms > deadline:
            p.add(f"answered version {v} {(a.wall_ms - deadline) / 1000:.2f} s after its "
                  "deadline")
        if a.answer is not None and not a.answer.accepted and not (provoked and (
                a.tampered or turn.tampered)):
            r = a.answer.refusal
            p.add(f"its move at version {v} ({a.said}) was refused: {r.reason}: {r.message}")
    for e in timeouts:
        p.add(f"the turn clock played for it at version {e.version - 1}: no answer in time")
    return p
