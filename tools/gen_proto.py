"""Generate the Python protobuf and gRPC code from proto/ into one package.

Usage: python tools/gen_proto.py PROTO_ROOT OUT_PACKAGE

protoc writes absolute imports (``from domino.v1 import x_pb2``) that only resolve when
the proto root is on sys.path. We generate into a private package and rewrite those
imports to relative ones, so the generated code lives in exactly one importable place.
"""

import pathlib
import re
import shutil
import sys

from grpc_tools import protoc


def main(proto_root: str, out_dir: str) -> int:
    root = pathlib.Path(proto_root)
    out = pathlib.Path(out_dir)
    protos = sorted(str(p) for p in root.rglob("*.proto"))
    if not protos:
        print(f"no .proto files under {root}", file=sys.stderr)
        return 1
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{root}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *protos]
    if protoc.main(args) != 0:
        print("protoc failed", file=sys.stderr)
        return 1
    pattern = re.compile(r"^from domino\.v1 import (\w+)", re.M)
    for path in out.rglob("*.py*"):
        text = path.read_text()
        path.write_text(pattern.sub(r"from . import \1", text))
    for pkg in [out, *(p for p in out.rglob("*") if p.is_dir())]:
        (pkg / "__init__.py").touch()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
