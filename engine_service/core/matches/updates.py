"""What watchers of a match hear: updates (the events of one version), the engine's own
events, and the subscriber that delivers them into a watcher's queue."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from plumbing.inbox import CLOSED


class EngineEvent:
    """An event the engine adds to the rules' events (timeout, absent, returned, time_up).

    Public: every seat and spectator sees the same dict."""

    __slots__ = ("kind", "data")
    public = True

    def __init__(self, kind: str, **data):
        self.kind = kind
        self.data = data

    def to_dict(self, seat: int | None = None) -> dict:
        return {"kind": self.kind, **self.data}


@dataclass(frozen=True)
class Update:
    """What a watcher receives: events that happened at one version."""
    match_id: str
    version: int
    events: tuple            # rules Events and EngineEvents; redact with .to_dict(seat)
    to_move: int | None
    over: bool
    # Encodings made from this update, shared by every watcher that needs the same one
    # (rpc/codec.event_batch: one EventBatch per seat, one for all spectators).
    cache: dict = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class Moved:
    """The match is played by another engine now (a failover, a drain): the watcher's
    stream for it ends, and its client reconnects and is sent there."""
    match_id: str


@dataclass(frozen=True)
class TurnAgain:
    """The store answers again after refusing a move of this seat's (STORE_UNAVAILABLE): a
    Play stream that was refused sends its TurnRequest again, with the clock's deadline
    now. Only the seat to move hears it."""
    match_id: str
    version: int


class UpdateQueue(Protocol):
    """Where a watcher's updates go: a stream's Inbox (plumbing/inbox.py) or
    a ladder director's queue. put never blocks, so a slow watcher costs memory, never the
    match's progress."""

    def put(self, item) -> None: ...


class Subscriber:
    """One watcher of a match, delivering into its queue (a pool bot's stream shares one
    inbox among the matches it plays).

    A subscriber without `events` (a bot that asked for no EventBatch) is woken only by
    the updates it acts on: its seat's turn and the end of the match."""

    __slots__ = ("seat", "events", "_queue")

    def __init__(self, seat: int | None, queue: UpdateQueue, events: bool = True):
        self.seat = seat
        self.events = events
        self._queue = queue

    def wants(self, update: Update) -> bool:
        return self.events or update.over or update.to_move == self.seat

    def put(self, item) -> None:
        self._queue.put(item)

    def close(self) -> None:
        self._queue.put(CLOSED)

    def moved(self, match_id: str) -> None:
        self._queue.put(Moved(match_id))
