"""The accounts' service on its own (issue 22, "Stored games in three layers" applied to
accounts): called without HTTP, on PostgreSQL through asyncpg, it refuses with domain errors
(`api.http.domain`), each kind carrying the contract's code (and, for a throttled attempt, its
retry), never an HTTP problem; `api.http.domain.STATUS` gives each kind its status."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import msgspec
import pytest

from api.accounts import schemas
from api.accounts.mail import Mailer
from api.accounts.service import MAX_KEYS, AccountService, ApiKeyService
from api.db.engine import create_engine
from api.http.domain import (
    Conflict,
    DomainError,
    Forbidden,
    Invalid,
    NotFound,
    TooManyAttempts,
    Unauthenticated,
    status_of,
)
from api.http.problems import ProblemError, domain_problem
from api.http.tokens import token_hash
from api.ops.settings import Settings
from tests.accounts.conftest import new_pseudo
from tests.pg import FAST_HASHES

PASSWORD = "correct horse battery"


@pytest.fixture
async def services(pg_head: str) -> AsyncIterator[tuple[AccountService, ApiKeyService]]:
    settings = Settings(database_url=pg_head, login_max_failures=2, **FAST_HASHES)
    engine = create_engine(pg_head)
    try:
        yield AccountService(engine, settings, Mailer(settings)), ApiKeyService(engine)
    finally:
        await engine.dispose()


def _refused(kind: type[DomainError], code: str, status: int, error: BaseException) -> DomainError:
    """`error` is the domain error `kind` with `code` (answered with `status`), no HTTP
    problem."""
    assert isinstance(error, kind), repr(error)
    assert not isinstance(error, ProblemError)
    assert error.code == code
    assert status_of(error) == status
    return error


def _sign_up(**fields: object) -> schemas.SignUp:
    body = {
        "pseudo": new_pseudo(),
        "password": PASSWORD,
        "age_range": "25-34",
        "accept_terms": True,
        **fields,
    }
    return msgspec.convert(body, schemas.SignUp)


async def test_log_in_refuses_a_wrong_password_then_throttles(
    services: tuple[AccountService, ApiKeyService],
) -> None:
    accounts, _ = services
    pseudo = (await accounts.sign_up(_sign_up(), "en")).pseudo
    address = "192.0.2.17"
    wrong = schemas.LogIn(login=pseudo, password="not the password")

    for _ in range(2):  # the strict limit per (login, network): 2 here
        with pytest.raises(DomainError) as refused:
            await accounts.log_in(wrong, address)
        error = _refused(Unauthenticated, "invalid-credentials", 401, refused.value)
        assert error.detail == "the login or the password is wrong"
        assert error.headers == {"WWW-Authenticate": "Bearer"}

    with pytest.raises(DomainError) as refused:  # the right password, but throttled
        await accounts.log_in(schemas.LogIn(login=pseudo, password=PASSWORD), address)
    error = _refused(TooManyAttempts, "too-many-attempts", 429, refused.value)
    assert isinstance(error, TooManyAttempts)
    assert 0 < error.retry_after <= accounts.throttle.window
    assert error.headers == {"Retry-After": str(error.retry_after)}
    assert error.detail == f"too many failed attempts: try again in {error.retry_after} s"

    # another network is not throttled: the owner logs in
    session = await accounts.log_in(schemas.LogIn(login=pseudo, password=PASSWORD), "203.0.113.9")
    assert session.token.startswith("nrs_")


async def test_sign_up_and_passwords_refuse_with_domain_errors(
    services: tuple[AccountService, ApiKeyService],
) -> None:
    accounts, _ = services
    with pytest.raises(DomainError) as refused:
        await accounts.sign_up(_sign_up(accept_terms=False), "en")
    error = _refused(Invalid, "terms-not-accepted", 422, refused.value)
    assert [e.field for e in domain_problem(error).errors] == ["accept_terms"]

    signed = await accounts.sign_up(_sign_up(), "en")
    with pytest.raises(DomainError) as refused:
        await accounts.sign_up(_sign_up(pseudo=signed.pseudo.upper()), "en")
    _refused(Conflict, "pseudo-taken", 409, refused.value)

    with pytest.raises(DomainError) as refused:
        change = schemas.PasswordChange(current="not the password", new="another long password")
        await accounts.change_password(signed.id, "no-session", change, "192.0.2.1")
    error = _refused(Forbidden, "wrong-password", 403, refused.value)
    assert [e.field for e in domain_problem(error).errors] == ["current"]

    with pytest.raises(DomainError) as refused:
        reset = schemas.ResetConfirm(token="x" * 43, password="another long password")
        await accounts.confirm_reset(reset)
    error = _refused(Invalid, "invalid-token", 422, refused.value)
    assert error.detail == "token: unknown, expired or already used"

    await accounts.delete_me(signed.id)
    with pytest.raises(DomainError) as refused:
        await accounts.me(signed.id)
    _refused(Unauthenticated, "unauthorized", 401, refused.value)


async def test_api_keys_refuse_with_domain_errors(
    services: tuple[AccountService, ApiKeyService],
) -> None:
    accounts, keys = services
    account_id = (await accounts.sign_up(_sign_up(), "en")).id
    for i in range(MAX_KEYS):
        await keys.create(account_id, schemas.ApiKeyIn(name=f"back end {i}"))
    with pytest.raises(DomainError) as refused:
        await keys.create(account_id, schemas.ApiKeyIn(name="one too many"))
    _refused(Conflict, "too-many-api-keys", 409, refused.value)
    assert len((await keys.list(account_id)).items) == MAX_KEYS

    for key_id in ("0" * 32, "not-an-id"):
        with pytest.raises(DomainError) as refused:
            await keys.delete(account_id, key_id)
        _refused(NotFound, "not-found", 404, refused.value)


async def test_a_reset_request_reads_only_and_its_token_comes_after_the_answer(
    services: tuple[AccountService, ApiKeyService], pg_head: str
) -> None:
    """The answer to a reset request waits for one read, whatever the login (a verified
    email, an unverified one, none, nobody): the token's writes are `issue_reset`, which the
    route runs as its background task after answering. (It took a throttle write, a delete
    and an insert before answering only for a verified email: twice the time, which told
    who had one.)"""
    import asyncpg

    accounts, _ = services
    pseudo = new_pseudo()
    verified = await accounts.sign_up(_sign_up(pseudo=pseudo, email=f"{pseudo}@example.org"), "en")
    unverified = new_pseudo()
    await accounts.sign_up(_sign_up(pseudo=unverified, email=f"{unverified}@example.org"), "en")
    plain = (await accounts.sign_up(_sign_up(), "en")).pseudo
    conn = await asyncpg.connect(pg_head.replace("+asyncpg", ""))
    try:
        account_id = await conn.fetchval("SELECT id FROM accounts WHERE pseudo = $1", pseudo)
        assert account_id is not None, verified
        await conn.execute("UPDATE accounts SET email_verified = true WHERE id = $1", account_id)

        async def written() -> tuple[int, int]:
            tokens = await conn.fetchval(
                "SELECT count(*) FROM account_tokens WHERE account_id = $1 AND purpose = 'reset'",
                account_id,
            )
            throttled = await conn.fetchval(
                "SELECT count(*) FROM login_throttle WHERE key = $1", f"reset:{account_id}"
            )
            return int(tokens), int(throttled)

        assert await written() == (0, 0)
        for login in (unverified, plain, "nobody_" + pseudo, f"{unverified}@example.org"):
            assert await accounts.reset_target(login) is None, login
        target = await accounts.reset_target(f"  {pseudo.upper()}  ")
        assert target is not None and target.account_id == account_id
        assert target.email == f"{pseudo}@example.org"
        assert await written() == (0, 0)  # nothing written before the answer
        await accounts.issue_reset(target)  # then the route's background task
        assert await written() == (1, 1)
    finally:
        await conn.close()


NEW_PASSWORD = "a new password for the race"


async def _log_in_racing_a_new_password(
    accounts: AccountService, owner: AccountService, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, BaseException | None]:
    """A log-in with the account's password that `owner` changes after the log-in checked it
    and before its session is written (the change's own check uses the real `_verify`):
    the account's pseudo, and what the log-in raised."""
    signed = await owner.sign_up(_sign_up(), "en")
    verify = accounts._verify

    async def racing(hashed: str, password: str) -> bool:
        monkeypatch.setattr(accounts, "_verify", verify)  # once
        ok = await verify(hashed, password)
        change = schemas.PasswordChange(current=PASSWORD, new=NEW_PASSWORD)
        await owner.change_password(signed.id, token_hash(signed.token), change, "192.0.2.1")
        return ok

    monkeypatch.setattr(accounts, "_verify", racing)
    try:
        await accounts.log_in(schemas.LogIn(login=signed.pseudo, password=PASSWORD), "192.0.2.9")
    except DomainError as refused:
        return signed.pseudo, refused
    return signed.pseudo, None


async def test_a_log_in_racing_a_new_password_gets_no_session(
    services: tuple[AccountService, ApiKeyService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old password was right when the log-in checked it, but a new one committed before
    its session was written (the change ends every other session under the account's row
    lock): the log-in is refused as a wrong password, and the new password logs in."""
    accounts, _ = services
    pseudo, refused = await _log_in_racing_a_new_password(accounts, accounts, monkeypatch)
    assert refused is not None
    _refused(Unauthenticated, "invalid-credentials", 401, refused)
    assert await accounts.log_in(schemas.LogIn(login=pseudo, password=NEW_PASSWORD), "192.0.2.9")


async def test_a_log_in_that_rehashes_never_puts_an_old_password_back(
    services: tuple[AccountService, ApiKeyService],
    pg_head: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A replica whose hash settings differ rehashes a password at log-in. One racing a new
    password is refused, and does not write the old password's hash over the new one; and
    three concurrent log-ins that each want the rehash all get a session (they take turns on
    the account's row: before, each held it shared and then wanted it for the update, and
    PostgreSQL broke the deadlock with a 500)."""
    owner, _ = services
    settings = Settings(
        database_url=pg_head, password_hash_time_cost=2, password_hash_memory_kib=8192
    )
    engine = create_engine(pg_head)
    try:
        rehashing = AccountService(engine, settings, Mailer(settings))
        pseudo, refused = await _log_in_racing_a_new_password(rehashing, owner, monkeypatch)
        assert refused is not None
        _refused(Unauthenticated, "invalid-credentials", 401, refused)
        # other networks: the strict limit of failures per login and network is 2 here
        with pytest.raises(DomainError) as old:
            await owner.log_in(schemas.LogIn(login=pseudo, password=PASSWORD), "198.51.100.9")
        _refused(Unauthenticated, "invalid-credentials", 401, old.value)
        new = schemas.LogIn(login=pseudo, password=NEW_PASSWORD)
        assert await owner.log_in(new, "203.0.113.9")

        again = (await owner.sign_up(_sign_up(), "en")).pseudo
        body = schemas.LogIn(login=again, password=PASSWORD)
        sessions = await asyncio.gather(
            *(rehashing.log_in(body, f"192.0.2.{20 + i}") for i in range(3))
        )
        assert len({s.token for s in sessions}) == 3
    finally:
        await engine.dispose()
