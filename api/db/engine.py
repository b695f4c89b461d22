"""The async engine and session factory, from `Settings.database_url`.

On SQLite (the embedded default) the pysqlite driver's own transaction handling is turned
off and every transaction starts with `BEGIN IMMEDIATE`, so writers serialize on the database
lock instead of failing on upgrade from a read lock; foreign keys are switched on (SQLite's
default is off) and the journal is WAL so readers do not block the writer. These are the
hooks SQLAlchemy documents ("Serializable isolation / Savepoints / Transactional DDL" in its
SQLite dialect notes, aiosqlite section).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from api.settings import Settings


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _json_text(value: Any) -> str:
    return msgspec.json.encode(value).decode()


_JSON: dict[str, Any] = {"json_serializer": _json_text, "json_deserializer": msgspec.json.decode}


def create_engine(url: str, pool_size: int = 10) -> AsyncEngine:
    """`hide_parameters`: a database error's message never holds the statement's values (a
    seat's token hash, a player's name). No ping before each checkout (a round trip per
    transaction, a fifth of an action's): a connection the server dropped fails its request
    with 503 (`api.problems`) and the pool drops every connection of that generation;
    connections are recycled hourly. JSON columns are encoded and decoded by msgspec (the
    standard library's json was a tenth of an action's time)."""
    if not is_sqlite(url):
        return create_async_engine(
            url, pool_size=pool_size, pool_recycle=3600, hide_parameters=True, **_JSON
        )
    engine = create_async_engine(url, hide_parameters=True, **_JSON)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def engine_from_settings(settings: Settings) -> AsyncEngine:
    return create_engine(settings.database_url, settings.db_pool_size)


def sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def aware(moment: datetime) -> datetime:
    """A time read back from the database, in UTC: SQLite keeps no offset (the service
    writes UTC), PostgreSQL's `timestamptz` comes back aware."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
