"""Every subcommand, every kind of user mistake: exit status non-zero, one line on stderr
naming the problem, no traceback. The real command, as a subprocess.

The cases run all at once (a few take seconds: a bot gives an unreachable engine its
--give-up time), then each is checked in a test of its own.
"""

import json
import socket
from concurrent.futures import ThreadPoolExecutor

import pytest

from .support import assert_one_line_failure, dead_port, run

UNREACHABLE = ("cannot reach the engine at 127.0.0.1:{dead}", "domino engine", "--engine")

# (id, the command's name in its message, arguments, words the line must hold)
CASES = [
    # new-match
    ("new-match-unreachable", "new-match", ["new-match", "--engine", "127.0.0.1:{dead}"],
     UNREACHABLE),
    ("new-match-bad-json", "new-match", ["new-match", "--engine", "{engine}", "--options", "{bad"],
     ("--options is not JSON",)),
    ("new-match-unknown-option", "new-match", ["new-match", "--engine", "{engine}", "--option",
                                               "colour=3"], ("unknown option 'colour'", "hands")),
    ("new-match-option-out-of-range", "new-match", ["new-match", "--engine", "{engine}",
                                                    "--option", "hands=0"], ("hands", "1..1000")),
    ("new-match-option-not-a-number", "new-match", ["new-match", "--engine", "{engine}",
                                                    "--option", "hands=two"], ("hands", "'two'")),
    ("new-match-profile-not-a-word-it-takes", "new-match",
     ["new-match", "--engine", "{engine}", "--option", "profile=letter"],
     ("profile", "rulings, literal", "'letter'")),
    ("new-match-bad-seed", "new-match", ["new-match", "--engine", "{engine}", "--seed", "x"],
     ("--seed", "'x'")),
    ("new-match-refused", "new-match", ["new-match", "--engine", "{engine}", "--clock-ms", "5"],
     ("the engine refused: MALFORMED_REQUEST", "bot_clock_ms")),
    ("new-match-needs-a-key", "new-match", ["new-match", "--engine", "{keyed}"],
     ("the engine refused: NO_KEY", "--key")),
    # bot
    ("bot-unreachable", "bot", ["bot", "--engine", "127.0.0.1:{dead}", "--match", "m", "--seat",
                                "0", "--seat-token=t", "--give-up", "1"], UNREACHABLE),
    ("bot-refused", "bot", ["bot", "--engine", "{engine}", "--match", "nosuch", "--seat", "0",
                            "--seat-token=t"], ("the engine refused", "UNKNOWN_MATCH")),
    ("bot-pool-refused", "bot", ["bot", "--engine", "{engine}", "--pool", "nosuch",
                                 "--pool-secret", "s"], ("the engine refused",)),
    ("bot-no-seats-file", "bot", ["bot", "--seats-file", "{tmp}/none.json"],
     ("cannot read --seats-file", "No such file")),
    ("bot-seats-file-not-json", "bot", ["bot", "--seats-file", "{tmp}/bad.json"],
     ("is not JSON",)),
    ("bot-unknown-strategy", "bot", ["bot", "--strategy", "nosuch", "--match", "m",
                                     "--seat-token=t"], ("unknown strategy",)),
    ("bot-bad-number", "bot", ["bot", "--give-up", "soon"], ("--give-up", "'soon'")),
    ("bot-no-token", "bot", ["bot", "--match", "m", "--seat", "0"],
     ("no seat token", "DOMINO_SEAT_TOKEN", "--seat-token", "--seats-file")),
    # ladder
    ("ladder-run-unreachable", "ladder run", ["ladder", "run", "--variant", "hhl", "--bots",
                                              "random,greedy", "--matches", "2", "--engine",
                                              "127.0.0.1:{dead}"], UNREACHABLE),
    ("ladder-run-unknown-option", "ladder run", ["ladder", "run", "--variant", "hhl", "--bots",
                                                 "random", "--matches", "2", "--option",
                                                 "colour=3"], ("unknown option 'colour'",)),
    ("ladder-run-unknown-strategy", "ladder run", ["ladder", "run", "--variant", "hhl",
                                                   "--bots", "random,nosuch", "--matches", "2"],
     ("unknown strategy nosuch",)),
    ("ladder-run-no-matches", "ladder run", ["ladder", "run", "--variant", "hhl", "--bots",
                                             "random"], ("--matches N or --until-separated",)),
    ("ladder-run-bad-number", "ladder run", ["ladder", "run", "--variant", "hhl", "--bots",
                                             "random", "--matches", "2", "--concurrency", "0"],
     ("--concurrency",)),
    ("ladder-run-needs-a-key", "ladder run", ["ladder", "run", "--variant", "hhl", "--bots",
                                              "random,greedy", "--matches", "2", "--engine",
                                              "{keyed}"], ("the engine refused: NO_KEY",)),
    ("ladder-standings-unreachable", "ladder standings", ["ladder", "standings", "x", "--engine",
                                                          "127.0.0.1:{dead}"], UNREACHABLE),
    ("ladder-standings-refused", "ladder standings", ["ladder", "standings", "nosuch",
                                                      "--engine", "{engine}"],
     ("the engine refused: UNKNOWN_LADDER",)),
    ("ladder-cancel-unreachable", "ladder cancel", ["ladder", "cancel", "x", "--engine",
                                                    "127.0.0.1:{dead}"], UNREACHABLE),
    ("ladder-cancel-refused", "ladder cancel", ["ladder", "cancel", "nosuch", "--engine",
                                                "{engine}"], ("the engine refused: UNKNOWN_LADDER",)),
    # the in-process commands
    ("simulate-unknown-option", "simulate", ["simulate", "--variant", "hhl", "--option",
                                             "colour=3"], ("unknown option 'colour'",)),
    ("simulate-zero-matches", "simulate", ["simulate", "--variant", "hhl", "--matches", "0"],
     ("--matches", "at least 1")),
    ("simulate-records-unwritable", "simulate", ["simulate", "--variant", "hhl", "--matches", "1",
                                                 "--records", "{tmp}/bad.json/records"],
     ("bad.json",)),
    ("replay-not-json", "replay", ["replay", "{tmp}/bad.json"], ("is not JSON",)),
    ("demo-bad-hands", "demo", ["demo", "--hands", "0"], ("--hands", "1..1000")),
    # engine, keys, pools
    ("engine-bad-port", "engine", ["engine", "--port", "99999"], ("--port", "0..65535")),
    ("engine-port-busy", "engine", ["engine", "--port", "{busy}", "--db", "{tmp}/busy.sqlite3"],
     ("cannot listen on 127.0.0.1:{busy}", "the port is in use")),
    ("serve-port-busy", "serve", ["serve", "--port", "{busy}", "--engine-port", "0", "--bots", "",
                                  "--no-arenas", "--db", "{tmp}/serve.sqlite3"],
     ("cannot listen on 127.0.0.1:{busy}", "the port is in use")),
    ("serve-engine-port-busy", "", ["serve", "--port", "0", "--engine-port", "{busy}", "--bots",
                                    "", "--no-arenas", "--db", "{tmp}/serve.sqlite3"],
     ("cannot listen on 127.0.0.1:{busy}", "the port is in use")),
    ("engine-not-a-store", "engine", ["engine", "--port", "0", "--db", "{tmp}/bad.json"],
     ("is it an engine store",)),
    ("keys-create-not-a-store", "keys create", ["keys", "create", "bob", "--db", "{tmp}/bad.json"],
     ("is not an engine store",)),
    ("keys-create-bad-name", "keys create", ["keys", "create", "bad name!", "--db",
                                             "{tmp}/keys.sqlite3"], ("name",)),
    ("keys-list-no-store", "keys list", ["keys", "list", "--db", "{tmp}/none/engine.sqlite3"],
     ("no store at",)),
    ("keys-revoke-unknown", "keys revoke", ["keys", "revoke", "nobody", "--db",
                                            "{tmp}/keys.sqlite3"], ("no live key named 'nobody'",)),
    ("pools-create-not-a-store", "pools create", ["pools", "create", "p", "--db",
                                                  "{tmp}/bad.json"], ("is not an engine store",)),
    ("no-such-command", "", ["chess"], ("invalid choice",)),
]


@pytest.fixture(scope="module")
def outcomes(engine, keyed_engine, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mistakes")
    (tmp / "bad.json").write_text("{not json")
    run("keys", "create", "alice", "--db", str(tmp / "keys.sqlite3"))   # a store that exists
    busy = socket.socket()              # a port someone else listens on
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    values = {"dead": dead_port(), "engine": engine.address, "keyed": keyed_engine.address,
              "tmp": str(tmp), "busy": busy.getsockname()[1]}

    def fill(text):
        for key, value in values.items():
            text = text.replace("{" + key + "}", str(value))
        return text

    def one(case):
        _, _, args, needles = case
        return run(*map(fill, args), check=False, timeout=60), [fill(n) for n in needles]

    with busy, ThreadPoolExecutor(6) as pool:
        return dict(zip([c[0] for c in CASES], pool.map(one, CASES), strict=True))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_mistake_is_one_line_and_no_traceback(outcomes, case):
    name, command, _, _ = case
    p, needles = outcomes[name]
    assert_one_line_failure(p, command.strip() or "", *needles)


def test_a_bot_that_fails_still_prints_its_json_line(outcomes):
    """Scripts parse stdout: the line per seat stays, with the error in it."""
    p, _ = outcomes["bot-refused"]
    entry = json.loads(p.stdout)
    assert entry["match_id"] == "nosuch" and "UNKNOWN_MATCH" in entry["error"]


@pytest.mark.parametrize("name", ["bot-no-token", "bot-bad-number", "engine-bad-port"])
def test_a_wrong_command_line_exits_2(outcomes, name):
    p, _ = outcomes[name]
    assert p.returncode == 2, (p.returncode, p.stderr)


@pytest.mark.parametrize("name", ["engine-port-busy", "serve-port-busy", "serve-engine-port-busy"])
def test_a_busy_port_is_said_once(outcomes, name):
    """On a terminal stdout and stderr are one screen: the failure is on one of them only."""
    p, _ = outcomes[name]
    said = (p.stdout + p.stderr).count("the port is in use")
    assert said == 1, (p.stdout, p.stderr)


@pytest.mark.parametrize("name, given, range_said", [
    ("DOMINO_STORE_WAIT_MS", "abc", "50 to 60000"),
    ("DOMINO_STORE_WAIT_MS", "10", "50 to 60000"),
    ("DOMINO_STORE_WAIT_MS", "\u00b2", "50 to 60000"),
    ("DOMINO_MOVE_THREADS", "65", "0 to 64"),
    ("DOMINO_MOVE_THREADS", "-1", "0 to 64"),
])
def test_a_bad_postgresql_setting_is_said_as_itself(name, given, range_said):
    """A setting for PostgreSQL out of range is named, before any database is tried (the
    DSN's port has no server: the answer must not send the user looking for one)."""
    p = run("engine", "--port", "0", "--db", f"postgresql://127.0.0.1:{dead_port()}/x",
            check=False, timeout=60, extra_env={name: given})
    assert_one_line_failure(p, "engine", f"{name} must be a whole number", range_said)
    assert "database server running" not in p.stderr


@pytest.mark.parametrize("name, given, range_said", [
    ("DOMINO_ARENA_POLL_MS", "10", "50 to 3600000"),
    ("DOMINO_GC_YOUNG", "7", "100 to 10000000"),
    ("DOMINO_LOOP_LAG_MS", "1001", "0 to 1000"),
])
def test_a_bad_engine_setting_is_said_as_itself(name, given, range_said):
    """The settings for any store are refused before it is opened."""
    p = run("engine", "--port", "0", "--db", ":memory:", check=False, timeout=60,
            extra_env={name: given})
    assert_one_line_failure(p, "engine", f"{name} must be a whole number", range_said)
