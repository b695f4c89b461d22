"""Accounts over HTTP against PostgreSQL (issue 12): sign-up, log-in by pseudo and by verified
email, sessions, throttling, password change and reset through a real SMTP server."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any

import asyncpg
import pytest
from litestar.testing import TestClient

from tests.accounts.conftest import Inbox, auth, new_pseudo, sign_up
from tests.pg import FAST_HASHES

PASSWORD = "a long enough password"


def _row(pg_url: str, sql: str, *args: Any) -> Any:
    async def fetch() -> Any:
        conn = await asyncpg.connect(pg_url.replace("+asyncpg", ""))
        try:
            return await conn.fetchrow(sql, *args)
        finally:
            await conn.close()

    return asyncio.run(fetch())


def test_sign_up_signs_in_at_once(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    created = sign_up(mail_client, pseudo=pseudo, age_range="18-24")
    assert created["pseudo"] == pseudo
    assert created["email"] is None and created["email_verified"] is False
    assert created["locale"] == "en" and created["terms_version"]
    me = mail_client.get("/v1/me", headers=auth(created["token"]))
    assert me.status_code == 200
    assert me.json()["id"] == created["id"] and me.json()["age_range"] == "18-24"
    assert "token" not in me.json() and "password" not in me.text and "$argon2" not in me.text
    assert me.headers["cache-control"] == "no-store"


def test_locale_from_accept_language(mail_client: TestClient[Any]) -> None:
    body = {
        "pseudo": new_pseudo(),
        "password": PASSWORD,
        "age_range": "35-49",
        "accept_terms": True,
    }
    r = mail_client.post("/v1/accounts", json=body, headers={"Accept-Language": "fr-CA, en;q=0.5"})
    assert r.status_code == 201 and r.json()["locale"] == "fr"


def test_pseudo_and_email_unique_case_insensitively(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    first = sign_up(mail_client, pseudo=pseudo, email=f"{pseudo}@Example.org")
    again = mail_client.post(
        "/v1/accounts",
        json={
            "pseudo": pseudo.upper(),
            "password": PASSWORD,
            "age_range": "25-34",
            "accept_terms": True,
        },
    )
    assert again.status_code == 409 and again.json()["code"] == "pseudo-taken"
    other = mail_client.post(
        "/v1/accounts",
        json={
            "pseudo": new_pseudo(),
            "password": PASSWORD,
            "age_range": "25-34",
            "accept_terms": True,
            "email": f"{pseudo.upper()}@example.ORG",
        },
    )
    assert other.status_code == 409 and other.json()["code"] == "email-taken"
    assert first["email"] == f"{pseudo}@Example.org"


@pytest.mark.parametrize(
    ("change", "code", "field"),
    [
        ({"accept_terms": False}, "terms-not-accepted", "accept_terms"),
        ({"password": "short"}, "validation-error", "password"),
        ({"age_range": "40-45"}, "validation-error", "age_range"),
        ({"pseudo": "ab"}, "validation-error", "pseudo"),
        ({"pseudo": "a" * 25}, "validation-error", "pseudo"),
        ({"pseudo": "ada@home"}, "validation-error", "pseudo"),
        ({"email": "not-an-email"}, "validation-error", "email"),
        ({"locale": "de"}, "validation-error", "locale"),
        ({"admin": True}, "unknown-field", "admin"),
    ],
)
def test_sign_up_rules(
    mail_client: TestClient[Any], change: dict[str, Any], code: str, field: str
) -> None:
    body = {
        "pseudo": new_pseudo(),
        "password": PASSWORD,
        "age_range": "25-34",
        "accept_terms": True,
        **change,
    }
    r = mail_client.post("/v1/accounts", json=body)
    assert r.status_code == 422, r.text
    problem = r.json()
    assert r.headers["content-type"].startswith("application/problem+json")
    assert problem["code"] == code
    assert field in problem["detail"] or any(field in e["field"] for e in problem["errors"])
    # nothing was written: the pseudo is still free
    if field != "pseudo":
        assert sign_up(mail_client, pseudo=body["pseudo"])["pseudo"] == body["pseudo"]


def test_log_in_by_pseudo_and_by_verified_email(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int]
) -> None:
    pseudo = new_pseudo()
    address = f"{pseudo}@example.org"
    sign_up(mail_client, pseudo=pseudo, email=address)
    by_pseudo = mail_client.post(
        "/v1/sessions", json={"login": pseudo.upper(), "password": PASSWORD}
    )
    assert by_pseudo.status_code == 201 and by_pseudo.json()["expires_at"]
    # an unverified email does not log in: the same answer as an unknown login
    early = mail_client.post("/v1/sessions", json={"login": address, "password": PASSWORD})
    assert early.status_code == 401 and early.json()["code"] == "invalid-credentials"
    token = inbox[0].token(address, "confirm your email")
    confirmed = mail_client.post("/v1/email-verifications/confirm", json={"token": token})
    assert confirmed.status_code == 200 and confirmed.json()["email_verified"] is True
    by_email = mail_client.post(
        "/v1/sessions", json={"login": address.upper(), "password": PASSWORD}
    )
    assert by_email.status_code == 201
    me = mail_client.get("/v1/me", headers=auth(by_email.json()["token"])).json()
    assert me["pseudo"] == pseudo and me["email_verified"] is True
    again = mail_client.post("/v1/email-verifications/confirm", json={"token": token})
    assert again.status_code == 422 and again.json()["code"] == "invalid-token"


def test_unknown_login_and_wrong_password_answer_alike(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    sign_up(mail_client, pseudo=pseudo)
    wrong = mail_client.post("/v1/sessions", json={"login": pseudo, "password": "not it at all"})
    unknown = mail_client.post(
        "/v1/sessions", json={"login": new_pseudo(), "password": "not it at all"}
    )
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.content == unknown.content
    assert wrong.json()["code"] == "invalid-credentials"
    same = {"content-type", "www-authenticate", "content-length"}
    assert {h: wrong.headers.get(h) for h in same} == {h: unknown.headers.get(h) for h in same}


def test_unknown_login_checks_a_dummy_hash(mail_client: TestClient[Any]) -> None:
    """Both failures cost one Argon2id verification (a similar time, not a quick refusal)."""
    store = mail_client.app.state.accounts
    calls: list[str] = []
    hasher = store.hasher

    class Counting:
        def verify(self, hashed: str, password: str) -> bool:
            calls.append(hashed)
            return bool(hasher.verify(hashed, password))

        def __getattr__(self, name: str) -> Any:
            return getattr(hasher, name)

    pseudo = new_pseudo()
    sign_up(mail_client, pseudo=pseudo)
    store.hasher = Counting()
    try:
        mail_client.post("/v1/sessions", json={"login": pseudo, "password": "wrong password!"})
        mail_client.post("/v1/sessions", json={"login": new_pseudo(), "password": "wrong pw!!"})
    finally:
        store.hasher = hasher
    assert len(calls) == 2 and all(h.startswith("$argon2id$") for h in calls)


def test_failed_log_ins_are_throttled(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    sign_up(mail_client, pseudo=pseudo)
    limit = mail_client.app.state.accounts.throttle.strict
    for _ in range(limit):
        r = mail_client.post("/v1/sessions", json={"login": pseudo, "password": "wrong password"})
        assert r.status_code == 401
    blocked = mail_client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    assert blocked.status_code == 429, blocked.text
    assert blocked.json()["code"] == "too-many-attempts"
    assert 0 < int(blocked.headers["retry-after"]) <= 900
    # an unknown login is throttled the same way
    ghost = new_pseudo()
    answers = [
        mail_client.post("/v1/sessions", json={"login": ghost, "password": "x" * 12}).status_code
        for _ in range(limit + 1)
    ]
    assert answers == [401] * limit + [429]


def test_throttle_per_address_holds_across_replicas(pg_head: str) -> None:
    """Two app instances (two replicas, each its own connection pool) on one database share
    the count of failures from one client address."""
    from api.accounts.schemas import LogIn
    from api.app import create_app
    from api.http.domain import DomainError
    from api.ops.settings import Settings

    settings = Settings(database_url=pg_head, login_max_failures_per_address=3, **FAST_HASHES)
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"
    codes = []
    with TestClient(create_app(settings)) as one, TestClient(create_app(settings)) as two:
        for i in range(5):
            replica = one if i % 2 == 0 else two
            body = LogIn(login=new_pseudo(), password="x" * 12)
            try:
                replica.blocking_portal.call(replica.app.state.accounts.log_in, body, address)
            except DomainError as exc:
                codes.append(exc.code)
    assert codes == ["invalid-credentials"] * 3 + ["too-many-attempts"] * 2
    # every attempt is counted before its password is checked (the refused ones too)
    row = _row(pg_head, "SELECT failures FROM login_throttle WHERE key = $1", f"network:{address}")
    assert row["failures"] == 5


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
def test_the_log_in_throttle_on_both_databases(
    database: str, pg_head: str, sqlite_url: str
) -> None:
    """The throttle's upserts on both databases the service runs on (SQLite compares times as
    text): the strict limit per (login, network), IPv6 counted by /64, a clean network past
    the ceiling, the doubling delay of a failing one, and a success that clears its network."""
    from api.accounts.schemas import LogIn
    from api.app import create_app
    from api.db import migrations
    from api.http.domain import DomainError
    from api.ops.settings import Settings

    url = pg_head
    if database == "sqlite":
        migrations.upgrade(sqlite_url)
        url = sqlite_url
    settings = Settings(database_url=url, check_db_on_start=False, login_ceiling=5, **FAST_HASHES)
    with TestClient(create_app(settings)) as client:
        pseudo = sign_up(client)["pseudo"]

        def attempt(address: str, password: str = "wrong password") -> str:
            call = client.app.state.accounts.log_in
            try:
                client.blocking_portal.call(call, LogIn(login=pseudo, password=password), address)
            except DomainError as exc:
                retry = exc.headers.get("Retry-After", "")
                return f"{exc.code} {retry}".strip()
            return "session"

        def near(said: list[str], expected: list[str]) -> bool:
            """`said` is `expected`, a Retry-After allowed one second short (the seconds
            left of a window: a loaded machine may let one pass before the answer)."""

            def close(a: str, b: str) -> bool:
                (code_a, _, retry_a), (code_b, _, retry_b) = a.partition(" "), b.partition(" ")
                if code_a != code_b or not retry_b:
                    return a == b
                return retry_a.isdigit() and int(retry_b) - 1 <= int(retry_a) <= int(retry_b)

            return len(said) == len(expected) and all(map(close, said, expected))

        one, other = "2001:db8:9::1", "2001:db8:9::ffff:2"  # one /64
        assert near(
            [attempt(a) for a in [one, other] * 3],
            ["invalid-credentials"] * 5 + ["too-many-attempts 900"],
        )
        assert attempt("2001:db8:a::1", PASSWORD) == "session"  # the owner, elsewhere
        # past the ceiling (5): a clean network reaches the password check, a failing one
        # waits a delay doubling with each attempt
        assert attempt("192.0.2.1") == "invalid-credentials"
        assert near(
            [attempt("192.0.2.1") for _ in range(3)],
            ["too-many-attempts 2", "too-many-attempts 4", "too-many-attempts 8"],
        )
        assert attempt("192.0.2.2") == "invalid-credentials"
        assert attempt("192.0.2.3", PASSWORD) == "session"
        assert near([attempt("192.0.2.1", PASSWORD)], ["too-many-attempts 32"])


def test_log_out_ends_the_session(mail_client: TestClient[Any]) -> None:
    token = sign_up(mail_client)["token"]
    assert mail_client.delete("/v1/sessions/current", headers=auth(token)).status_code == 204
    after = mail_client.get("/v1/me", headers=auth(token))
    assert after.status_code == 401 and after.json()["code"] == "unauthorized"
    assert mail_client.get("/v1/me").status_code == 401
    assert mail_client.get("/v1/me", headers={"Authorization": "Basic abc"}).status_code == 401


def test_password_change_ends_other_sessions(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    first = sign_up(mail_client, pseudo=pseudo)["token"]
    second = mail_client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    other = second.json()["token"]
    wrong = mail_client.post(
        "/v1/me/password",
        json={"current": "not the one!", "new": "another password"},
        headers=auth(first),
    )
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong-password"
    short = mail_client.post(
        "/v1/me/password", json={"current": PASSWORD, "new": "short"}, headers=auth(first)
    )
    assert short.status_code == 422
    ok = mail_client.post(
        "/v1/me/password",
        json={"current": PASSWORD, "new": "another password"},
        headers=auth(first),
    )
    assert ok.status_code == 204
    assert mail_client.get("/v1/me", headers=auth(first)).status_code == 200
    assert mail_client.get("/v1/me", headers=auth(other)).status_code == 401
    old = mail_client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    assert old.status_code == 401
    new = mail_client.post("/v1/sessions", json={"login": pseudo, "password": "another password"})
    assert new.status_code == 201


def test_password_reset_by_email(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int], pg_head: str
) -> None:
    pseudo = new_pseudo()
    address = f"{pseudo}@example.org"
    created = sign_up(mail_client, pseudo=pseudo, email=address, locale="fr")
    verify = inbox[0].token(address, "confirme ton e-mail")
    assert mail_client.post("/v1/email-verifications/confirm", json={"token": verify}).is_success
    known = mail_client.post("/v1/password-resets", json={"login": address})
    unknown = mail_client.post("/v1/password-resets", json={"login": "nobody@example.org"})
    no_email = mail_client.post(
        "/v1/password-resets", json={"login": sign_up(mail_client)["pseudo"]}
    )
    assert known.status_code == unknown.status_code == no_email.status_code == 202
    assert known.content == unknown.content == no_email.content
    token = inbox[0].token(address, "réinitialise ton mot de passe")
    # only its hash is stored
    assert _row(pg_head, "SELECT 1 FROM account_tokens WHERE token_hash = $1", token) is None
    bad = mail_client.post(
        "/v1/password-resets/confirm", json={"token": "x" * 43, "password": "brand new password"}
    )
    assert bad.status_code == 422 and bad.json()["code"] == "invalid-token"
    done = mail_client.post(
        "/v1/password-resets/confirm", json={"token": token, "password": "brand new password"}
    )
    assert done.status_code == 204
    assert mail_client.get("/v1/me", headers=auth(created["token"])).status_code == 401
    reused = mail_client.post(
        "/v1/password-resets/confirm", json={"token": token, "password": "yet another one!"}
    )
    assert reused.status_code == 422
    assert (
        mail_client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD}).status_code
        == 401
    )
    assert (
        mail_client.post(
            "/v1/sessions", json={"login": address, "password": "brand new password"}
        ).status_code
        == 201
    )


def test_update_me(mail_client: TestClient[Any], inbox: tuple[Inbox, int]) -> None:
    created = sign_up(mail_client)
    token = created["token"]
    address = f"{created['pseudo']}@example.net"
    r = mail_client.patch("/v1/me", json={"email": address, "locale": "fr"}, headers=auth(token))
    assert r.status_code == 200, r.text
    assert r.json()["email"] == address and r.json()["email_verified"] is False
    assert r.json()["locale"] == "fr"
    verify = inbox[0].token(address, "confirme ton e-mail")
    assert mail_client.post("/v1/email-verifications/confirm", json={"token": verify}).is_success
    assert mail_client.get("/v1/me", headers=auth(token)).json()["email_verified"] is True
    removed = mail_client.patch("/v1/me", json={"email": None}, headers=auth(token))
    assert removed.json()["email"] is None and removed.json()["email_verified"] is False
    taken_by = sign_up(mail_client, email=f"{new_pseudo()}@example.net")
    clash = mail_client.patch("/v1/me", json={"email": taken_by["email"]}, headers=auth(token))
    assert clash.status_code == 409 and clash.json()["code"] == "email-taken"
    assert mail_client.patch("/v1/me", json={"pseudo": "x"}, headers=auth(token)).status_code == 422


def test_delete_me(mail_client: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    token = sign_up(mail_client, pseudo=pseudo)["token"]
    assert mail_client.delete("/v1/me", headers=auth(token)).status_code == 204
    assert mail_client.get("/v1/me", headers=auth(token)).status_code == 401
    login = mail_client.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
    assert login.status_code == 401
    assert sign_up(mail_client, pseudo=pseudo)["pseudo"] == pseudo  # the pseudo is free again


def test_terms_in_both_languages(mail_client: TestClient[Any]) -> None:
    en = mail_client.get("/v1/terms").json()
    fr = mail_client.get("/v1/terms", headers={"Accept-Language": "fr"}).json()
    assert en["version"] == fr["version"] == sign_up(mail_client)["terms_version"]
    assert en["locale"] == "en" and fr["locale"] == "fr" and en["text"] != fr["text"]


def test_log_in_rehashes_when_parameters_change(pg_head: str) -> None:
    """argon2-cffi's defaults (RFC 9106 low-memory profile) in production; a hash made with
    other parameters is replaced at the next log-in."""
    from api.app import create_app
    from api.ops.settings import Settings

    assert (Settings().password_hash_time_cost, Settings().password_hash_memory_kib) == (3, 65536)
    pseudo = new_pseudo()
    with TestClient(create_app(Settings(database_url=pg_head, **FAST_HASHES))) as cheap:
        sign_up(cheap, pseudo=pseudo)
    before = _row(pg_head, "SELECT password_hash FROM accounts WHERE pseudo = $1", pseudo)
    assert "m=8192,t=1" in before["password_hash"]
    with TestClient(create_app(Settings(database_url=pg_head))) as strong:
        r = strong.post("/v1/sessions", json={"login": pseudo, "password": PASSWORD})
        assert r.status_code == 201
    after = _row(pg_head, "SELECT password_hash FROM accounts WHERE pseudo = $1", pseudo)
    assert (
        after["password_hash"].startswith("$argon2id$") and "m=65536,t=3" in after["password_hash"]
    )


def test_email_disabled_is_logged_once_without_tokens(
    pg_head: str, capfd: pytest.CaptureFixture[str]
) -> None:
    from api.app import create_app
    from api.ops.settings import Settings

    with TestClient(create_app(Settings(database_url=pg_head, **FAST_HASHES))) as client:
        accounts = [sign_up(client, email=f"{new_pseudo()}@example.org") for _ in range(2)]
        client.post("/v1/password-resets", json={"login": accounts[0]["pseudo"]})
    # the log lines as the process writes them (standard error)
    text = capfd.readouterr().err
    assert text.count("email is disabled") == 1
    for account in accounts:
        assert account["token"] not in text and account["email"] not in text
    assert PASSWORD not in text


def test_a_new_password_ends_every_reset_token(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int]
) -> None:
    """An older reset email cannot take the account back once the password changed (found by
    a newcomer: a token of an earlier request still worked after a reset)."""
    pseudo = new_pseudo()
    address = f"{pseudo}@example.org"
    session = sign_up(mail_client, pseudo=pseudo, email=address)["token"]
    verify = inbox[0].token(address, "confirm your email")
    assert mail_client.post("/v1/email-verifications/confirm", json={"token": verify}).is_success
    tokens = []
    for _ in range(3):
        assert mail_client.post("/v1/password-resets", json={"login": pseudo}).status_code == 202
        _wait(inbox[0], address, "reset your password", len(tokens) + 1)
        tokens.append(inbox[0].token(address, "reset your password"))
    assert len(set(tokens)) == 3
    done = mail_client.post(
        "/v1/password-resets/confirm", json={"token": tokens[2], "password": "third password!"}
    )
    assert done.status_code == 204
    for old in tokens[:2]:
        late = mail_client.post(
            "/v1/password-resets/confirm", json={"token": old, "password": "attacker's choice"}
        )
        assert late.status_code == 422 and late.json()["code"] == "invalid-token"
    # a password change ends them too
    assert mail_client.get("/v1/me", headers=auth(session)).status_code == 401
    session = mail_client.post(
        "/v1/sessions", json={"login": pseudo, "password": "third password!"}
    ).json()["token"]
    assert mail_client.post("/v1/password-resets", json={"login": pseudo}).status_code == 202
    _wait(inbox[0], address, "reset your password", 4)
    pending = inbox[0].token(address, "reset your password")
    changed = mail_client.post(
        "/v1/me/password",
        json={"current": "third password!", "new": "fourth password"},
        headers=auth(session),
    )
    assert changed.status_code == 204
    late = mail_client.post(
        "/v1/password-resets/confirm", json={"token": pending, "password": "attacker's choice"}
    )
    assert late.status_code == 422


def test_the_same_unverified_email_again_resends_its_link(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int]
) -> None:
    created = sign_up(mail_client, email=f"{new_pseudo()}@example.org")
    address = created["email"]
    assert len(inbox[0].to(address, "confirm your email")) == 1
    again = mail_client.patch("/v1/me", json={"email": address}, headers=auth(created["token"]))
    assert again.status_code == 200 and again.json()["email_verified"] is False
    _wait(inbox[0], address, "confirm your email", 2)
    assert len(inbox[0].to(address, "confirm your email")) == 2


def test_the_server_never_believes_x_forwarded_for_by_itself() -> None:
    """uvicorn's own default reads `X-Forwarded-For` from 127.0.0.1: off, so only
    NUMRULES_TRUSTED_PROXIES decides whose address a request is (log-in throttle, rate
    limit, access lines)."""
    from api.ops.server import server_options
    from api.ops.settings import Settings

    assert server_options(Settings())["proxy_headers"] is False


def _wait(inbox: Inbox, address: str, subject: str, count: int) -> None:
    """Until `count` such messages arrived (10 s at most)."""
    deadline = time.monotonic() + 10
    while len(inbox.to(address, subject)) < count and time.monotonic() < deadline:
        time.sleep(0.05)


class _Owner:
    """An account with a verified email on `client`'s app, and what the tests of a new
    password do with it and its seats."""

    def __init__(self, client: TestClient[Any], inbox: Inbox) -> None:
        self.client, self.inbox = client, inbox
        self.pseudo = new_pseudo()
        self.address = f"{self.pseudo}@example.org"
        sign_up(client, pseudo=self.pseudo, email=self.address, locale="fr")
        verify = inbox.token(self.address, "confirme ton e-mail")
        assert client.post("/v1/email-verifications/confirm", json={"token": verify}).is_success

    def log_in(self, password: str = PASSWORD) -> dict[str, str]:
        login = {"login": self.pseudo, "password": password}
        answer = self.client.post("/v1/sessions", json=login)
        assert answer.status_code == 201, answer.text
        return auth(answer.json()["token"])

    def reset(self, password: str) -> None:
        asked = self.client.post("/v1/password-resets", json={"login": self.address})
        assert asked.status_code == 202
        token = self.inbox.token(self.address, "réinitialise ton mot de passe")
        body = {"token": token, "password": password}
        done = self.client.post("/v1/password-resets/confirm", json=body)
        assert done.status_code == 204, done.text

    def table(self, players: list[dict[str, Any]]) -> dict[str, Any]:
        """A numwars-classic game of `players`, created by another account."""
        from tests.games.host import host

        body = {"ruleset": "numwars-classic", "players": players}
        answer = self.client.post("/v1/games", json=body, headers=host(self.client))
        assert answer.status_code == 201, answer.text
        game: dict[str, Any] = answer.json()
        return game

    def claim(self, game_id: str, seat: int, session: dict[str, str]) -> dict[str, str]:
        answer = self.client.post(f"/v1/games/{game_id}/seats/{seat}/claim", headers=session)
        assert answer.status_code in (200, 201), answer.text
        return auth(answer.json()["token"])

    def reads(self, game_id: str, headers: dict[str, str]) -> int:
        return self.client.get(f"/v1/games/{game_id}", headers=headers).status_code


def test_a_new_password_revokes_the_seat_tokens_the_account_claimed(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int]
) -> None:
    """An intruder who logged in with a stolen password and claimed the account's seat (a
    fresh token: the owner's revoked) keeps nothing once the owner resets the password. The
    seat stays the account's (its new session reads it, and claims a fresh token); a seat
    token the account did not claim (given to a game's creator) is left alone. A password
    change does the same; its own session still acts for the seat."""
    owner = _Owner(mail_client, inbox[0])
    reads = owner.reads
    table = owner.table([{"name": "Ada"}, {"open": True}, {"open": True}])["id"]
    named = owner.table([{"name": "Ada"}, {"name": "Pat", "account": owner.pseudo}, {"name": "Cy"}])
    given = auth(named["seats"][1]["token"])  # the creator's to hand over: never claimed
    first = owner.log_in()
    joined = mail_client.post(f"/v1/games/{named['id']}/seats/1/join", headers=first)
    assert joined.status_code == 200, joined.text
    owners = owner.claim(table, 1, first)
    intruder = owner.claim(table, 1, owner.log_in())  # another session: the owner's revoked
    assert (reads(table, owners), reads(table, intruder)) == (401, 200)
    players = [{"name": "Pat", "account": owner.pseudo}, {"name": "Bo"}, {"name": "Cy"}]
    body = {"ruleset": "numwars-classic", "players": players}
    made = mail_client.post("/v1/games", json=body, headers=owner.log_in())  # the intruder's
    assert made.status_code == 201, made.text
    own = auth(made.json()["seats"][0]["token"])  # the account's own seat, to its session
    assert reads(made.json()["id"], own) == 200

    new = "a brand new password"
    owner.reset(new)
    assert (reads(table, intruder), reads(made.json()["id"], own)) == (401, 401)
    assert reads(named["id"], given) == 200
    session = owner.log_in(new)
    assert reads(table, session) == 200  # the account's seat: its session reads it
    fresh = owner.claim(table, 1, session)
    assert reads(table, fresh) == 200

    changed = mail_client.post(
        "/v1/me/password", json={"current": new, "new": "yet another password"}, headers=session
    )
    assert changed.status_code == 204, changed.text
    assert (reads(table, fresh), reads(table, session), reads(named["id"], given)) == (
        401,
        200,
        200,
    )


def test_a_new_password_revokes_the_rematch_tokens_its_sessions_could_get(
    mail_client: TestClient[Any], inbox: tuple[Inbox, int]
) -> None:
    """The intruder claimed the account's seat, the game ended, and the intruder asked its
    rematch with the stolen session: the new game's token for the account's seat went to
    him. A password reset revokes it with the claimed one (which would otherwise ask the
    rematch again), in games over too; another account's claimed seat keeps its token, and
    the account's new session still reads both games as the seat's."""
    owner = _Owner(mail_client, inbox[0])
    reads = owner.reads
    table = owner.table([{"name": "Ada"}, {"open": True}, {"open": True}])["id"]
    owner.claim(table, 1, owner.log_in())
    intruder = owner.log_in()
    stolen = owner.claim(table, 1, intruder)
    someone = owner.claim(table, 2, auth(sign_up(mail_client)["token"]))  # the game starts
    assert mail_client.post(f"/v1/games/{table}/abandon", headers=stolen).status_code == 200
    rematched = mail_client.post(f"/v1/games/{table}/rematch", headers=intruder)
    assert rematched.status_code == 201, rematched.text
    again = rematched.json()["id"]
    given = auth(rematched.json()["seats"][0]["token"])  # the old seat 1 sits at 0
    assert (reads(table, stolen), reads(again, given)) == (200, 200)

    new = "a brand new password"
    owner.reset(new)
    assert (reads(table, stolen), reads(again, given)) == (401, 401)
    assert mail_client.post(f"/v1/games/{table}/rematch", headers=stolen).status_code == 401
    assert reads(table, someone) == 200  # another account's claimed seat
    session = owner.log_in(new)
    assert (reads(table, session), reads(again, session)) == (200, 200)
    asked = mail_client.post(f"/v1/games/{table}/rematch", headers=session)
    assert asked.status_code == 200, asked.text  # the rematch's seat: a token again, once
    assert reads(again, auth(asked.json()["seats"][0]["token"])) == 200
