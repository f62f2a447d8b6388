"""The .proto contracts: one package, every field documented, enums start UNSPECIFIED."""

import pathlib
import re

from domino_proto.domino.v1 import common_pb2, engine_pb2, game_pb2, ladder_pb2, play_pb2

PROTO = pathlib.Path(__file__).resolve().parents[2] / "proto" / "domino" / "v1"
FIELD = re.compile(r"^\s*(optional |repeated )?[\w.]+ \w+ = \d+;")


def undocumented(path):
    """Fields without a comment on their line or on the line(s) just above."""
    lines = path.read_text().splitlines()
    missing = []
    for i, line in enumerate(lines):
        if FIELD.match(line) and "//" not in line and not lines[i - 1].strip().startswith("//"):
            missing.append(f"{path.name}:{i + 1}: {line.strip()}")
    return missing


def test_every_field_is_documented():
    missing = [m for p in sorted(PROTO.glob("*.proto")) for m in undocumented(p)]
    assert not missing, "\n".join(missing)


def test_every_enum_starts_with_unspecified_zero():
    for module in (common_pb2, engine_pb2, game_pb2, play_pb2, ladder_pb2):
        assert module.DESCRIPTOR.package == "domino.v1"
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            zero = enum.values_by_number[0].name
            assert zero.endswith("_UNSPECIFIED"), f"{enum.name} starts with {zero}"
