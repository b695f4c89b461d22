"""Accounts' refusals name every invalid field at once, with codes, in French or English by
`Accept-Language` (issue 23); a refused request writes nothing."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.accounts.conftest import account_body, auth, new_pseudo, sign_up

#: The commonest French sign-up mistakes at once: an accented pseudo, a 5-character
#: password, the terms left out.
MISTAKES = {"pseudo": "Adèle", "password": "12345", "age_range": "25-34"}


def test_a_french_sign_up_lists_all_three_mistakes(games: TestClient[Any]) -> None:
    r = games.post("/v1/accounts", json=MISTAKES, headers={"Accept-Language": "fr-FR, en;q=0.5"})
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["code"] == "validation-error"
    assert problem["errors"] == [
        {
            "field": "pseudo",
            "message": "3 à 24 lettres ASCII, chiffres, _ . - (sans accents)",
            "code": "pattern",
        },
        {
            "field": "password",
            "message": "doit contenir au moins 10 caractères",
            "code": "min-length",
        },
        {
            "field": "accept_terms",
            "message": "champ obligatoire 'accept_terms' absent",
            "code": "missing-field",
        },
    ]
    assert problem["detail"].startswith("pseudo: 3 à 24 lettres ASCII")
    assert "regex" not in r.text and "A-Za-z" not in r.text


def test_an_english_sign_up_lists_all_three_mistakes(games: TestClient[Any]) -> None:
    problem = games.post("/v1/accounts", json=MISTAKES).json()  # no Accept-Language: English
    assert [(e["field"], e["code"], e["message"]) for e in problem["errors"]] == [
        ("pseudo", "pattern", "3 to 24 ASCII letters, digits, _ . - (no accents)"),
        ("password", "min-length", "must hold at least 10 characters"),
        ("accept_terms", "missing-field", "required field 'accept_terms' is missing"),
    ]
    assert problem["detail"] == (
        "pseudo: 3 to 24 ASCII letters, digits, _ . - (no accents); "
        "password: must hold at least 10 characters; "
        "accept_terms: required field 'accept_terms' is missing"
    )


def test_a_refused_sign_up_writes_nothing(games: TestClient[Any]) -> None:
    pseudo = new_pseudo()
    body = {"pseudo": pseudo, "password": "12345", "age_range": "25-34", "accept_terms": True}
    assert games.post("/v1/accounts", json=body).status_code == 422
    assert sign_up(games, pseudo=pseudo)["pseudo"] == pseudo  # the pseudo is still free


def test_a_password_change_lists_both_fields(games: TestClient[Any]) -> None:
    """After authentication, every bad field of the body."""
    token = sign_up(games)["token"]
    body = {"current": 5, "new": "short", "again": "short"}
    r = games.post("/v1/me/password", json=body, headers={**auth(token), "Accept-Language": "fr"})
    assert r.status_code == 422
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [
        ("current", "type"),
        ("new", "min-length"),
        ("again", "unknown-field"),
    ]
    unauthenticated = games.post("/v1/me/password", json=body)
    assert unauthenticated.status_code == 401  # authentication comes before the body


FR = {"Accept-Language": "fr"}


def test_the_sign_up_and_log_in_refusals_speak_french(games: TestClient[Any]) -> None:
    """The first screens of the French app (« Créer mon compte », « Connexion »): the terms
    left unticked, a pseudo or an email already taken, a wrong password, each in French
    (detail and field message), and still in English without Accept-Language."""
    unticked = games.post("/v1/accounts", json=account_body(accept_terms=False), headers=FR)
    assert unticked.status_code == 422 and unticked.headers["content-language"] == "fr"
    problem = unticked.json()
    assert problem["code"] == "terms-not-accepted"
    assert problem["detail"] == (
        "accept_terms doit valoir true : les conditions d'utilisation (GET /v1/terms) "
        "s'acceptent à l'inscription"
    )
    assert problem["errors"] == [
        {"field": "accept_terms", "message": "doit valoir true", "code": "terms-not-accepted"}
    ]
    english = games.post("/v1/accounts", json=account_body(accept_terms=False)).json()
    assert english["errors"][0]["message"] == "must be true"

    first = sign_up(games, email=f"{new_pseudo()}@example.org")
    again = games.post(
        "/v1/accounts", json=account_body(pseudo=first["pseudo"].upper()), headers=FR
    )
    assert again.status_code == 409 and again.json()["code"] == "pseudo-taken"
    assert again.json()["detail"] == (
        "un autre compte utilise ce pseudo (sans distinction de majuscules)"
    )
    assert again.json()["errors"][0]["message"] == "un autre compte utilise ce pseudo"
    taken = games.post("/v1/accounts", json=account_body(email=first["email"]), headers=FR)
    assert taken.status_code == 409 and taken.json()["code"] == "email-taken"
    assert taken.json()["detail"] == "un autre compte utilise cet email"
    assert taken.json()["errors"][0] == {
        "field": "email",
        "message": "un autre compte utilise cet email",
        "code": "email-taken",
    }

    wrong = {"login": first["pseudo"], "password": "not the password at all"}
    refused = games.post("/v1/sessions", json=wrong, headers=FR)
    assert refused.status_code == 401 and refused.json()["code"] == "invalid-credentials"
    assert refused.json()["detail"] == "l'identifiant ou le mot de passe est incorrect"
    unknown = games.post("/v1/sessions", json={**wrong, "login": new_pseudo()}, headers=FR)
    assert unknown.json() == refused.json()  # one answer for both, in French too
    assert games.post("/v1/sessions", json=wrong).json()["detail"] == (
        "the login or the password is wrong"
    )
    for _ in range(10):
        throttled = games.post("/v1/sessions", json=wrong, headers=FR)
        if throttled.status_code == 429:
            break
    assert throttled.status_code == 429 and throttled.json()["code"] == "too-many-attempts"
    seconds = throttled.headers["retry-after"]
    assert throttled.json()["detail"] == (
        f"trop de tentatives échouées : réessaie dans {seconds} s"
    )
