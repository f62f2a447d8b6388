"""A failed call's Refusal, read from the standard rich status (google.rpc.Status in the
"grpc-status-details-bin" trailer) with grpcio-status's own helper, as any client would."""

from __future__ import annotations

import grpc
from grpc_status import rpc_status

from domino_proto.domino.v1 import common_pb2


def refusal_of(err: grpc.RpcError) -> common_pb2.Refusal | None:
    """The Refusal a failed call carries; None when it carries none (the engine was not
    reached, or something between answered)."""
    try:
        status = rpc_status.from_call(err)
    except (ValueError, AttributeError):   # a status whose code or message disagree
        return None
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(common_pb2.Refusal.DESCRIPTOR):
            refusal = common_pb2.Refusal()
            detail.Unpack(refusal)
            return refusal
    return None
