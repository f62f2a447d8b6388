"""`domino record` in a cluster: given one engine's address, it follows a match played by
another engine to its owner (which says it is not over yet), and once the match is over
prints the same record as its owner's GetRecord."""

import contextlib
import json
import subprocess
import sys

from domino_proto.domino.v1 import engine_pb2
from tests.cli.support import assert_one_line_failure
from tests.cluster.support import new_match, record_of

OVER = 3


def domino_record(*args):
    return subprocess.run([sys.executable, "-m", "domino_cli", "record", *args],
                          capture_output=True, text=True, timeout=60)


def test_record_follows_a_match_to_its_owner_engine(cluster):
    c = cluster(2)
    with contextlib.closing(c.router(1)) as owner:
        match_id, tokens = new_match(owner, "hhl", {"hands": 1}, seed=4, here=True)
        assert c.owner_of(match_id) == 1
        # Asked of engine 0 alone: without following NOT_OWNER this would read as an
        # engine that cannot be reached.
        live = domino_record(match_id, "--engine", c.address(0))
        assert_one_line_failure(live, "record", "the engine refused: MATCH_NOT_OVER")
        assert live.returncode == 1 and live.stdout == ""
        for _ in range(2000):
            summary = owner.call("GetMatch", engine_pb2.GetMatchRequest(match_id=match_id),
                                 about=match_id).summary
            if summary.status == OVER:
                break
            owner.call("SubmitMove", engine_pb2.SubmitMoveRequest(
                match_id=match_id, seat_token=tokens[summary.to_move],
                expected_version=summary.version, move_id="0"), about=match_id)
        expected = record_of(owner, match_id)
    done = domino_record(match_id, "--engine", c.address(0))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected
