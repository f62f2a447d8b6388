"""Opening the store a `--db` names: a SQLite file (or ":memory:"), or a PostgreSQL
database (a postgresql:// DSN). The one place that knows both backends."""

from __future__ import annotations

from .sql import SQLStore


def is_dsn(db: str) -> bool:
    """True when `db` names a PostgreSQL database rather than a SQLite file."""
    return db.startswith(("postgresql://", "postgres://"))


def open_store(db: str) -> SQLStore:
    """The store of `db`; its ladders' rows are `store.ladders`. psycopg is imported only
    when a PostgreSQL database is asked for."""
    if is_dsn(db):
        from .postgres import PostgresStore
        return PostgresStore(db)
    from .sqlite import SQLiteStore
    return SQLiteStore(db)
