"""The score-sheet suite runs on the run's PostgreSQL database (tests/pg.py's `games` client).

Accounts are made by `POST /v1/accounts` when the app has it; otherwise (or when it refuses,
e.g. rate-limited) by inserting an account and a live session as the accounts area stores
them (the session token kept only as its sha256)."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest
from litestar.testing import TestClient
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import create_async_engine

from api.db.models import Account as AccountRow, AccountSession
from api.tokens import new_id, token_hash


@dataclass(frozen=True)
class Account:
    id: str | None
    pseudo: str
    token: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


async def _insert(url: str, pseudo: str, token: str) -> str:
    """An account and a live session, written with the app's own tables (any database)."""
    account_id = new_id()
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                insert(AccountRow).values(
                    id=account_id,
                    pseudo=pseudo,
                    pseudo_key=pseudo.casefold(),
                    email_verified=False,
                    password_hash="x",
                    age_range="18-24",
                    locale="en",
                    terms_version="1",
                    created_at=datetime.now(UTC),
                )
            )
            await conn.execute(
                insert(AccountSession).values(
                    token_hash=token_hash(token),
                    account_id=account_id,
                    expires_at=datetime.now(UTC) + timedelta(days=1),
                    created_at=datetime.now(UTC),
                )
            )
    finally:
        await engine.dispose()
    return account_id


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
        pseudo = pseudo or f"P{secrets.token_hex(5)}"
        answer = self.client.post(
            "/v1/accounts",
            json={
                "pseudo": pseudo,
                "password": "correct horse battery",
                "age_range": "18-24",
                "accept_terms": True,
            },
        )
        if answer.status_code == 201:
            return Account(answer.json().get("id"), pseudo, answer.json()["token"])
        token = secrets.token_urlsafe(32)
        return Account(asyncio.run(_insert(self.url, pseudo, token)), pseudo, token)


@pytest.fixture(scope="session")
def client(games: TestClient[Any]) -> TestClient[Any]:
    return games


@pytest.fixture(scope="session")
def accounts(games: TestClient[Any], pg_head: str) -> Accounts:
    return Accounts(games, pg_head)
