"""Bots in stored games (issue 25, second slice), over HTTP on PostgreSQL: bot seats of every
ruleset play to the end of a match with the human only acting; a game of bots only runs to
the end on creation; hints and their refusals; the export's `bot` and `hint_used`; the
catalogue's levels."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.games.host import host
from tests.pg import FAST_HASHES

#: Each ruleset at a small table, with options that keep its match short.
TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    "numwars": (3, {}),
    "numwars-classic": (3, {}),
    "numking": (3, {"max_cards": 2}),
    "numwin": (3, {}),
}
DEADLINE = 120.0


@pytest.fixture(scope="module")
def bots_app(pg_head: str) -> Litestar:
    from api.app import create_app
    from api.ops.settings import Settings

    return create_app(
        Settings(
            database_url=pg_head,
            check_db_on_start=True,
            bot_workers=0,  # a thread: the served test below runs the process pool
            bot_samples=2,
            bot_seconds=0.05,
            bot_sweep_seconds=0.5,
            rate_limit_per_minute=0,
            **FAST_HASHES,
        )
    )


@pytest.fixture(scope="module")
def client(bots_app: Litestar) -> Iterator[TestClient]:  # type: ignore[type-arg]
    with TestClient(bots_app) as c:
        yield c


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: Any, ruleset: str, players: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"ruleset": ruleset, "players": players, **extra}
    answer = client.post("/v1/games", json=body, headers=host(client))
    assert answer.status_code == 201, answer.text
    return answer.json()


def wait_for_turn(client: Any, game_id: str, token: str) -> Any:
    """The seat's view once it may act or the game is over (bots play meanwhile)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        game = client.get(f"/v1/games/{game_id}", headers=bearer(token)).json()
        view = game["view"]
        if game["status"] != "active" or (view["seat"] in view["actors"] and view["legal_actions"]):
            return game
        assert time.monotonic() < deadline, f"stuck: {game}"
        time.sleep(0.02)


def test_the_catalogue_lists_the_bot_levels(client: Any) -> None:
    for ruleset in TABLES:
        info = client.get(f"/v1/rulesets/{ruleset}").json()
        assert info["bots"] == ["random", "basic", "expert"]


@pytest.mark.parametrize("ruleset", list(TABLES))
def test_a_human_and_bots_play_a_whole_match(client: Any, ruleset: str) -> None:
    players, options = TABLES[ruleset]
    levels = ["random", "basic", "random", "basic"][: players - 1]
    seats = [{"name": "Ada"}] + [{"name": f"Bot {i}", "bot": lv} for i, lv in enumerate(levels)]
    created = create(client, ruleset, seats, options=options, seed=11)
    assert "token" in created["seats"][0]
    for seat, level in zip(created["seats"][1:], levels, strict=True):
        assert "token" not in seat and seat["bot"] == level
    token = created["seats"][0]["token"]
    game_id = created["id"]
    rng = random.Random(5)
    hinted_at: int | None = None
    human = 0
    while True:
        game = wait_for_turn(client, game_id, token)
        if game["status"] != "active":
            break
        assert [p.get("bot") for p in game["players"]] == [None, *levels]
        if hinted_at is None:  # a hint on the first turn: the export marks that action
            answer = client.post(f"/v1/games/{game_id}/hint", headers=bearer(token))
            assert answer.status_code == 200, answer.text
            advice = answer.json()
            assert advice["level"] == "expert"
            assert advice["action"] in game["view"]["legal_actions"]
            listed = [v["action"] for v in advice["values"]]
            assert sorted(map(str, listed)) == sorted(map(str, game["view"]["legal_actions"]))
            hinted_at = game["version"]
        action = rng.choice(game["view"]["legal_actions"])
        acted = client.post(f"/v1/games/{game_id}/actions", json=action, headers=bearer(token))
        if acted.status_code == 409:  # a bot moved first (numwin's snaps are open to all)
            assert acted.json()["code"] in ("wrong-phase", "not-your-turn", "game-over"), acted.text
            continue
        if acted.status_code == 422:  # a bot moved first and took what the move played
            assert acted.json()["code"] == "illegal-move", acted.text
            moved = client.get(f"/v1/games/{game_id}", headers=bearer(token)).json()["version"]
            assert moved > game["version"], acted.text  # never refused on the view it came from
            continue
        assert acted.status_code == 200, acted.text
        human += 1
    assert game["status"] == "over" and game["result"]["winners"]
    export = client.get(f"/v1/games/{game_id}/export").json()
    bots = {a["seq"] for a in export["actions"] if a.get("bot")}
    assert bots == {a["seq"] for a in export["actions"] if a["seat"] != 0}
    assert len(export["actions"]) - len(bots) == human
    mine = [a["seq"] for a in export["actions"] if a["seat"] == 0 and a["seq"] > hinted_at]
    assert [a["seq"] for a in export["actions"] if a.get("hint_used")] == mine[:1]
    assert [a["seq"] for a in export["actions"]] == list(range(1, game["version"] + 1))


def test_a_game_of_bots_only_runs_to_the_end_on_creation(client: Any) -> None:
    seats = [{"name": f"Bot {i}", "bot": "basic"} for i in range(4)]
    created = create(client, "numwars-classic", seats, seed=3)
    assert all("token" not in s for s in created["seats"])
    deadline = time.monotonic() + DEADLINE
    while (game := client.get(f"/v1/games/{created['id']}").json())["status"] == "active":
        assert time.monotonic() < deadline, game
        time.sleep(0.05)
    assert game["status"] == "over" and game["result"]["winners"]
    export = client.get(f"/v1/games/{created['id']}/export").json()
    assert export["actions"] and all(a["bot"] is True for a in export["actions"])


def test_hint_refusals(client: Any) -> None:
    seats = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Bot", "bot": "basic"}]
    created = create(client, "numking", seats, options={"max_cards": 2}, seed=1)
    game_id = created["id"]
    tokens = [s.get("token") for s in created["seats"]]
    game = wait_for_turn(client, game_id, tokens[0])
    turn = game["view"]["current_player"]
    assert turn in (0, 1)
    other = tokens[1 - turn]
    refused = client.post(f"/v1/games/{game_id}/hint", headers=bearer(other))
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "not-your-turn"
    assert client.post(f"/v1/games/{game_id}/hint").status_code == 401
    missing = client.post("/v1/games/" + "0" * 32 + "/hint", headers=bearer(tokens[0]))
    assert missing.status_code in (401, 404)
    off = create(client, "numking", seats, options={"max_cards": 2, "hints": False}, seed=1)
    turn_token = off["seats"][turn]["token"]
    wait_for_turn(client, off["id"], turn_token)
    said = {}
    for language in ("en", "fr"):
        answer = client.post(
            f"/v1/games/{off['id']}/hint",
            headers={**bearer(turn_token), "Accept-Language": language},
        )
        assert answer.status_code == 409 and answer.json()["code"] == "hints-off"
        said[language] = answer.json()["detail"]
    assert said["en"] != said["fr"]  # said in each language
    # one hint in flight per seat, a limit a minute: tests/games/test_bots_limits.py
    bad = client.post(
        "/v1/games",
        json={"ruleset": "numking", "players": seats, "options": {"hints": "no"}},
        headers=host(client),
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad-option"
    unknown = client.post(
        "/v1/games",
        json={"ruleset": "numwars", "players": [{"name": "A", "bot": "genius"}] * 3},
    )
    assert unknown.status_code == 422


def test_numrules_play_seats_bots(capsys: pytest.CaptureFixture[str]) -> None:
    from api.cli import main

    args = ["play", "--ruleset", "numking", "--players", "3", "--options", '{"max_cards": 2}']
    assert main([*args, "--bots", "expert,basic", "--bot-samples", "2"]) == 0
    assert "winners:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main([*args, "--bots", "genius"])
    assert "bot levels are random, basic, expert" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*args, "--bots", "basic,basic,basic,basic"])
    assert "4 bots for 3 players" in capsys.readouterr().err
