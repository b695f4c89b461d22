"""`NUMRULES_MATCH_CACHE_SIZE`: how many games' matches a process keeps. Past it the least
recently used game goes, and is loaded again from the database when it is next played,
answering as if it had stayed."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from litestar.testing import TestClient

from api.ops.settings import Settings
from tests.games.conftest import app_on


def _create(client: TestClient[Any], seed: int) -> tuple[str, list[str]]:
    body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"], "seed": seed}
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.text
    game = created.json()
    return game["id"], [seat["token"] for seat in game["seats"]]


def _act(client: TestClient[Any], game: str, tokens: list[str]) -> dict[str, Any]:
    """The first legal action of the seat to act; its answer."""
    actor = client.get(f"/v1/games/{game}").json()["view"]["actors"][0]
    auth = {"Authorization": f"Bearer {tokens[actor]}"}
    view = client.get(f"/v1/games/{game}", headers=auth).json()["view"]
    answer = client.post(f"/v1/games/{game}/actions", json=view["legal_actions"][0], headers=auth)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_past_the_size_the_least_recently_played_game_goes_and_comes_back(pg_head: str) -> None:
    with TestClient(app_on(pg_head, match_cache_size=2)) as client:
        service = client.app.state.games
        assert service.cache_size == 2
        games = [_create(client, 5100 + n) for n in range(3)]
        for game, tokens in games:
            assert _act(client, game, tokens)["version"] == 1
        kept = list(service._cache)
        assert kept == [games[1][0], games[2][0]]  # the first one played went
        again = _act(client, *games[0])  # loaded again, and played on
        assert again["version"] == 2
        assert list(service._cache) == [games[2][0], games[0][0]]
        assert client.get(f"/v1/games/{games[0][0]}").json()["version"] == 2


@pytest.mark.parametrize("size", [0, -1, 1_000_001])
def test_a_size_out_of_bounds_is_refused(size: int) -> None:
    with pytest.raises(pydantic.ValidationError, match="match_cache_size"):
        Settings(match_cache_size=size)
