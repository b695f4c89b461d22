"""The stateless API's tests need no database: the startup check of the migrations is off
(set before `api.app` builds its app; servers these tests start inherit it)."""

from __future__ import annotations

import os

os.environ["NUMRULES_CHECK_DB_ON_START"] = "false"

from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from api.app import app


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app) as c:
        yield c
