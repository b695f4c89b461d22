"""Accounts: sign-up, sessions, log-in throttling, email verification, password changes and
resets (contract "Accounts, score sheets, history"; rules/app.md "Accounts").

Secrets are kept only as hashes: passwords as Argon2id (argon2-cffi, rehashed at log-in when
the parameters change), session and emailed tokens as sha256 (256 random bits each, see
:mod:`api.http.tokens`). Hashing runs in a worker thread: an Argon2id hash costs tens of
milliseconds of CPU that the event loop must not wait for.

A log-in answers alike for an unknown login and a wrong password (401 `invalid-credentials`,
the same body) and in a similar time: an unknown login is checked against a dummy hash.
Attempts are counted in the database (table `login_throttle`, so that the limits hold across
replicas) before any password is checked, and throttled as OWASP's authentication guidance
says, so that nobody can lock another user out (issue 21): strictly per (login, client
network), per network across logins, and past a much higher per-login ceiling only the
networks that have failed on that login are slowed (429 `too-many-attempts` with a growing
`Retry-After`; no server-side sleeping): the owner, from a clean network, always reaches the
password check (see :meth:`AccountStore._charge_log_in`).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import argon2
import msgspec
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import ColumnElement, Row, and_, case, delete, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts import schemas
from api.accounts.mail import Mailer
from api.accounts.texts import TERMS_VERSION, mail_text
from api.db.engine import aware
from api.db.models import Account, AccountSession, AccountToken, LoginThrottle, table
from api.http.problems import FieldProblem, ProblemError, field_problem
from api.http.tokens import SESSION_PREFIX, new_id, new_token, token_hash
from api.ops.ratelimit import network_of, trusted_networks
from api.ops.settings import Settings

ACCOUNTS = table(Account)
SESSIONS = table(AccountSession)
TOKENS = table(AccountToken)
THROTTLE = table(LoginThrottle)

#: Reset emails one account receives at most per throttle window.
RESET_EMAILS = 3
#: How long an emailed token stays valid.
TOKEN_HOURS = {"verify": 48, "reset": 1}

INVALID_CREDENTIALS = "the login or the password is wrong"


def _now() -> datetime:
    return datetime.now(UTC)


def invalid_credentials() -> ProblemError:
    return ProblemError(
        401, "invalid-credentials", INVALID_CREDENTIALS, headers={"WWW-Authenticate": "Bearer"}
    )


def _taken(exc: IntegrityError) -> ProblemError:
    text = str(exc.orig)
    if "email_key" in text:
        return ProblemError(
            409,
            "email-taken",
            "another account uses this email",
            [FieldProblem("email", "another account uses this email")],
        )
    if "pseudo_key" in text:
        return ProblemError(
            409,
            "pseudo-taken",
            "another account uses this pseudo (pseudos are compared case-insensitively)",
            [FieldProblem("pseudo", "another account uses this pseudo")],
        )
    raise exc


def _account_out(row: Row[Any]) -> schemas.Account:
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


def email_key(email: str) -> str:
    return email.casefold()


def pseudo_key(pseudo: str) -> str:
    return pseudo.casefold()


def _by_login(login: str) -> ColumnElement[bool]:
    """The account a log-in names: an email (it holds `@`, which no pseudo does) only once
    verified (rules/app.md), else a pseudo; both case-insensitively."""
    if "@" in login:
        return and_(ACCOUNTS.c.email_key == email_key(login), ACCOUNTS.c.email_verified)
    return ACCOUNTS.c.pseudo_key == pseudo_key(login)


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    text: str


@dataclass
class Throttle:
    """The log-in throttle's numbers: within one fixed `window` (seconds), `strict` attempts
    per (login, network), `per_network` per network whatever the login, and past `ceiling`
    attempts on one login a delay for the networks that have failed on it."""

    window: int
    strict: int
    per_network: int
    ceiling: int

    def delay(self, past: int) -> int:
        """Seconds a failing network waits between two attempts once the login has had
        `past` attempts beyond its ceiling: 1, 2, 4 … doubling with each, at most the
        window (OWASP: a growing delay slows a guesser without refusing the owner)."""
        return min(self.window, 1 << min(max(past, 1) - 1, 30))


@dataclass(frozen=True)
class LogInKeys:
    """The `login_throttle` keys one log-in attempt is counted under. The login as typed,
    case-folded and hashed (known or not: an unknown login counts the same, and a lock says
    nothing of whose email is whose); the client network as `api.ops.ratelimit.network_of` keys
    it (IPv6 by /64)."""

    login: str
    pair: str
    slow: str
    network: str

    @classmethod
    def of(cls, login: str, network: str) -> LogInKeys:
        digest = hashlib.sha256(login.casefold().encode()).hexdigest()[:40]
        if len(network) > 48:  # not an IP network (a Unix socket's name): kept short
            network = "h" + hashlib.sha256(network.encode()).hexdigest()[:40]
        return cls(
            f"login:{digest}",
            f"pair:{digest}:{network}",
            f"slow:{digest}:{network}",
            f"network:{network}",
        )


class AccountStore:
    def __init__(self, engine: AsyncEngine, settings: Settings, mailer: Mailer) -> None:
        self.engine = engine
        self.settings = settings
        self.mailer = mailer
        self.hasher = argon2.PasswordHasher(
            time_cost=settings.password_hash_time_cost,
            memory_cost=settings.password_hash_memory_kib,
        )
        self.throttle = Throttle(
            settings.login_window_seconds,
            settings.login_max_failures,
            settings.login_max_failures_per_address,
            settings.login_ceiling,
        )
        self._dummy: str | None = None
        self.trusted = trusted_networks(settings.trusted_proxies)

    # -- hashing (in a worker thread) ------------------------------------------------------

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, hashed: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return self.hasher.verify(hashed, password)
            except (VerificationError, InvalidHashError):
                return False

        return await asyncio.to_thread(verify)

    async def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = await self._hash(new_token())
        return self._dummy

    # -- sign-up and the account -----------------------------------------------------------

    async def sign_up(self, body: schemas.SignUp, locale: str) -> schemas.SignedUp:
        if not body.accept_terms:
            raise ProblemError(
                422,
                "terms-not-accepted",
                "accept_terms must be true: the terms of GET /v1/terms are accepted at sign-up",
                [FieldProblem("accept_terms", "must be true")],
            )
        account_id = new_id()
        hashed = await self._hash(body.password)
        token = new_token(SESSION_PREFIX)
        expires = _now() + timedelta(days=self.settings.session_days)
        values = {
            "id": account_id,
            "pseudo": body.pseudo,
            "pseudo_key": pseudo_key(body.pseudo),
            "email": body.email,
            "email_key": None if body.email is None else email_key(body.email),
            "email_verified": False,
            "password_hash": hashed,
            "age_range": body.age_range,
            "locale": body.locale or locale,
            "terms_version": TERMS_VERSION,
        }
        try:
            async with self.engine.begin() as conn:
                await conn.execute(insert(ACCOUNTS).values(**values))
                await conn.execute(
                    insert(SESSIONS).values(
                        token_hash=token_hash(token), account_id=account_id, expires_at=expires
                    )
                )
                mail = None
                if body.email is not None:
                    mail = await self._mail_token(conn, "verify", account_id, body.email)
                row = await self._account(conn, account_id)
        except IntegrityError as exc:
            raise _taken(exc) from None
        self._send(mail)
        out = _account_out(row)
        return schemas.SignedUp(
            **{f: getattr(out, f) for f in out.__struct_fields__}, token=token, expires_at=expires
        )

    async def _account(self, conn: AsyncConnection, account_id: str) -> Row[Any]:
        row = (await conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.id == account_id))).first()
        if row is None:  # deleted while its session was being read
            raise ProblemError(401, "unauthorized", "the account no longer exists")
        return row

    async def me(self, account_id: str) -> schemas.Account:
        async with self.engine.connect() as conn:
            return _account_out(await self._account(conn, account_id))

    async def update_me(self, account_id: str, body: schemas.UpdateMe) -> schemas.Account:
        changes: dict[str, Any] = {}
        if not isinstance(body.locale, msgspec.UnsetType):
            changes["locale"] = body.locale
        try:
            async with self.engine.begin() as conn:
                row = await self._account(conn, account_id)
                resend = body.email is not None and body.email == row.email
                if resend and not row.email_verified:
                    # the same unverified address again: a new link (the last one was lost)
                    changes["email"] = body.email
                elif not isinstance(body.email, msgspec.UnsetType) and body.email != row.email:
                    changes["email"] = body.email
                    changes["email_key"] = None if body.email is None else email_key(body.email)
                    changes["email_verified"] = False
                    # the old mailbox's links end with it: verification and reset alike
                    await conn.execute(delete(TOKENS).where(TOKENS.c.account_id == account_id))
                if changes:
                    await conn.execute(
                        update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(**changes)
                    )
                mail = None
                if changes.get("email") is not None:
                    mail = await self._mail_token(conn, "verify", account_id, changes["email"])
                row = await self._account(conn, account_id)
        except IntegrityError as exc:
            raise _taken(exc) from None
        self._send(mail)
        return _account_out(row)

    async def delete_me(self, account_id: str) -> None:
        """Sessions, tokens and owned sheets go with the account (ON DELETE CASCADE); other
        owners' sheets and stored games keep the player's name only (SET NULL)."""
        async with self.engine.begin() as conn:
            await conn.execute(delete(ACCOUNTS).where(ACCOUNTS.c.id == account_id))

    # -- sessions --------------------------------------------------------------------------

    async def _new_session(self, conn: AsyncConnection, account_id: str) -> schemas.Session:
        token = new_token(SESSION_PREFIX)
        expires = _now() + timedelta(days=self.settings.session_days)
        await conn.execute(
            insert(SESSIONS).values(
                token_hash=token_hash(token), account_id=account_id, expires_at=expires
            )
        )
        return schemas.Session(token=token, expires_at=expires)

    async def log_in(self, body: schemas.LogIn, address: str) -> schemas.Session:
        login = body.login.strip()
        settings = self.settings
        network = network_of(
            address, settings.rate_limit_ipv4_prefix, settings.rate_limit_ipv6_prefix
        )
        keys = LogInKeys.of(login, network)
        await self._charge_log_in(keys)
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(ACCOUNTS.c.id, ACCOUNTS.c.password_hash).where(_by_login(login))
                )
            ).first()
        hashed = row.password_hash if row is not None else await self._dummy_hash()
        ok = await self._verify(hashed, body.password)
        if row is None or not ok:
            raise invalid_credentials()
        async with self.engine.begin() as conn:
            # the account deleted since it was read: the same answer as an unknown login
            # (its row locked, a deletion racing the log-in waits for the new session)
            still = await conn.execute(
                select(ACCOUNTS.c.id).where(ACCOUNTS.c.id == row.id).with_for_update(read=True)
            )
            if still.first() is None:
                raise invalid_credentials()
            await self._refund(conn, keys)
            if self.hasher.check_needs_rehash(hashed):
                await conn.execute(
                    update(ACCOUNTS)
                    .where(ACCOUNTS.c.id == row.id)
                    .values(password_hash=await self._hash(body.password))
                )
            return await self._new_session(conn, row.id)

    async def log_out(self, session_hash: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == session_hash))

    def _insert(self) -> Any:
        return pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert

    async def _count(
        self, conn: AsyncConnection, key: str, now: datetime | None = None
    ) -> tuple[int, datetime]:
        """Count one more under `key` in one atomic upsert (a new window once the last one
        has passed); the count and its window's start."""
        now = now or _now()
        fresh = THROTTLE.c.window_start > now - timedelta(seconds=self.throttle.window)
        upsert = (
            self._insert()(THROTTLE)
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

    async def _charge(self, keys: dict[str, int]) -> None:
        """Count one attempt under each key before any password is checked: concurrent
        guesses cannot all pass the check before any is counted. Over a key's limit: 429
        with `Retry-After`, until its window ends."""
        window = timedelta(seconds=self.throttle.window)
        waits: list[timedelta] = []
        async with self.engine.begin() as conn:
            for key, limit in keys.items():
                count, start = await self._count(conn, key)
                if count > limit:
                    waits.append(start + window - _now())
        if waits:
            raise _too_many(max(waits))

    async def _charge_log_in(self, keys: LogInKeys) -> None:
        """Count one log-in attempt before its password is checked, one atomic upsert per
        key (concurrent guesses cannot all pass before any is counted), and refuse it with
        429 and `Retry-After` (the counts stay) when
        - its network has made more than `strict` attempts on this login in the window, or
          more than `per_network` on any logins: until that window ends;
        - else the login has had more than `ceiling` attempts and this network has tried it
          before in the window (a network that failed): until it has waited the delay since
          its last attempt, the delay doubling with each attempt past the ceiling.
        A clean network (the owner's, elsewhere) is never refused by the ceiling (contract,
        "Log-in throttling"); the ceiling counts only the attempts that passed the strict
        limits, so one network hammering alone never brings the login to it."""
        throttle = self.throttle
        window = timedelta(seconds=throttle.window)
        now = _now()
        wait: timedelta | None = None
        async with self.engine.begin() as conn:
            tries, tries_start = await self._count(conn, keys.pair, now)
            sprayed, sprayed_start = await self._count(conn, keys.network, now)
            if tries > throttle.strict or sprayed > throttle.per_network:
                ends = [
                    start + window
                    for count, limit, start in (
                        (tries, throttle.strict, tries_start),
                        (sprayed, throttle.per_network, sprayed_start),
                    )
                    if count > limit
                ]
                wait = max(ends) - now
            else:
                attempts, attempts_start = await self._count(conn, keys.login, now)
                past = attempts - throttle.ceiling
                if past > 0 and tries > 1:
                    # the delay in force since the attempt before this one: a network that
                    # waited what its last answer said is let through (if nobody else tried)
                    waited = throttle.delay(past - 1)
                    if not await self._waited(conn, keys.slow, waited, now):
                        wait = min(
                            timedelta(seconds=throttle.delay(past)),
                            attempts_start + window - now,
                        )
        if wait is not None:
            raise _too_many(wait)

    async def _waited(self, conn: AsyncConnection, key: str, seconds: int, now: datetime) -> bool:
        """Whether the network behind `key` has waited `seconds` since its last attempt past
        the ceiling (its first one there starts the wait); this attempt is its last from now
        on. One atomic upsert: `failures` counts the attempts refused since the last one let
        through, so 0 means this one is let through."""
        waited = THROTTLE.c.window_start <= now - timedelta(seconds=seconds)
        upsert = (
            self._insert()(THROTTLE)
            .values(key=key, failures=1, window_start=now)
            .on_conflict_do_update(
                index_elements=[THROTTLE.c.key],
                set_={
                    "failures": case((waited, 0), else_=THROTTLE.c.failures + 1),
                    "window_start": now,
                },
            )
            .returning(THROTTLE.c.failures)
        )
        return int((await conn.execute(upsert)).scalar_one()) == 0

    async def _refund(self, conn: AsyncConnection, keys: LogInKeys) -> None:
        """A success: its network starts afresh on the login (the owner's typos are
        forgiven), and the attempt is charged neither to the login's ceiling (the owner
        logging in must not reset a guesser's count either) nor to the network."""
        await conn.execute(delete(THROTTLE).where(THROTTLE.c.key.in_([keys.pair, keys.slow])))
        await conn.execute(
            update(THROTTLE)
            .where(THROTTLE.c.key.in_([keys.login, keys.network]), THROTTLE.c.failures > 0)
            .values(failures=THROTTLE.c.failures - 1)
        )

    # -- passwords -------------------------------------------------------------------------

    async def change_password(
        self, account_id: str, session_hash: str, body: schemas.PasswordChange, address: str
    ) -> None:
        """The current password is checked (and throttled like a log-in); every other session
        of the account and every reset token still out end. The account's row is locked for
        the change: of concurrent changes with the same current password one wins, the
        others find it changed (403)."""
        key = f"account:{account_id}"
        await self._charge({key: self.throttle.strict})
        hashed = await self._hash(body.new)
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(ACCOUNTS.c.password_hash)
                    .where(ACCOUNTS.c.id == account_id)
                    .with_for_update()
                )
            ).first()
            if row is None:
                raise ProblemError(401, "unauthorized", "the account no longer exists")
            if not await self._verify(row.password_hash, body.current):
                raise ProblemError(
                    403,
                    "wrong-password",
                    "current: this is not the account's password",
                    [FieldProblem("current", "not the account's password")],
                )
            await conn.execute(
                update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(password_hash=hashed)
            )
            await conn.execute(
                delete(SESSIONS).where(
                    SESSIONS.c.account_id == account_id, SESSIONS.c.token_hash != session_hash
                )
            )
            await _end_resets(conn, account_id)
            await conn.execute(delete(THROTTLE).where(THROTTLE.c.key == key))

    async def request_reset(self, login: str) -> None:
        """Email a reset token when the login names an account with a verified email (the
        caller answers the same in every case); a new token ends the earlier ones, and an
        account gets at most `RESET_EMAILS` such emails per throttle window (the rest are
        not sent: a mailbox is not flooded through this service)."""
        async with self.engine.begin() as conn:
            row = (
                await conn.execute(
                    select(ACCOUNTS.c.id, ACCOUNTS.c.email).where(
                        _by_login(login.strip()), ACCOUNTS.c.email_verified
                    )
                )
            ).first()
            mail = None
            if row is not None:
                sent, _ = await self._count(conn, f"reset:{row.id}")
                if sent <= RESET_EMAILS:
                    await _end_resets(conn, row.id)
                    mail = await self._mail_token(conn, "reset", row.id, row.email)
        self._send(mail)

    async def confirm_reset(self, body: schemas.ResetConfirm) -> None:
        """A single-use, unexpired reset token sets the password and ends every session."""
        hashed = await self._hash(body.password)
        async with self.engine.begin() as conn:
            account_id = await self._use_token(conn, "reset", body.token)
            await conn.execute(
                update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(password_hash=hashed)
            )
            await conn.execute(delete(SESSIONS).where(SESSIONS.c.account_id == account_id))
            await _end_resets(conn, account_id)
            await conn.execute(delete(THROTTLE).where(THROTTLE.c.key == f"account:{account_id}"))

    async def confirm_email(self, token: str) -> schemas.EmailVerified:
        async with self.engine.begin() as conn:
            found = (
                await conn.execute(
                    select(TOKENS.c.email).where(TOKENS.c.token_hash == token_hash(token))
                )
            ).first()
            account_id = await self._use_token(conn, "verify", token)
            row = await self._account(conn, account_id)
            if (
                found is None
                or row.email is None
                or email_key(row.email) != email_key(found.email or "")
            ):
                raise _bad_token("token")
            await conn.execute(
                update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(email_verified=True)
            )
        return schemas.EmailVerified(email=row.email, email_verified=True)

    # -- emailed tokens --------------------------------------------------------------------

    async def _mail_token(
        self, conn: AsyncConnection, purpose: str, account_id: str, email: str
    ) -> Mail:
        """Store a new token of `purpose` for the account (hashed); the email holding it, in
        the account's language, for :meth:`_send` once the transaction has committed."""
        token = new_token()
        hours = TOKEN_HOURS[purpose]
        await conn.execute(
            insert(TOKENS).values(
                token_hash=token_hash(token),
                account_id=account_id,
                purpose=purpose,
                email=email,
                expires_at=_now() + timedelta(hours=hours),
                used=False,
            )
        )
        row = await self._account(conn, account_id)
        subject, text = mail_text(
            purpose, row.locale, row.pseudo, token, hours, self.settings.app_url
        )
        return Mail(email, subject, text)

    def _send(self, mail: Mail | None) -> None:
        if mail is not None:
            self.mailer.send_later(mail.to, mail.subject, mail.text)

    async def _use_token(self, conn: AsyncConnection, purpose: str, token: str) -> str:
        """Mark an unused, unexpired token of `purpose` used; its account's id."""
        used = await conn.execute(
            update(TOKENS)
            .where(
                TOKENS.c.token_hash == token_hash(token),
                TOKENS.c.purpose == purpose,
                TOKENS.c.used.is_(False),
                TOKENS.c.expires_at > _now(),
            )
            .values(used=True)
            .returning(TOKENS.c.account_id)
        )
        row = used.first()
        if row is None:
            raise _bad_token("token")
        account_id: str = row.account_id
        return account_id


async def _end_resets(conn: AsyncConnection, account_id: str) -> None:
    """A new password ends every reset token still out: an older email cannot take the
    account back."""
    await conn.execute(
        delete(TOKENS).where(TOKENS.c.account_id == account_id, TOKENS.c.purpose == "reset")
    )


def _too_many(wait: timedelta) -> ProblemError:
    seconds = max(1, math.ceil(wait.total_seconds()))
    return ProblemError(
        429,
        "too-many-attempts",
        f"too many failed attempts: try again in {seconds} s",
        headers={"Retry-After": str(seconds)},
    )


def _bad_token(field: str) -> ProblemError:
    message = "unknown, expired or already used"
    return field_problem(422, "invalid-token", field, message)
