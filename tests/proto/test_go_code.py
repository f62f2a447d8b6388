"""Go code from the .proto files alone, as a Go author makes it: protoc with protoc-gen-go
and protoc-gen-go-grpc and no M flags. Then a small Go client (go_client/main.go, built
against Debian's Go libraries) talks to a real engine and decodes its refusals the way
docs/bots.md shows. Skipped, with the reason, where Go or the plugins are missing."""

import json
import os
import shutil
import subprocess

import pytest

from domino_cli.processes import stop_processes
from tests.engine.support import Client, start_engine

from .support import FILES, ROOT, protoc

GO_PACKAGE_DIR = "domino-server/gen/go/domino/v1"     # the go_package path of every file
GOCODE = "/usr/share/gocode"                          # where Debian puts Go libraries
LIBRARIES = ("google.golang.org/grpc", "google.golang.org/genproto/googleapis/rpc/errdetails",
             "google.golang.org/protobuf/proto", "github.com/golang/protobuf/proto")
CLIENT = ROOT / "tests" / "proto" / "go_client" / "main.go"


def plugins() -> list[str]:
    """--plugin flags for protoc, or a skip naming what is missing."""
    missing = [f"{tool} (Debian: {package})" for tool, package in
               (("go", "golang-go"), ("protoc-gen-go", "protoc-gen-go"),
                ("protoc-gen-go-grpc", "protoc-gen-go-grpc")) if shutil.which(tool) is None]
    if missing:
        pytest.skip("no Go code generation here: missing " + ", ".join(missing))
    return [f"--plugin=protoc-gen-go={shutil.which('protoc-gen-go')}",
            f"--plugin=protoc-gen-go-grpc={shutil.which('protoc-gen-go-grpc')}"]


def go_env(gopath) -> dict:
    """GOPATH mode over Debian's libraries: no module download is needed (or possible)."""
    return {**os.environ, "GO111MODULE": "off", "GOFLAGS": "", "GOPATH": f"{gopath}:{GOCODE}",
            "GOCACHE": str(ROOT / "build" / "go-cache")}


def libraries_missing(env) -> str:
    listed = subprocess.run(["go", "list", "-f", "{{.Dir}} {{.GoFiles}}", *LIBRARIES], env=env,
                            capture_output=True, text=True, timeout=120)
    if listed.returncode != 0:
        return ("the Go libraries are missing (Debian: golang-google-grpc-dev "
                "golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev): "
                + listed.stderr.strip().splitlines()[0])
    if "table_marshal.go" in listed.stdout:
        # grpc-go over the protobuf 1.3 API cannot marshal code from today's protoc-gen-go.
        return ("github.com/golang/protobuf is 1.3 (Debian's golang-github-golang-protobuf-1-3-"
                "dev); install golang-github-golang-protobuf-1-5-dev")
    return ""


def test_protoc_makes_one_go_package_with_no_flags_but_the_outputs(tmp_path):
    flags = plugins()
    done = protoc(*flags, f"--go_out={tmp_path}", f"--go-grpc_out={tmp_path}")
    assert "WARNING" not in done.stderr, done.stderr     # e.g. "Missing 'go_package' option"
    made = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.go"))
    services = ("analysis", "arena", "engine", "ladder", "play")
    assert made == sorted([f"{GO_PACKAGE_DIR}/{f.stem}.pb.go" for f in FILES]
                          + [f"{GO_PACKAGE_DIR}/{s}_grpc.pb.go" for s in services])
    for path in tmp_path.rglob("*.go"):
        assert "\npackage dominov1\n" in path.read_text(), path


@pytest.fixture(scope="module")
def go_client(tmp_path_factory):
    """The Go client built in GOPATH mode: the documented protoc flags (paths=source_relative,
    into a package of the bot's own) and go build."""
    flags = plugins()
    gopath = tmp_path_factory.mktemp("gopath")
    env = go_env(gopath)
    why = libraries_missing(env)
    if why:
        pytest.skip(why)
    bot = gopath / "src" / "example.com" / "gobot"
    (bot / "gen").mkdir(parents=True)
    shutil.copy(CLIENT, bot / "main.go")
    protoc(*flags, f"--go_out={bot / 'gen'}", "--go_opt=paths=source_relative",
           f"--go-grpc_out={bot / 'gen'}", "--go-grpc_opt=paths=source_relative")
    binary = gopath / "gobot"
    built = subprocess.run(["go", "build", "-o", str(binary), "example.com/gobot"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    return binary


@pytest.fixture
def engine(tmp_path):
    """A real `domino engine` process on 127.0.0.1 and a Python client of it."""
    proc, port = start_engine(tmp_path / "engine.sqlite3", 0, tmp_path / "engine.log")
    client = Client(port)
    yield f"127.0.0.1:{port}", client
    client.channel.close()
    stop_processes([proc])


def test_a_go_client_decodes_the_refusals_from_the_status_details(go_client, engine):
    address, client = engine
    match_id, tokens = client.new_match("hhl", {"hands": 1}, seed=3, clock_ms=60_000)
    mover = client.summary(match_id).summary.to_move
    legal = len(client.view(match_id, tokens[mover]).legal_moves)
    ran = subprocess.run([str(go_client), "-engine", address, "-match", match_id,
                          "-token", tokens[mover]], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    cases = {c.pop("case"): c for c in map(json.loads, ran.stdout.splitlines())}
    assert cases["bad-token"] == {"code": "Unauthenticated", "reason": "BAD_TOKEN", "field": "",
                                  "legal_moves": 0, "info_reason": "BAD_TOKEN",
                                  "info_domain": "domino.v1"}
    assert cases["bad-clock"] == {"code": "InvalidArgument", "reason": "MALFORMED_REQUEST",
                                  "field": "bot_clock_ms", "legal_moves": 0,
                                  "info_reason": "MALFORMED_REQUEST", "info_domain": "domino.v1",
                                  "bad_field": "bot_clock_ms"}
    assert cases["hello-unknown-match"]["code"] == "NotFound"
    assert cases["hello-unknown-match"]["reason"] == "UNKNOWN_MATCH"
    assert cases["move-answer"] == {"accepted": False, "reason": "MALFORMED_MOVE",
                                    "field": "move_text", "legal_moves": legal}
    assert legal > 0


def test_the_refusal_snippet_of_the_docs_is_the_one_the_client_runs():
    """docs/bots.md shows refusalOf; go_client/main.go, built and run above, has the same."""
    def snippet(text):
        start = text.index("// refusalOf returns")
        return text[start:text.index("\n}\n", start) + 2]
    docs = (ROOT / "docs" / "bots.md").read_text()
    assert snippet(docs) == snippet(CLIENT.read_text())
