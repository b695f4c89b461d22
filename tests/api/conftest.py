from __future__ import annotations

from collections.abc import Iterator

import pytest
from litestar.testing import TestClient

from api.app import app


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(app) as c:
        yield c
