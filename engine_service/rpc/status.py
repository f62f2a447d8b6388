"""How a refusal leaves any servicer: the status code of its reason, the message
"REASON: text", and trailing metadata "domino-reason" and "domino-refusal-bin" (a
serialized Refusal with the version and, for rules refusals, the legal moves).

Anything else a servicer raises is a bug: it is logged with its traceback, and the one
call fails with INTERNAL and a message that tells nothing of the engine's insides. No
call ever ends with UNKNOWN."""

from __future__ import annotations

import asyncio
import functools
import logging

import grpc

from ..core.errors import EngineError, Reason
from . import codec
from .decode import Undecodable

log = logging.getLogger(__name__)


def _status(context, err: EngineError) -> tuple[grpc.StatusCode, str]:
    context.set_trailing_metadata((
        ("domino-reason", err.reason),
        ("domino-refusal-bin", codec.refusal(err).SerializeToString()),
    ))
    return getattr(grpc.StatusCode, err.code), f"{err.reason}: {err.message}"


def _internal(method) -> EngineError:
    log.exception("%s failed", method.__qualname__)
    return EngineError(Reason.INTERNAL, "internal error; the engine logged it")


def _check_decoded(request) -> None:
    if isinstance(request, Undecodable):
        raise EngineError(Reason.MALFORMED_REQUEST, f"the request is not a valid "
                          f"{request.type_name}: {request.error}", field="request")


def refusals(method):
    """Turn an EngineError raised by a unary method into its gRPC status."""
    @functools.wraps(method)
    def call(self, request, context):
        try:
            _check_decoded(request)
            return method(self, request, context)
        except EngineError as err:
            context.abort(*_status(context, err))
        except Exception:
            context.abort(*_status(context, _internal(method)))
    return call


def async_refusals(method):
    """Same for a coroutine method on the server's event loop (grpc.aio)."""
    @functools.wraps(method)
    async def call(self, request, context):
        try:
            _check_decoded(request)
            return await method(self, request, context)
        except EngineError as err:
            await context.abort(*_status(context, err))
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception:
            await context.abort(*_status(context, _internal(method)))
    return call


def bearer(context) -> str:
    """The API key of a call: its metadata "authorization: Bearer <key>" ("" if none)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            scheme, _, token = value.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""
