"""The .proto files as protoc reads them: compiled by grpc_tools' own protoc, which every
install of the project has."""

import pathlib
import subprocess
import sys

from google.protobuf import descriptor_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
FILES = sorted(PROTO.glob("domino/v1/*.proto"))


def protoc(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    """grpc_tools' protoc with proto/ on the include path; fails the test if it fails."""
    done = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO}", *args,
                           *map(str, FILES)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def descriptors(tmp_path) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    """Each file's descriptor, by its name ("domino/v1/play.proto")."""
    out = tmp_path / "set.pb"
    protoc(f"--descriptor_set_out={out}")
    files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file
    return {f.name: f for f in files}
