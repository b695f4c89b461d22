"""API keys (issue 21, contract "API keys (integrators)"): an account's keys for its back ends.

A key is metering only: a request carrying it (`X-API-Key`, or `Authorization: Bearer`) is
counted against the key's own quota instead of its network (api/ops/ratelimit.py,
api/http/credentials.py); it never acts as the account, a session or a seat. `nrk_` and 256 random
bits, shown once in the 201, stored as its sha256 like every token (api/http/tokens.py). Revoking
deletes the row; a process that looked the key up in the last
`NUMRULES_RATE_LIMIT_CREDENTIAL_CACHE_SECONDS` (30 s by default, at most 60) still counts it
as a key until then. Keys go with their account (ON DELETE CASCADE).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from api.accounts import schemas
from api.db.engine import aware
from api.db.models import Account, ApiKey, table
from api.http.problems import ProblemError
from api.http.responses import HEX_ID
from api.http.tokens import API_KEY_PREFIX, check_name, new_id, new_token, token_hash

API_KEYS = table(ApiKey)
ACCOUNTS = table(Account)

#: Keys one account holds at most: each has its own quota, so an account cannot multiply its
#: quota without bound by minting keys.
MAX_KEYS = 20
#: A key's id as `new_id` makes it: anything else names no key (and a NUL, which PostgreSQL
#: cannot take as text, never reaches the database).
KEY_ID = HEX_ID


def _not_found() -> ProblemError:
    return ProblemError(404, "not-found", "this account has no API key with this id")


class ApiKeyStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, account_id: str, body: schemas.ApiKeyIn) -> schemas.ApiKeyCreated:
        check_name(body.name, "name")
        key = new_token(API_KEY_PREFIX)
        key_id = new_id()
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            # the account's row locked: concurrent creations count one after the other
            found = await conn.execute(
                select(ACCOUNTS.c.id).where(ACCOUNTS.c.id == account_id).with_for_update()
            )
            if found.first() is None:  # deleted while its session was being read
                raise ProblemError(401, "unauthorized", "the account no longer exists")
            held = (
                await conn.execute(select(func.count()).where(API_KEYS.c.account_id == account_id))
            ).scalar_one()
            if held >= MAX_KEYS:
                raise ProblemError(
                    409,
                    "too-many-api-keys",
                    f"an account holds at most {MAX_KEYS} API keys: delete one first",
                )
            await conn.execute(
                insert(API_KEYS).values(
                    id=key_id,
                    account_id=account_id,
                    name=body.name,
                    key_hash=token_hash(key),
                    created_at=now,
                )
            )
        return schemas.ApiKeyCreated(id=key_id, name=body.name, key=key, created_at=now)

    async def list(self, account_id: str) -> schemas.ApiKeys:
        query = (
            select(API_KEYS.c.id, API_KEYS.c.name, API_KEYS.c.created_at, API_KEYS.c.last_used_at)
            .where(API_KEYS.c.account_id == account_id)
            .order_by(API_KEYS.c.created_at, API_KEYS.c.id)
        )
        async with self.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return schemas.ApiKeys(
            items=[
                schemas.ApiKey(
                    id=row.id,
                    name=row.name,
                    created_at=aware(row.created_at),
                    last_used_at=None if row.last_used_at is None else aware(row.last_used_at),
                )
                for row in rows
            ]
        )

    async def delete(self, account_id: str, key_id: str) -> None:
        """Revoke: 404 for an id this account has no key with (another account's included)."""
        if not KEY_ID.fullmatch(key_id):
            raise _not_found()
        async with self.engine.begin() as conn:
            deleted = await conn.execute(
                delete(API_KEYS).where(API_KEYS.c.id == key_id, API_KEYS.c.account_id == account_id)
            )
        if deleted.rowcount == 0:
            raise _not_found()
