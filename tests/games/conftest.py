"""The stored-games suite: the app on the run's PostgreSQL database (migrated with Alembic, as
in production), through a TestClient; the served-app tests start their own servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from api.app import create_app
from api.settings import Settings


@pytest.fixture(scope="session")
def games_app(pg_head: str) -> Litestar:
    return create_app(Settings(database_url=pg_head))


@pytest.fixture(scope="session")
def games(games_app: Litestar) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(games_app) as client:
        yield client
