"""Accounts' refusals in English and French (issue 23), each problem code from a request of
its own (tests/languages.py checks both answers), on the run's PostgreSQL database."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from tests.accounts.conftest import account_body, auth, new_pseudo, sign_up
from tests.languages import EN, FR, Case, check_both


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
