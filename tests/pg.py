"""A fresh PostgreSQL database per test run (`numrules_test_<random>`), migrated exactly as
production is (`numrules db upgrade`'s code path), dropped at the end; and SQLite files.

The server is the local one of deploy/ensure-postgres.sh (trust auth): user `postgres`, or
the current user when that role is the one that exists.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from sqlalchemy.engine import make_url

from api.db import migrations

ADMIN_USERS = ("postgres", "root")
#: Argon2id at its cheapest for the suites that sign up many accounts (tests of behaviour, not
#: of strength: tests/accounts checks the defaults and the rehash when they change).
FAST_HASHES = {"password_hash_time_cost": 1, "password_hash_memory_kib": 8192}


async def _admin(sql: str) -> str:
    errors: list[str] = []
    for user in ADMIN_USERS:
        try:
            conn = await asyncpg.connect(
                host="127.0.0.1", port=5432, user=user, database="postgres", timeout=10
            )
        except (OSError, asyncpg.PostgresError) as exc:
            errors.append(f"{user}: {exc}")
            continue
        try:
            await conn.execute(sql)
        finally:
            await conn.close()
        return user
    raise RuntimeError("no PostgreSQL on 127.0.0.1:5432 (" + "; ".join(errors) + ")")


def asyncpg_dsn(url: str) -> str:
    """A SQLAlchemy `postgresql+asyncpg://` URL as the DSN `asyncpg.connect` takes."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def own_database() -> Iterator[str]:
    """An empty PostgreSQL database of its own (never migrated), dropped on exit."""
    name = f"numrules_test_{secrets.token_hex(6)}"
    user = asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield f"postgresql+asyncpg://{user}@127.0.0.1:5432/{name}"
    finally:
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """An empty PostgreSQL database's URL (never migrated)."""
    with own_database() as url:
        yield url


@pytest.fixture(scope="session")
def pg_head(pg_url: str) -> str:
    """The run's PostgreSQL database, migrated to head."""
    migrations.upgrade(pg_url)
    return pg_url


@pytest.fixture(scope="session")
def games_app(pg_head: str) -> Litestar:
    """The app on the run's PostgreSQL database (stored games). Imported here, not at the
    top: `api.app` builds its module-level app from the environment on import, which the
    stateless suite's conftest sets first."""
    from api.app import create_app
    from api.ops.settings import Settings

    return create_app(Settings(database_url=pg_head, check_db_on_start=True, **FAST_HASHES))


@pytest.fixture(scope="session")
def games(games_app: Litestar) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(games_app) as client:
        yield client


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'numrules.db'}"
