"""Which store a ``--db`` value names: ``postgresql://…`` (or ``postgres://…``) is PostgreSQL,
``:memory:`` keeps nothing, anything else is a SQLite file path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Store, StoreError

MEMORY = ":memory:"
URL_SCHEMES = ("postgresql://", "postgres://")


def is_url(db: str) -> bool:
    return db.startswith(URL_SCHEMES)


def describe(db: str) -> str:
    """``db`` as it may be shown in logs and errors: a URL loses its password."""
    if not is_url(db):
        return db
    from .postgresql import describe_url

    return describe_url(db)


def store_for(db: str, **options: Any) -> Store:
    """The (unopened) store for ``db``; ``options`` go to its constructor (flush_interval, …)."""
    if is_url(db):
        from .postgresql import PostgresStore

        return PostgresStore(db, **options)
    if db == MEMORY:
        from .memory import MemoryStore

        return MemoryStore()
    if Path(db).is_dir():
        raise StoreError(f"--db {db} is a directory; give a file path, a postgresql:// URL or {MEMORY}")
    from .sqlite import SqliteStore

    return SqliteStore(db, **options)
