"""Alembic's environment: runs the migrations on the async engine of `api.db.engine`.

The URL comes from the Config (set by `api.db.migrations.config`), else from the settings'
DATABASE_URL. SQLite alters tables only by copying them: `render_as_batch` does that.
"""

from __future__ import annotations

import asyncio

from sqlalchemy.engine import Connection

from alembic import context
from api.db.engine import create_engine, is_sqlite
from api.db.models import Base
from api.ops.settings import Settings


def _url() -> str:
    return context.config.get_main_option("sqlalchemy.url") or Settings().database_url


def _migrate(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=is_sqlite(_url()),
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run() -> None:
    engine = create_engine(_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_migrate)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=_url(), target_metadata=Base.metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run())
