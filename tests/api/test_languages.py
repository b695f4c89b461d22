"""French and English from the same codes (issue 23): every text in both languages, every
breakdown kind and every problem code answered in both, `Content-Language` and
`Vary: Accept-Language` on each negotiated answer, and no new refusal worded in one language.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from api.http.problems import STATUS_CODES, TITLES, database_unavailable, engine_problem
from engine.core.errors import InvalidInput
from engine.core.texts import CATALOG, KINDS, Text, text
from engine.core.tricks import check_players
from engine.core.values import BOMB_OUTCOMES, ROLES
from engine.registry import SPECS
from tests.accounts.test_languages import CASES as ACCOUNT_CASES
from tests.api.test_languages_limits import CASES as LIMIT_CASES
from tests.games.test_languages import CASES as GAME_CASES
from tests.problem_check import SpecIndex
from tests.sheets.test_languages import CODES as SHEET_CODES

ROOT = Path(__file__).resolve().parents[2]
EN = {"accept-language": "en"}
FR = {"accept-language": "fr-FR, fr;q=0.9, en;q=0.5"}


def _vary(response: Any) -> set[str]:
    return {v.strip().lower() for v in response.headers.get("vary", "").split(",")}


def _negotiated(response: Any, language: str) -> None:
    assert response.headers["content-language"] == language
    assert "accept-language" in _vary(response)


# --- the catalog ---------------------------------------------------------------------------


#: Texts that are the same word in both languages: JSON's own names.
SAME_WORDS = {"field-kind-null"}


def test_every_text_has_french_words_of_its_own() -> None:
    """A text with no French, or French that is the English copied, fails here."""
    assert len(CATALOG) > 100
    for key, t in CATALOG.items():
        assert t.key == key
        assert t.en.strip() and t.fr.strip(), key
        if key not in SAME_WORDS:
            assert t.en != t.fr, f"text {key!r} says the same in French as in English"


def test_a_text_must_have_both_languages_with_the_same_parameters() -> None:
    with pytest.raises(ValueError, match="both English and French"):
        Text("test-no-french", "a sentence", "")
    with pytest.raises(ValueError, match="different parameters"):
        Text("test-params", "{card} is bad", "{carte} est mauvaise")
    with pytest.raises(ValueError, match="different words"):
        text("card-not-in-deck", "another sentence", "une autre phrase")


# --- breakdown kinds -----------------------------------------------------------------------

#: One score-round request per ruleset whose lines, together, show every breakdown kind.
ROUNDS: list[tuple[str, dict[str, Any]]] = [
    (
        "numwars",
        {
            "players": [
                {
                    "captured": ["red-5", "blue-5", "green-5", "red-7"],
                    "pairs": [["rainbow-9", "shadow-9"]],
                    "role": "poseur",
                },
                {"captured": [], "role": "complice"},
                {"captured": ["bomb"], "role": "demineur"},
                {"captured": [], "role": "agent"},
            ],
            "bomb_outcome": "stolen",
        },
    ),
    (
        "numwars-classic",
        {
            "players": [
                {"captured": ["rainbow-14", "shadow-14", "red-8", "blue-8", "rainbow-3", "joker"]}
            ]
        },
    ),
    (
        "numking",
        {
            "cards": 5,
            "players": [
                {"bid": 2, "tricks": 2, "streak": 2},
                {"bid": 2, "tricks": 1},
                {"bid": 0, "tricks": 0},
                {"bid": 0, "tricks": 2},
            ],
        },
    ),
    (
        "numwin",
        {
            "players": [
                {
                    "combination": ["red-3", "blue-3", "red-9", "rainbow-4", "flip"],
                    "locked": [["green-2", "yellow-2"]],
                },
                {"combination": ["red-1", "blue-0", "green-0", "red-2", "blue-4"]},
                {"combination": ["rainbow-6", "rainbow-7", "red-5", "blue-5", "green-9"]},
            ],
            "caller": 0,
        },
    ),
]


def _score(client: TestClient[Any], ruleset: str, body: dict[str, Any], headers: Any) -> Any:
    response = client.post(f"/v1/rulesets/{ruleset}/score-round", json=body, headers=headers)
    assert response.status_code == 200, response.text
    return response


def test_every_breakdown_kind_in_english_and_french(client: TestClient[Any]) -> None:
    seen: set[str] = set()
    for ruleset, body in ROUNDS:
        english = _score(client, ruleset, body, EN)
        french = _score(client, ruleset, body, FR)
        _negotiated(english, "en")
        _negotiated(french, "fr")
        en_players, fr_players = english.json()["players"], french.json()["players"]
        assert [p["score"] for p in en_players] == [p["score"] for p in fr_players]
        for en_player, fr_player in zip(en_players, fr_players, strict=True):
            for en_line, fr_line in zip(
                en_player["breakdown"], fr_player["breakdown"], strict=True
            ):
                kind, params = en_line["kind"], en_line["params"]
                assert (fr_line["kind"], fr_line["params"]) == (kind, params)
                assert re.fullmatch(r"[a-z]+(-[a-z]+)*", kind)
                assert en_line["label"] == KINDS[kind].render("en", **params)
                assert fr_line["label"] == KINDS[kind].render("fr", **params)
                assert fr_line["label"] != en_line["label"]
                assert not _codes_in(fr_line["label"]), fr_line
                seen.add(kind)
    assert seen == set(KINDS), f"kinds no request here shows: {sorted(set(KINDS) - seen)}"
    numwars = _score(client, *ROUNDS[0], FR).json()["players"]
    labels = {line["label"] for p in numwars for line in p["breakdown"]}
    assert "bonus de rôle (Démineur, Bombe volée)" in labels
    assert "paire Rainbow 9 + Shadow 9" in labels


#: A code where a French label needs the game's word: a kebab-case id (`civil-capture`,
#: `rainbow-9`), or a role or a Bomb outcome as its id (`demineur`, `stolen`).
_KEBAB = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")
_IDS = re.compile(r"\b(?:" + "|".join(map(re.escape, (*ROLES, *BOMB_OUTCOMES))) + r")\b")


def _codes_in(label: str) -> list[str]:
    return _KEBAB.findall(label) + _IDS.findall(label)


def test_the_codes_are_caught() -> None:
    """The check below can fail: the labels French had before it."""
    found = _codes_in("bonus de rôle (demineur, complice-capture)")
    assert {"complice-capture", "demineur"} <= set(found)
    assert _codes_in("bonus de rôle (Démineur, stolen)") == ["stolen"]
    assert _codes_in("paire rainbow-9 + shadow-9") == ["rainbow-9", "shadow-9"]
    assert _codes_in("bonus de rôle (Agent double, Bombe volée)") == []


def test_no_french_label_names_a_code() -> None:
    """Every breakdown kind's French label, with every value of each parameter said in words
    (each role and each fate of the Bomb) and numbers for the others, uses the game's words
    (the app's "Règles de Calcul" card): « Démineur », « Bombe volée », « Rainbow 9 »."""
    role_bonus = KINDS["role-bonus"].words or {}
    assert set(role_bonus) == {"role", "outcome"}
    assert set(role_bonus["role"]) == set(ROLES)
    assert set(role_bonus["outcome"]) == set(BOMB_OUTCOMES)
    rendered = 0
    for key, kind in KINDS.items():
        words = kind.words or {}
        choices = {p: list(words.get(p, ())) or [0, 1, 7, 16] for p in sorted(kind.params)}
        for values in itertools.product(*choices.values()):
            params = dict(zip(choices, values, strict=True))
            label = kind.render("fr", **params)
            assert not _codes_in(label), (key, params, label)
            rendered += 1
    assert rendered > len(ROLES) * len(BOMB_OUTCOMES)
    french = KINDS["role-bonus"].render("fr", role="civil", outcome="civil-capture")
    assert french == "bonus de rôle (Civil, un Civil capture la Bombe)"
    # English keeps the codes, as the English rules name them
    english = KINDS["role-bonus"].render("en", role="demineur", outcome="stolen")
    assert english == "role bonus (demineur, stolen)"
    # a stored line whose value has no words is said as it is
    assert KINDS["role-bonus"].render("fr", role="x", outcome="kept") == (
        "bonus de rôle (x, Bombe gardée)"
    )


def test_the_default_language_is_english(client: TestClient[Any]) -> None:
    ruleset, body = ROUNDS[1]
    plain = _score(client, ruleset, body, {})
    _negotiated(plain, "en")
    assert plain.json() == _score(client, ruleset, body, EN).json()
    unknown = _score(client, ruleset, body, {"accept-language": "de, *;q=0.1"})
    assert unknown.headers["content-language"] == "en"


def test_a_move_message_and_the_ruleset_names_in_french(client: TestClient[Any]) -> None:
    move = {
        "players": 4,
        "hand": ["shadow-10", "shadow-14"],
        "trick": [{"seat": 0, "card": "rainbow-12"}],
        "card": "shadow-10",
    }
    path = "/v1/rulesets/numwars-classic/validate-move"
    english = client.post(path, json=move, headers=EN)
    french = client.post(path, json=move, headers=FR)
    _negotiated(french, "fr")
    assert english.json()["reason"] == french.json()["reason"] == "must-raise"
    assert english.json()["message"].startswith("Shadow 10 neither beats")
    assert french.json()["message"].startswith("Shadow 10 ne bat pas")
    catalogue = client.get("/v1/rulesets", headers=FR)
    _negotiated(catalogue, "fr")
    names = {r["id"]: r["name"] for r in catalogue.json()["rulesets"]}
    assert names == {i: SPECS[i].names["fr"] for i in names}
    one = client.get("/v1/rulesets/numking", headers=FR).json()
    assert one["name"] == SPECS["numking"].names["fr"] and one["language"] == "fr"


# --- problems ------------------------------------------------------------------------------

#: A request answered by each problem code: (method, path, JSON body or raw bytes, headers).
REQUESTS: dict[str, tuple[str, str, Any, dict[str, str]]] = {
    "unknown-card": (
        "POST",
        "/v1/rulesets/numwars/legal-moves",
        {"players": 4, "hand": ["red-99"], "trick": []},
        {},
    ),
    "card-not-in-deck": (
        "POST",
        "/v1/rulesets/numwars/legal-moves",
        {"players": 3, "hand": ["joker"], "trick": []},
        {},
    ),
    "duplicate-card": (
        "POST",
        "/v1/rulesets/numwars-classic/score-round",
        {"players": [{"captured": ["red-1", "red-1"]}]},
        {},
    ),
    "bad-trick": (
        "POST",
        "/v1/rulesets/numking/resolve-trick",
        {"players": 3, "trick": [{"seat": 0, "card": "red-1"}]},
        {},
    ),
    "missing-declared": (
        "POST",
        "/v1/rulesets/numking/legal-moves",
        {"players": 3, "hand": [], "trick": [{"seat": 0, "card": "infinity"}]},
        {},
    ),
    "bad-option": (
        "POST",
        "/v1/rulesets/numwin/score-round",
        {"players": [{"combination": ["red-1"] * 5}], "options": {"teams": True}},
        {},
    ),
    "bad-request": (
        "POST",
        "/v1/rulesets/numwin/score-round",
        {"players": [{"combination": ["red-1", "red-2", "red-3", "red-4", "red-5"]}], "caller": 3},
        {},
    ),
    "cards-mismatch": ("", "", None, {}),  # stored sheets: tests/sheets (their own database)
    "unknown-ruleset": ("GET", "/v1/rulesets/chess", None, {}),
    "not-found": ("GET", "/v1/no-such-thing", None, {}),
    "method-not-allowed": ("DELETE", "/v1/rulesets", None, {}),
    "missing-field": ("GET", "/v1/rulesets/numwin/deck", None, {}),
    "validation-error": ("GET", "/v1/rulesets/numwin/deck?players=4&players=5", None, {}),
    "unsupported-media-type": (
        "POST",
        "/v1/rulesets/numking/score-round",
        b'{"cards": 1}',
        {"content-type": "text/plain"},
    ),
    "body-too-large": (
        "POST",
        "/v1/rulesets/numking/score-round",
        b'{"cards": 1, "players": [' + b" " * 70_000 + b"]}",
        {"content-type": "application/json"},
    ),
    "unknown-field": (
        "POST",
        "/v1/rulesets/numking/score-round",
        {"cards": 1, "players": [{"bid": 0, "tricks": 0}], "x": 1},
        {},
    ),
    "bomb-mismatch": (
        "POST",
        "/v1/rulesets/numwars/score-round",
        {
            "players": [
                {"captured": [], "role": "poseur"},
                {"captured": ["bomb"], "role": "complice"},
                {"captured": [], "role": "demineur"},
                {"captured": [], "role": "agent"},
            ],
            "bomb_outcome": "kept",
        },
        {},
    ),
    "malformed-json": (
        "POST",
        "/v1/rulesets/numking/score-round",
        b"{",
        {"content-type": "application/json"},
    ),
    "bad-host": ("GET", "/v1/rulesets", None, {"host": "testserver.local:http"}),
}
del REQUESTS["cards-mismatch"]
#: Codes answered in both languages elsewhere, each from a request of its own: by the suites
#: with a database (stored games, accounts, sheets: tests/<area>/test_languages.py), and by
#: apps and a served process of their own (limits, throttles, failures:
#: tests/api/test_languages_limits.py).
TESTED_ELSEWHERE = {
    *GAME_CASES,
    *ACCOUNT_CASES,
    *SHEET_CODES,
    *LIMIT_CASES,
}


def _documented_codes() -> set[str]:
    """Every problem code the committed spec documents (the enums of its problem answers),
    and the codes known by status."""
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    index = SpecIndex(spec)
    codes: set[str] = set(STATUS_CODES.values())
    for item in spec["paths"].values():
        for operation in item.values():
            for status in operation.get("responses", {}):
                allowed = index.allowed(operation, int(status))
                if allowed is not None and allowed.codes is not None:
                    codes |= allowed.codes
    return codes


def test_every_documented_code_is_answered_in_both_languages() -> None:
    """A new problem code fails here until a French answer to it is tested (REQUESTS here,
    or a suite's cases). `bad-player-count` is answered through `engine_problem` below;
    `too-many-tricks` only by a sheet, in French in tests/sheets/test_checks.py."""
    documented = _documented_codes()
    # bad-player-count: through engine_problem below; too-many-tricks: a sheet's, in French in
    # tests/sheets/test_checks.py; headers-too-large: the server's, before any header is
    # read (tests/api/test_slow_clients.py), so in English
    # hints-off: in both languages in tests/games/test_bots.py; hint-in-flight,
    # hint-rate-limited (two served replicas) and bot-quota in tests/games/test_bots_limits.py
    elsewhere = {
        "bad-player-count",
        "too-many-tricks",
        "headers-too-large",
        "hints-off",
        "hint-in-flight",
        "hint-rate-limited",
        "bot-quota",
    }
    tested = set(REQUESTS) | TESTED_ELSEWHERE | elsewhere
    assert documented - tested == set()
    assert {"internal-error", "unavailable", "too-many-requests"} <= documented


def _send(client: TestClient[Any], code: str, language: dict[str, str]) -> Any:
    method, path, body, headers = REQUESTS[code]
    kwargs: dict[str, Any] = {"headers": {**headers, **language}}
    if isinstance(body, bytes):
        kwargs["content"] = body
    elif body is not None:
        kwargs["json"] = body
    return client.request(method, path, **kwargs)


@pytest.mark.parametrize("code", sorted(REQUESTS))
def test_a_problem_in_english_and_in_french(client: TestClient[Any], code: str) -> None:
    english = _send(client, code, EN)
    french = _send(client, code, FR)
    for response in (english, french):
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == code, response.text
    _negotiated(english, "en")
    _negotiated(french, "fr")
    en, fr = english.json(), french.json()
    assert (en["status"], en["type"]) == (fr["status"], fr["type"])
    assert en["title"] == TITLES[en["status"]].en and fr["title"] == TITLES[fr["status"]].fr
    assert [e["field"] for e in en.get("errors", [])] == [e["field"] for e in fr.get("errors", [])]
    assert fr["detail"] != en["detail"], fr
    for en_error, fr_error in zip(en.get("errors", []), fr.get("errors", []), strict=True):
        assert fr_error["message"] != en_error["message"]


#: Query and path parameters refused, by api.http.hygiene (an integer not written as one, a
#: parameter given twice) or by Litestar (a bound, a boolean): (method, path, the parameter,
#: its entry's code).
PARAMETERS = [
    ("GET", "/v1/rulesets/numking/deck?players=abc", "players", "type"),
    ("GET", "/v1/rulesets/numking/deck?players=2.5", "players", "type"),
    ("GET", "/v1/rulesets/numwars/deck?players=99999999999999999999", "players", "maximum"),
    # was `maximum` ("at most 8"): too many digits below zero is below the minimum
    ("GET", "/v1/rulesets/numwars/deck?players=-99999999999999999999", "players", "minimum"),
    ("GET", "/v1/games/" + "0" * 32 + "/events?after=-99999999999999999999", "after", "minimum"),
    ("GET", "/v1/rulesets/numwars/deck?players=4&players=5", "players", "invalid"),
    ("GET", "/v1/rulesets/numwars/deck?players=2", "players", "minimum"),
    ("GET", "/v1/rulesets/numwin/deck?players=9", "players", "maximum"),
    ("GET", "/v1/rulesets/numking/deck?players=4&zeros=maybe", "zeros", "type"),
    ("GET", "/v1/games/" + "0" * 32 + "/events?limit=9999", "limit", "maximum"),
]
#: English words that a French message about a parameter never holds.
_ENGLISH = re.compile(r"\b(?:must|not|an?|integer|string|at (?:least|most)|given|times)\b")


@pytest.mark.parametrize(("method", "path", "field", "code"), PARAMETERS)
def test_a_refused_parameter_in_english_and_in_french(
    client: TestClient[Any], method: str, path: str, field: str, code: str
) -> None:
    """Like a body's fields (api.http.fields): each parameter's message in the caller's
    language, and its entry's code says what kind of wrong."""
    english = client.request(method, path, headers=EN)
    french = client.request(method, path, headers=FR)
    _negotiated(english, "en")
    _negotiated(french, "fr")
    en, fr = english.json(), french.json()
    assert (en["status"], en["code"], fr["code"]) == (422, "validation-error", "validation-error")
    assert [(e["field"], e["code"]) for e in en["errors"]] == [(field, code)], en
    assert [(e["field"], e["code"]) for e in fr["errors"]] == [(field, code)], fr
    en_message, fr_message = en["errors"][0]["message"], fr["errors"][0]["message"]
    assert en_message.startswith(("must be", "given")), en_message
    assert fr_message != en_message and not _ENGLISH.search(fr_message), fr_message
    assert fr["detail"] != en["detail"] and fr_message in fr["detail"]
    # French puts a no-break space before a colon: "limit : doit …", whichever layer refused it
    assert (en["detail"], fr["detail"]) == (
        f"{field}: {en_message}",
        f"{field}\u00a0: {fr_message}",
    )


def test_a_detail_listing_several_fields_is_french_typography(client: TestClient[Any]) -> None:
    """Every invalid field at once (the engine's cards, an account's fields): the detail
    lists them "<field> : <message>" in French (no-break space before « : », narrow one before
    « ; »), "<field>: <message>" in English."""
    body = {"players": [{"captured": ["red-99", "blue-77"]}]}
    for path, sent in (("/v1/rulesets/numwars-classic/score-round", body),):
        english = client.post(path, json=sent, headers=EN).json()
        french = client.post(path, json=sent, headers=FR).json()
        assert len(french["errors"]) == 2, french
        assert french["detail"] == "\u202f; ".join(
            f"{e['field']}\u00a0: {e['message']}" for e in french["errors"]
        ), french
        assert english["detail"] == "; ".join(
            f"{e['field']}: {e['message']}" for e in english["errors"]
        ), english


def test_english_details_keep_their_words(client: TestClient[Any]) -> None:
    """English answers are as they were before texts (tests across the suite pin more)."""
    unknown = _send(client, "unknown-ruleset", EN).json()
    assert unknown["detail"].startswith("unknown ruleset 'chess' (known: numwars")
    deck = _send(client, "card-not-in-deck", EN).json()
    assert deck["detail"] == "card 'joker' is not in the 3-player numwars deck"
    assert _send(client, "card-not-in-deck", FR).json()["detail"] == (
        "la carte 'joker' n’est pas dans le paquet de numwars à 3 joueurs"
    )


def test_an_engine_refusal_the_schema_hides_is_worded_in_both() -> None:
    """`bad-player-count`: the request schemas bound the player counts, so the engine's own
    refusal (reached by stored games, on their own database) is checked as the handler
    renders it."""
    with pytest.raises(InvalidInput) as refused:
        check_players(2, 3, 8, "numwars")
    english, french = engine_problem(refused.value), engine_problem(refused.value, "fr")
    assert english.code == french.code == "bad-player-count"
    assert english.detail == "Num Wars is played by 3 to 8 players"
    assert french.detail == "Num Wars se joue de 3 à 8 joueurs"
    assert french.errors[0].message == french.detail and french.title == "Contenu irrecevable"


def test_a_ruleset_is_named_not_coded_in_every_sentence() -> None:
    """A `{ruleset}` parameter is said by the ruleset's name in each language (the newcomer's
    « numwars-classic est … »): every text taking one says the name of every registered
    ruleset, never its id."""
    from engine.core.texts import CATALOG, RULESET_NAMES
    from engine.registry import SPECS

    takers = [t for t in CATALOG.values() if "ruleset" in t.params and t.key != "unknown-ruleset"]
    assert len(takers) >= 6
    for t in takers:
        for ruleset_id, spec in SPECS.items():
            params = {p: ruleset_id if p in ("ruleset", "record") else "x" for p in t.params}
            for language in ("en", "fr"):
                said = t.render(language, **params)
                assert spec.names[language] in said, (t.key, language, said)
                if ruleset_id != spec.names[language].lower():
                    assert ruleset_id not in said.split(), (t.key, language, said)
    assert set(RULESET_NAMES) == set(SPECS)


def test_a_problem_raised_outside_a_route_is_worded_late() -> None:
    refusal = database_unavailable()
    assert refusal.problem.detail == "the database is unavailable: try again shortly"
    french = refusal.problem_in("fr")
    assert french.title == "Service indisponible" and "indisponible" in french.detail


def test_problems_of_the_http_wrapper_name_their_language(client: TestClient[Any]) -> None:
    """A problem api.http.hygiene makes itself (a docs path no file has) is negotiated too."""
    response = client.get("/docs/no-such-file", headers=FR)
    assert response.status_code == 404
    _negotiated(response, "fr")
    assert response.json()["title"] == "Introuvable"


# --- the spec ------------------------------------------------------------------------------


def test_the_spec_documents_the_language_headers_with_schemas() -> None:
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    headers = spec["components"]["headers"]
    assert headers["ContentLanguage"]["schema"] == {"type": "string", "enum": ["en", "fr"]}
    assert headers["VaryAcceptLanguage"]["schema"] == {"type": "string"}
    negotiated = {
        ("/v1/rulesets", "get", "200"),
        ("/v1/rulesets/numwin/score-round", "post", "200"),
        ("/v1/rulesets/numking/validate-move", "post", "200"),
        ("/v1/rulesets/numwin/score-round", "post", "422"),
        ("/v1/terms", "get", "200"),
        ("/v1/scoresheets/{sheet_id}", "get", "200"),
        ("/v1/games/{game_id}", "get", "200"),
    }
    for path, method, status in negotiated:
        documented = spec["paths"][path][method]["responses"][status]["headers"]
        assert documented["Content-Language"] == {"$ref": "#/components/headers/ContentLanguage"}
        assert documented["Vary"] == {"$ref": "#/components/headers/VaryAcceptLanguage"}
    deck = spec["paths"]["/v1/rulesets/numwin/deck"]["get"]["responses"]["200"]
    assert "Content-Language" not in deck.get("headers", {})


# --- raise sites ---------------------------------------------------------------------------

#: Calls that take a refusal's words, and the position of the words among their arguments.
_REFUSALS = {
    "InvalidInput": 0,
    "IllegalMove": 1,
    "EngineError": 0,
    "UnknownRuleset": 0,
    "DomainError": 0,
    "Invalid": 0,
    "Conflict": 0,
    "NotFound": 0,
    "Unauthenticated": 0,
    "Forbidden": 0,
    "VersionMismatch": 0,
    "PreconditionRequired": 0,
    "TooManyAttempts": 0,
    "ProblemError": 2,
    "field_error": 3,
    "field_problem": 3,
    "bad_input": 0,
    "mismatch": 2,
    "_bad_record": 0,
    "_bad_checkpoint": 0,
    "unauthorized": 0,
    "_query_refusal": 1,
    "_illegal": 2,
    "TooManyApiKeys": 0,
    "KeyReused": 0,
    "GameStateConflict": 1,
    "IllegalAction": 0,
    "SheetFinished": 0,
    "PlayerBound": 0,
    "NotOwner": 0,
    "LoginTaken": 0,
    "GameMoved": 0,
    "FieldProblem": 1,
    "Flaw": 2,
}
#: Files still wording refusals as plain strings, and how many: they may only shrink (none
#: left: every refusal of the engine and the API is a text).
PLAIN_REFUSALS: dict[str, int] = {}


def _plain(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr | ast.BinOp) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _plain_refusals() -> Counter[str]:
    found: Counter[str] = Counter()
    for top in ("engine", "api"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name not in _REFUSALS:
                    continue
                words = [node.args[_REFUSALS[name]]] if len(node.args) > _REFUSALS[name] else []
                words += [k.value for k in node.keywords if k.arg in ("message", "field_message")]
                if any(_plain(w) for w in words):
                    found[str(path.relative_to(ROOT))] += 1
    return found


def test_no_new_refusal_in_one_language() -> None:
    """A refusal worded as a plain string has no French: every new one fails here (make a
    text with `engine.core.texts.text` and raise `say(TEXT, …)`)."""
    found = _plain_refusals()
    grown = {f: n for f, n in found.items() if n > PLAIN_REFUSALS.get(f, 0)}
    assert not grown, f"refusals without a text (file: count): {grown}"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        # refused by api.http.hygiene (written as no integer) …
        ("players=abc", "doit être un entier, pas une chaîne de caractères"),
        ("players=4.5", "doit être un entier, pas un nombre"),
        # … and by Litestar's decoder (a bound, a boolean): one way of saying it
        ("players=1", "doit être un entier supérieur ou égal à 2"),
        ("players=4&zeros=maybe", "doit être true ou false, pas une chaîne de caractères"),
    ],
)
def test_a_refused_parameter_is_said_alike_whichever_layer_refuses_it(
    client: TestClient[Any], query: str, message: str
) -> None:
    """French said « players : … » for `abc` (the hygiene's refusal) and « players: … » for
    `2` (Litestar's, through InvalidFields), « pas une chaîne » for one and « pas une chaîne
    de caractères » for the other."""
    answer = client.get(f"/v1/rulesets/numking/deck?{query}", headers=FR).json()
    entry = answer["errors"][0]
    assert entry["message"] == message, answer
    assert answer["detail"] == f"{entry['field']}\u00a0: {message}", answer


#: A code left raw in a French sentence: a kebab-case id, or an action type or phase said
#: in English on its own (« une action play … dans la phase exchange »).
_RAW_CODE = re.compile(
    r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b"
    r"|\b(?:play|pass|exchange|show|neutralize|bid|draw|take|discard|swap|add|snap|call|target"
    r"|over)\b"
)


def _phases_and_kinds() -> tuple[set[str], set[str]]:
    """Every phase of every registered ruleset's rounds (its kernel's `Phase`) and every
    action type they take."""
    import importlib

    phases: set[str] = set()
    kinds: set[str] = set()
    for spec in SPECS.values():
        package = spec.rules.__module__.rsplit(".", 1)[0]
        kernel = importlib.import_module(f"{package}.kernel")
        phases |= {str(phase.value) for phase in kernel.Phase}
        kinds |= set(spec.actions)
    return phases, kinds


def test_the_raw_code_check_can_fail() -> None:
    """The check below sees the newcomer's sentences (issue 23) as raw codes."""
    for said in (
        "une action play n'est pas permise dans la phase exchange (permises : pass, exchange)",
        "Num Wars n'a pas d'action 'bid' : ses actions sont play, pass",
        "la phase numwars-classic",
    ):
        assert _RAW_CODE.search(said), said
    assert not _RAW_CODE.search("jouer une carte n'est pas permis pendant l'échange")


def test_phases_and_action_types_are_said_in_the_games_words() -> None:
    """Issue 23: every text taking a phase or an action type (one, or a list) says it in
    French in the game's words, for every phase and action type of every ruleset: never a
    raw code (`exchange`, `play`, `numwars-classic`)."""
    import api.games.service  # noqa: F401  (no-such-action)
    from engine.core.texts import ACTION_WORDS, PHASE_WORDS

    phases, kinds = _phases_and_kinds()
    assert {"exchange", "show", "play", "neutralize", "bid", "over"} <= phases
    assert set(PHASE_WORDS) >= phases, sorted(phases - set(PHASE_WORDS))
    assert set(ACTION_WORDS) >= kinds, sorted(kinds - set(ACTION_WORDS))
    for words in (PHASE_WORDS, ACTION_WORDS):
        for code, word in words.items():
            assert word.render("fr") != code and not _RAW_CODE.search(word.render("fr")), code

    takers = {
        t.key: t
        for t in CATALOG.values()
        if any(w is ACTION_WORDS or w is PHASE_WORDS for w in (t.words or {}).values())
    }
    assert {
        "numwars-wrong-phase",
        "numwars-classic-wrong-phase",
        "numwars-classic-wrong-phase-over",
        "numking-play-phase",
        "numwin-not-an-action",
        "numwin-needs-card",
        "no-such-action",
    } <= set(takers)
    lists = {"kinds", "allowed"}
    for t in takers.values():
        words = t.words or {}
        values: dict[str, list[Any]] = {}
        for param in sorted(t.params):
            if words.get(param) is PHASE_WORDS:
                values[param] = sorted(phases)
            elif words.get(param) is ACTION_WORDS and param in lists:
                values[param] = [tuple(spec.actions) for spec in SPECS.values()]
            elif words.get(param) is ACTION_WORDS:
                values[param] = sorted(kinds)
            elif param == "ruleset":
                values[param] = sorted(SPECS)
            else:
                values[param] = ["3"]
        names = list(values)
        for combination in itertools.product(*(values[n] for n in names)):
            said = t.render("fr", **dict(zip(names, combination, strict=True)))
            assert not _RAW_CODE.search(said), (t.key, said)


def test_the_newcomers_refusals_read_in_french() -> None:
    """The sentences issue 23 quoted, as a player now reads them."""
    from api.games.service import NO_SUCH_ACTION
    from engine.core.actions import Bid, Play
    from engine.core.base import RoundSetup
    from engine.core.errors import IllegalMove
    from engine.core.texts import render, say
    from engine.numwars_classic.rules import ClassicOptions, NumWarsClassic

    state = NumWarsClassic(ClassicOptions()).new_round(RoundSetup(players=4, seed=3, dealer=0))
    assert state.phase == "exchange"
    with pytest.raises(IllegalMove) as refused:
        state.apply(0, Play(state.hands[0][0]))
    assert refused.value.legal == ("pass", "exchange")
    assert render(refused.value.said, "fr") == (
        "jouer une carte n’est pas permis pendant l’échange "
        "(permis\u00a0: passer une carte, échanger des cartes)"
    )
    assert render(refused.value.said, "en") == (
        "a play action is not allowed during the exchange (allowed: pass, exchange)"
    )
    with pytest.raises(IllegalMove):
        state.apply(0, Bid(3))
    missing = say(NO_SUCH_ACTION, ruleset="numking", kind="swap", kinds=("bid", "play"))
    assert missing.render("fr") == (
        "Num King n’a pas d’action «\u00a0échanger avec la combinaison\u00a0» "
        "(ses actions\u00a0: annoncer des plis, jouer une carte)"
    )
    assert missing.render("en") == "Num King has no 'swap' action: its actions are bid, play"


def test_players_are_told_what_to_do_not_which_field() -> None:
    """Issue 23: the French refusals a front-end shows say what to do, without the API's
    field names and methods (the English ones may keep them)."""
    import api.accounts.texts
    import api.sheets.texts

    terms = api.accounts.texts.TERMS_NOT_ACCEPTED.render("fr")
    finished = api.sheets.texts.FINISHED_AFTER.render("fr", rounds=7, planned=6)
    assert "conditions d’utilisation" in terms
    assert "augmentez le nombre de manches prévues" in finished
    for said in (terms, finished):
        for developer_word in ("accept_terms", "true", "GET", "/v1/", "planned_rounds", "PATCH"):
            assert developer_word not in said, (developer_word, said)
    assert "planned_rounds" in api.sheets.texts.FINISHED_AFTER.render("en", rounds=7, planned=6)


# --- an answer with no breakdown line is sent as encoded -----------------------------------


def test_localized_json_is_the_walk_s_bytes_and_walks_only_labels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`localized_json` (a game's reads) gives the bytes of `localized`, in both languages,
    for every view of a whole Num Wars match (a view shows its round's score once the round
    is over) and its result; only an answer holding a breakdown line is walked."""
    from api.http import languages
    from engine.registry import make

    walked: list[Any] = []
    relabel = languages._relabel

    def counted(node: Any, language: str) -> Any:
        walked.append(node)
        return relabel(node, language)

    match = make("numwars").new_match(4, 2026)
    answers: list[Any] = []
    while not match.is_over:
        seat = match.actors()[0]
        answers.append(match.view(seat))
        match.apply(seat, match.legal_actions(seat)[0])
    answers += [match.view(0), match.result(), {"name": '"label": x', "label": "not a line"}]
    labelled = unwalked = 0
    for answer in answers:
        monkeypatch.setattr(languages, "_relabel", counted)
        fast = {lang: languages.localized_json(answer, lang) for lang in ("en", "fr")}
        monkeypatch.setattr(languages, "_relabel", relabel)
        for lang, content in fast.items():
            assert content == msgspec.json.encode(languages.localized(answer, lang))
        has_line = b'"kind":' in fast["en"] and b'"label":' in fast["en"]
        assert bool(walked) == (b'"label":' in fast["en"]), answer
        labelled += has_line
        unwalked += not walked
        assert (fast["fr"] != fast["en"]) == has_line
        walked.clear()
    # the last view (its round's score) and the result are relabelled; the views in play not
    assert labelled == 2 and unwalked == len(answers) - 3, (labelled, unwalked, len(answers))
