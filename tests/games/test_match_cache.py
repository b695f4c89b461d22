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
from tests.games.test_fast_games import create, seat


def _act(client: TestClient[Any], game: dict[str, Any]) -> dict[str, Any]:
    """The first legal action of the seat to act; its answer."""
    actor = client.get(f"/v1/games/{game['id']}").json()["view"]["actors"][0]
    view = client.get(f"/v1/games/{game['id']}", headers=seat(game, actor)).json()["view"]
    path = f"/v1/games/{game['id']}/actions"
    answer = client.post(path, json=view["legal_actions"][0], headers=seat(game, actor))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_past_the_size_the_least_recently_played_game_goes_and_comes_back(pg_head: str) -> None:
    with TestClient(app_on(pg_head, match_cache_size=2)) as client:
        service = client.app.state.games
        assert service.cache_size == 2
        games = [create(client, "numwars", 5100 + n) for n in range(3)]
        ids = [game["id"] for game in games]
        for game in games:
            assert _act(client, game)["version"] == 1
        assert list(service._cache) == ids[1:]  # the first one played went
        assert _act(client, games[0])["version"] == 2  # loaded again, and played on
        assert list(service._cache) == [ids[2], ids[0]]
        assert client.get(f"/v1/games/{ids[0]}").json()["version"] == 2


@pytest.mark.parametrize("size", [0, -1, 1_000_001])
def test_a_size_out_of_bounds_is_refused(size: int) -> None:
    with pytest.raises(pydantic.ValidationError, match="match_cache_size"):
        Settings(match_cache_size=size)
