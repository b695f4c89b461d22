"""The score-sheet suite runs on the run's PostgreSQL database (tests/pg.py's `games` client);
its accounts sign up by `POST /v1/accounts`, as players do."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from typing import Any

import asyncpg
import pytest
from litestar.testing import TestClient

from tests.accounts.conftest import sign_up


@dataclass(frozen=True)
class Account:
    id: str | None
    pseudo: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def sql(url: str, statement: str, *args: Any) -> None:
    async def run() -> None:
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
        try:
            await conn.execute(statement, *args)
        finally:
            await conn.close()

    asyncio.run(run())


class Accounts:
    def __init__(self, client: TestClient[Any], url: str) -> None:
        self.client = client
        self.url = url

    def new(self, pseudo: str | None = None) -> Account:
        created = sign_up(self.client, pseudo=pseudo or f"P{secrets.token_hex(5)}")
        return Account(created["id"], created["pseudo"], created["token"])


def versioned(client: Any, url: str, headers: dict[str, str]) -> dict[str, str]:
    """`headers` and `If-Match` naming the version of the sheet at `url`, as GET answers it
    (a round's PUT and DELETE need it)."""
    read = client.get(url, headers=headers)
    assert read.status_code == 200, read.text
    return {**headers, "If-Match": read.headers["etag"]}


@pytest.fixture(scope="session")
def client(games: TestClient[Any]) -> TestClient[Any]:
    return games


@pytest.fixture(scope="session")
def accounts(games: TestClient[Any], pg_head: str) -> Accounts:
    return Accounts(games, pg_head)
