"""The stored-games suite runs on the run's PostgreSQL database, migrated with Alembic as in
production: the `games_app` and `games` (TestClient) fixtures are in tests/pg.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.pg import FAST_HASHES


def app_on(pg_head: str, **settings: Any) -> Litestar:
    """The app on the run's database with `settings` (its lifespan not started)."""
    from api.app import create_app
    from api.ops.settings import Settings

    return create_app(
        Settings(database_url=pg_head, check_db_on_start=True, **FAST_HASHES, **settings)
    )


@pytest.fixture(scope="module")
def clients(pg_head: str) -> Iterator[tuple[TestClient[Any], TestClient[Any]]]:
    """Two apps on the same database: (with a game in play's fast path, without it)."""
    with (
        TestClient(app_on(pg_head)) as fast,
        TestClient(app_on(pg_head, fast_games=False)) as slow,
    ):
        yield fast, slow
