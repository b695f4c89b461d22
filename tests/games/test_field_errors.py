"""Stored games' refusals name every invalid field at once, with codes (issue 23)."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

TABLE = {"ruleset": "numwars-classic", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}


def test_a_game_creation_lists_every_bad_field(games: TestClient[Any]) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": ""}, {"name": "Bo", "account": "Zoë"}, {"name": "Cy", "bot": 3}],
        "seed": -1,
        "clock": "fast",
    }
    r = games.post("/v1/games", json=body, headers={"Accept-Language": "fr"})
    assert r.status_code == 422, r.text
    problem = r.json()
    codes = [(e["field"], e["code"]) for e in problem["errors"]]
    assert ("players[0].name", "min-length") in codes and ("seed", "minimum") in codes
    assert ("players[1].account", "pattern") in codes
    assert len(codes) >= 4 and problem["code"] == "validation-error"
    assert all(e["message"] and "regex" not in e["message"] for e in problem["errors"])


def test_an_action_lists_every_bad_field(games: TestClient[Any]) -> None:
    created = games.post("/v1/games", json=TABLE)
    assert created.status_code == 201, created.text
    game = created.json()
    url = f"/v1/games/{game['id']}/actions"
    seat = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    body = {"type": "swap", "position": "first", "call": 1, "colour": "red"}
    r = games.post(url, json=body, headers={**seat, "Accept-Language": "fr"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"] == [
        {
            "field": "position",
            "code": "type",
            "message": "doit être un entier, pas une chaîne de caractères",
        },
        {"field": "call", "code": "type", "message": "doit être true ou false, pas un entier"},
        {"field": "colour", "code": "unknown-field", "message": "champ inconnu 'colour'"},
    ]
    assert games.post(url, json=body).status_code == 401  # no token: authentication first
    assert games.get(f"/v1/games/{game['id']}").json()["version"] == 0  # nothing applied


def test_a_bad_option_is_named_at_its_field_in_the_callers_words(
    games: TestClient[Any],
) -> None:
    """An unknown or ill-typed ruleset option: 422 `bad-option` on `options.<name>` (or
    `options` for an unknown one), said in French with no msgspec text left in it."""
    cases = [
        ({"x": 1}, "options.x", "champ inconnu 'x'"),
        (
            {"speed": "true"},
            "options.speed",
            "doit être true ou false, pas une chaîne de caractères",
        ),
    ]
    for options, field, message in cases:
        body = {**TABLE, "options": options}
        r = games.post("/v1/games", json=body, headers={"Accept-Language": "fr"})
        assert r.status_code == 422, r.text
        problem = r.json()
        assert problem["code"] == "bad-option"
        assert problem["errors"] == [{"field": field, "code": "bad-option", "message": message}]
        assert "Expected" not in problem["detail"] and "Object contains" not in problem["detail"]
        english = games.post("/v1/games", json=body).json()
        assert english["code"] == "bad-option" and english["errors"][0]["field"] == field
    both = {**TABLE, "options": {"x": 1, "speed": "true"}}  # every bad option at once
    fields = [e["field"] for e in games.post("/v1/games", json=both).json()["errors"]]
    assert sorted(fields) == ["options.speed", "options.x"], fields


def test_an_action_with_two_types_names_the_repeated_key(games: TestClient[Any]) -> None:
    """`{"type": "play", "card": …, "type": "bid"}` was read as a bid (msgspec keeps a
    repeated key's last value) and refused as a bid without `tricks` holding an unknown
    `card`, which said nothing of the two types: the refusal names the repeated key first."""
    created = games.post("/v1/games", json=TABLE)
    assert created.status_code == 201, created.text
    game = created.json()
    seat = {"Authorization": f"Bearer {game['seats'][0]['token']}"}
    body = b'{"type": "play", "card": "red-7", "type": "bid"}'
    said = {}
    for language in ("en", "fr"):
        r = games.post(
            f"/v1/games/{game['id']}/actions",
            content=body,
            headers={**seat, "Content-Type": "application/json", "Accept-Language": language},
        )
        assert r.status_code == 422, r.text
        problem = r.json()
        assert problem["code"] == "validation-error"
        assert (problem["errors"][0]["field"], problem["errors"][0]["code"]) == (
            "type",
            "duplicate-key",
        )
        said[language] = problem["errors"][0]["message"]
    assert said["en"] == (
        "the key 'type' appears 2 times in this object: send it once (only its last value was read)"
    )
    assert said["fr"].startswith("la clé 'type' apparaît 2\u00a0fois dans cet objet")
    assert games.get(f"/v1/games/{game['id']}").json()["version"] == 0


def test_a_query_value_outside_its_set_names_the_set(games: TestClient[Any]) -> None:
    """`GET /v1/games?status=over` said "must be one of the values this field takes" without
    naming them (the operation's choices were not read for a query parameter, as they are
    for a body's field): it names `open`, in both languages."""
    said = {}
    for language in ("en", "fr"):
        r = games.get("/v1/games", params={"status": "over"}, headers={"Accept-Language": language})
        assert r.status_code == 422, r.text
        problem = r.json()
        assert problem["code"] == "validation-error"
        assert [(e["field"], e["code"]) for e in problem["errors"]] == [("status", "enum")]
        said[language] = problem["errors"][0]["message"]
    assert said == {
        "en": "must be one of 'open', not 'over'",
        "fr": "doit être l’une des valeurs 'open', pas 'over'",
    }
