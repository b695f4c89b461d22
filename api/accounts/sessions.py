"""Who is calling: an account's session from `Authorization: Bearer <session token>`.

Other areas (score sheets, stored games) ask here; a bearer token that is not a live session
is not an error at this level (it may be a sheet or seat token): `session_caller` answers
None, `require_session` turns that into 401 `unauthorized`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from api.db.models import Account, AccountSession
from api.tokens import bearer, token_hash, unauthorized

SESSIONS = AccountSession.__table__
ACCOUNTS = Account.__table__


class Caller(msgspec.Struct, frozen=True):
    """A signed-in account: its id and pseudo, and the hash of the session token used."""

    account_id: str
    pseudo: str
    session_hash: str


def database(request: Request[Any, Any, Any]) -> AsyncEngine:
    engine: AsyncEngine = request.app.state.db
    return engine


async def session_caller(engine: AsyncEngine, token: str) -> Caller | None:
    """The account whose live (unexpired) session `token` is, else None."""
    digest = token_hash(token)
    query = (
        select(ACCOUNTS.c.id, ACCOUNTS.c.pseudo)
        .select_from(SESSIONS.join(ACCOUNTS, SESSIONS.c.account_id == ACCOUNTS.c.id))
        .where(SESSIONS.c.token_hash == digest, SESSIONS.c.expires_at > datetime.now(UTC))
    )
    async with engine.connect() as conn:
        row = (await conn.execute(query)).first()
    return None if row is None else Caller(row.id, row.pseudo, digest)


async def optional_session(request: Request[Any, Any, Any]) -> Caller | None:
    """The caller's session, None without an `Authorization` header; a token that is not a
    live session is 401 (a mistyped token never silently means "anonymous")."""
    token = bearer(request, "session token")
    if token is None:
        return None
    caller = await session_caller(database(request), token)
    if caller is None:
        raise unauthorized("the session token is unknown, expired or ended")
    return caller


async def require_session(request: Request[Any, Any, Any]) -> Caller:
    caller = await optional_session(request)
    if caller is None:
        raise unauthorized("this needs a session: Authorization: Bearer <session token>")
    return caller
