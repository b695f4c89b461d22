"""Alembic, run from code: the `numrules db` commands and the startup check use these.

The scripts (env.py, versions/) live in the `api.db.scripts` package, so they ship in the
installed build (`deploy/build-mypyc.sh` installs with `pip install --target`) and the same
code path migrates a source checkout and a deployment. `alembic/README.md` points here.
"""

from __future__ import annotations

import asyncio
import io
import logging
from pathlib import Path

from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection

from alembic import command
from api.db.engine import (
    CONNECT_TIMEOUT_SECONDS,
    Timeouts,
    create_engine,
    timeouts,
    unavailable,
    where,
)
from api.ops.settings import Settings

SCRIPTS = Path(__file__).resolve().parent / "scripts"
UPGRADE_HINT = 'run "numrules db upgrade"'


def config(url: str, output: io.StringIO | None = None) -> Config:
    cfg = Config(stdout=output) if output is not None else Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def _quiet() -> None:
    """Alembic's INFO lines ("Context impl …") are noise at every start: warnings only."""
    logging.getLogger("alembic").setLevel(logging.WARNING)


def upgrade(url: str, revision: str = "head") -> None:
    _quiet()
    command.upgrade(config(url), revision)


def downgrade(url: str, revision: str) -> None:
    _quiet()
    command.downgrade(config(url), revision)


def head() -> str | None:
    return ScriptDirectory.from_config(config("sqlite://")).get_current_head()


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def _current(url: str, settings: Settings | None = None) -> str | None:
    waits = timeouts(settings) if settings is not None else Timeouts()
    engine = create_engine(url, **waits)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_revision)
    finally:
        await engine.dispose()


def current(url: str, settings: Settings | None = None) -> str | None:
    """The database's revision (None: never migrated)."""
    return asyncio.run(_current(url, settings))


async def check_at_head(url: str) -> bool:
    return await _current(url) == head()


class StartupRefused(RuntimeError):
    """The service must not start; the message says why in one line (`numrules serve` prints
    it, the app's lifespan hands it to the ASGI server: `api.app.one_line_startup_refusals`)."""


class NotAtHead(StartupRefused):
    """The database is not at the migrations' head: the service must not start on it."""


class DatabaseUnavailable(StartupRefused):
    """The database cannot serve (`api.db.engine.unavailable`): refused, unknown, silent."""


def unavailable_line(exc: BaseException, url: str, settings: Settings | None = None) -> str | None:
    """One line for a database that cannot serve (its address and the cause, no user or
    password), or None when `exc` is another error."""
    reason = unavailable(exc)
    if reason is None:
        return None
    if reason == "no answer in time" and settings is None:  # a timeout: say which bounds
        reason += f" (connect timeout {CONNECT_TIMEOUT_SECONDS:g} s)"
    elif reason == "no answer in time" and settings is not None:
        reason += (
            f" (connect timeout {settings.db_connect_timeout_seconds:g} s,"
            f" statement timeout {settings.db_statement_timeout_seconds:g} s)"
        )
    return f"cannot reach the database at {where(url)}: {reason}"


async def require_head(url: str, settings: Settings | None = None) -> None:
    """Refuse to start (`StartupRefused`) on a database behind the migrations or one that
    cannot serve, within `settings`' timeouts."""
    try:
        found = await _current(url, settings)
    except Exception as exc:
        if (line := unavailable_line(exc, url, settings)) is None:
            raise
        raise DatabaseUnavailable(line) from None
    if found != head():
        raise NotAtHead(
            f"database at revision {found or 'none'}, not at head {head()}: {UPGRADE_HINT}"
        )
