"""The search strategy with its worlds from the engine (Play.SampleWorlds over gRPC).

The bot runs in a child process, as a bot does: there `bots` is this checkout's package
(under pytest, tests/bots can shadow the name)."""

import json
import os
import pathlib
import subprocess
import sys

from engine_service.rules import worlds
from engine_service.rules.tiles import Tile

ROOT = pathlib.Path(__file__).resolve().parents[2]

BOT = """
import json, sys
from bots.remote_worlds import RemoteWorlds
from bots.strategies.search import Search
from engine_service.rules import new_match
from engine_service.rules.moves import Move

address, match_id, token, view = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
legal = [Move.parse(t) for t in view["legal_moves"]]
source = RemoteWorlds(address, match_id, token)
seen = []
def recording(view, count, seed):
    got = source(view, count, seed)
    seen.extend(got)
    return got
bot = Search(seed=1, iterations=150, worlds=recording)
move = bot.choose(view, legal)
print(json.dumps({"move": str(move), "samples": bot.samples, "calls": source.calls,
                  "seen": [[[[str(t) for t in h] for h in hs], [str(t) for t in r]]
                           for hs, r in seen]}))
"""


def test_search_plays_on_worlds_from_the_engine(served):
    for variant, options in (("hhl", {"hands": 1}), ("domeng", {})):
        match_id, tokens = served.new_match(variant, options, seed=11)
        referee = served.engine.get(match_id)
        while len(referee.match.legal_moves(referee.match.to_move)) < 2:
            seat = referee.match.to_move
            state = served.view(match_id, tokens[seat])
            served.submit(match_id, tokens[seat], state.version, move_id="0")
        seat = referee.match.to_move
        view = referee.match.view(seat)
        run = subprocess.run([sys.executable, "-c", BOT, served.address, match_id, tokens[seat],
                              json.dumps(view)], capture_output=True, text=True, timeout=60,
                             cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert run.returncode == 0, run.stderr[-3000:]
        got = json.loads(run.stdout)
        assert got["move"] in view["legal_moves"]
        assert (got["samples"], got["calls"], len(got["seen"])) == (150, 2, 150)
        consistent = worlds.checker(view)
        for hands, rest in got["seen"]:
            assert consistent(worlds.World(tuple(tuple(Tile.parse(t) for t in h) for h in hands),
                                           tuple(Tile.parse(t) for t in rest)))
