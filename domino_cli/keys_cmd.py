"""`domino keys` and `domino pools`: the operator's secrets, written to the store directly.

An API key lets a client create matches and ladders within its quotas; a pool's enlist
secret lets a bot be seated in that pool's matches. Each is shown once, when it is made;
the store keeps only its sha256 (docs/security.md). Both work while the engine runs.
"""

from __future__ import annotations

import json
import sys

from .engine_cmd import DEFAULT_DB
from .failures import Failure


def add_subcommands(subparsers) -> None:
    from engine_service.core.security.keys import Quotas

    q = Quotas()
    k = subparsers.add_parser("keys", help="operator API keys: create, list, revoke")
    ksub = k.add_subparsers(dest="keys_command", required=True)
    c = ksub.add_parser("create", help="make an API key; prints it once")
    c.add_argument("name", help="who the key is for (shown in logs and ladders)")
    c.add_argument("--quota", default="", metavar="NAME=N,...",
                   help=f"quotas (defaults: live_matches={q.live_matches}, "
                   f"ladders={q.ladders}, matches_per_minute={q.matches_per_minute}, "
                   f"bots={q.bots}: registered arena bots)")
    c.add_argument("--db", default=DEFAULT_DB, help=f"the engine's store (default {DEFAULT_DB})")
    c.set_defaults(func=create_key)
    ls = ksub.add_parser("list", help="the keys' names, quotas and state (never the keys)")
    ls.add_argument("--db", default=DEFAULT_DB)
    ls.set_defaults(func=list_keys)
    r = ksub.add_parser("revoke", help="revoke a key at once")
    r.add_argument("name")
    r.add_argument("--db", default=DEFAULT_DB)
    r.set_defaults(func=revoke_key)

    p = subparsers.add_parser("pools", help="bot pools: create one (prints its enlist secret)")
    psub = p.add_subparsers(dest="pools_command", required=True)
    pc = psub.add_parser("create", help="make a pool, or give it a new enlist secret; "
                         "prints the secret once")
    pc.add_argument("name", help="the pool's name (letters, digits, _.:/-)")
    pc.add_argument("--db", default=DEFAULT_DB)
    pc.set_defaults(func=create_pool)


def _store(db: str, create: bool = True):
    """The engine's store at ``db``; ``create``: make it (and its folder) when missing, as
    the engine would. Anything else than a store there is said in one line."""
    import os
    import sqlite3

    from engine_service.core.storage.factory import is_dsn
    from engine_service.core.storage.rows import StoreUnavailable
    from engine_service.core.storage.sqlite import SQLiteStore

    if is_dsn(db):
        from engine_service.core.storage.postgres import PostgresStore
        try:
            return PostgresStore(db)
        except StoreUnavailable as e:
            raise Failure(str(e)) from None
    if db != ":memory:" and not os.path.exists(db):
        if not create:
            raise Failure(f"no store at {db}: give --db the engine's store (the engine makes "
                          "it when it first starts)")
        try:
            if os.path.dirname(db):
                os.makedirs(os.path.dirname(db), exist_ok=True)
        except OSError as e:
            raise Failure(f"cannot make the store {db}: {e.strerror or e}") from None
    try:
        return SQLiteStore(db)
    except sqlite3.DatabaseError as e:
        raise Failure(f"{db} is not an engine store ({e}): give --db the engine's store") from None
    except (OSError, sqlite3.Error) as e:
        raise Failure(f"cannot open the store {db}: {e}") from None


def create_key(args) -> int:
    from engine_service.core.errors import EngineError
    from engine_service.core.security import limits
    from engine_service.core.security.keys import Keys, Quotas

    try:
        limits.text(args.name, "name", limits.NAME_MAX, required=True,
                    pattern=limits.ENTRANT_NAME)
        quotas = Quotas.parse(args.quota)
    except (EngineError, ValueError) as e:
        raise SystemExit(f"domino keys create: {e}") from None
    store = _store(args.db)
    try:
        key = Keys(store, required=True).create(args.name, quotas)
    except ValueError as e:
        raise SystemExit(f"domino keys create: {e}") from None
    finally:
        store.close()
    print(key)
    print(f"domino keys: key {args.name!r} made, quotas {json.dumps(quotas.as_dict())}; this "
          "is the only time it is shown", file=sys.stderr)
    return 0


def list_keys(args) -> int:
    store = _store(args.db, create=False)
    try:
        for name, quotas, _created, revoked in store.keys():
            print(json.dumps({"name": name, "quotas": quotas, "revoked": revoked}))
    finally:
        store.close()
    return 0


def revoke_key(args) -> int:
    store = _store(args.db, create=False)
    try:
        if not store.revoke_key(args.name):
            raise SystemExit(f"domino keys revoke: no live key named {args.name!r}")
    finally:
        store.close()
    print(f"domino keys: {args.name!r} revoked", file=sys.stderr)
    return 0


def create_pool(args) -> int:
    from engine_service.core.errors import EngineError
    from engine_service.core.matches.pools import Pools
    from engine_service.core.security import limits

    try:
        limits.text(args.name, "name", limits.POOL_MAX, required=True, pattern=limits.POOL_NAME)
        if args.name.startswith("ladder-"):
            raise SystemExit("domino pools create: pools named ladder-... belong to the ladders")
    except EngineError as e:
        raise SystemExit(f"domino pools create: {e.message}") from None
    store = _store(args.db)
    try:
        print(Pools(store).define(args.name))
    finally:
        store.close()
    print(f"domino pools: pool {args.name!r} ready; bots enlist with this secret "
          "(domino bot --pool NAME, DOMINO_POOL_SECRET)", file=sys.stderr)
    return 0
