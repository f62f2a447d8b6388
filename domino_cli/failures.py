"""What a user sees when a command fails: one line on stderr and an exit status, never a
traceback.

Every command meets the same failures (an engine it cannot reach or that refuses, a file
it cannot read, a value it cannot use); ``main`` turns each into one line, so a command
raises them where they happen and needs no handler of its own. ``Failure`` is for the
lines a command words itself.
"""

from __future__ import annotations

import sys

USAGE = 2      # the command line itself is wrong (as argparse exits)
FAILED = 1     # the command could not do its job
INTERRUPTED = 130   # Ctrl-C, as a shell reports SIGINT


class Failure(Exception):
    """A failure already worded for the user: ``domino <command>: <message>``."""

    def __init__(self, message: str, status: int = FAILED):
        super().__init__(message)
        self.message, self.status = message, status


def unreachable(address: str, why: str = "") -> str:
    return (f"cannot reach the engine at {address}{f' ({why})' if why else ''}: start one "
            "with `domino engine`, or give --engine HOST:PORT")


def _connect_error(details: str) -> str:
    """The useful words of gRPC's long "failed to connect to all addresses; ..." text."""
    for needle, words in (("refused", "connection refused"), ("resolv", "no such host"),
                          ("Domain name not found", "no such host"), ("timed out", "timed out")):
        if needle in details:
            return words
    return ""


def from_rpc(e, address: str | None) -> Failure:
    """A failed gRPC call (a grpc.RpcError) in words. A refusal's details are "REASON:
    message", which is what the user needs to read; anything else is about the connection."""
    import grpc

    where = address or "the engine"
    code = e.code() if hasattr(e, "code") else None
    details = (e.details() if hasattr(e, "details") else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        return Failure(unreachable(where, _connect_error(details)))
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return Failure(f"the engine at {where} did not answer in time; is it overloaded, or "
                       "is that address something else?")
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return Failure(f"{where} does not serve this call: is it a domino engine (of this "
                       "version)?")
    if code == grpc.StatusCode.UNAUTHENTICATED and "KEY" in details.split(":", 1)[0]:
        return Failure(f"the engine refused: {details} (give --key, or set DOMINO_API_KEY)")
    return Failure(f"the engine refused: {details}" if details else
                   f"the engine refused: {code.name if code else 'no reason given'}")


def describe(e: BaseException, address: str | None) -> Failure | None:
    """The failures every command shares, in words; None for anything else (a bug, which
    deserves its traceback)."""
    if isinstance(e, Failure):
        return e
    # grpc and sqlite3 are looked up, not imported: an error of theirs exists only if its
    # module was loaded, and a command that needs neither (simulate, replay) starts faster
    grpc, sqlite3 = sys.modules.get("grpc"), sys.modules.get("sqlite3")
    if grpc is not None and isinstance(e, grpc.RpcError):
        return from_rpc(e, address)
    if isinstance(e, OSError):
        what = e.strerror or str(e)
        return Failure(f"{e.filename}: {what}" if e.filename else what)
    if sqlite3 is not None and isinstance(e, sqlite3.Error):
        return Failure(f"the store cannot be used: {e}")
    if isinstance(e, ValueError):
        return Failure(getattr(e, "message", None) or str(e), USAGE)
    return None
