"""Where one move's time goes: wall-clock stamps along the path of every move of one HHL
match, in the engine and in the 4 bot processes, as p50/p90 per segment.

The engine runs in this process (a real gRPC server on 127.0.0.1) with stamps wrapped
around PlaySession's move and send steps; each bot is `domino bot` (greedy, defaults:
no events, no answers to accepted moves) run through ``python -m benchmarks.move_path bot
OUT ARGS...``, which wraps the runner's turn, send and write steps the same way. All
stamps are time.time() on one machine, so they compare across processes. The wrappers
add a few microseconds per step; the bench's own figures (engine_bench) have none.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import sized

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HANDS, WARM_MOVES = sized((40, 50), (1, 2))


def _stamp(table: dict, key, at: float | None = None) -> None:
    table.setdefault(key, time.time() if at is None else at)


def bot_main(argv: list[str]) -> int:
    """`domino bot ARGS` with stamps: TurnRequest in, MoveChoice queued, MoveChoice written."""
    from bots import runner as r
    from domino_cli.main import main

    out_path, args = argv[0], argv[1:]
    stamps = {"turn": {}, "queued": {}, "written": {}}
    turn, send = r.Runner._turn, r.Runner._send

    def _turn(self, state, turns, outbox):
        _stamp(stamps["turn"], state.version)
        return turn(self, state, turns, outbox)

    def _send(self, t, index, outbox, fallback_reason=""):
        _stamp(stamps["queued"], t.version)
        return send(self, t, index, outbox, fallback_reason)

    async def _send_all(stream, outbox):
        try:
            while True:
                message = await outbox.get()
                await stream.write(message)
                if message.WhichOneof("body") == "move":
                    _stamp(stamps["written"], message.move.version)
        except Exception:   # noqa: BLE001 - the stream ended, as in the runner
            pass

    r.Runner._turn, r.Runner._send, r._send_all = _turn, _send, _send_all
    try:
        return main(["bot", *args])
    finally:
        with open(out_path, "w") as f:
            json.dump(stamps, f)


def _engine_stamps():
    """Wrap the engine's PlaySession: MoveChoice in, TurnRequest built, TurnRequest written.
    Returns the stamps and a function that takes the wrappers off again.

    A TurnRequest leaves the engine as bytes, serialized from pre-encoded parts
    (rpc/codec.turn_request), not as a message: it is stamped where codec builds it, and
    known again on the way out by the bytes object itself."""
    from engine_service.rpc import codec, streams
    from engine_service.rpc import play_session as ps

    stamps = {"choice": {}, "built": {}, "written": {}}
    answer, send, turn_request = ps.PlaySession._answer, streams.send_all, codec.turn_request
    built: dict[int, int] = {}      # id(TurnRequest bytes) -> its version, until written

    def _answer(self, message, reply):
        if message.WhichOneof("body") == "move":
            _stamp(stamps["choice"], message.move.version)
        return answer(self, message, reply)

    def _turn_request(match_id, view):
        encoded = turn_request(match_id, view)
        _stamp(stamps["built"], view.version)
        built[id(encoded)] = view.version
        return encoded

    async def _send(messages, write):
        for message in messages:
            version = built.pop(id(message), None) if isinstance(message, bytes) else None
            await write(message)
            if version is not None:
                _stamp(stamps["written"], version)

    ps.PlaySession._answer, streams.send_all, codec.turn_request = _answer, _send, _turn_request

    def restore():
        ps.PlaySession._answer, streams.send_all, codec.turn_request = answer, send, turn_request
    return stamps, restore


def measure(seed: int = 7) -> dict:
    from engine_service.core.engine import Engine
    from engine_service.rpc.server import start_server

    engine_stamps, restore = _engine_stamps()
    with tempfile.TemporaryDirectory(prefix="move-path-") as workdir:
        engine = Engine.open(os.path.join(workdir, "engine.sqlite3"))
        server, port = start_server(engine)
        try:
            match = engine.create_match("hhl", {"hands": HANDS}, seed=seed, bot_clock_ms=10_000)
            tokens = [engine.claim_seat(match.id, s) for s in range(4)]
            outs = [os.path.join(workdir, f"bot-{s}.json") for s in range(4)]
            env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
            bots = [subprocess.Popen(
                [sys.executable, "-m", "benchmarks.move_path", "bot", outs[s], "--engine",
                 f"127.0.0.1:{port}", "--strategy", "greedy", "--match", match.id, "--seat",
                 str(s)], stdout=subprocess.DEVNULL, cwd=ROOT,
                env={**env, "DOMINO_SEAT_TOKEN": tokens[s]})   # tokens stay out of `ps`
                for s in range(4)]
            for b in bots:
                b.wait(120)
        finally:
            server.stop(0).wait()
            engine.close()
            restore()
        bot_stamps = {"turn": {}, "queued": {}, "written": {}}
        for path in outs:
            with open(path) as f:
                for key, table in json.load(f).items():
                    bot_stamps[key].update({int(v): t for v, t in table.items()})
    return {"engine": engine_stamps, "bot": bot_stamps}


def _segment(start: dict, end: dict, shift: int = 0) -> list[float]:
    """µs from start[v] to end[v + shift], for the moves after the warm-up."""
    return [(end[v + shift] - start[v]) * 1e6 for v in start
            if v + shift in end and v >= WARM_MOVES]


def run() -> list[str]:
    s = measure()
    e, b = s["engine"], s["bot"]
    rows = [
        ("engine: TurnRequest built -> written", _segment(e["built"], e["written"])),
        ("TurnRequest built -> the bot has it", _segment(e["built"], b["turn"])),
        ("bot: TurnRequest -> MoveChoice queued", _segment(b["turn"], b["queued"])),
        ("bot: MoveChoice queued -> written", _segment(b["queued"], b["written"])),
        ("MoveChoice written -> the engine has it", _segment(b["written"], e["choice"])),
        ("engine: MoveChoice -> next TurnRequest built", _segment(e["choice"], e["built"], 1)),
        ("one move (TurnRequest built to the next)", _segment(e["built"], e["built"], 1)),
    ]
    lines = [f"where one move's time goes: one HHL match (hands={HANDS}), 4 `domino bot` processes,"
             f" wall-clock stamps, moves after the first {WARM_MOVES} (benchmarks/move_path.py)"]
    for label, xs in rows:
        if xs:
            lines.append(f"   {label + ':':46s} p50 {statistics.median(xs):5.0f} µs, "
                         f"p90 {statistics.quantiles(xs, n=10)[8]:5.0f} µs")
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["bot"]:
        sys.exit(bot_main(sys.argv[2:]))
    print("\n".join(run()))
