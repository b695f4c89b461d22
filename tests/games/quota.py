"""What the bots' limit tests share (test_bots_limits.py, test_bots_attack.py): an app with a
small bot-CPU quota (5 s a 120 s window) and cheap expert thinks, and a one-statement SQL
helper to read or charge the quota table directly."""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Litestar
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.pg import FAST_HASHES


def quota_app(database_url: str) -> Litestar:
    """The app on `database_url` with bots thinking in process (no workers), 2 worlds and
    0.05 s a move, the sweep every 0.5 s and a 5-second bot-CPU quota per 120 s."""
    from api.app import create_app
    from api.ops.settings import Settings

    return create_app(
        Settings(
            database_url=database_url,
            check_db_on_start=True,
            bot_workers=0,
            bot_samples=2,
            bot_seconds=0.05,
            bot_sweep_seconds=0.5,
            bot_cpu_seconds=5.0,
            bot_cpu_window_seconds=120,
            rate_limit_per_minute=0,
            **FAST_HASHES,
        )
    )


def sql(url: str, statement: str, **params: Any) -> list[Any]:
    """Run one SQL statement on `url` in its own transaction; its rows, if any."""

    async def run() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                result = await conn.execute(text(statement), params)
                return list(result.all()) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(run())
