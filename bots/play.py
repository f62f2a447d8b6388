"""Playing seats from this process: what a bot author calls.

- ``play(address, match_id, seat_token, bot)``: one seat of one match, to its end.
- ``play_seats(address, tickets, make_bot)``: several seats (of one or many matches), one
  thread each, over one shared channel.
- ``seat_hello`` and ``pool_hello``: the Hello of a seat stream and of a pool stream, for a
  ``bots.runner.Runner`` of one's own; ``bots.fleet.play_pool`` plays a pool bot.

Each seat is a ``Runner`` (bots/runner.py): it owns the connection and reconnects; the
strategy only chooses (bots/strategy_adapter.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from domino_proto.domino.v1 import play_pb2
from domino_wire.routing import addresses_of

from .io_loop import SHARED_CHANNEL_OPTIONS, new_channel, on_io
from .runner import Runner, RunnerError
from .strategy_adapter import FirstLegal, as_strategy, listens

log = logging.getLogger("bots.runner")

CLIENT = "domino bot runner (python)"


def seat_hello(match_id: str, seat_token: str, client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(seat=play_pb2.SeatAuth(match_id=match_id, seat_token=seat_token),
                          client=client)


def pool_hello(pool: str, name: str, capacity: int = 1, secret: str = "",
               client: str = CLIENT) -> play_pb2.Hello:
    return play_pb2.Hello(pool=play_pb2.PoolEnlist(pool=pool, name=name, capacity=capacity,
                                                   secret=secret), client=client)


def play(address: str, match_id: str, seat_token: str, bot=None, **options) -> dict:
    """Play one seat of one match to its end with `bot` (a Strategy or a choose function;
    default: the first legal move); returns the match result. Options as for Runner; the
    stream asks for EventBatches only when the bot listens to them (on_event)."""
    bot = FirstLegal() if bot is None else bot
    options.setdefault("events", listens(as_strategy(bot)))
    runner = Runner(address, seat_hello(match_id, seat_token), lambda m, s: bot, matches=1,
                    label=options.pop("label", f"match {match_id}"), **options)
    return runner.run()[0]


@dataclass(frozen=True)
class SeatTicket:
    """What it takes to play one seat: the match, the seat number, its seat token."""
    match_id: str
    seat: int
    seat_token: str


def play_seats(address: str, tickets: list[SeatTicket], make_bot: Callable, **options
               ) -> list[dict]:
    """Play several seats from this process, one connection (thread) each. Returns, in
    the order of `tickets`, {"match_id", "seat", "result", "stats"} or {..., "error"}.
    Options as for Runner (`events=False` when make_bot's strategies do not listen)."""
    out: list[dict] = [{} for _ in tickets]
    # One channel (one HTTP/2 connection) carries every seat's stream: fewer sockets and
    # polling threads on both sides than a channel per seat.
    shared = None
    if len(tickets) > 1 and "channel" not in options:
        # To the first engine given, where every Runner starts ("A,B,C" is no gRPC target:
        # a channel to it would fail, and the seats would skip B's NOT_OWNER for A).
        shared = options["channel"] = on_io(new_channel(addresses_of(address)[0],
                                                        SHARED_CHANNEL_OPTIONS))

    def run(i: int, t: SeatTicket) -> None:
        runner = Runner(address, seat_hello(t.match_id, t.seat_token), make_bot, matches=1,
                        label=f"match {t.match_id} seat {t.seat}", **options)
        entry = {"match_id": t.match_id, "seat": t.seat}
        try:
            entry["result"] = runner.run()[0]
        except RunnerError as e:
            entry["error"] = str(e)
        except Exception as e:   # noqa: BLE001 - reported per seat; the other seats go on
            log.exception("match %s seat %d failed", t.match_id, t.seat)
            entry["error"] = repr(e)
        entry["stats"] = {"moves": runner.stats.moves, "fallbacks": runner.stats.fallbacks,
                          "refusals": runner.stats.refusals,
                          "reconnects": runner.stats.reconnects}
        out[i] = entry

    threads = [threading.Thread(target=run, args=(i, t), name=f"seat-{t.seat}", daemon=True)
               for i, t in enumerate(tickets)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        if shared is not None:
            on_io(shared.close())
    return out
