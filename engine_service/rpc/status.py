"""How a refusal leaves any servicer: the status code of its reason, the message
"REASON: text", and the standard rich status (google.rpc.Status, sent by grpcio-status as
the trailer "grpc-status-details-bin") whose details are the Refusal (with the version and,
for a move refused during the seat's turn, the legal moves), a google.rpc.ErrorInfo with
the reason, and for a malformed request a google.rpc.BadRequest naming the field. Generic
gRPC tools and every language's status helpers read these; nothing is custom but the
Refusal message itself.

A store that cannot be reached (StoreUnavailable, from any read or write of a call) is
the refusal STORE_UNAVAILABLE (UNAVAILABLE): try again shortly. Anything else a servicer
raises is a bug: it is logged with its traceback, and the one call fails with INTERNAL and
a message that tells nothing of the engine's insides. No call ever ends with UNKNOWN."""

from __future__ import annotations

import asyncio
import functools
import logging

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from ..core import metrics
from ..core.errors import EngineError, Reason
from ..core.storage.rows import StoreUnavailable
from . import codec
from .decode import Undecodable

log = logging.getLogger(__name__)

DOMAIN = "domino.v1"   # google.rpc.ErrorInfo.domain of every refusal


def _packed(message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def rich_status(err: EngineError) -> grpc.Status:
    """The refusal as a grpc.Status carrying the google.rpc.Status trailer."""
    metrics.refused(err.reason)   # every refusal that ends a call passes here
    details = [_packed(codec.refusal(err)),
               _packed(error_details_pb2.ErrorInfo(
                   reason=err.reason, domain=DOMAIN,
                   metadata={"owner": err.owner} if err.reason == Reason.NOT_OWNER else {}))]
    if err.field:
        details.append(_packed(error_details_pb2.BadRequest(field_violations=[
            error_details_pb2.BadRequest.FieldViolation(field=err.field,
                                                        description=err.message)])))
    return rpc_status.to_status(status_pb2.Status(
        code=getattr(code_pb2, err.code), message=f"{err.reason}: {err.message}",
        details=details))


def _internal(method) -> EngineError:
    log.exception("%s failed", method.__qualname__)
    return EngineError(Reason.INTERNAL, "internal error; the engine logged it")


def store_refusal(e: StoreUnavailable) -> EngineError:
    """The refusal of a call that needed the store while it was away."""
    return EngineError(Reason.STORE_UNAVAILABLE, str(e))


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
            _abort_sync(context, rich_status(err))
        except StoreUnavailable as e:
            _abort_sync(context, rich_status(store_refusal(e)))
        except Exception:
            _abort_sync(context, rich_status(_internal(method)))
    return call


def async_refusals(method):
    """Same for a coroutine method on the server's event loop (grpc.aio)."""
    @functools.wraps(method)
    async def call(self, request, context):
        try:
            _check_decoded(request)
            return await method(self, request, context)
        except EngineError as err:
            await _abort(context, rich_status(err))
        except StoreUnavailable as e:
            await _abort(context, rich_status(store_refusal(e)))
        except (grpc.aio.AbortError, asyncio.CancelledError):
            raise
        except Exception:
            await _abort(context, rich_status(_internal(method)))
    return call


# A grpc.aio server's contexts (those of its thread pool too) have no abort_with_status:
# the same three parts are given apart.
def _abort_sync(context, status: grpc.Status) -> None:
    context.set_trailing_metadata(status.trailing_metadata)
    context.abort(status.code, status.details)


async def _abort(context, status: grpc.Status) -> None:
    await context.abort(status.code, status.details, status.trailing_metadata)


def bearer(context) -> str:
    """The API key of a call: its metadata "authorization: Bearer <key>" ("" if none)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            scheme, _, token = value.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


def peer_address(context) -> str:
    """The caller's network address without its port ("ipv4:127.0.0.1:5000" ->
    "127.0.0.1"): what the per-client bounds count by. A client behind a gateway is the
    gateway's address."""
    peer = context.peer() or ""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":       # "ipv6:[::1]:5000" (percent-encoded brackets on some builds)
        return rest.rpartition(":")[0].replace("%5B", "[").replace("%5D", "]")
    return peer              # a unix socket, an in-process call
