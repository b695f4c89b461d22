"""Every invalid field at once, in human words (issue 23): the walk of a refused body
(api/http/fields.py), its codes, its English and French, the human text of every pattern, and
the stateless rules endpoints answering several errors at once."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from api.accounts.schemas import SignUp
from api.app import spec_dict
from api.games.schemas import CreateGame
from api.http.body import decode_body
from api.http.domain import InvalidFields, problem_code
from api.http.fields import NOT_ONE_OF, OUT_OF_RANGE, PATTERNS, find_flaws, message_flaw
from engine.core.actions import Action
from engine.numking.requests import NumKingScoreRequest
from engine.numwars.requests import NumWarsMoveRequest

FR = {"Accept-Language": "fr"}
SCORE = "/v1/rulesets/numking/score-round"


def _refused(body: dict[str, Any] | list[Any], model: Any) -> InvalidFields:
    with pytest.raises(InvalidFields) as refused:
        decode_body(msgspec.json.encode(body), model)
    return refused.value


def _entries(refusal: InvalidFields, language: str = "en") -> list[tuple[str, str, str]]:
    return [(e.field, e.code, e.message) for e in refusal.errors_in(language)]


# --- the walk --------------------------------------------------------------------------------


def test_a_french_sign_up_mistake_is_named_in_human_words() -> None:
    """The commonest French sign-up mistakes at once: an accented pseudo, a short password,
    the terms left out; the pseudo's rule in words, never a regex."""
    refusal = _refused({"pseudo": "Adèle", "password": "12345", "age_range": "18-24"}, SignUp)
    assert refusal.code == "validation-error"
    assert _entries(refusal, "fr") == [
        (
            "pseudo",
            "pattern",
            "3 à 24 caractères\u00a0: lettres sans accent, chiffres, tiret bas (_), point (.) ou trait d’union (-)",
        ),
        ("password", "min-length", "doit contenir au moins 10 caractères"),
        ("accept_terms", "missing-field", "champ obligatoire 'accept_terms' absent"),
    ]
    assert _entries(refusal, "en") == [
        (
            "pseudo",
            "pattern",
            "3 to 24 characters: letters without accents, digits, underscore (_), dot (.) or hyphen (-)",
        ),
        ("password", "min-length", "must hold at least 10 characters"),
        ("accept_terms", "missing-field", "required field 'accept_terms' is missing"),
    ]
    assert refusal.detail_in("fr").startswith(
        "pseudo\u00a0: 3 à 24 caractères\u00a0: lettres sans accent"
    )


@pytest.mark.parametrize(
    ("body", "model", "expected"),
    [
        (  # every kind of flaw of a struct, in its fields' order, the unknown ones last
            {
                "zz": 1,
                "locale": "de",
                "email": "ada",
                "accept_terms": 1,
                "age_range": None,
                "password": "x" * 2000,
            },
            SignUp,
            [
                ("pseudo", "missing-field"),
                ("password", "max-length"),
                ("age_range", "type"),
                ("accept_terms", "type"),
                ("email", "pattern"),
                ("locale", "enum"),
                ("zz", "unknown-field"),
            ],
        ),
        (  # nested: items of a list, each struct on its own
            {"cards": 0, "players": [{"bid": 1, "tricks": "2"}, {"bid": -1, "tricks": 0, "x": 1}]},
            NumKingScoreRequest,
            [
                ("cards", "minimum"),
                ("players[0].tricks", "type"),
                ("players[1].bid", "minimum"),
                ("players[1].x", "unknown-field"),
            ],
        ),
        (  # a list too long, and a bad item
            {"players": 4, "hand": ["red-1"] * 300, "trick": [{"seat": 9, "card": 3}], "card": 1},
            NumWarsMoveRequest,
            [
                ("hand", "max-items"),
                ("trick[0].seat", "maximum"),
                ("trick[0].card", "type"),
                ("card", "type"),
            ],
        ),
        (  # a tagged union: the tag chooses the struct
            {"type": "bid", "tricks": 99, "call": True},
            Action,
            [("tricks", "maximum"), ("call", "unknown-field")],
        ),
        ({"type": "bob"}, Action, [("type", "enum")]),
        ({"tricks": 1}, Action, [("type", "missing-field")]),
        ([1], CreateGame, [("body", "type")]),
        (
            {"ruleset": 3, "players": [{"name": ""}, {"name": "b", "account": "é"}], "seed": -1},
            CreateGame,
            [
                ("ruleset", "type"),
                ("players[0].name", "min-length"),
                ("players[1].account", "min-length"),
                ("seed", "minimum"),
            ],
        ),
    ],
)
def test_every_invalid_field_is_named(body: Any, model: Any, expected: list[Any]) -> None:
    refusal = _refused(body, model)
    assert [(field, code) for field, code, _ in _entries(refusal)] == expected
    assert refusal.code == problem_code([code for _, code in expected])


def test_the_problem_code_is_the_shared_one() -> None:
    assert problem_code(["missing-field", "missing-field"]) == "missing-field"
    assert problem_code(["unknown-field"]) == "unknown-field"
    assert problem_code(["missing-field", "unknown-field"]) == "validation-error"
    # the schema's kinds are kinds of validation-error: one bad value keeps its old code
    assert problem_code(["pattern"]) == "validation-error"
    assert problem_code(["pattern", "min-length"]) == "validation-error"
    assert problem_code(["unknown-card", "unknown-card"]) == "unknown-card"


def test_a_valid_body_decodes_as_msgspec_decodes_it() -> None:
    body = {"cards": 3, "players": [{"bid": 1, "tricks": 1}, {"bid": 0, "tricks": 2}]}
    raw = msgspec.json.encode(body)
    assert decode_body(raw, NumKingScoreRequest) == msgspec.json.decode(
        raw, type=NumKingScoreRequest, strict=True
    )
    assert find_flaws(body, NumKingScoreRequest) == []


def test_the_flaws_are_bounded() -> None:
    """A 64 KiB list of bad items is not answered item by item: past its bound (8 players)
    no item is looked at, and within it at most 50 flaws are named (106 bad cards)."""
    refusal = _refused({"cards": 3, "players": [{"bid": "x"}] * 2000}, NumKingScoreRequest)
    assert len(refusal.flaws) == 1 + 8 * 2  # the list's length, each player's bid and tricks
    assert refusal.flaws[0].field == "players" and refusal.flaws[-1].field == "players[7].tricks"
    refusal = _refused({"players": 4, "hand": [1] * 106, "card": "red-1"}, NumWarsMoveRequest)
    assert len(refusal.flaws) == 50


# --- a property: k fields broken, exactly k named ---------------------------------------------

_WRONG_KINDS: list[Any] = [{"an": "object"}, ["a list"], "a string", 1.5, True, None, 7]


def _kinds(info: mi.Type) -> set[str]:
    from api.http.fields import _kinds as kinds

    return set(kinds(info))


def _wrong_value(info: mi.Type) -> Any:
    """A value of a JSON kind the field does not take."""
    from api.http.fields import _takes

    kinds = list(_kinds(info))
    return next(v for v in _WRONG_KINDS if not _takes(kinds, v))


def _breakers(body: dict[str, Any], model: Any, path: str = "") -> dict[str, list[Any]]:
    """Each field of `body` (nested structs of lists included) and the ways to break it alone:
    a value of the wrong kind, one past a bound, an empty or too long string, deletion (a
    required field); and unknown fields beside them."""
    info = mi.type_info(model)
    assert isinstance(info, mi.StructType)
    out: dict[str, list[Any]] = {}
    for f in info.fields:
        name = f.encode_name
        where = f"{path}.{name}" if path else name
        inner = f.type.type if isinstance(f.type, mi.Metadata) else f.type
        ways: list[Any] = [("set", _wrong_value(f.type))]
        if f.required:
            ways.append(("delete", None))
        if isinstance(inner, mi.IntType) and inner.le is not None:
            ways.append(("set", inner.le + 1))
        if isinstance(inner, mi.IntType) and inner.ge is not None:
            ways.append(("set", inner.ge - 1))
        if isinstance(inner, mi.StrType) and inner.max_length is not None:
            ways.append(("set", "a" * (inner.max_length + 1)))
        if isinstance(inner, mi.StrType) and inner.pattern is not None:
            ways.append(("set", "é" * 4))
        if name in body and isinstance(body[name], list) and body[name]:
            item = inner.item_type if isinstance(inner, mi.ListType) else None
            item = item.type if isinstance(item, mi.Metadata) else item
            if isinstance(item, mi.StructType):
                out |= _breakers(body[name][0], item.cls, f"{where}[0]")
                ways = [w for w in ways if w[0] != "delete"]  # a whole list: not with its items
                out[where + "*"] = ways
                continue
        out[where] = ways
    out[f"{path}.extra" if path else "extra"] = [("add", 1)]
    return out


def _apply(body: dict[str, Any], path: str, way: tuple[str, Any]) -> None:
    *parents, last = re.findall(r"[A-Za-z_]+|\[\d+\]", path)
    node: Any = body
    for step in parents:
        node = node[int(step[1:-1])] if step.startswith("[") else node[step]
    if way[0] == "delete":
        node.pop(last, None)
    else:
        node[last] = way[1]


VALID = [
    (
        SignUp,
        {"pseudo": "ada_l", "password": "0123456789", "age_range": "18-24", "accept_terms": True},
    ),
    (
        NumKingScoreRequest,
        {"cards": 3, "players": [{"bid": 1, "tricks": 1, "streak": 0}]},
    ),
    (
        CreateGame,
        {"ruleset": "numking", "players": [{"name": "Ada", "account": "ada_l"}], "seed": 1},
    ),
    (
        NumWarsMoveRequest,
        {"players": 4, "hand": ["red-1"], "trick": [{"seat": 0, "card": "red-2"}], "card": "red-1"},
    ),
]


@st.composite
def _broken(draw: st.DrawFn) -> tuple[Any, dict[str, Any], set[str]]:
    model, valid = draw(st.sampled_from(VALID))
    body = msgspec.json.decode(msgspec.json.encode(valid))
    breakers = _breakers(body, model)
    whole = {p[:-1] for p in breakers if p.endswith("*")}
    chosen = draw(st.lists(st.sampled_from(sorted(breakers)), min_size=1, max_size=4, unique=True))
    # a whole list and a field inside it are not independent: keep one of them
    chosen = [
        p for p in chosen if not any(p.startswith(w + "[") for w in whole if w + "*" in chosen)
    ]
    named = set()
    for path in sorted(chosen, key=lambda p: -p.count("[")):  # items before their list
        way = draw(st.sampled_from(breakers[path]))
        _apply(body, path.rstrip("*"), way)
        named.add(path.rstrip("*"))
    return model, body, named


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_broken())
def test_k_broken_fields_are_exactly_the_k_named(
    case: tuple[Any, dict[str, Any], set[str]],
) -> None:
    model, body, named = case
    refusal = _refused(body, model)
    fields = [e.field for e in refusal.errors_in("en")]
    assert sorted(fields) == sorted(named), (body, refusal.detail)
    for entry in refusal.errors_in("fr"):
        assert entry.message and "regex" not in entry.message


# --- patterns: never shown, always said ---------------------------------------------------------


def _patterns(node: Any, where: str = "") -> list[tuple[str, str]]:
    if isinstance(node, dict):
        found = [(where, node["pattern"])] if isinstance(node.get("pattern"), str) else []
        return found + [p for k, v in node.items() for p in _patterns(v, f"{where}/{k}")]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _patterns(v, f"{where}/{i}")]
    return []


def test_every_pattern_of_the_served_spec_has_human_words(client: Any) -> None:
    served = client.get("/openapi.json").json()
    assert served == spec_dict()
    found = _patterns(served)
    assert len({p for _, p in found}) >= 7  # cards, pseudo, email, login, token, headers …
    missing = sorted({(w, p) for w, p in found if p not in PATTERNS})
    assert not missing, f"patterns without a human text (api.http.fields.human_pattern): {missing}"
    for pattern in {p for _, p in found}:
        words = PATTERNS[pattern]
        for language in ("en", "fr"):
            assert pattern not in words.render(language) and "regex" not in words.render(language)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_message_shows_a_regex(client: Any, language: str) -> None:
    """A value breaking each pattern-bearing field the API decodes: its message is the
    pattern's human text, without the word "regex" or the pattern itself."""
    bodies: list[tuple[Any, dict[str, Any]]] = [
        (SignUp, {"pseudo": "Adèle!", "email": "no at", "password": "x", "age_range": "?"}),
        (
            CreateGame,
            {"ruleset": "numking", "players": [{"name": "a", "account": "Zoë Ève"}]},
        ),
    ]
    from api.accounts.schemas import EmailConfirm, LogIn

    bodies += [(LogIn, {"login": "a\nb", "password": ""}), (EmailConfirm, {"token": "a b"})]
    for model, body in bodies:
        for entry in _refused(body, model).errors_in(language):
            assert "regex" not in entry.message.lower() and "^" not in entry.message, entry
            assert not any(p in entry.message for p in PATTERNS), entry


# --- over HTTP: the stateless rules ------------------------------------------------------------


def test_a_score_round_lists_every_bad_field_in_french(client: Any) -> None:
    body = {"cards": "3", "players": [{"bid": -1, "tricks": 1, "colour": "red"}]}
    r = client.post(SCORE, json=body, headers=FR)
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
    problem = r.json()
    assert problem["code"] == "validation-error"
    assert problem["errors"] == [
        {
            "field": "cards",
            "code": "type",
            "message": "doit être un entier, pas une chaîne de caractères",
        },
        {
            "field": "players[0].bid",
            "code": "minimum",
            "message": "doit être un entier supérieur ou égal à 0",
        },
        {
            "field": "players[0].colour",
            "code": "unknown-field",
            "message": "champ inconnu 'colour'",
        },
    ]
    assert problem["detail"] == "\u202f; ".join(  # French typography: "<field> : <message>"
        f"{e['field']}\u00a0: {e['message']}" for e in problem["errors"]
    )
    english = client.post(SCORE, json=body).json()
    assert [e["message"] for e in english["errors"]] == [
        "must be an integer, not a string",
        "must be an integer at least 0",
        "unknown field 'colour'",
    ]


def test_two_missing_fields_share_their_code(client: Any) -> None:
    problem = client.post(SCORE, json={}).json()
    assert problem["code"] == "missing-field"
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [
        ("cards", "missing-field"),
        ("players", "missing-field"),
    ]


def test_every_error_entry_has_a_code(client: Any) -> None:
    """Entries made before codes existed (an engine refusal) take the problem's."""
    r = client.post("/v1/rulesets/numwars/legal-moves", json={"players": 4, "hand": ["purple-3"]})
    assert r.json()["errors"][0]["code"] == "unknown-card"


def test_every_bad_card_is_named_at_once(client: Any) -> None:
    """The engine's card checks are independent, card by card: each bad one is named, with
    its own code; the problem's is theirs when they share one."""
    body = {"players": 3, "hand": ["purple-3", "red-1", "joker", "red-1"], "trick": []}
    problem = client.post("/v1/rulesets/numwars/legal-moves", json=body).json()
    assert problem["code"] == "validation-error"
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [
        ("hand[0]", "unknown-card"),
        ("hand[2]", "card-not-in-deck"),
        ("hand[3]", "duplicate-card"),
    ]
    assert problem["detail"].startswith("hand[0]: 'purple-3' is not a card code")
    two = {"players": [{"captured": ["zz", "red-1"]}, {"captured": ["yy"]}]}
    same = client.post("/v1/rulesets/numwars-classic/score-round", json=two).json()
    assert same["code"] == "unknown-card"
    assert [e["field"] for e in same["errors"]] == [
        "players[0].captured[0]",
        "players[1].captured[0]",
    ]
    one = client.post("/v1/rulesets/numking/legal-moves", json={"players": 3, "hand": ["zz"]})
    assert one.json()["code"] == "unknown-card" and len(one.json()["errors"]) == 1


@pytest.mark.parametrize(
    ("said", "code", "english", "french"),
    [
        (
            "Expected `int`, got `str`",
            "type",
            "must be an integer, not a string",
            "doit être un entier, pas une chaîne de caractères",
        ),
        ("Expected `int`", "type", "must be an integer", "doit être un entier"),
        (
            "Expected `int` >= 1",
            "minimum",
            "must be an integer at least 1",
            "doit être un entier supérieur ou égal à 1",
        ),
        (
            "Expected `str` of length <= 400",
            "max-length",
            "must hold at most 400 characters",
            "doit contenir au plus 400 caractères",
        ),
        (
            "Invalid enum value 'x'",
            "enum",
            NOT_ONE_OF.en,
            NOT_ONE_OF.fr,
        ),
        ("Integer value out of range", "out-of-range", OUT_OF_RANGE.en, OUT_OF_RANGE.fr),
    ],
)
def test_a_parameter_message_in_the_fields_words(
    said: str, code: str, english: str, french: str
) -> None:
    """Litestar's message about a query or path parameter (msgspec's, its path cut off) said
    as a body field's, in both languages (api.http.problems answers with it)."""
    flaw = message_flaw(said, "limit")
    assert (flaw.field, flaw.code) == ("limit", code)
    assert flaw.render("en").message == english
    assert flaw.render("fr").message == french
