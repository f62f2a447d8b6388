"""`domino arena` against a real engine: register (the key printed once), rotate, retire,
list, the leaderboard as JSON and as a table, a bot's matches paged, and mistakes in one
line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from domino_proto.domino.v1 import arena_pb2
from tests.arena.support import ArenaClient, arena_bot, wait_until
from tests.engine.support import start_engine


def domino(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "domino_cli", *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def test_arena_commands_end_to_end(tmp_path):
    db = str(tmp_path / "engine.sqlite3")
    key = domino("keys", "create", "ops", "--db", db).stdout.strip()
    proc, port = start_engine(db, extra=("--keys", "--arena", "hhl"),
                              log_path=tmp_path / "engine.log")
    engine = ("--engine", f"127.0.0.1:{port}")
    ops = {"OPS_KEY": key}
    try:
        refused = domino("arena", "register", "nobot", *engine)
        assert refused.returncode == 1 and "NO_KEY" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
        made = domino("arena", "register", "clibot", "--description", "from the cli", *engine,
                      "--key-env", "OPS_KEY", "--json", env=ops)
        assert made.returncode == 0, made.stderr
        bot = json.loads(made.stdout)
        assert bot["name"] == "clibot" and bot["owner"] == "ops"
        assert bot["bot_key"].startswith("dbk_")
        text = domino("arena", "rotate", "clibot", *engine, "--key-env", "OPS_KEY", env=ops)
        new_key = text.stdout.strip().splitlines()[-1]
        assert new_key.startswith("dbk_") and new_key != bot["bot_key"]
        finished = arena_bot(f"127.0.0.1:{port}", new_key, matches=3)
        out, err = finished.communicate(timeout=120)
        assert finished.returncode == 0, err[-2000:]
        client = ArenaClient(f"127.0.0.1:{port}")
        wait_until(lambda: (r := client.row("clibot")) and r.matches == 3, 30)
        board = json.loads(domino("arena", "leaderboard", "--arena", "hhl", *engine,
                                  "--json").stdout)
        (row,) = [r for r in board["rows"] if r["name"] == "clibot"]
        assert row["matches"] == 3 and row["provisional"] and board["matches"] == 3
        table = domino("arena", "leaderboard", *engine).stdout
        assert "clibot" in table and "house-greedy" in table
        arenas = json.loads(domino("arena", "list", *engine, "--json").stdout)
        assert [a["arena_id"] for a in arenas] == ["hhl"] and arenas[0]["matches_counted"] == 3
        # Paged, newest first: two, then the rest before the second's creation.
        first = client.call("ListBotMatches", arena_pb2.ListBotMatchesRequest(
            name="clibot", limit=2))
        assert len(first.matches) == 2 and first.more
        rest = client.call("ListBotMatches", arena_pb2.ListBotMatchesRequest(
            name="clibot", limit=2, before_unix_s=first.matches[-1].created_unix_s))
        assert len(rest.matches) == 1 and not rest.more
        created = [m.created_unix_s for m in [*first.matches, *rest.matches]]
        assert created == sorted(created, reverse=True)
        gone = domino("arena", "retire", "clibot", *engine, "--key-env", "OPS_KEY", env=ops)
        assert gone.returncode == 0 and "retired" in gone.stdout
        board = json.loads(domino("arena", "leaderboard", *engine, "--json").stdout)
        assert [r["retired"] for r in board["rows"] if r["name"] == "clibot"] == [True]
        unknown = domino("arena", "leaderboard", "--arena", "nope", *engine)
        assert unknown.returncode == 1 and "UNKNOWN_ARENA" in unknown.stderr
        client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
