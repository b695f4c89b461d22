"""Catalogue, deck and deal endpoints through the real app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.app import openapi_json
from api.cli import main
from engine.registry import RULESETS


def test_catalogue_lists_every_ruleset_with_defaults(client: Any) -> None:
    body = client.get("/v1/rulesets").json()
    ids = [r["id"] for r in body["rulesets"]]
    assert ids == list(RULESETS)
    numwars = body["rulesets"][0]
    assert numwars["players"] == {"min": 3, "max": 8}
    assert numwars["options"] == {"exchange": 0, "tiebreak": False}


def test_catalogue_says_which_rulesets_need_an_account_and_which_lowest_wins(
    client: Any,
) -> None:
    """The app locks the community games (rules/app.md "Jeux de la communauté 🔒") and names
    a lowest-wins match's winner from the catalogue, without knowing the rulesets."""
    body = client.get("/v1/rulesets").json()
    flags = {r["id"]: (r["community"], r["lowest_wins"]) for r in body["rulesets"]}
    assert flags == {
        "numwars": (False, False),
        "numwars-classic": (False, False),
        "numking": (True, False),
        "numwin": (True, True),
    }
    one = client.get("/v1/rulesets/numwin").json()
    assert (one["community"], one["lowest_wins"]) == (True, True)


@pytest.mark.parametrize(
    ("header", "language"),
    [
        (None, "en"),
        ("fr-FR,fr;q=0.9,en;q=0.5", "fr"),
        ("de, en;q=0.1", "en"),
        ("de, fr;q=0.2", "fr"),
    ],
)
def test_ruleset_summary_follows_accept_language(
    client: Any, header: str | None, language: str
) -> None:
    headers = {"accept-language": header} if header else {}
    body = client.get("/v1/rulesets/numwars", headers=headers).json()
    assert body["language"] == language
    assert set(body["summary"]) == {"setup", "turn", "hierarchy", "scoring"}


def test_french_summary_is_french(client: Any) -> None:
    fr = client.get("/v1/rulesets/numking", headers={"accept-language": "fr"}).json()
    en = client.get("/v1/rulesets/numking").json()
    assert fr["summary"]["scoring"] != en["summary"]["scoring"]
    assert "Annonce" in fr["summary"]["scoring"]


@pytest.mark.parametrize(
    ("path", "hand_size", "set_aside", "deck", "out_of_play"),
    [
        ("/v1/rulesets/numwars/deck?players=3", 27, 1, 82, ["joker"]),
        ("/v1/rulesets/numwars/deck?players=4", 20, 2, 82, []),
        ("/v1/rulesets/numwars/deck?players=6", 17, 4, 106, []),
        ("/v1/rulesets/numwars-classic/deck?players=4", 15, 44, 104, []),
        ("/v1/rulesets/numwars-classic/deck?players=4&speed=true", 10, 64, 104, []),
        ("/v1/rulesets/numking/deck?players=4", 9, 0, 36, []),
        ("/v1/rulesets/numking/deck?players=4&zeros=true&max_cards=5", 5, 18, 38, []),
        ("/v1/rulesets/numwin/deck?players=4", 2, 0, 111, []),
    ],
)
def test_deck(
    client: Any, path: str, hand_size: int, set_aside: int, deck: int, out_of_play: list[str]
) -> None:
    body = client.get(path).json()
    assert (body["hand_size"], body["set_aside"], len(body["cards"]), body["out_of_play"]) == (
        hand_size,
        set_aside,
        deck,
        out_of_play,
    )


def test_the_3_player_numwars_deck_says_the_joker_is_out_of_play(client: Any) -> None:
    """`cards` stays the whole 82-card deck; `out_of_play` names the Joker, the set-aside
    card (rules/numwars.md, Set-up 1), which `score-round` refuses, and every other card of
    `cards` is one `score-round` takes."""
    body = client.get("/v1/rulesets/numwars/deck?players=3").json()
    assert body["out_of_play"] == ["joker"]
    assert len(body["cards"]) == 82 and "joker" in body["cards"]
    rest = [card for card in body["cards"] if card not in body["out_of_play"]]
    assert len(rest) == 81
    roles = ["poseur", "demineur", "agent"]
    table = [{"captured": rest, "role": roles[0]}] + [
        {"captured": [], "role": r} for r in roles[1:]
    ]
    request = {"players": table, "bomb_outcome": "kept"}
    answer = client.post("/v1/rulesets/numwars/score-round", json=request)
    assert answer.status_code == 200, answer.text
    for card in body["out_of_play"]:
        table[1]["captured"] = [card]
        refused = client.post("/v1/rulesets/numwars/score-round", json=request)
        assert refused.status_code == 422 and refused.json()["code"] == "card-not-in-deck"


@pytest.mark.parametrize(
    ("ruleset", "extra"),
    [
        ("numwars", {}),
        ("numwars-classic", {"options": {"speed": True}}),
        ("numking", {"round": 4, "first_bidder": 2}),
        ("numwin", {}),
    ],
)
def test_deal_is_deterministic_and_complete(
    client: Any, ruleset: str, extra: dict[str, Any]
) -> None:
    request = {"players": 4, "seed": 2026, **extra}
    first = client.post(f"/v1/rulesets/{ruleset}/deal", json=request).json()
    again = client.post(f"/v1/rulesets/{ruleset}/deal", json=request).json()
    other = client.post(f"/v1/rulesets/{ruleset}/deal", json={**request, "seed": 2027}).json()
    assert first == again and first["hands"] != other["hands"]
    assert len(first["hands"]) == 4
    dealt = (
        [c for hand in first["hands"] for c in hand] + first["set_aside"] + first.get("discard", [])
    )
    deck = client.get(f"/v1/rulesets/{ruleset}/deck?players=4").json()["cards"]
    if ruleset == "numwin":
        assert len(dealt) + first["draw_pile_count"] == len(deck)
    elif ruleset == "numking":
        assert sorted(dealt) == sorted(deck) and first["leader"] == 2
    else:
        assert sorted(dealt) == sorted(deck)
    if ruleset == "numwars":
        assert sorted(first["roles"]) == ["agent", "complice", "demineur", "poseur"]


def test_openapi_command_writes_the_served_spec(tmp_path: Path) -> None:
    out = tmp_path / "spec.json"
    assert main(["openapi", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == openapi_json()
