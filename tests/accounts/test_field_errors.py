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
            "message": "3 à 24 caractères\u00a0: lettres sans accent, chiffres, tiret bas (_), point (.) ou trait d’union (-)",
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
    assert problem["detail"] == (  # French typography: no-break spaces before « : » and « ; »
        "pseudo\u00a0: 3 à 24 caractères\u00a0: lettres sans accent, chiffres, tiret bas (_), point (.) ou trait d’union (-)\u202f; "
        "mot de passe\u00a0: doit contenir au moins 10 caractères\u202f; "
        "conditions d’utilisation\u00a0: champ obligatoire 'accept_terms' absent"
    )
    assert "regex" not in r.text and "A-Za-z" not in r.text and "ASCII" not in r.text


def test_an_english_sign_up_lists_all_three_mistakes(games: TestClient[Any]) -> None:
    problem = games.post("/v1/accounts", json=MISTAKES).json()  # no Accept-Language: English
    assert [(e["field"], e["code"], e["message"]) for e in problem["errors"]] == [
        (
            "pseudo",
            "pattern",
            "3 to 24 characters: letters without accents, digits, underscore (_), dot (.) or hyphen (-)",
        ),
        ("password", "min-length", "must hold at least 10 characters"),
        ("accept_terms", "missing-field", "required field 'accept_terms' is missing"),
    ]
    assert problem["detail"] == (
        "pseudo: 3 to 24 characters: letters without accents, digits, underscore (_), dot (.) or hyphen (-); "
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


def _french(french: Any, english: Any, code: str, status: int) -> dict[str, Any]:
    """The same refusal in both languages: its status, code and fields, French words of its
    own (detail and each field message), English without Accept-Language."""
    assert french.status_code == english.status_code == status, french.text
    assert french.headers["content-language"] == "fr"
    assert english.headers["content-language"] == "en"
    fr, en = french.json(), english.json()
    assert fr["code"] == en["code"] == code
    assert fr["detail"] != en["detail"], fr["detail"]
    assert [e["field"] for e in fr.get("errors", [])] == [e["field"] for e in en.get("errors", [])]
    for f, e in zip(fr.get("errors", []), en.get("errors", []), strict=True):
        assert f["message"] != e["message"], f
    return dict(fr)


def test_the_sign_up_and_log_in_refusals_speak_french(games: TestClient[Any]) -> None:
    """The first screens of the French app (« Créer mon compte », « Connexion »): the terms
    left unticked, a pseudo or an email already taken, a wrong password, throttled log-ins,
    each in French (detail and field message), and in English without Accept-Language."""
    unticked = account_body(accept_terms=False)
    problem = _french(
        games.post("/v1/accounts", json=unticked, headers=FR),
        games.post("/v1/accounts", json=unticked),
        "terms-not-accepted",
        422,
    )
    assert [e["field"] for e in problem["errors"]] == ["accept_terms"]

    first = sign_up(games, email=f"{new_pseudo()}@example.org")
    again = account_body(pseudo=first["pseudo"].upper())
    _french(
        games.post("/v1/accounts", json=again, headers=FR),
        games.post("/v1/accounts", json=again),
        "pseudo-taken",
        409,
    )
    taken = account_body(email=first["email"])
    _french(
        games.post("/v1/accounts", json=taken, headers=FR),
        games.post("/v1/accounts", json=taken),
        "email-taken",
        409,
    )

    wrong = {"login": first["pseudo"], "password": "not the password at all"}
    refused = games.post("/v1/sessions", json=wrong, headers=FR)
    _french(refused, games.post("/v1/sessions", json=wrong), "invalid-credentials", 401)
    unknown = games.post("/v1/sessions", json={**wrong, "login": new_pseudo()}, headers=FR)
    assert unknown.json() == refused.json()  # one answer for both, in French too
    for _ in range(10):
        throttled = games.post("/v1/sessions", json=wrong, headers=FR)
        if throttled.status_code == 429:
            break
    assert throttled.status_code == 429 and throttled.json()["code"] == "too-many-attempts"
    assert throttled.headers["content-language"] == "fr"
    assert throttled.headers["retry-after"] in throttled.json()["detail"]
    english = games.post("/v1/sessions", json=wrong)
    assert english.status_code == 429
    assert english.json()["detail"] != throttled.json()["detail"]
