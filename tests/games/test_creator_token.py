"""A game of bots only created without a session can be ended by its creator (an attack
found it could not): no seat of it has a token and no account created it, so `POST
/v1/games/{id}/abandon` refused everyone, whatever the bots spent of the creator's network's
bot-CPU quota. Its creation now answers a `creator_token` (stored hashed, shown once, again
to an `Idempotency-Key` retry) that ends it, as a creator's session ends the games it
created; it is good for nothing else.

The app here never plays a bot move itself (`bot_hold`), so that the game is still being
played when it is ended."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up
from tests.games.conftest import app_on

BOTS = [{"name": f"Bot {i}", "bot": "basic"} for i in range(3)]
BOTS_ONLY = {"ruleset": "numwars-classic", "players": BOTS}


@pytest.fixture(scope="module")
def held(pg_head: str) -> Iterator[TestClient[Any]]:
    with TestClient(app_on(pg_head, bot_hold=True)) as client:
        yield client


def _create(client: TestClient[Any], body: dict[str, Any], **headers: str) -> dict[str, Any]:
    created = client.post("/v1/games", json=body, headers=headers)
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def test_the_creator_of_a_game_of_bots_only_ends_it_with_its_token(
    held: TestClient[Any],
) -> None:
    game = _create(held, BOTS_ONLY)
    token = game["creator_token"]
    assert token.startswith("nrh_") and len(token) > 40
    assert all("token" not in seat for seat in game["seats"])  # bots get none, as ever
    path = f"/v1/games/{game['id']}/abandon"
    assert held.get(f"/v1/games/{game['id']}").json()["status"] == "active"
    # nobody else ends it: no credential, a stranger's session, another game's seat or
    # creator's token
    other = _create(held, BOTS_ONLY)
    seat_elsewhere = _create(
        held, {"ruleset": "numwars-classic", "players": [{"name": "A"}, *BOTS[:2]]}
    )
    for headers in (
        {},
        auth(sign_up(held)["token"]),
        auth(other["creator_token"]),
        auth(seat_elsewhere["seats"][0]["token"]),
    ):
        refused = held.post(path, headers=headers)
        assert refused.status_code == 401, refused.text
    assert held.get(f"/v1/games/{game['id']}").json()["status"] == "active"
    ended = held.post(path, headers=auth(token))
    assert ended.status_code == 200, ended.text
    assert ended.json()["status"] == "abandoned" and ended.json()["seed"] is not None
    assert held.get(f"/v1/games/{game['id']}").json()["status"] == "abandoned"
    again = held.post(path, headers=auth(token))
    assert (again.status_code, again.json()["code"]) == (409, "game-over")


def test_a_creator_token_is_good_for_nothing_else(held: TestClient[Any]) -> None:
    """It is no seat's: no view, no move, no hint, no ticket, no rematch (401, as a wrong
    token is: never a spectator's view)."""
    game = _create(held, BOTS_ONLY)
    creator = auth(game["creator_token"])
    base = f"/v1/games/{game['id']}"
    assert held.get(base, headers=creator).status_code == 401
    assert held.get(f"{base}/events", headers=creator).status_code == 401
    play = held.post(f"{base}/actions", json={"type": "pass", "card": "red-1"}, headers=creator)
    assert play.status_code == 401, play.text
    for operation in ("hint", "stream-tickets", "rematch"):
        refused = held.post(f"{base}/{operation}", headers=creator)
        assert refused.status_code == 401, (operation, refused.text)
    assert held.post(f"{base}/abandon", headers=creator).status_code == 200


def test_only_a_game_of_bots_only_created_without_a_session_has_one(
    held: TestClient[Any],
) -> None:
    """A game with a person's seat is ended by that seat's token; one created with a session
    by that session (it keeps doing so): neither answers a `creator_token`."""
    person = _create(held, {"ruleset": "numwars-classic", "players": [{"name": "Ada"}, *BOTS[:2]]})
    assert "creator_token" not in person
    session = auth(sign_up(held)["token"])
    hosted = _create(held, BOTS_ONLY, **session)
    assert "creator_token" not in hosted
    ended = held.post(f"/v1/games/{hosted['id']}/abandon", headers=session)
    assert ended.status_code == 200, ended.text


def test_a_retried_creation_gives_the_creator_token_again(held: TestClient[Any]) -> None:
    """A 201 lost on the way: the retry with the same `Idempotency-Key` answers the same game
    and the same creator token (sealed with the key, as seat tokens are)."""
    key = {"Idempotency-Key": secrets.token_hex(16)}
    first = _create(held, BOTS_ONLY, **key)
    retried = held.post("/v1/games", json=BOTS_ONLY, headers=key)
    assert retried.status_code == 201, retried.text
    assert retried.headers.get("idempotent-replayed") == "true"
    assert retried.json()["id"] == first["id"]
    assert retried.json()["creator_token"] == first["creator_token"]
    ended = held.post(f"/v1/games/{first['id']}/abandon", headers=auth(first["creator_token"]))
    assert ended.status_code == 200, ended.text
