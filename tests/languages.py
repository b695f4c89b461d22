"""One problem code answered in English and in French (issue 23): the checks each suite's
language test makes, and the headers it sends. A suite lists its cases as
`CASES: {code: (client, headers) -> response}`, each setting up its own state, and
tests/api/test_languages.py reads those lists to know where each code is tested."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from api.http.problems import TITLES
from tests.typography import problem_faults

EN = {"accept-language": "en"}
FR = {"accept-language": "fr-FR, fr;q=0.9, en;q=0.5"}

#: A request answered by one problem code, in the language of the headers given.
Case = Callable[[Any, dict[str, str]], Any]


def _negotiated(response: Any, language: str) -> None:
    assert response.headers["content-language"] == language
    vary = {v.strip().lower() for v in response.headers.get("vary", "").split(",")}
    assert "accept-language" in vary


def check_both(client: Any, code: str, case: Case) -> tuple[dict[str, Any], dict[str, Any]]:
    """`case` answered with `code` in English and in French: the same status, type, fields and
    codes; a French title, detail and every `errors[].message` of their own, in French
    typography."""
    english, french = case(client, EN), case(client, FR)
    for response in (english, french):
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == code, response.text
    _negotiated(english, "en")
    _negotiated(french, "fr")
    en, fr = english.json(), french.json()
    assert (en["status"], en["type"]) == (fr["status"], fr["type"])
    assert en["title"] == TITLES[en["status"]].en and fr["title"] == TITLES[fr["status"]].fr
    assert en.get("reason") == fr.get("reason")
    en_errors, fr_errors = en.get("errors", []), fr.get("errors", [])
    assert [(e["field"], e["code"]) for e in en_errors] == [
        (e["field"], e["code"]) for e in fr_errors
    ]
    assert fr["detail"] != en["detail"], fr
    for en_error, fr_error in zip(en_errors, fr_errors, strict=True):
        assert fr_error["message"] != en_error["message"], fr_error
    assert problem_faults(fr) == [], fr  # French typography (issue 24), as the app's words
    return en, fr
