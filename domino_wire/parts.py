"""Messages put together from serialized parts, the way the move path builds them.

Two rules of the protobuf wire format make it possible, both defined by protobuf itself:
a message serialized is the concatenation of its fields, so concatenating two serialized
messages of one type gives the two merged (repeated fields appended in order, message
fields merged); and a message field is written as its tag, its length and the field's own
serialized bytes (`frame`). A part that recurs (a tile in hand, an arm, a history event, a
legal move) is serialized once and kept; a message is then one join and one parse.
tests/wire holds every message built so to what the generated code makes of the same
values.
"""

from __future__ import annotations


def varint(n: int) -> bytes:
    """A non-negative integer as a protobuf varint: 7 bits a byte, low bits first."""
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_TAGS: dict[int, bytes] = {}
_SHORT = [bytes((n,)) for n in range(128)]   # a varint below 128 is its one byte


def frame(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2: a message, bytes or a string) numbered
    `number` holding `payload`: what the generated code writes for such a field."""
    tag = _TAGS.get(number)
    if tag is None:
        tag = _TAGS[number] = varint(number << 3 | 2)
    n = len(payload)
    return tag + (_SHORT[n] if n < 128 else varint(n)) + payload


def field_number(descriptor, name: str) -> int:
    return descriptor.fields_by_name[name].number
