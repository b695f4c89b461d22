"""French typography of every French text the API and the engine send (issue 24, "French
first"), by the rules the app's own words follow (tests/typography.py): ’ never ', a no-break
space before « : » and inside « », a narrow one before « ? », « ! » and « ; ».

The texts are enumerated, not picked: every text of the catalog (refusals, problem details,
illegal-move explanations, score-line labels, field rules) and every word a sentence says a
code with (an action, a phase, a card, a role, a ruleset, a field), found in the catalog's
`words` and in every module of `engine` and `api`; the rules summary of every ruleset, the
terms and the emails as the API sends them, the page served when the app is not built and the
app's manifest; and the French problem of every code tests/api/test_languages.py answers
(tests/languages.py's `check_both` checks every suite's French problems the same way). A template is read with its parameters left out: a
`{value!r}` is the client's value quoted as sent (its quotes tell a string from a number, and
problem details cut such quoted values short), so a detail's quoted values are left out too.
"""

from __future__ import annotations

import html
import importlib
import json
import pkgutil
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from litestar.testing import TestClient

import api
import api.app
import engine
from api.accounts.texts import mail_text
from api.web.routes import NOT_BUILT
from engine.core.texts import CATALOG, Text
from tests.api.test_languages import FR, REQUESTS
from tests.conftest import ROOT
from tests.typography import QUOTED, problem_faults, typography_faults

#: A template's parameter, `{name}`, `{name!r}`; `{{` and `}}` are none (none is used).
_FIELD = re.compile(r"\{[^{}]*\}")


def shown(template: str) -> str:
    """A French template's own words: each parameter as `X`."""
    return _FIELD.sub("X", template)


#: Modules that say nothing and run on import: the database migrations (Alembic's scripts).
_SILENT = ("api.db.scripts",)


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    yield package
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if not info.name.startswith(_SILENT) and not info.name.endswith(".__main__"):
            yield importlib.import_module(info.name)


def _texts_in(value: Any, depth: int = 0) -> Iterator[Text]:
    """The texts `value` holds: itself, or its items (a mapping's values, a list's or a
    tuple's items, two levels deep: `{code: {code: Text}}`)."""
    if isinstance(value, Text):
        yield value
        for words in (value.words or {}).values():
            yield from words.values()
    elif depth < 3 and isinstance(value, dict | list | tuple):
        for item in value.values() if isinstance(value, dict) else value:
            yield from _texts_in(item, depth + 1)


def every_text() -> dict[str, Text]:
    """Every text the engine and the API can say, by key: the catalog's, the words their
    parameters are said with, and every text a module of `engine` or `api` holds."""
    found: dict[str, Text] = {}
    for t in _texts_in(list(CATALOG.values())):
        found.setdefault(t.key, t)
    for package in (engine, api):
        for module in _modules(package):
            for value in vars(module).values():
                for t in _texts_in(value):
                    found.setdefault(t.key, t)
    return found


def test_the_walk_reads_a_template_without_its_values() -> None:
    planted = Text("planted", "{card!r}: bad {x}", "{card!r} n'est : {x} pas")
    assert shown(planted.fr) == "X n'est : X pas"
    assert [what for _, what in typography_faults([shown(planted.fr)])] == [
        "a straight apostrophe (')",
        "an ordinary space before ?, !, : or ;",
    ]
    assert QUOTED.sub("Q", "la carte 'red-99' n’existe pas : If-Match: \"3\"") == (
        "la carte Q n’existe pas : If-Match: Q"
    )


def test_every_french_text_is_typeset() -> None:
    texts = every_text()
    assert len(CATALOG) > 300 and len(texts) > len(CATALOG) + 100  # the words were found too
    for words in ("action-call", "phase-exchange", "card-joker", "role-count-2-civil"):
        assert words in texts, words  # a code's words, not in the catalog
    assert typography_faults(shown(t.fr) for t in texts.values()) == []


def test_every_rules_summary_is_typeset(client: TestClient[Any]) -> None:
    """Every ruleset's name, description and rules summary (the app's « Règles de Calcul »)
    as `GET /v1/rulesets/{id}` sends them in French."""
    catalogue = client.get("/v1/rulesets", headers=FR).json()["rulesets"]
    assert {"numwars", "numwars-classic", "numking", "numwin"} <= {r["id"] for r in catalogue}
    for entry in catalogue:
        answer = client.get(f"/v1/rulesets/{entry['id']}", headers=FR)
        assert answer.status_code == 200 and answer.headers["content-language"] == "fr"
        one = answer.json()
        assert set(one["summary"]) == {"setup", "turn", "hierarchy", "scoring"}
        said = [entry["name"], one["name"], one["description"], *one["summary"].values()]
        assert typography_faults(said) == [], entry["id"]


def test_the_terms_and_the_emails_are_typeset(client: TestClient[Any]) -> None:
    terms = client.get("/v1/terms", headers=FR).json()
    assert terms["locale"] == "fr" and "pseudo" in terms["text"]
    said = [terms["text"]]
    for purpose in ("verify", "reset"):
        subject, body = mail_text(purpose, "fr", "ana", "tok_123", 2, "https://app.example")
        assert "tok_123" in body and "Bonjour ana" in body
        said += [subject, body]
    assert typography_faults(said) == []


def test_the_pages_words_are_typeset() -> None:
    """The French of the page served when the app is not built, and the app's manifest's
    description (an install dialog shows it)."""
    (paragraph,) = re.findall(r'<p lang="fr">(.*?)</p>', NOT_BUILT, re.S)
    said = html.unescape(re.sub(r"<[^>]+>", "", paragraph))
    assert said.startswith("L’application n’est pas construite")
    manifest = json.loads((ROOT / "app" / "public" / "manifest.webmanifest").read_text())
    assert manifest["lang"] == "fr"
    assert typography_faults([said, manifest["name"], manifest["description"]]) == []


@pytest.mark.parametrize("code", sorted(REQUESTS))
def test_every_french_problem_is_typeset(client: TestClient[Any], code: str) -> None:
    """The French problem each code is answered with (tests/api/test_languages.py's requests):
    its title, detail and every entry's message, the client's quoted values left out."""
    method, path, body, headers = REQUESTS[code]
    kwargs: dict[str, Any] = {"headers": {**headers, **FR}}
    if isinstance(body, bytes):
        kwargs["content"] = body
    elif body is not None:
        kwargs["json"] = body
    problem = client.request(method, path, **kwargs).json()
    assert problem["code"] == code, problem
    assert problem_faults(problem) == [], problem
