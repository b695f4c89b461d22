"""Who is calling: an account's session from `Authorization: Bearer <session token>`.

Other areas (score sheets, stored games) ask here; a bearer token that is not a live session
is not an error at this level (it may be a sheet or seat token): `session_caller` answers
None, `require_session` turns that into 401 `unauthorized`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Request
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts import texts as T
from api.db.models import Account, AccountSession, table
from api.http.domain import Invalid, Unauthenticated, field_error
from api.http.problems import shorten
from api.http.tokens import (
    API_KEY_PREFIX,
    SESSION_TOKEN,
    bearer,
    kind_of,
    token_hash,
    unauthorized,
)
from engine.core.texts import say
from engine.registry import SPECS

SESSIONS = table(AccountSession)
ACCOUNTS = table(Account)


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
    token = bearer(request, SESSION_TOKEN)
    if token is None:
        return None
    caller = await session_caller(database(request), token)
    if caller is None:
        if token.startswith(API_KEY_PREFIX):
            raise unauthorized(say(T.KEY_NOT_SESSION))
        kind = kind_of(token)
        if kind is not None and kind is not SESSION_TOKEN:  # a seat's, a sheet's, a creator's
            raise unauthorized(say(T.TOKEN_NOT_SESSION, kind=say(kind)))
        raise unauthorized(say(T.SESSION_UNKNOWN))
    return caller


async def require_session(request: Request[Any, Any, Any]) -> Caller:
    caller = await optional_session(request)
    if caller is None:
        raise unauthorized(say(T.SESSION_NEEDED))
    return caller


async def lock_account(
    conn: AsyncConnection, account_id: str, session_hash: str | None = None
) -> None:
    """Lock the caller's account row against its deletion (`FOR SHARE`) until the write that
    refers to it commits: a `DELETE /v1/me` racing the write waits for it, or the write sees
    the account gone, 401 `unauthorized` (an attacker found a claim racing its claimer's
    deletion a 500: the foreign key refused the gone account).

    With `session_hash`, the session the caller came with must still be live once the row is
    locked (401 else): a new password ends sessions and revokes seat tokens under the row's
    lock, so one that committed first ends the caller's session here too, and one that comes
    after waits for the write and revokes the seat token it gave."""
    found = await conn.execute(
        select(ACCOUNTS.c.id).where(ACCOUNTS.c.id == account_id).with_for_update(read=True)
    )
    if found.first() is None:
        raise Unauthenticated(say(T.ACCOUNT_GONE))
    if session_hash is not None:
        live = await conn.execute(
            select(SESSIONS.c.token_hash).where(
                SESSIONS.c.token_hash == session_hash,
                SESSIONS.c.expires_at > datetime.now(UTC),
            )
        )
        if live.first() is None:
            raise Unauthenticated(say(T.SESSION_UNKNOWN))


def is_community(ruleset_id: str) -> bool:
    """rules/app.md, "Jeux de la communauté 🔒" (Ruling): a community game (its spec says so:
    the rulesets other than Num Wars) needs an account for stored games and score sheets."""
    spec = SPECS.get(ruleset_id)
    return spec is not None and spec.community


def community_locked(ruleset: str) -> Unauthenticated:
    """401 `community-locked`: a community game's stored game or sheet without a session (a
    service raises it; the HTTP layer adds `WWW-Authenticate: Bearer` to every 401)."""
    return Unauthenticated(
        say(T.COMMUNITY_LOCKED, ruleset=ruleset),
        code="community-locked",
    )


async def account_by_pseudo(conn: AsyncConnection, pseudo: str, field: str) -> str:
    """The account id of one pseudo (case-insensitive): 422 `unknown-account` at `field`
    for a pseudo no account has (locked, as :func:`accounts_by_pseudo` does)."""
    found = (
        await conn.execute(
            select(ACCOUNTS.c.id)
            .where(ACCOUNTS.c.pseudo_key == pseudo.casefold())
            .with_for_update(read=True)
        )
    ).scalar_one_or_none()
    if found is None:
        unknown = say(T.UNKNOWN_ACCOUNT, pseudo=shorten(pseudo))
        raise field_error(Invalid, "unknown-account", field, unknown)
    return str(found)


async def accounts_by_pseudo(
    conn: AsyncConnection, pseudos: Sequence[str | None], field: str
) -> list[str | None]:
    """The account id of each pseudo (case-insensitive; None stays None), in order: 422
    `unknown-account` for a pseudo no account has, `duplicate-account` for one named twice."""
    wanted = {p.casefold() for p in pseudos if p is not None}
    found: dict[str, str] = {}
    if wanted:
        rows = await conn.execute(  # locked: an account deleted meanwhile waits for the write
            select(ACCOUNTS.c.id, ACCOUNTS.c.pseudo_key)
            .where(ACCOUNTS.c.pseudo_key.in_(wanted))
            .with_for_update(read=True)
        )
        found = {r.pseudo_key: r.id for r in rows}
    seen: set[str] = set()
    ids: list[str | None] = []
    for i, pseudo in enumerate(pseudos):
        if pseudo is None:
            ids.append(None)
            continue
        where = f"{field}[{i}].account"
        key = pseudo.casefold()
        if key not in found:
            unknown = say(T.UNKNOWN_ACCOUNT, pseudo=shorten(pseudo))
            raise field_error(Invalid, "unknown-account", where, unknown)
        if key in seen:
            raise field_error(Invalid, "duplicate-account", where, say(T.DUPLICATE_ACCOUNT))
        seen.add(key)
        ids.append(found[key])
    return ids
