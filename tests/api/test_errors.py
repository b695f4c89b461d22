"""The contract's 4xx cases: each answers an RFC 9457 problem with a precise message."""

from __future__ import annotations

from typing import Any

import pytest

PROBLEM = "application/problem+json"


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert body["type"].endswith(code) and body["title"] and body["detail"]
    return body


def test_unknown_card_code_names_the_card(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numwars/legal-moves",
        json={"players": 4, "hand": ["red-3", "purple-3"], "trick": []},
    )
    body = _problem(r, 422, "unknown-card")
    assert "'purple-3'" in body["detail"]
    assert body["errors"] == [
        {"field": "hand[1]", "message": body["errors"][0]["message"], "code": "unknown-card"}
    ]


@pytest.mark.parametrize(
    ("path", "payload", "card"),
    [
        # values 13-16 do not exist in the reduced numwars deck (3-5 players)
        ("/v1/rulesets/numwars/legal-moves", {"players": 4, "hand": ["red-14"]}, "red-14"),
        # the Joker is out of a 3-player numwars round
        ("/v1/rulesets/numwars/legal-moves", {"players": 3, "hand": ["joker"]}, "joker"),
        # flash is a numking card
        ("/v1/rulesets/numwars/legal-moves", {"players": 6, "hand": ["flash"]}, "flash"),
        ("/v1/rulesets/numking/legal-moves", {"players": 4, "hand": ["red-3"]}, "red-3"),
        ("/v1/rulesets/numking/legal-moves", {"players": 4, "hand": ["rainbow-0"]}, "rainbow-0"),
    ],
)
def test_card_outside_the_deck(client: Any, path: str, payload: dict[str, Any], card: str) -> None:
    body = _problem(client.post(path, json=payload), 422, "card-not-in-deck")
    assert repr(card) in body["detail"]


def test_duplicate_unique_card(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numwars-classic/legal-moves",
        json={"players": 4, "hand": ["red-3", "blue-4"], "trick": [{"seat": 0, "card": "red-3"}]},
    )
    body = _problem(r, 422, "duplicate-card")
    assert "'red-3'" in body["detail"]


def test_two_jokers_are_fine_in_classic_but_not_three(client: Any) -> None:
    ok = client.post(
        "/v1/rulesets/numwars-classic/legal-moves",
        json={"players": 4, "hand": ["joker", "red-2"], "trick": [{"seat": 0, "card": "joker"}]},
    )
    assert ok.status_code == 200, ok.text
    r = client.post(
        "/v1/rulesets/numwars-classic/score-round",
        json={"players": [{"captured": ["joker", "joker"]}, {"captured": ["joker"]}]},
    )
    _problem(r, 422, "duplicate-card")


def test_over_long_trick(client: Any) -> None:
    trick = [{"seat": s, "card": c} for s, c in enumerate(["red-1", "red-2", "red-3"])]
    r = client.post(
        "/v1/rulesets/numwars-classic/resolve-trick",
        json={
            "players": 4,
            "trick": [*trick, {"seat": 3, "card": "red-4"}, {"seat": 0, "card": "red-5"}],
        },
    )
    _problem(r, 422, "bad-trick")
    r = client.post(
        "/v1/rulesets/numwars-classic/resolve-trick", json={"players": 4, "trick": trick}
    )
    _problem(r, 422, "bad-trick")


def test_trick_seats_must_go_clockwise(client: Any) -> None:
    trick = [{"seat": 1, "card": "red-1"}, {"seat": 3, "card": "red-2"}]
    body = _problem(
        client.post(
            "/v1/rulesets/numwars-classic/legal-moves",
            json={"players": 4, "hand": ["red-9"], "trick": trick},
        ),
        422,
        "bad-trick",
    )
    assert body["errors"][0]["field"] == "trick[1].seat"


def test_missing_declared_for_infinity(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numking/resolve-trick",
        json={
            "players": 2,
            "trick": [{"seat": 0, "card": "infinity"}, {"seat": 1, "card": "shadow-3"}],
        },
    )
    _problem(r, 422, "missing-declared")
    r = client.post(
        "/v1/rulesets/numking/validate-move",
        json={"players": 2, "hand": ["infinity"], "trick": [], "card": "infinity"},
    )
    _problem(r, 422, "missing-declared")


@pytest.mark.parametrize("path", ["/v1/rulesets/chess", "/v1/rulesets/chess/score-round"])
def test_unknown_ruleset(client: Any, path: str) -> None:
    r = client.get(path) if path.count("/") == 3 else client.post(path, json={})
    body = _problem(r, 404, "unknown-ruleset")
    assert "'chess'" in body["detail"]


def test_unparsable_json(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numking/score-round",
        content=b'{"cards": 3, "players": [',
        headers={"content-type": "application/json"},
    )
    _problem(r, 400, "malformed-json")


@pytest.mark.parametrize("content", [b"8Xx", b'{"players": "x", ', b"[1, 2"])
def test_a_wrong_type_before_malformed_json_is_a_400(client: Any, content: bytes) -> None:
    """Typed decoding stops at the first wrong type; the rest of the body may not even parse
    (schemathesis found `8Xx` answered 500)."""
    r = client.post(
        "/v1/rulesets/numwars/deal", content=content, headers={"content-type": "application/json"}
    )
    _problem(r, 400, "malformed-json")


def test_empty_body(client: Any) -> None:
    r = client.post("/v1/rulesets/numking/score-round", content=b"")
    _problem(r, 400, "malformed-json")


def test_oversize_body(client: Any) -> None:
    hand = ["red-1"] * 20_000  # ~180 KB
    r = client.post("/v1/rulesets/numwars/legal-moves", json={"players": 4, "hand": hand})
    _problem(r, 413, "body-too-large")


def test_wrong_type_is_422_not_coerced(client: Any) -> None:
    r = client.post("/v1/rulesets/numking/score-round", json={"cards": "3", "players": []})
    body = _problem(r, 422, "validation-error")
    assert body["errors"][0]["field"] == "cards"


def test_unknown_field(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numking/score-round",
        json={"cards": 3, "players": [{"bid": 1, "tricks": 1, "colour": "red"}]},
    )
    body = _problem(r, 422, "unknown-field")
    assert body["errors"][0]["field"] == "players[0].colour"


def test_player_count_out_of_range(client: Any) -> None:
    _problem(client.get("/v1/rulesets/numwars/deck?players=2"), 422, "validation-error")
    r = client.post("/v1/rulesets/numwars/deal", json={"players": 9, "seed": 1})
    _problem(r, 422, "validation-error")


def test_illegal_move_is_not_an_http_error(client: Any) -> None:
    r = client.post(
        "/v1/rulesets/numwars-classic/validate-move",
        json={
            "players": 4,
            "hand": ["shadow-10", "shadow-14"],
            "trick": [{"seat": 0, "card": "rainbow-12"}],
            "card": "shadow-10",
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["legal"] is False and body["reason"] == "must-raise"
    assert body["legal_moves"] == ["shadow-14"]


def test_unknown_route_and_method(client: Any) -> None:
    _problem(client.get("/v2/nothing"), 404, "not-found")
    _problem(client.get("/v1/rulesets/numwars/score-round"), 405, "method-not-allowed")


def test_cors_preflight(client: Any) -> None:
    r = client.options(
        "/v1/rulesets",
        headers={"origin": "https://app.example", "access-control-request-method": "GET"},
    )
    assert r.status_code in (200, 204)
    assert r.headers["access-control-allow-origin"] in ("*", "https://app.example")


@pytest.mark.parametrize("ruleset", ["numwars", "numwars-classic"])
def test_declared_belongs_to_numking_only(client: Any, ruleset: str) -> None:
    r = client.post(
        f"/v1/rulesets/{ruleset}/legal-moves",
        json={
            "players": 4,
            "hand": ["red-1"],
            "trick": [{"seat": 0, "card": "red-2", "declared": 17}],
        },
    )
    # their spec says `declared: null` (only numking's infinity declares), so decoding refuses it
    body = _problem(r, 422, "validation-error")
    assert body["errors"] == [
        {"field": "trick[0].declared", "message": "must be null, not an integer", "code": "type"}
    ]


# --- bounded input (issue 10, "An attacker") ---------------------------------------------------


def _score_numking(client: Any, streak: str) -> Any:
    body = '{"cards": 3, "players": [{"bid": 1, "tricks": 1, "streak": ' + streak + "}]}"
    return client.post(
        "/v1/rulesets/numking/score-round",
        content=body.encode(),
        headers={"content-type": "application/json"},
    )


@pytest.mark.parametrize("streak", ["9" * 4300, str(2**200), "19", "-1"])
def test_streak_out_of_range_is_a_422_not_a_500_or_a_200(client: Any, streak: str) -> None:
    """A 4,300-digit streak with bid == tricks was a 500 (the breakdown label could not print
    it) and 2**200 a 200: a streak is at most 18, since a match has at most 19 rounds."""
    body = _problem(_score_numking(client, streak), 422, "validation-error")
    assert body["errors"][0]["field"] == "players[0].streak"
    assert len(body["detail"]) < 200


def test_longest_possible_streak_is_scored(client: Any) -> None:
    r = _score_numking(client, "18")
    assert r.status_code == 200, r.text
    assert r.json()["players"][0]["streak"] == 19


def test_engine_refuses_an_out_of_range_streak_too() -> None:
    """The engine is a library first: it refuses the streak itself, without printing it."""
    from engine.core.errors import InvalidInput
    from engine.numking import NumKing, NumKingBid, NumKingOptions
    from engine.numking.cards import MAX_STREAK

    assert NumKing(NumKingOptions(zeros=True)).k_max(2) == MAX_STREAK + 1
    with pytest.raises(InvalidInput) as err:
        NumKing().score_round(3, [NumKingBid(bid=1, tricks=1, streak=10**5000)])
    assert err.value.errors[0].field == "players[0].streak"
    assert "between 0 and 18" in err.value.message


@pytest.mark.parametrize(
    ("path", "payload", "field"),
    [
        ("numwars/deal", {"players": 4, "seed": 2**63}, "seed"),
        ("numwars/deal", {"players": 4, "seed": -1}, "seed"),
        ("numwars/deal", {"players": 4, "seed": 1, "options": {"exchange": 6}}, "options.exchange"),
        ("numking/deal", {"players": 4, "seed": 1, "round": 20}, "round"),
        ("numking/deal", {"players": 4, "seed": 1, "first_bidder": 8}, "first_bidder"),
        ("numking/deal", {"players": 4, "seed": 1, "first_bidder": -1}, "first_bidder"),
        (
            "numking/deal",
            {"players": 4, "seed": 1, "options": {"max_cards": 20}},
            "options.max_cards",
        ),
        (
            "numwin/deal",
            {"players": 4, "seed": 1, "options": {"max_turns": 10**30}},
            "options.max_turns",
        ),
        ("numking/score-round", {"cards": 20, "players": [{"bid": 0, "tricks": 0}]}, "cards"),
        (
            "numking/score-round",
            {"cards": 3, "players": [{"bid": 99, "tricks": 0}]},
            "players[0].bid",
        ),
        (
            "numwin/score-round",
            {"players": [{"combination": ["red-1"] * 5}], "caller": 8},
            "caller",
        ),
        (
            "numwars/legal-moves",
            {"players": 4, "hand": ["red-1"], "trick": [{"seat": 2**70, "card": "red-2"}]},
            "trick[0].seat",
        ),
        (
            "numking/validate-move",
            {"players": 2, "hand": [], "card": "infinity", "declared": 5},
            "declared",
        ),
    ],
)
def test_integers_are_bounded_by_the_rules(
    client: Any, path: str, payload: dict[str, Any], field: str | None
) -> None:
    body = _problem(client.post(f"/v1/rulesets/{path}", json=payload), 422, body_code(field))
    if field is not None:
        assert body["errors"][0]["field"] == field


def body_code(field: str | None) -> str:
    """Bounds the spec states are refused by the decoder; `declared` 5 by the engine, which
    says what infinity takes (17 or 0) and names the field."""
    return "bad-request" if field == "declared" else "validation-error"


def test_largest_seed_deals(client: Any) -> None:
    """Seeds are 63-bit, as the contract fixes them for stored games."""
    r = client.post("/v1/rulesets/numwars/deal", json={"players": 4, "seed": 2**63 - 1})
    assert r.status_code == 200, r.text
    assert len(r.json()["hands"]) == 4


def test_a_float_integer_is_refused(client: Any) -> None:
    """`4.0` is a JSON Schema integer, but the API does not coerce: it is refused (and each
    operation's description says so)."""
    body = _problem(
        client.post("/v1/rulesets/numwars/deal", json={"players": 4.0, "seed": 1}),
        422,
        "validation-error",
    )
    assert body["errors"] == [
        {"field": "players", "message": "must be an integer, not a number", "code": "type"}
    ]


# --- messages --------------------------------------------------------------------------------


def test_a_long_unknown_card_is_quoted_cut_short(client: Any) -> None:
    """A 60 KB unknown card code was echoed twice (a 120 KB answer)."""
    card = "x" * 60_000
    r = client.post("/v1/rulesets/numwars/legal-moves", json={"players": 4, "hand": [card]})
    body = _problem(r, 422, "unknown-card")
    assert len(r.content) < 1_000
    cut = "'" + "x" * 40 + "…'"
    assert cut in body["detail"] and cut in body["errors"][0]["message"]
    assert body["errors"][0]["field"] == "hand[0]"


@pytest.mark.parametrize(
    ("key", "field"),
    [
        (" - at `$ ", '[" - at `$ "]'),
        ("a` - at `$.x[0]", '["a` - at `$.x[0]"]'),
        ("y" * 50_000, '["' + "y" * 40 + '…"]'),
        ("colour", "players[0].colour"),
    ],
)
def test_an_odd_field_name_never_corrupts_the_field(client: Any, key: str, field: str) -> None:
    r = client.post(
        "/v1/rulesets/numking/score-round",
        json={"cards": 3, "players": [{"bid": 1, "tricks": 1, key: 1}]},
    )
    body = _problem(r, 422, "unknown-field")
    expected = field if field.startswith("players") else "players[0]" + field
    assert body["errors"][0]["field"] == expected
    assert len(r.content) < 1_000


def test_a_missing_query_parameter_is_a_422_with_its_field(client: Any) -> None:
    """`GET …/deck` without `?players=` was a 400 without `errors[]`; `players=abc` a 422."""
    missing = _problem(client.get("/v1/rulesets/numking/deck"), 422, "missing-field")
    assert missing["errors"] == [
        {
            "field": "players",
            "message": "required query parameter 'players' is missing",
            "code": "missing-field",
        }
    ]
    wrong = _problem(client.get("/v1/rulesets/numking/deck?players=abc"), 422, "validation-error")
    assert wrong["errors"] == [
        {
            "field": "players",
            "message": "must be an integer, not a string",
            "code": "type",
        }
    ]


PYTHON_WORDS = (
    "None",
    "True",
    "False",
    "`int`",
    "`str`",
    "`list`",
    "`dict`",
    "k_max",
    " … ",
    "['",
    "('",
)


@pytest.mark.parametrize(
    ("path", "payload"),
    [
        ("numking/validate-move", {"players": 2, "hand": ["infinity"], "card": "infinity"}),
        (
            "numking/resolve-trick",
            {
                "players": 2,
                "trick": [{"seat": 0, "card": "infinity"}, {"seat": 1, "card": "flash"}],
            },
        ),
        ("numking/deal", {"players": 4, "seed": 1, "options": {"max_cards": 10}}),
        ("numking/deal", {"players": 4, "seed": 1, "round": 10}),
        ("numking/score-round", {"cards": "3", "players": []}),
        ("numking/score-round", {"cards": 3, "players": [{"bid": None, "tricks": 1}]}),
        ("numwars/legal-moves", {"players": 4, "hand": "red-1"}),
        ("numwars/legal-moves", {"players": 4, "hand": ["red-1"] * 200}),
        ("numwars/score-round", {"players": [], "bomb_outcome": "kept"}),
        ("numwin/deal", {"players": 3, "seed": 1, "options": {"teams": True}}),
        (
            "numwars/score-round",
            {
                "players": [
                    {"captured": [], "pairs": [["red-1", "red-2"]], "role": "poseur"},
                    {"captured": [], "role": "demineur"},
                    {"captured": [], "role": "agent"},
                ],
                "bomb_outcome": "kept",
            },
        ),
        (
            "numwin/score-round",
            {
                "players": [
                    {"combination": ["red-3", "red-4", "red-5"], "locked": [["red-1", "blue-2"]]}
                ]
            },
        ),
    ],
)
def test_messages_speak_json_not_python(client: Any, path: str, payload: dict[str, Any]) -> None:
    r = client.post(f"/v1/rulesets/{path}", json=payload)
    assert r.status_code == 422, r.text
    body = r.json()
    texts = [body["detail"], *(e["message"] for e in body.get("errors", []))]
    for text in texts:
        assert not any(word in text for word in PYTHON_WORDS), text


@pytest.mark.parametrize("path", ["/v1/rulesets/" + "z" * 5_000, "/v2/" + "z" * 5_000])
def test_a_long_path_is_not_echoed_whole(client: Any, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    detail = r.json()["detail"]
    assert "…" in detail and "z" * 41 not in detail and len(r.content) < 500


def test_a_field_named_like_a_path_is_reported_whole(client: Any) -> None:
    """msgspec gives a path only as text after its message: a top-level key named
    "x` - at `$.players" must not read as an unknown field `x` of `players`."""
    key = "x` - at `$.players"
    one = [{"bid": 1, "tricks": 1}]
    r = client.post("/v1/rulesets/numking/score-round", json={"cards": 3, "players": one, key: 1})
    body = _problem(r, 422, "unknown-field")
    assert body["errors"][0]["field"] == '["x` - at `$.players"]'
    nested = client.post(
        "/v1/rulesets/numking/score-round",
        json={"cards": 3, "players": [{"bid": 1, "tricks": 1, key: 1}]},
    )
    body = _problem(nested, 422, "unknown-field")
    assert body["errors"][0]["field"] == 'players[0]["x` - at `$.players"]'


def test_numking_zeros_reach_every_endpoint(client: Any) -> None:
    """With `zeros` the deck holds rainbow-0 and shadow-0 and two players play a 19th round:
    every numking endpoint takes the option (found by a newcomer: only deal and deck did)."""
    zeros = {"zeros": True}
    hand = {"players": 2, "hand": ["rainbow-0", "shadow-5"], "trick": []}
    assert client.post("/v1/rulesets/numking/legal-moves", json=hand).status_code == 422
    moves = client.post("/v1/rulesets/numking/legal-moves", json={**hand, "options": zeros})
    assert moves.status_code == 200 and moves.json()["legal"] == ["rainbow-0", "shadow-5"]
    check = {**hand, "card": "rainbow-0", "options": zeros}
    assert client.post("/v1/rulesets/numking/validate-move", json=check).json()["legal"] is True
    trick = {
        "players": 2,
        "trick": [{"seat": 0, "card": "rainbow-0"}, {"seat": 1, "card": "shadow-1"}],
    }
    resolved = client.post("/v1/rulesets/numking/resolve-trick", json={**trick, "options": zeros})
    assert resolved.status_code == 200 and resolved.json()["winner"] == 1
    last = {
        "cards": 19,
        "players": [{"bid": 19, "tricks": 19, "streak": 18}, {"bid": 0, "tricks": 0}],
    }
    refused = client.post("/v1/rulesets/numking/score-round", json=last)
    assert refused.status_code == 422 and refused.json()["code"] == "bad-request"
    scored = client.post("/v1/rulesets/numking/score-round", json={**last, "options": zeros})
    assert scored.status_code == 200, scored.text
    assert [p["streak"] for p in scored.json()["players"]] == [19, 1]


@pytest.mark.parametrize(
    ("model", "body", "field", "message"),
    [
        (
            "api.accounts.schemas:SignUp",
            {"pseudo": "ada", "password": "x" * 10, "age_range": "18+", "accept_terms": True},
            "age_range",
            "must be one of '13-17', '18-24', '25-34', '35-49', '50-plus', 'under-13', not '18+'",
        ),
        (  # an optional field: `Locale | None`
            "api.accounts.schemas:SignUp",
            {
                "pseudo": "ada",
                "password": "x" * 10,
                "age_range": "50-plus",
                "accept_terms": True,
                "locale": "de",
            },
            "locale",
            "must be one of 'en', 'fr', not 'de'",
        ),
        # CreateGame's `ruleset` is checked against the registry by the service, not by its
        # struct (issue 22: a ruleset registered after import is taken): the same answer is
        # held by tests/api/test_tinytricks.py::test_an_unknown_ruleset_is_answered_with_the_set
    ],
)
def test_a_value_outside_a_fixed_set_is_answered_with_the_set(
    model: str, body: dict[str, Any], field: str, message: str
) -> None:
    """A fixed set of values (a `Literal` field) is named in the problem, found through the
    body's type (the newcomer's sign-up with `"18+"` got only "Invalid enum value")."""
    import importlib

    import msgspec

    from api.http.body import decode_error

    module, name = model.split(":")
    struct = getattr(importlib.import_module(module), name)
    with pytest.raises(msgspec.ValidationError) as refused:
        msgspec.json.decode(msgspec.json.encode(body), type=struct, strict=True)
    problem = decode_error(refused.value, body, struct).problem
    assert problem.status == 422 and problem.code == "validation-error"
    assert [(e.field, e.message, e.code) for e in problem.errors] == [(field, message, "enum")]
    assert problem.detail == f"{field}: {message}"
    # without the type, the set is not known: the message names no value
    untyped = decode_error(refused.value, body).problem
    assert [(e.field, e.code) for e in untyped.errors] == [(field, "enum")]
    assert "'" not in untyped.detail


@pytest.mark.parametrize(
    ("content", "escape", "byte"),
    [
        (b'{"players": 4, "hand": ["\\ud800"]}', "\\ud800", 25),
        (b'{"players": 4, "hand": ["red-3\\uDBFFx"]}', "\\uDBFF", 30),
        (b'{"players": 4, "hand": ["\\ud83c\\udca1", "\\ud800 "]}', "\\ud800", 41),
    ],
)
def test_a_lone_surrogate_is_said_as_such(
    client: Any, content: bytes, escape: str, byte: int
) -> None:
    """A high surrogate's escape that no low one follows: msgspec calls it the end of the
    input, and the answer said the body was cut short, though it went on (an attack found
    it); it names the escape and where it stands, in both languages."""
    said = {}
    for language in ("en", "fr"):
        r = client.post(
            "/v1/rulesets/numwars/legal-moves",
            content=content,
            headers={"content-type": "application/json", "accept-language": language},
        )
        said[language] = _problem(r, 400, "malformed-json")["detail"]
    assert "lone UTF-16 surrogate" in said["en"] and f"{escape} at byte {byte}" in said["en"]
    assert "invalid string" in said["en"] and "before the JSON is complete" not in said["en"]
    assert f"l’échappement {escape} à l’octet {byte}" in said["fr"]
    assert "chaîne invalide" in said["fr"] and "avant la fin du JSON" not in said["fr"]


@pytest.mark.parametrize("content", [b'{"players": 4, "hand": ["\\ud800', b'{"hand": ["\\ud800\\u'])
def test_a_body_cut_after_a_high_surrogate_is_cut_short(client: Any, content: bytes) -> None:
    r = client.post(
        "/v1/rulesets/numwars/legal-moves",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert "it ends before the JSON is complete" in _problem(r, 400, "malformed-json")["detail"]


def test_a_refused_body_names_the_keys_it_repeats(client: Any) -> None:
    """msgspec keeps the last value of a repeated key (RFC 8259 §4 leaves it to the reader)
    and said nothing of it: a refusal of what was read then gave no reason. It names each
    repeated key, where it is, first (code `duplicate-key`), in both languages."""
    content = b'{"cards": 3, "cards": "3", "players": [{"bid": 1, "bid": 0, "tricks": "x"}]}'
    said = {}
    for language in ("en", "fr"):
        r = client.post(
            "/v1/rulesets/numking/score-round",
            content=content,
            headers={"content-type": "application/json", "accept-language": language},
        )
        body = _problem(r, 422, "validation-error")
        said[language] = body["errors"]
        assert [(e["field"], e["code"]) for e in body["errors"][:2]] == [
            ("cards", "duplicate-key"),
            ("players[0].bid", "duplicate-key"),
        ]
    assert said["en"][0]["message"].startswith("the key 'cards' appears 2 times in this object")
    assert said["fr"][0]["message"].startswith("la clé 'cards' apparaît 2\u00a0fois dans cet objet")
    assert said["en"][1]["message"].startswith("the key 'bid' appears 2 times")
    assert {(e["field"], e["code"]) for e in said["en"][2:]} == {
        ("cards", "type"),
        ("players[0].tricks", "type"),
    }


def test_a_body_that_repeats_a_key_and_breaks_nothing_is_read_with_its_last_value(
    client: Any,
) -> None:
    """Only a refused body is parsed again for its repeated keys: a valid one is decoded
    once, as before, its repeated key read as its last value (RFC 8259 §4)."""
    r = client.post(
        "/v1/rulesets/numwars/legal-moves",
        content=b'{"players": 4, "hand": ["red-3"], "hand": ["blue-4"], "trick": []}',
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["legal"] == ["blue-4"]


@pytest.mark.parametrize("path", ["/v1/rulesets/numwin/score-round", "/v1/games"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_coded_body_is_refused_not_read_as_it_came(client: Any, path: str, language: str) -> None:
    """`Content-Encoding: gzip` on a body was ignored: a plain `{}` sent so was read as `{}`,
    a real gzip as malformed JSON. A coding the server does not decode is 415 (RFC 9110
    §15.5.16), on a fast path's operation and the pipeline's alike; `identity` is none."""
    headers = {"content-type": "application/json", "accept-language": language}
    r = client.post(path, content=b"{}", headers={**headers, "content-encoding": "gzip"})
    problem = _problem(r, 415, "unsupported-media-type")
    assert "'gzip'" in problem["detail"] and "identity" in problem["detail"], problem
    plain = client.post(path, content=b"{}", headers={**headers, "content-encoding": "identity"})
    assert plain.status_code != 415, plain.text
