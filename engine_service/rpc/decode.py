"""Registering the servicers: requests that do not even decode are answered
INVALID_ARGUMENT, like any malformed input, and an answer may be sent already serialized.

gRPC turns a request that its deserializer cannot parse (bytes that are no protobuf
message, a string field that is not UTF-8, which a client in any language can send) into
UNKNOWN. So the servicers are registered here with deserializers that never raise: what
cannot be parsed becomes an `Undecodable`, which the status decorators (status.py) and the
Play stream refuse with MALFORMED_REQUEST.
"""

from __future__ import annotations

import grpc
from google.protobuf.message import DecodeError
from google.protobuf.message_factory import GetMessageClass

_HANDLERS = {
    (False, False): grpc.unary_unary_rpc_method_handler,
    (False, True): grpc.unary_stream_rpc_method_handler,
    (True, False): grpc.stream_unary_rpc_method_handler,
    (True, True): grpc.stream_stream_rpc_method_handler,
}


class Undecodable:
    """What arrived in place of a message of `type_name`."""

    __slots__ = ("type_name", "error")

    def __init__(self, type_name: str, error: str):
        self.type_name, self.error = type_name, error

    def WhichOneof(self, name):   # noqa: N802 - quacks like a message to a oneof test
        return None


def _deserializer(message_class):
    name = message_class.DESCRIPTOR.full_name

    def parse(data: bytes):
        try:
            return message_class.FromString(data)
        except DecodeError as e:
            return Undecodable(name, str(e)[:200])
    return parse


def _serialize(message) -> bytes:
    # A message the move path put together from serialized parts is bytes already
    # (codec.turn_request: no object is made only to be serialized again).
    return message if type(message) is bytes else message.SerializeToString()


def add_service(server, servicer, service) -> None:
    """Register `servicer` for the service descriptor `service` (what the generated
    add_XServicer_to_server does), with deserializers that never raise."""
    handlers = {}
    for method in service.methods:
        request_class = GetMessageClass(method.input_type)
        make = _HANDLERS[(method.client_streaming, method.server_streaming)]
        handlers[method.name] = make(getattr(servicer, method.name),
                                     request_deserializer=_deserializer(request_class),
                                     response_serializer=_serialize)
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service.full_name, handlers),))
