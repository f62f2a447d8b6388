"""`domino record MATCH_ID`: the record of a finished match, fetched from a running engine
(Engine.GetRecord), as JSON on stdout or in a file: what `domino replay` and `domino fork`
read.

In a cluster any engine may be named: a match still live on another engine is followed to
its owner (domino_wire/routing.py), which then says it is not over.
"""

from __future__ import annotations

import contextlib
import os
import sys

from .argtypes import ENGINE_HELP
from .failures import USAGE, Failure


def add_subcommands(sub) -> None:
    p = sub.add_parser(
        "record", help="fetch a finished match's record (domino-record/1 JSON) from an engine",
        description="Print the domino-record/1 document of a finished match (every hidden "
        "tile, the seed) as an engine keeps it; `domino replay` re-checks it. A match still "
        "being played has no public record yet.")
    p.add_argument("match_id", metavar="MATCH_ID", help="the match, as `domino new-match` "
                   "printed it")
    p.add_argument("--engine", default="127.0.0.1:50051", help=ENGINE_HELP)
    p.add_argument("--out", metavar="FILE", help="write the record to FILE instead of stdout")
    p.set_defaults(func=run_record)


def checked_id(match_id: str) -> str:
    """The engine's own bound on a match id, here: a wrong one is a wrong command line."""
    from engine_service.core.errors import EngineError
    from engine_service.core.security import limits

    try:
        return limits.match_id(match_id, "MATCH_ID")
    except EngineError as e:
        raise Failure(e.message, USAGE) from None


def fetch(engine: str, match_id: str) -> str:
    """The record's JSON text, exactly as the owning engine sent it."""
    from domino_proto.domino.v1 import engine_pb2
    from domino_wire.routing import Router

    with contextlib.closing(Router(engine)) as router:
        return router.call("GetRecord", engine_pb2.GetRecordRequest(match_id=match_id),
                           about=match_id).record_json


def write(path: str, text: str) -> None:
    """All or nothing: the record goes to a file beside FILE, then takes its name."""
    part = f"{path}.part"
    try:
        with open(part, "w") as f:
            f.write(text)
        os.replace(part, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.remove(part)
        raise Failure(f"cannot write {path}: {e.strerror}") from None


def run_record(args) -> int:
    text = fetch(args.engine, checked_id(args.match_id)) + "\n"
    if args.out:
        write(args.out, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
