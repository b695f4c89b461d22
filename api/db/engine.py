"""The async engine and session factory, from `Settings.database_url`.

On SQLite (the embedded default) the pysqlite driver's own transaction handling is turned
off and every transaction starts with `BEGIN IMMEDIATE`, so writers serialize on the database
lock instead of failing on upgrade from a read lock; foreign keys are switched on (SQLite's
default is off) and the journal is WAL so readers do not block the writer. These are the
hooks SQLAlchemy documents ("Serializable isolation / Savepoints / Transactional DDL" in its
SQLite dialect notes, aiosqlite section).

**A database that cannot serve** (issue 21): every wait on it is bounded (`create_engine`'s
timeouts, from `NUMRULES_DB_*_TIMEOUT_SECONDS`), and :func:`unavailable` is the one place that
tells a database failure the request did not cause (refused, reset, unknown database,
authentication, timeouts, pool exhausted, server shutting down, connection lost mid-query)
from a bug: `api.http.problems` answers the first 503 `database-unavailable`, the start-up check
refuses to start with one line.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any, TypedDict

import asyncpg
import msgspec
from sqlalchemy import event
from sqlalchemy.engine import Engine, ExceptionContext, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError, TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from api.db.sole import wait_out_claim
from api.ops.settings import Settings


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _json_text(value: Any) -> str:
    return msgspec.json.encode(value).decode()


_JSON: dict[str, Any] = {"json_serializer": _json_text, "json_deserializer": msgspec.json.decode}


#: Connections a process may open beyond its pool size under a burst (SQLAlchemy's default
#: `max_overflow`): closed as they come back.
OVERFLOW = 10
#: The engines made by `create_engine` → how many connections their hot paths keep.
_HELD: weakref.WeakKeyDictionary[Engine, int] = weakref.WeakKeyDictionary()

#: Seconds to open a connection when no setting says otherwise (migrations, `numrules db`):
#: asyncpg's own default is 60.
CONNECT_TIMEOUT_SECONDS = 5.0
#: How much longer than PostgreSQL's `statement_timeout` the client waits for an answer: the
#: server stops a slow statement itself (a clean error, the connection kept); only a server
#: that does not answer at all reaches the client's timeout.
SILENCE_MARGIN_SECONDS = 0.5


def create_engine(
    url: str,
    pool_size: int = 10,
    *,
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS,
    statement_timeout: float | None = None,
    pool_timeout: float = 10.0,
    application_name: str | None = None,
) -> AsyncEngine:
    """`hide_parameters`: a database error's message never holds the statement's values (a
    seat's token hash, a player's name). No ping before each checkout (a round trip per
    transaction, a fifth of an action's), but a connection whose driver already knows the
    server closed it (asyncpg reads the server's goodbye while the connection idles) is
    reconnected in place at its checkout (`_replace_if_closed`), so an idle service whose
    backends the server ended (a restart, `pg_terminate_backend`) answers its next requests
    on fresh connections. One lost without the server closing it (a host gone, a network
    cut) or mid-use fails its request with 503 (`api.http.problems`) and the pool drops
    every connection of that generation; connections are recycled hourly. JSON columns are
    encoded and decoded by msgspec (the standard library's json was a tenth of an action's
    time).

    Bounded waits: `connect_timeout` for opening a connection (asyncpg's `timeout`, which
    covers the start-up exchange too, so a server that takes TCP and never answers is given
    up), `pool_timeout` for a free pooled connection, `statement_timeout` (None: none, for
    migrations) for each statement: PostgreSQL's `statement_timeout` setting, asyncpg's
    `command_timeout` half a second later, SQLite's lock wait. A statement the client gave up
    on leaves its connection mid-exchange: it is dropped, not reused (`_drop_on_timeout`).
    `application_name`: every connection's (an app's own, :mod:`api.db.sole`).
    """
    if not is_sqlite(url):
        connect: dict[str, Any] = {"timeout": connect_timeout}
        server: dict[str, str] = {}
        if statement_timeout is not None:
            connect["command_timeout"] = statement_timeout + SILENCE_MARGIN_SECONDS
            server["statement_timeout"] = str(int(statement_timeout * 1000))
        if application_name is not None:
            server["application_name"] = application_name
        if server:
            connect["server_settings"] = server
        held = pool_size // 2
        engine = create_async_engine(
            url,
            # `pool_size` in all: `held` kept by the hot paths between uses (HeldConnections),
            # the rest idle in the pool's queue; the overflow takes the held ones' place, so
            # a process opens at most `pool_size` + OVERFLOW and keeps `pool_size` open idle
            pool_size=pool_size - held,
            max_overflow=OVERFLOW + held,
            pool_recycle=3600,
            pool_timeout=pool_timeout,
            hide_parameters=True,
            connect_args=connect,
            **_JSON,
        )
        event.listen(engine.sync_engine, "handle_error", _drop_on_timeout)
        event.listen(engine.sync_engine, "checkout", _replace_if_closed)
        if application_name is not None:  # an app's: its writes wait out another's lease
            event.listen(engine.sync_engine, "connect", wait_out_claim(application_name))
        _HELD[engine.sync_engine] = held
        return engine
    waits: dict[str, Any] = {"connect_args": {"timeout": statement_timeout or 5.0}}
    if make_url(url).database not in (None, "", ":memory:"):  # a file: a queue pool
        waits["pool_timeout"] = pool_timeout
    engine = create_async_engine(url, hide_parameters=True, **waits, **_JSON)

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


def _drop_on_timeout(context: ExceptionContext) -> None:
    """SQLAlchemy's documented hook (`handle_error`, `is_disconnect`): a statement the client
    stopped waiting for leaves the connection mid-exchange with a server that may never
    answer, so it is invalidated (closed at once, not rolled back, which would wait again)
    and the pool drops the connections of its generation."""
    if isinstance(context.original_exception, TimeoutError):
        context.is_disconnect = True


def _replace_if_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """SQLAlchemy's documented pessimistic check (the pool's `checkout` event): a pooled
    connection whose asyncpg connection is closed (the server ended it while it idled; known
    without I/O) raises `DisconnectionError`, and the pool invalidates it and opens a new
    connection in its place for this checkout (each dead one is replaced when it is taken)."""
    if _driver_closed(dbapi_connection):
        raise DisconnectionError("the server ended this connection")


def _driver_closed(dbapi_connection: Any) -> bool:
    """Whether the driver's connection under SQLAlchemy's adapted `dbapi_connection` is
    closed (asyncpg's, which knows without I/O; another driver's: never said)."""
    raw = getattr(dbapi_connection, "driver_connection", None)
    is_closed = getattr(raw, "is_closed", None)
    return bool(is_closed is not None and is_closed())


class HeldConnections:
    """Autocommit connections kept checked out between uses, for the hot paths of a game in
    play (its read, a hot action, an action's transaction: PostgreSQL only). Taking one is a
    list pop; a checkout from SQLAlchemy's pool and its return cost about 60 µs of CPU (two
    greenlet switches, a task, the pool's events), a tenth of an action's API time (issue 27).

    At most `size` are kept (more go back to the pool); one whose use raised goes back to the
    pool as before (reset there, or dropped by the error handlers that invalidated it), never
    kept, and one whose driver's connection is closed (the server ended it) is invalidated,
    never back in the pool, whether it was being used or kept; one kept `max_age` seconds
    goes back on its next release (the pool recycles connections hourly). When the engine is
    disposed (the app's shutdown, a test's end), those kept are invalidated (closed) with it.
    A connection is used by one task at a time: it is out of the list while used."""

    def __init__(self, engine: AsyncEngine, size: int, max_age: float = 600.0) -> None:
        self.engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.size = size
        self.max_age = max_age
        self._kept: list[tuple[AsyncConnection, float]] = []
        event.listen(engine.sync_engine, "engine_disposed", self._disposed)

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[AsyncConnection]:
        while self._kept:
            conn, since = self._kept.pop()
            if not _closed(conn):
                break
            await conn.invalidate()  # the server ended it while kept
            await conn.close()
        else:
            conn, since = await self.engine.connect(), time.monotonic()
        try:
            yield conn
        except BaseException:
            if _closed(conn):  # never back to the pool, which would hand it out again
                await conn.invalidate()
            await conn.close()
            raise
        if (
            conn.invalidated
            or len(self._kept) >= self.size
            or time.monotonic() - since > self.max_age
        ):
            await conn.close()
        else:
            self._kept.append((conn, since))

    def _disposed(self, _engine: Any) -> None:
        kept, self._kept = self._kept, []
        for conn, _ in kept:
            if conn.sync_connection is not None:
                conn.sync_connection.invalidate()


def _closed(conn: AsyncConnection) -> bool:
    """Whether the driver's connection under `conn` is closed (:func:`_driver_closed`)."""
    if conn.invalidated or conn.sync_connection is None:
        return False
    return _driver_closed(conn.sync_connection.connection)


def held_size(engine: AsyncEngine) -> int:
    """How many connections `engine`'s hot paths keep between uses: the half of its pool size
    that :func:`create_engine` took out of the pool's queue for them; none for an engine made
    otherwise (each use then checks out from its pool)."""
    return _HELD.get(engine.sync_engine, 0)


def engine_from_settings(settings: Settings, application_name: str | None = None) -> AsyncEngine:
    return create_engine(
        settings.database_url,
        settings.db_pool_size,
        application_name=application_name,
        **timeouts(settings),
    )


class Timeouts(TypedDict, total=False):
    """`create_engine`'s bounded waits."""

    connect_timeout: float
    statement_timeout: float | None
    pool_timeout: float


def timeouts(settings: Settings) -> Timeouts:
    """`create_engine`'s bounded waits, from the settings."""
    return Timeouts(
        connect_timeout=settings.db_connect_timeout_seconds,
        statement_timeout=settings.db_statement_timeout_seconds,
        pool_timeout=settings.db_pool_timeout_seconds,
    )


def sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def aware(moment: datetime) -> datetime:
    """A time read back from the database, in UTC: SQLite keeps no offset (the service
    writes UTC), PostgreSQL's `timestamptz` comes back aware."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


# -- a database that cannot serve ---------------------------------------------------------

#: SQLSTATE prefixes (PostgreSQL, Appendix A) of a database that cannot serve now through no
#: fault of the request: connection exceptions (08), authentication (28), an unknown database
#: (3D000), insufficient resources (53: too many connections, disk full), a statement stopped
#: by `statement_timeout` (57014), the server shutting down, crashed, starting or the database
#: dropped (57P01 … 57P05), system errors (58), a read-only standby after a fail-over (25006).
_UNAVAILABLE_STATES = ("08", "28", "3D", "53", "57014", "57P", "58", "25006")
#: SQLite's primary result codes of the same kind: BUSY and LOCKED (a writer held the lock
#: past the wait), NOMEM, IOERR, FULL, CANTOPEN.
_UNAVAILABLE_SQLITE = {5, 6, 7, 10, 13, 14}
#: The longest reason quoted in a log line.
_REASON_LIMIT = 200


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    name = getattr(error, "sqlite_errorname", None) or type(error).__name__
    reason = f"{name}: {text[0]}" if text else name
    return reason if len(reason) <= _REASON_LIMIT else reason[:_REASON_LIMIT] + "…"


def unavailable(exc: BaseException) -> str | None:
    """Why `exc` says the database cannot serve now, through no fault of the request (a short
    reason for the log: the driver's error and its first line, never the URL, a statement's
    values or a password); None for any other error (a bug: 500).

    The driver's errors reach here raw (asyncpg's OSError and TimeoutError at connect, its
    InterfaceError, any of its errors on the hot paths that use asyncpg directly) or wrapped
    by SQLAlchemy (`DBAPIError.orig`, the adapted error, whose
    `__cause__` is asyncpg's own, with its SQLSTATE)."""
    if isinstance(exc, PoolTimeout):
        return "no free connection in the pool in time"
    candidates: list[BaseException] = [exc]  # the driver's own error first: its class names it
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        candidates[:0] = [exc.orig.__cause__, exc.orig] if exc.orig.__cause__ else [exc.orig]
        if exc.connection_invalidated:
            return _reason(candidates[0])
    for error in candidates:
        if isinstance(error, TimeoutError):
            return "no answer in time"
        if isinstance(error, OSError | asyncpg.ConnectionDoesNotExistError):
            return _reason(error)
        if isinstance(error, asyncpg.InterfaceError) and "connection is closed" in str(error):
            return _reason(error)  # asyncpg used directly (api.games.repository): its own
        if isinstance(error, asyncpg.InternalClientError):
            return _reason(error)  # a connection the server just ended, mid-exchange
        state = getattr(error, "sqlstate", None)
        if isinstance(state, str) and state.startswith(_UNAVAILABLE_STATES):
            return _reason(error)
        code = getattr(error, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF in _UNAVAILABLE_SQLITE:
            return _reason(error)
    return None


def where(url: str) -> str:
    """The database's address for a log line: host, port and name, never the user or the
    password (SQLite: the file)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}/{parsed.database or ''}"
