"""Turn clocks meet open tables and rematches (issue 26; api-contract.md, "Clocks."): no clock
runs while a game is `waiting`, the first turns' clocks start when the table starts, and a
rematch keeps the clock, its first turns' clocks starting at its creation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up
from tests.games.host import host

CLOCK = {"turn_seconds": 600, "on_timeout": "auto"}


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_no_clock_while_waiting_and_the_first_turns_clocked_at_the_start(
    games: TestClient[Any],
) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": "Ada"}, {"open": True}, {"open": True, "name": "Cy"}],
        "clock": CLOCK,
    }
    created = games.post("/v1/games", json=body, headers=host(games))
    assert created.status_code == 201, created.text
    table = created.json()
    assert table["status"] == "waiting"
    assert table["clock"] == CLOCK and table.get("deadlines", []) == []
    waiting = games.get(f"/v1/games/{table['id']}").json()
    assert waiting.get("deadlines", []) == []  # nobody owes a move: no clock runs

    tokens = {}
    for seat in (1, 2):
        claimed = games.post(
            f"/v1/games/{table['id']}/seats/{seat}/claim", headers=auth(sign_up(games)["token"])
        )
        assert claimed.status_code == 201, claimed.text
        tokens[seat] = claimed.json()["token"]
    assert claimed.json()["status"] == "active"
    ada = games.get(f"/v1/games/{table['id']}", headers=auth(table["seats"][0]["token"])).json()
    # numwars-classic opens with a simultaneous exchange: every seat owes a move, and each
    # has its deadline, the same one, about ten minutes from the start
    assert sorted(d["seat"] for d in ada["deadlines"]) == [0, 1, 2]
    assert ada["deadline"] == ada["deadlines"][0]["at"]
    first = _at(ada["deadlines"][0]["at"])
    assert {_at(d["at"]) for d in ada["deadlines"]} == {first}
    cy = games.get(f"/v1/games/{table['id']}", headers=auth(tokens[2])).json()
    assert cy["deadline"] == ada["deadline"]


def test_a_rematch_keeps_the_clock(games: TestClient[Any]) -> None:
    body = {
        "ruleset": "numwars-classic",
        "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}],
        "clock": CLOCK,
    }
    game = games.post("/v1/games", json=body, headers=host(games)).json()
    assert len(game["deadlines"]) == 3
    ada = auth(game["seats"][0]["token"])
    assert games.post(f"/v1/games/{game['id']}/abandon", headers=ada).status_code == 200
    over = games.get(f"/v1/games/{game['id']}").json()
    assert over["status"] == "abandoned" and over.get("deadlines", []) == []
    rematch = games.post(f"/v1/games/{game['id']}/rematch", headers=ada)
    assert rematch.status_code == 201, rematch.text
    again = rematch.json()
    assert again["clock"] == CLOCK
    assert sorted(d["seat"] for d in again["deadlines"]) == [0, 1, 2]
    assert again["status"] == "active"
