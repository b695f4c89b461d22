"""Accounts' refusals in English and French (issue 23), each problem code from a request of
its own (tests/languages.py checks both answers), on the run's PostgreSQL database."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from api.accounts.service import MAX_KEYS
from api.ops.settings import Settings
from tests.accounts.conftest import account_body, auth, new_pseudo, sign_up
from tests.languages import EN, FR, Case, check_both

#: Wrong passwords an account takes before 429 (the apps of the tests keep the default).
STRICT = Settings.model_fields["login_max_failures"].default


def _terms(client: Any, headers: dict[str, str]) -> Any:
    return client.post("/v1/accounts", json=account_body(accept_terms=False), headers=headers)


def _pseudo_taken(client: Any, headers: dict[str, str]) -> Any:
    pseudo = new_pseudo()
    sign_up(client, pseudo=pseudo)
    return client.post("/v1/accounts", json=account_body(pseudo=pseudo), headers=headers)


def _email_taken(client: Any, headers: dict[str, str]) -> Any:
    email = f"{secrets.token_hex(5)}@example.com"
    sign_up(client, email=email)
    return client.post("/v1/accounts", json=account_body(email=email), headers=headers)


def _invalid_credentials(client: Any, headers: dict[str, str]) -> Any:
    body = {"login": new_pseudo(), "password": "not the password"}
    return client.post("/v1/sessions", json=body, headers=headers)


def _wrong_password(client: Any, headers: dict[str, str]) -> Any:
    token = sign_up(client)["token"]
    body = {"current": "not the password", "new": "another long password"}
    return client.post("/v1/me/password", json=body, headers={**auth(token), **headers})


def _invalid_token(client: Any, headers: dict[str, str]) -> Any:
    body = {"token": secrets.token_urlsafe(32)}
    return client.post("/v1/email-verifications/confirm", json=body, headers=headers)


def _unauthorized(client: Any, headers: dict[str, str]) -> Any:
    return client.get("/v1/me", headers=headers)


def _bad_name(client: Any, headers: dict[str, str]) -> Any:
    token = sign_up(client)["token"]
    return client.post("/v1/me/api-keys", json={"name": "   "}, headers={**auth(token), **headers})


def _bad_cursor(client: Any, headers: dict[str, str]) -> Any:
    token = sign_up(client)["token"]
    return client.get("/v1/me/history?cursor=nope", headers={**auth(token), **headers})


def _too_many_api_keys(client: Any, headers: dict[str, str]) -> Any:
    """An account holding `MAX_KEYS` keys asks for one more."""
    session = auth(sign_up(client)["token"])
    for n in range(MAX_KEYS):
        made = client.post("/v1/me/api-keys", json={"name": f"key {n}"}, headers=session)
        assert made.status_code == 201, made.text
    return client.post("/v1/me/api-keys", json={"name": "one more"}, headers={**session, **headers})


def _too_many_attempts(client: Any, headers: dict[str, str]) -> Any:
    """Wrong current passwords, one past the account's limit (NUMRULES_LOGIN_MAX_FAILURES, 5
    by default; counted per account, so no other test's log-ins are slowed)."""
    session = auth(sign_up(client)["token"])
    body = {"current": "not the password", "new": "another long password"}
    for _ in range(STRICT):
        wrong = client.post("/v1/me/password", json=body, headers=session)
        assert wrong.json()["code"] == "wrong-password", wrong.text
    return client.post("/v1/me/password", json=body, headers={**session, **headers})


CASES: dict[str, Case] = {
    "terms-not-accepted": _terms,
    "pseudo-taken": _pseudo_taken,
    "email-taken": _email_taken,
    "invalid-credentials": _invalid_credentials,
    "wrong-password": _wrong_password,
    "invalid-token": _invalid_token,
    "unauthorized": _unauthorized,
    "bad-name": _bad_name,
    "bad-cursor": _bad_cursor,
    "too-many-api-keys": _too_many_api_keys,
    "too-many-attempts": _too_many_attempts,
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_an_account_refusal_in_english_and_in_french(games: Any, code: str) -> None:
    check_both(games, code, CASES[code])


def test_a_sign_up_names_the_terms_with_its_other_invalid_fields(games: Any) -> None:
    """`accept_terms: false` is one of a sign-up's invalid fields, all named in one 422."""
    body = account_body(accept_terms=False, age_range="old", pseudo="x")
    answer = games.post("/v1/accounts", json=body, headers=FR).json()
    assert answer["status"] == 422 and answer["code"] == "validation-error"
    codes = {e["field"]: e["code"] for e in answer["errors"]}
    assert codes == {
        "pseudo": "min-length",
        "age_range": "enum",
        "accept_terms": "terms-not-accepted",
    }
    alone = games.post("/v1/accounts", json=account_body(accept_terms=False), headers=EN).json()
    assert alone["code"] == "terms-not-accepted"
    assert alone["errors"] == [
        {
            "field": "accept_terms",
            "message": "must be true: the terms of GET /v1/terms are accepted at sign-up",
            "code": "terms-not-accepted",
        }
    ]
