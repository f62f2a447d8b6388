"""The C++ example bot (bots/cpp), built from our .proto files alone with Debian's grpc++,
plays a real match of each game against Python bots to the end; the record replays and
shows it played greedy. It is refused cleanly and survives an engine restart. In arena mode
it plays its matches as a registered bot and shows on the leaderboard."""

import os
import re
import shutil
import subprocess

import pytest

from .support import ROOT, domino_bot, greedy_seat_moves, outputs, replays

# The first test builds the C++ bot (or waits for `make test`'s build): a niced build took 23 min
# on a machine loaded 30 times over its cores.
pytestmark = pytest.mark.timeout(1200)

BOT_CC = ROOT / "bots" / "cpp" / "bot.cc"
BINARY = ROOT / "build" / "cpp-bot" / "domino-bot"


# What the build needs, with the Debian package that has it.
TOOLS = {"make": "make", "pkg-config": "pkg-config", "protoc": "protobuf-compiler",
         "grpc_cpp_plugin": "protobuf-compiler-grpc", "g++": "g++"}
LIBRARIES = {"grpc++": "libgrpc++-dev", "protobuf": "libprotobuf-dev"}


def missing_toolchain() -> list[str]:
    """What the build needs and this machine lacks, each with its Debian package."""
    missing = [f"{tool} ({package})" for tool, package in TOOLS.items()
               if shutil.which(tool) is None]
    if shutil.which("pkg-config"):
        missing += [f"{lib} for pkg-config ({package})" for lib, package in LIBRARIES.items()
                    if subprocess.run(["pkg-config", "--exists", lib]).returncode != 0]
    return missing


@pytest.fixture(scope="module")
def cpp_bot():
    """`make cpp-bot`, once for this module (a no-op when nothing changed). `make test`
    builds it beforehand under the same lock: two builds in one folder would write the
    same objects at once, so this one waits for that one and then finds nothing to do."""
    import fcntl

    missing = missing_toolchain()
    if missing:
        pytest.skip("the C++ bot cannot be built: missing " + ", ".join(missing))
    (ROOT / "build").mkdir(exist_ok=True)
    with open(ROOT / "build" / ".cpp-bot.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(["make", f"-j{os.cpu_count() or 1}", "cpp-bot"], cwd=ROOT,
                              capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert BINARY.is_file()
    return BINARY


def cpp_bot_process(binary, address: str, *args: str, env: dict | None = None):
    return subprocess.Popen([str(binary), "--engine", address, *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def test_bot_cc_is_short_and_needs_only_the_generated_headers():
    lines = BOT_CC.read_text().splitlines()
    assert len(lines) < 420, len(lines)   # seats, pools and the arena in one readable file
    protos = {p.stem for p in (ROOT / "proto" / "domino" / "v1").glob("*.proto")}
    for line in lines:
        if not line.lstrip().startswith("#include"):
            continue
        header = re.fullmatch(r'\s*#include\s+(<[\w./+-]+>|"([\w./-]+)")\s*(//.*)?', line)
        assert header, line
        if header.group(2):       # a quoted include: only code generated from proto/
            name = re.fullmatch(r"domino/v1/(\w+)\.(grpc\.)?pb\.h", header.group(2))
            assert name and name.group(1) in protos, line


@pytest.mark.parametrize("variant, options, cpp_seat", [("hhl", {"hands": 2}, 1),
                                                         ("domeng", {}, 3)])
def test_cpp_bot_plays_a_match_against_python_bots(cpp_bot, engine, tmp_path, variant, options,
                                                   cpp_seat):
    client = engine.client
    match_id, tokens = client.new_match(variant, options, seed=17)
    others = [a for s, t in tokens.items() if s != cpp_seat
              for a in ("--seat", str(s), f"--seat-token={t}")]   # a token may start with "-"
    procs = [cpp_bot_process(cpp_bot, engine.address, "--verbose", "--match", match_id,
                             "--seat", str(cpp_seat), env={"DOMINO_SEAT_TOKEN": tokens[cpp_seat]}),
             domino_bot(engine.address, "-v", "--strategy", "heuristic", "--seed", "3",
                        "--match", match_id, *others)]
    lines = outputs(procs, timeout=80)
    record = client.record(match_id)
    assert lines[0] == {"match_id": match_id, "seat": cpp_seat, "result": record["result"]}
    assert all(line["result"] == record["result"] for line in lines[1:])
    replays(record, tmp_path)
    pairs = greedy_seat_moves(record, cpp_seat)
    assert pairs and all(made == greedy for made, greedy in pairs), pairs
    summary = client.summary(match_id)
    assert summary.seats[cpp_seat].timeouts_in_a_row == 0
    assert all(s.timeouts_in_a_row == 0 for s in summary.seats)


def test_cpp_bot_is_refused_with_a_wrong_token(cpp_bot, engine):
    match_id, _ = engine.client.new_match("hhl", {"hands": 1})
    bot = cpp_bot_process(cpp_bot, engine.address, "--match", match_id,
                          env={"DOMINO_SEAT_TOKEN": "not-a-token"})
    stdout, stderr = bot.communicate(timeout=30)
    assert bot.returncode == 1, stderr
    assert stdout == "" and "UNAUTHENTICATED" in stderr


def test_cpp_bot_reconnects_after_an_engine_restart(cpp_bot, engine, tmp_path):
    client = engine.client
    match_id, tokens = client.new_match("hhl", {"hands": 1}, seed=5)
    bot = cpp_bot_process(cpp_bot, engine.address, "--verbose", "--match", match_id,
                          "--give-up", "30", env={"DOMINO_SEAT_TOKEN": tokens[0]})
    engine.wait_logged(f"plays match {match_id} seat 0")   # connected, waiting for the others
    engine.kill()
    engine.restart()   # while the new process starts, the bot finds nobody there
    others = [a for s, t in tokens.items() if s != 0 for a in ("--seat", str(s),
                                                                 f"--seat-token={t}")]
    lines = outputs([bot, domino_bot(engine.address, "--strategy", "greedy", "--match",
                                     match_id, *others)], timeout=60)
    record = engine.client.record(match_id)
    assert lines[0] == {"match_id": match_id, "seat": 0, "result": record["result"]}
    replays(record, tmp_path)
    pairs = greedy_seat_moves(record, 0)
    assert pairs and all(made == greedy for made, greedy in pairs), pairs


def test_cpp_arena_bot_plays_its_matches_and_shows_on_the_leaderboard(cpp_bot, engine):
    from tests.arena.support import ArenaClient, wait_until

    arena = ArenaClient(engine.address)
    try:
        key = arena.register("cpp-arena").bot_key
        bot = cpp_bot_process(cpp_bot, engine.address, "--verbose", "--arena", "hhl",
                              "--version", "cpp-1", "--matches", "2",
                              env={"DOMINO_BOT_KEY": key})
        (line,) = outputs([bot], timeout=480)   # exit 0, or what it said
        assert set(line) == {"arena", "version", "bot", "results", "matches"}
        assert (line["arena"], line["version"], line["bot"]) == ("hhl", "cpp-1", "cpp-arena")
        assert len(line["matches"]) == 2 and len(set(line["matches"])) == 2
        assert line["results"] == [engine.client.record(m)["result"] for m in line["matches"]]
        row = wait_until(lambda: (r := arena.row("cpp-arena", version="cpp-1")) is not None
                         and r.matches == 2 and r, timeout=30, what="the leaderboard row")
        assert not row.resident
        # no key in the environment: told why, exit 2; a wrong key: refused, never printed
        missing = cpp_bot_process(cpp_bot, engine.address, "--arena", "hhl", "--version", "x",
                                  env={"DOMINO_BOT_KEY": ""})
        out, err = missing.communicate(timeout=30)
        assert missing.returncode == 2 and "DOMINO_BOT_KEY" in err and out == ""
        wrong = cpp_bot_process(cpp_bot, engine.address, "--arena", "hhl", "--version", "x",
                                env={"DOMINO_BOT_KEY": "dbk_" + "x" * 43})
        out, err = wrong.communicate(timeout=60)
        assert wrong.returncode == 1 and "UNAUTHENTICATED" in err and "dbk_x" not in err + out
    finally:
        arena.close()
