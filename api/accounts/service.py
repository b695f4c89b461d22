"""The accounts' service: sign-up, sessions, log-in throttling, email verification, password
changes and resets, API keys (contract "Accounts, score sheets, history"; rules/app.md
"Accounts"). The flows live here and refuse with domain errors (`api.http.domain`); the
statements and rows live in `api.accounts.repository`, the statuses and headers in
`api.accounts.routes` (issue 22, "Stored games in three layers" applied to accounts).

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
password check (see :meth:`AccountService._charge_log_in`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import argon2
import msgspec
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from api.accounts import repository as rows, schemas, texts as T
from api.accounts.mail import Mailer
from api.accounts.repository import email_key, pseudo_key
from api.accounts.texts import TERMS_VERSION, mail_text
from api.http.domain import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    InvalidFields,
    NotFound,
    TooManyAttempts,
    Unauthenticated,
    field_error,
    refuse_body,
)
from api.http.responses import HEX_ID
from api.http.tokens import (
    API_KEY_PREFIX,
    SESSION_PREFIX,
    check_name,
    new_id,
    new_token,
    token_hash,
)
from api.ops.ratelimit import network_of, trusted_networks
from api.ops.settings import Settings
from engine.core.texts import say

log = logging.getLogger(__name__)

#: Reset emails one account receives at most per throttle window.
RESET_EMAILS = 3
#: How long an emailed token stays valid.
TOKEN_HOURS = {"verify": 48, "reset": 1}
#: Keys one account holds at most: each has its own quota, so an account cannot multiply its
#: quota without bound by minting keys.
MAX_KEYS = 20
#: A key's id as `new_id` makes it: anything else names no key (and a NUL, which PostgreSQL
#: cannot take as text, never reaches the database).
KEY_ID = HEX_ID


def _now() -> datetime:
    return datetime.now(UTC)


# -- the accounts' refusals (domain errors: the routes' exception handler gives the status) --


class InvalidCredentials(Unauthenticated):
    """A log-in whose login or password is wrong: one answer for both (401)."""

    default_code = "invalid-credentials"

    def __init__(self) -> None:
        super().__init__(say(T.INVALID_CREDENTIALS), headers={"WWW-Authenticate": "Bearer"})


class AccountGone(Unauthenticated):
    """The session's account was deleted while the session was being read (401)."""

    def __init__(self) -> None:
        super().__init__(say(T.ACCOUNT_GONE))


class WrongPassword(Forbidden):
    """A password change whose current password is not the account's (403)."""

    default_code = "wrong-password"

    def __init__(self) -> None:
        super().__init__(
            say(T.WRONG_PASSWORD), field="current", field_message=say(T.NOT_THE_PASSWORD)
        )


class LoginTaken(Conflict):
    """Another account uses this email or pseudo (409 `email-taken` / `pseudo-taken`)."""


class TooManyApiKeys(Conflict):
    """The account holds `MAX_KEYS` keys already (409)."""

    default_code = "too-many-api-keys"


def invalid_credentials() -> InvalidCredentials:
    return InvalidCredentials()


def _taken(exc: IntegrityError) -> LoginTaken:
    which = rows.taken(exc)
    if which == "email":
        return LoginTaken(say(T.EMAIL_TAKEN), code="email-taken", field="email")
    if which == "pseudo":
        return LoginTaken(
            say(T.PSEUDO_TAKEN),
            code="pseudo-taken",
            field="pseudo",
            field_message=say(T.PSEUDO_TAKEN_FIELD),
        )
    raise exc


def _too_many(wait: timedelta) -> TooManyAttempts:
    seconds = max(1, math.ceil(wait.total_seconds()))
    return TooManyAttempts(say(T.TOO_MANY_ATTEMPTS, seconds=seconds), retry_after=seconds)


def _bad_token(field: str) -> DomainError:
    return field_error(Invalid, "invalid-token", field, say(T.INVALID_TOKEN))


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


class AccountService:
    """The accounts' flows: what is checked, counted and written in which order, and the
    refusals as domain errors (no HTTP status: `api.accounts.routes` owns those)."""

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
            raise InvalidFields(schemas.SignUp.beyond_schema({"accept_terms": False}))
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
                await rows.insert_account(conn, values)
                await rows.insert_session(conn, token_hash(token), account_id, expires)
                mail = None
                if body.email is not None:
                    mail = await self._mail_token(conn, "verify", account_id, body.email)
                row = await self._account(conn, account_id)
        except IntegrityError as exc:
            raise _taken(exc) from None
        self._send(mail)
        out = rows.account_out(row)
        return schemas.SignedUp(
            **{f: getattr(out, f) for f in out.__struct_fields__}, token=token, expires_at=expires
        )

    async def _account(self, conn: AsyncConnection, account_id: str) -> Any:
        row = await rows.account(conn, account_id)
        if row is None:  # deleted while its session was being read
            raise AccountGone()
        return row

    async def me(self, account_id: str) -> schemas.Account:
        async with self.engine.connect() as conn:
            return rows.account_out(await self._account(conn, account_id))

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
                    await rows.delete_tokens(conn, account_id)
                if changes:
                    await rows.update_account(conn, account_id, **changes)
                mail = None
                if changes.get("email") is not None:
                    mail = await self._mail_token(conn, "verify", account_id, changes["email"])
                row = await self._account(conn, account_id)
        except IntegrityError as exc:
            raise _taken(exc) from None
        self._send(mail)
        return rows.account_out(row)

    async def delete_me(self, account_id: str) -> None:
        """Sessions, tokens and owned sheets go with the account (ON DELETE CASCADE); other
        owners' sheets and stored games keep the player's name only (SET NULL)."""
        async with self.engine.begin() as conn:
            await rows.delete_account(conn, account_id)

    # -- sessions --------------------------------------------------------------------------

    async def _new_session(self, conn: AsyncConnection, account_id: str) -> schemas.Session:
        token = new_token(SESSION_PREFIX)
        expires = _now() + timedelta(days=self.settings.session_days)
        await rows.insert_session(conn, token_hash(token), account_id, expires)
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
            row = await rows.account_by_login(conn, login)
        hashed = row.password_hash if row is not None else await self._dummy_hash()
        ok = await self._verify(hashed, body.password)
        if row is None or not ok:
            raise invalid_credentials()
        async with self.engine.begin() as conn:
            # The account's row locked for update (a deletion or a new password racing the
            # log-in waits for the new session, or the log-in sees them; concurrent log-ins
            # of one account take turns, so two rehashes never deadlock), and the password
            # checked again if it changed since it was read: a new password that committed
            # meanwhile (it ends sessions under this lock) refuses the old one, whose rehash
            # never puts it back; a concurrent log-in's rehash still takes it. An account
            # deleted since: the same answer as an unknown login.
            current = await rows.locked_password_hash(conn, row.id)
            if current is None or (
                current != hashed and not await self._verify(current, body.password)
            ):
                raise invalid_credentials()
            await self._refund(conn, keys)
            if self.hasher.check_needs_rehash(current):
                new_hash = await self._hash(body.password)
                await rows.update_account(conn, row.id, password_hash=new_hash)
            return await self._new_session(conn, row.id)

    async def log_out(self, session_hash: str) -> None:
        async with self.engine.begin() as conn:
            await rows.delete_session(conn, session_hash)

    async def _charge(self, keys: dict[str, int]) -> None:
        """Count one attempt under each key before any password is checked: concurrent
        guesses cannot all pass the check before any is counted. Over a key's limit:
        `TooManyAttempts` (429 with `Retry-After`), until its window ends."""
        window = timedelta(seconds=self.throttle.window)
        waits: list[timedelta] = []
        async with self.engine.begin() as conn:
            for key, limit in keys.items():
                count, start = await rows.count(conn, key, window, _now())
                if count > limit:
                    waits.append(start + window - _now())
        if waits:
            raise _too_many(max(waits))

    async def _charge_log_in(self, keys: LogInKeys) -> None:
        """Count one log-in attempt before its password is checked, one atomic upsert per
        key (concurrent guesses cannot all pass before any is counted), and refuse it with
        `TooManyAttempts` (429 and `Retry-After`; the counts stay) when
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
            tries, tries_start = await rows.count(conn, keys.pair, window, now)
            sprayed, sprayed_start = await rows.count(conn, keys.network, window, now)
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
                attempts, attempts_start = await rows.count(conn, keys.login, window, now)
                past = attempts - throttle.ceiling
                if past > 0 and tries > 1:
                    # the delay in force since the attempt before this one: a network that
                    # waited what its last answer said is let through (if nobody else tried)
                    waited = throttle.delay(past - 1)
                    if not await rows.waited(conn, keys.slow, waited, now):
                        wait = min(
                            timedelta(seconds=throttle.delay(past)),
                            attempts_start + window - now,
                        )
        if wait is not None:
            raise _too_many(wait)

    async def _refund(self, conn: AsyncConnection, keys: LogInKeys) -> None:
        """A success: its network starts afresh on the login (the owner's typos are
        forgiven), and the attempt is charged neither to the login's ceiling (the owner
        logging in must not reset a guesser's count either) nor to the network."""
        await rows.forget(conn, [keys.pair, keys.slow])
        await rows.uncount(conn, [keys.login, keys.network])

    # -- passwords -------------------------------------------------------------------------

    async def change_password(
        self, account_id: str, session_hash: str, body: schemas.PasswordChange, address: str
    ) -> None:
        """The current password is checked (and throttled like a log-in); every other session
        of the account, every reset token still out and the seat tokens its sessions could
        have been given (`rows.revoke_seat_tokens`: the seats it claimed, its seats in
        rematches and in the games it created; its sessions still act for those seats) end.
        The account's row is locked for the change: of concurrent changes with the same
        current password one wins, the others find it changed (`WrongPassword`)."""
        key = f"account:{account_id}"
        await self._charge({key: self.throttle.strict})
        hashed = await self._hash(body.new)
        async with self.engine.begin() as conn:
            current = await rows.locked_password_hash(conn, account_id)
            if current is None:
                raise AccountGone()
            if not await self._verify(current, body.current):
                raise WrongPassword()
            await rows.update_account(conn, account_id, password_hash=hashed)
            await rows.delete_sessions(conn, account_id, keep=session_hash)
            await rows.revoke_seat_tokens(conn, account_id)
            await rows.delete_tokens(conn, account_id, "reset")
            await rows.forget(conn, [key])

    async def reset_target(self, login: str) -> ResetTarget | None:
        """The account a reset request's login names, if its email is verified: one read,
        the same for every login, so that the answer (sent before :meth:`issue_reset` runs,
        as its background task) takes the same time whether the login has a verified email,
        an unverified one, none, or names nobody."""
        async with self.engine.connect() as conn:
            row = await rows.verified_by_login(conn, login.strip())
        return None if row is None else ResetTarget(row.id, row.email)

    async def issue_reset(self, target: ResetTarget) -> None:
        """Email `target` a reset token, after the answer: a new token ends the earlier ones,
        and an account gets at most `RESET_EMAILS` such emails per throttle window (the rest
        are not sent: a mailbox is not flooded through this service). Nobody waits for it, so
        a failure is logged (its kind only: never a token or an address)."""
        window = timedelta(seconds=self.throttle.window)
        try:
            async with self.engine.begin() as conn:
                mail = None
                sent, _ = await rows.count(conn, f"reset:{target.account_id}", window, _now())
                if sent <= RESET_EMAILS:
                    # a new password ends every reset token still out: an older email
                    # cannot take the account back (and a new token, the earlier ones)
                    await rows.delete_tokens(conn, target.account_id, "reset")
                    mail = await self._mail_token(conn, "reset", target.account_id, target.email)
        except Exception as exc:  # after the answer: nobody to tell but the log
            log.warning("password reset: no token issued (%s)", type(exc).__name__)
            return
        self._send(mail)

    async def confirm_reset(self, body: schemas.ResetConfirm) -> None:
        """A single-use, unexpired reset token sets the password and ends every session and
        the seat tokens its sessions could have been given (`rows.revoke_seat_tokens`)."""
        hashed = await self._hash(body.password)
        async with self.engine.begin() as conn:
            account_id = await self._use_token(conn, "reset", body.token)
            await rows.update_account(conn, account_id, password_hash=hashed)
            await rows.delete_sessions(conn, account_id)
            await rows.revoke_seat_tokens(conn, account_id)
            await rows.delete_tokens(conn, account_id, "reset")
            await rows.forget(conn, [f"account:{account_id}"])

    async def confirm_email(self, token: str) -> schemas.EmailVerified:
        async with self.engine.begin() as conn:
            mailed_to = await rows.token_email(conn, token_hash(token))
            account_id = await self._use_token(conn, "verify", token)
            row = await self._account(conn, account_id)
            if (
                mailed_to is None
                or row.email is None
                or email_key(row.email) != email_key(mailed_to)
            ):
                raise _bad_token("token")
            await rows.update_account(conn, account_id, email_verified=True)
        return schemas.EmailVerified(email=row.email, email_verified=True)

    # -- emailed tokens --------------------------------------------------------------------

    async def _mail_token(
        self, conn: AsyncConnection, purpose: str, account_id: str, email: str
    ) -> Mail:
        """Store a new token of `purpose` for the account (hashed); the email holding it, in
        the account's language, for :meth:`_send` once the transaction has committed."""
        token = new_token()
        hours = TOKEN_HOURS[purpose]
        expires = _now() + timedelta(hours=hours)
        await rows.insert_token(conn, token_hash(token), account_id, purpose, email, expires)
        row = await self._account(conn, account_id)
        subject, text = mail_text(
            purpose, row.locale, row.pseudo, token, hours, self.settings.app_url
        )
        return Mail(email, subject, text)

    def _send(self, mail: Mail | None) -> None:
        if mail is not None:
            self.mailer.send_later(mail.to, mail.subject, mail.text)

    async def _use_token(self, conn: AsyncConnection, purpose: str, token: str) -> str:
        """Mark an unused, unexpired token of `purpose` used; its account's id (else
        `invalid-token`)."""
        account_id = await rows.use_token(conn, purpose, token_hash(token), _now())
        if account_id is None:
            raise _bad_token("token")
        return account_id


class ResetTarget(NamedTuple):
    """An account a password reset is emailed to: its id and verified email."""

    account_id: str
    email: str


class ApiKeyService:
    """API keys (issue 21, contract "API keys (integrators)"): an account's keys for its back
    ends, metering only (see :mod:`api.accounts.routes`). `nrk_` and 256 random bits, shown
    once in the 201, stored as its sha256 like every token (api/http/tokens.py); revoking
    deletes the row (a process that looked the key up in the last
    `NUMRULES_RATE_LIMIT_CREDENTIAL_CACHE_SECONDS`, 30 s by default, still counts it as a key
    until then); keys go with their account (ON DELETE CASCADE)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def create(self, account_id: str, body: schemas.ApiKeyIn) -> schemas.ApiKeyCreated:
        check_name(body.name, "name")
        key = new_token(API_KEY_PREFIX)
        key_id = new_id()
        now = datetime.now(UTC)
        async with self.engine.begin() as conn:
            # the account's row locked: concurrent creations count one after the other
            if not await rows.lock_account(conn, account_id):
                raise AccountGone()  # deleted while its session was being read
            if await rows.count_api_keys(conn, account_id) >= MAX_KEYS:
                raise TooManyApiKeys(say(T.TOO_MANY_API_KEYS, most=MAX_KEYS))
            await rows.insert_api_key(conn, key_id, account_id, body.name, token_hash(key), now)
        return schemas.ApiKeyCreated(id=key_id, name=body.name, key=key, created_at=now)

    async def list(self, account_id: str) -> schemas.ApiKeys:
        async with self.engine.connect() as conn:
            return schemas.ApiKeys(items=await rows.api_keys(conn, account_id))

    async def delete(
        self, account_id: str, key_id: str, body_refusal: Exception | None = None
    ) -> None:
        """Revoke: `NotFound` for an id this account has no key with (another account's
        included). `body_refusal`: a body it takes none of (api.http.body.unwanted_body),
        refused once the key is found: the deletion is then rolled back."""
        if not KEY_ID.fullmatch(key_id):
            raise _no_key()
        async with self.engine.begin() as conn:
            deleted = await rows.delete_api_key(conn, account_id, key_id)
            if deleted:
                refuse_body(body_refusal)
        if not deleted:
            raise _no_key()


def _no_key() -> NotFound:
    return NotFound(say(T.NO_API_KEY))
