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
    assert body["errors"] == [{"field": "hand[1]", "message": body["errors"][0]["message"]}]


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
    body = _problem(r, 422, "bad-request")
    assert body["errors"][0]["field"] == "trick[0].declared"
