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
from api.db.engine import create_engine

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


async def _current(url: str) -> str | None:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_revision)
    finally:
        await engine.dispose()


def current(url: str) -> str | None:
    """The database's revision (None: never migrated)."""
    return asyncio.run(_current(url))


async def check_at_head(url: str) -> bool:
    return await _current(url) == head()


class NotAtHead(RuntimeError):
    """The database is not at the migrations' head: the service must not start on it."""


async def require_head(url: str) -> None:
    found = await _current(url)
    if found != head():
        raise NotAtHead(
            f"database at revision {found or 'none'}, not at head {head()}: {UPGRADE_HINT}"
        )
