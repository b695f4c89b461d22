"""The accounts' rows: the statements that read and write accounts, sessions, emailed tokens,
the log-in throttle's counters and API keys (issue 22, "Stored games in three layers" applied
to accounts).

No policy lives here: which limit applies, when a token is spent or a password checked is
`api.accounts.service`'s business. Every function takes the connection of the caller's
transaction, so a flow's reads and writes commit or roll back as one; the throttle's counters
are single atomic upserts (PostgreSQL's `ON CONFLICT`, SQLite's alike), so that concurrent
attempts cannot all read a count before any of them is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, case, delete, func, insert, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from api.accounts import schemas
from api.db.engine import aware
from api.db.models import (
    Account,
    AccountSession,
    AccountToken,
    ApiKey,
    Game,
    GameSeat,
    LoginThrottle,
    table,
)
from api.http.tokens import unheld_token_hash

ACCOUNTS = table(Account)
SESSIONS = table(AccountSession)
TOKENS = table(AccountToken)
THROTTLE = table(LoginThrottle)
API_KEYS = table(ApiKey)
GAMES = table(Game)
SEATS = table(GameSeat)


def email_key(email: str) -> str:
    return email.casefold()


def pseudo_key(pseudo: str) -> str:
    return pseudo.casefold()


def account_out(row: Row[Any]) -> schemas.Account:
    return schemas.Account(
        id=row.id,
        pseudo=row.pseudo,
        email=row.email,
        email_verified=row.email_verified,
        age_range=row.age_range,
        locale=row.locale,
        terms_version=row.terms_version,
        created_at=aware(row.created_at),
    )


def taken(exc: IntegrityError) -> str | None:
    """Which unique login an insert or update collided with: `email`, `pseudo`, or None
    (another constraint: the caller re-raises)."""
    text = str(exc.orig)
    if "email_key" in text:
        return "email"
    if "pseudo_key" in text:
        return "pseudo"
    return None


def _by_login(login: str) -> ColumnElement[bool]:
    """The account a log-in names: an email (it holds `@`, which no pseudo does) only once
    verified (rules/app.md), else a pseudo; both case-insensitively."""
    if "@" in login:
        return and_(ACCOUNTS.c.email_key == email_key(login), ACCOUNTS.c.email_verified)
    return ACCOUNTS.c.pseudo_key == pseudo_key(login)


# -- accounts ------------------------------------------------------------------------------


async def insert_account(conn: AsyncConnection, values: dict[str, Any]) -> None:
    await conn.execute(insert(ACCOUNTS).values(**values))


async def account(conn: AsyncConnection, account_id: str) -> Row[Any] | None:
    return (await conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.id == account_id))).first()


async def account_by_login(conn: AsyncConnection, login: str) -> Row[Any, Any] | None:
    """The id and password hash of the account a log-in names."""
    query = select(ACCOUNTS.c.id, ACCOUNTS.c.password_hash).where(_by_login(login))
    return (await conn.execute(query)).first()


async def verified_by_login(conn: AsyncConnection, login: str) -> Row[Any, Any] | None:
    """The id and email of the account a log-in names, if its email is verified."""
    query = select(ACCOUNTS.c.id, ACCOUNTS.c.email).where(
        _by_login(login), ACCOUNTS.c.email_verified
    )
    return (await conn.execute(query)).first()


async def lock_account(conn: AsyncConnection, account_id: str, *, share: bool = False) -> bool:
    """Lock the account's row until the transaction ends (`share`: against a deletion only);
    whether it still exists."""
    query = select(ACCOUNTS.c.id).where(ACCOUNTS.c.id == account_id).with_for_update(read=share)
    return (await conn.execute(query)).first() is not None


async def locked_password_hash(conn: AsyncConnection, account_id: str) -> str | None:
    """The account's password hash, its row locked for a change; None once deleted."""
    query = select(ACCOUNTS.c.password_hash).where(ACCOUNTS.c.id == account_id).with_for_update()
    row = (await conn.execute(query)).first()
    return None if row is None else str(row.password_hash)


async def update_account(conn: AsyncConnection, account_id: str, **changes: Any) -> None:
    await conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(**changes))


async def delete_account(conn: AsyncConnection, account_id: str) -> None:
    await conn.execute(delete(ACCOUNTS).where(ACCOUNTS.c.id == account_id))


# -- sessions ------------------------------------------------------------------------------


async def insert_session(
    conn: AsyncConnection, hashed: str, account_id: str, expires: datetime
) -> None:
    await conn.execute(
        insert(SESSIONS).values(token_hash=hashed, account_id=account_id, expires_at=expires)
    )


async def delete_session(conn: AsyncConnection, hashed: str) -> None:
    await conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == hashed))


async def delete_sessions(
    conn: AsyncConnection, account_id: str, *, keep: str | None = None
) -> None:
    """End the account's sessions, all of them or all but the one hashed `keep`."""
    where = [SESSIONS.c.account_id == account_id]
    if keep is not None:
        where.append(SESSIONS.c.token_hash != keep)
    await conn.execute(delete(SESSIONS).where(*where))


async def revoke_seat_tokens(conn: AsyncConnection, account_id: str) -> None:
    """Revoke the seat tokens the account's sessions could have been given: those of the
    seats it claimed (`claim_seal` set), of its seats in rematches (a rematch gives a seat's
    token to whoever asks with the old seat's token or the account's session) and of its
    seats in the games it created (the creation answers every seat's token), in every game.
    Each token hash is replaced by one of a token nobody is given (`unheld_token_hash`), and
    a rematch's seat gives a token again to the next one who asks as its old seat. The seats
    stay the account's: its sessions act for them, and a claim with a session gets a fresh
    token. A seat token another account's creation handed over (a named player's link) is
    not the account's to revoke."""
    rematches = select(GAMES.c.rematch_id).where(GAMES.c.rematch_id.is_not(None))
    mine = (
        SEATS.c.account_id == account_id,
        or_(
            SEATS.c.claim_seal.is_not(None),
            SEATS.c.game_id.in_(rematches),
            SEATS.c.game_id.in_(select(GAMES.c.id).where(GAMES.c.creator_id == account_id)),
        ),
    )
    seats = await conn.execute(
        select(SEATS.c.game_id, SEATS.c.seat, SEATS.c.game_id.in_(rematches)).where(*mine)
    )
    for game_id, seat, rematch in seats.all():
        values: dict[str, Any] = {"token_hash": unheld_token_hash()}
        if rematch:
            values["token_pending"] = True
        await conn.execute(
            update(SEATS)
            .where(SEATS.c.game_id == game_id, SEATS.c.seat == seat, *mine)
            .values(**values)
        )


# -- emailed tokens ------------------------------------------------------------------------


async def insert_token(
    conn: AsyncConnection,
    hashed: str,
    account_id: str,
    purpose: str,
    email: str,
    expires: datetime,
) -> None:
    await conn.execute(
        insert(TOKENS).values(
            token_hash=hashed,
            account_id=account_id,
            purpose=purpose,
            email=email,
            expires_at=expires,
            used=False,
        )
    )


async def token_email(conn: AsyncConnection, hashed: str) -> str | None:
    """The address a token was mailed to (None for no such token)."""
    row = (await conn.execute(select(TOKENS.c.email).where(TOKENS.c.token_hash == hashed))).first()
    return None if row is None else (row.email or "")


async def use_token(conn: AsyncConnection, purpose: str, hashed: str, now: datetime) -> str | None:
    """Mark an unused, unexpired token of `purpose` used; its account's id (None: no such
    token, or spent, or expired)."""
    used = await conn.execute(
        update(TOKENS)
        .where(
            TOKENS.c.token_hash == hashed,
            TOKENS.c.purpose == purpose,
            TOKENS.c.used.is_(False),
            TOKENS.c.expires_at > now,
        )
        .values(used=True)
        .returning(TOKENS.c.account_id)
    )
    row = used.first()
    return None if row is None else str(row.account_id)


async def delete_tokens(conn: AsyncConnection, account_id: str, purpose: str | None = None) -> None:
    """Delete the account's emailed tokens (of one `purpose`, or all)."""
    where = [TOKENS.c.account_id == account_id]
    if purpose is not None:
        where.append(TOKENS.c.purpose == purpose)
    await conn.execute(delete(TOKENS).where(*where))


# -- the log-in throttle's counters ---------------------------------------------------------


def _insert(conn: AsyncConnection) -> Any:
    return pg_insert if conn.dialect.name == "postgresql" else sqlite_insert


async def count(
    conn: AsyncConnection, key: str, window: timedelta, now: datetime
) -> tuple[int, datetime]:
    """Count one more under `key` in one atomic upsert (a new window once the last one
    has passed); the count and its window's start."""
    fresh = THROTTLE.c.window_start > now - window
    upsert = (
        _insert(conn)(THROTTLE)
        .values(key=key, failures=1, window_start=now)
        .on_conflict_do_update(
            index_elements=[THROTTLE.c.key],
            set_={
                "failures": case((fresh, THROTTLE.c.failures + 1), else_=1),
                "window_start": case((fresh, THROTTLE.c.window_start), else_=now),
            },
        )
        .returning(THROTTLE.c.failures, THROTTLE.c.window_start)
    )
    counted = (await conn.execute(upsert)).one()
    return int(counted.failures), aware(counted.window_start)


async def waited(conn: AsyncConnection, key: str, seconds: int, now: datetime) -> bool:
    """Whether the network behind `key` has waited `seconds` since its last attempt past
    the ceiling (its first one there starts the wait); this attempt is its last from now
    on. One atomic upsert: `failures` counts the attempts refused since the last one let
    through, so 0 means this one is let through."""
    let_through = THROTTLE.c.window_start <= now - timedelta(seconds=seconds)
    upsert = (
        _insert(conn)(THROTTLE)
        .values(key=key, failures=1, window_start=now)
        .on_conflict_do_update(
            index_elements=[THROTTLE.c.key],
            set_={
                "failures": case((let_through, 0), else_=THROTTLE.c.failures + 1),
                "window_start": now,
            },
        )
        .returning(THROTTLE.c.failures)
    )
    return int((await conn.execute(upsert)).scalar_one()) == 0


async def forget(conn: AsyncConnection, keys: Sequence[str]) -> None:
    """Drop the counters under `keys` (a fresh start)."""
    await conn.execute(delete(THROTTLE).where(THROTTLE.c.key.in_(list(keys))))


async def uncount(conn: AsyncConnection, keys: Sequence[str]) -> None:
    """Take one attempt back from the counters under `keys` (never below zero)."""
    await conn.execute(
        update(THROTTLE)
        .where(THROTTLE.c.key.in_(list(keys)), THROTTLE.c.failures > 0)
        .values(failures=THROTTLE.c.failures - 1)
    )


# -- API keys ------------------------------------------------------------------------------


async def count_api_keys(conn: AsyncConnection, account_id: str) -> int:
    query = select(func.count()).where(API_KEYS.c.account_id == account_id)
    return int((await conn.execute(query)).scalar_one())


async def insert_api_key(
    conn: AsyncConnection, key_id: str, account_id: str, name: str, hashed: str, now: datetime
) -> None:
    await conn.execute(
        insert(API_KEYS).values(
            id=key_id, account_id=account_id, name=name, key_hash=hashed, created_at=now
        )
    )


async def api_keys(conn: AsyncConnection, account_id: str) -> list[schemas.ApiKey]:
    """The account's keys, oldest first (never their hashes)."""
    query = (
        select(API_KEYS.c.id, API_KEYS.c.name, API_KEYS.c.created_at, API_KEYS.c.last_used_at)
        .where(API_KEYS.c.account_id == account_id)
        .order_by(API_KEYS.c.created_at, API_KEYS.c.id)
    )
    return [
        schemas.ApiKey(
            id=row.id,
            name=row.name,
            created_at=aware(row.created_at),
            last_used_at=None if row.last_used_at is None else aware(row.last_used_at),
        )
        for row in (await conn.execute(query)).all()
    ]


async def delete_api_key(conn: AsyncConnection, account_id: str, key_id: str) -> bool:
    """Delete the account's key `key_id`; whether it had one."""
    deleted = await conn.execute(
        delete(API_KEYS).where(API_KEYS.c.id == key_id, API_KEYS.c.account_id == account_id)
    )
    return bool(deleted.rowcount)
