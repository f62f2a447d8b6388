"""How a refusal leaves any servicer: the status code of its reason, the message
"REASON: text", and trailing metadata "domino-reason" and "domino-refusal-bin" (a
serialized Refusal with the version and, for rules refusals, the legal moves)."""

from __future__ import annotations

import functools

import grpc

from ..core.errors import EngineError
from . import codec


def _status(context, err: EngineError) -> tuple[grpc.StatusCode, str]:
    context.set_trailing_metadata((
        ("domino-reason", err.reason),
        ("domino-refusal-bin", codec.refusal(err).SerializeToString()),
    ))
    return getattr(grpc.StatusCode, err.code), f"{err.reason}: {err.message}"


def refusals(method):
    """Turn an EngineError raised by a unary method into its gRPC status."""
    @functools.wraps(method)
    def call(self, request, context):
        try:
            return method(self, request, context)
        except EngineError as err:
            context.abort(*_status(context, err))
    return call


def async_refusals(method):
    """Same for a coroutine method on the server's event loop (grpc.aio)."""
    @functools.wraps(method)
    async def call(self, request, context):
        try:
            return await method(self, request, context)
        except EngineError as err:
            await context.abort(*_status(context, err))
    return call
