"""A TypeScript client generated from the OpenAPI document alone (openapi-typescript) and a
small client written on it (ts_client/client.ts: create a match, play it over REST, read
the event stream and the record) type-check with `tsc --noEmit`, with no `any` or
`unknown` in the event, stream, view and record types; compiled, the client plays a match
against the live gateway. npm packages come from the local npm cache only (`--offline`):
the test is skipped, saying why, where they cannot be installed so. Nothing is written to
the repository: the packages, the generated api.d.ts and the compiled client live under
tmp_path."""

import json
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent / "ts_client"
PACKAGES = ["openapi-typescript@7", "typescript@5"]


def npm(tmp_path, *args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(["npm", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def toolchain(tmp_path):
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed")
    npm(tmp_path, "init", "-y")
    done = npm(tmp_path, "install", "--offline", "--no-audit", "--no-fund", *PACKAGES)
    if done.returncode != 0:
        pytest.skip(f"{', '.join(PACKAGES)} cannot be installed from the npm cache "
                    f"(offline): {done.stderr.strip().splitlines()[-1:]}")
    return tmp_path


def bin_(tmp, name: str) -> str:
    return str(tmp / "node_modules" / ".bin" / name)


def test_a_typescript_client_from_the_document_compiles_and_plays(client, live, toolchain):
    tmp = toolchain
    (tmp / "openapi.json").write_text(json.dumps(client.get("/api/v1/openapi.json").get_json()))
    for name in ("client.ts", "tsconfig.json", "run.mjs"):
        shutil.copy(HERE / name, tmp / name)
    generated = subprocess.run([bin_(tmp, "openapi-typescript"), "openapi.json", "-o", "api.d.ts"],
                               cwd=tmp, capture_output=True, text=True, timeout=120)
    assert generated.returncode == 0, generated.stderr
    checked = subprocess.run([bin_(tmp, "tsc"), "--noEmit", "-p", "tsconfig.json"], cwd=tmp,
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # The check can fail: a type that is any does not compile.
    (tmp / "client.ts").write_text((HERE / "client.ts").read_text().replace(
        'type Event = Schemas["MoveResult"]["events"][number];', "type Event = any;"))
    loose = subprocess.run([bin_(tmp, "tsc"), "--noEmit", "-p", "tsconfig.json"], cwd=tmp,
                           capture_output=True, text=True, timeout=300)
    assert loose.returncode != 0 and "client.ts" in loose.stdout
    # Compiled, it plays a match against the live gateway.
    shutil.copy(HERE / "client.ts", tmp / "client.ts")
    emitted = subprocess.run([bin_(tmp, "tsc"), "-p", "tsconfig.json", "--noEmit", "false",
                              "--outDir", "out"], cwd=tmp, capture_output=True, text=True,
                             timeout=300)
    assert emitted.returncode == 0, emitted.stdout + emitted.stderr
    shutil.copy(tmp / "run.mjs", tmp / "out" / "run.mjs")
    (tmp / "out" / "package.json").write_text('{"type": "module"}')
    ran = subprocess.run(["node", "out/run.mjs", live.url], cwd=tmp, capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)
    assert "seed 5893219166477011277" in said and any(s.startswith("over at version")
                                                       for s in said)
    assert any(s.startswith("deal 1, ") for s in said)
