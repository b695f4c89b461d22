"""A creation without a key, a session or an account writes its game in one statement
(`ADD_GAME_PG`, `GameRepository.add_game_alone`); any other goes through SQLAlchemy in a
transaction (`add_game`). Both must write the same rows: every column of the game, its seats
and its events, JSON nulls and SQL NULLs alike, for the same creation (the same seed), with
and without a turn clock; only what is drawn or timed per game differs (its id,
salt, token hashes, bot seed, timestamps; a clock's deadlines, compared by shape)."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import timedelta
from typing import Any

import asyncpg
import pytest

from api.games.repository import (
    _NEW_GAME_PG,
    GameRepository,
    PostgresGameRepository,
)
from tests.pg import asyncpg_dsn

#: Drawn or timed for each game: compared by presence only.
DRAWN = {"id", "salt", "seed_commitment", "bot_seed", "created_at", "updated_at", "game_id"}
DRAWN_SEAT = DRAWN | {"token_hash"}
TIMED = {"deadline", "sweep_at", "deadlines"}

WARS = {"ruleset": "numwars", "players": [{"name": f"p{i}"} for i in range(4)], "seed": 4242}


async def _rows(url: str, game_id: str) -> dict[str, Any]:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        game = await conn.fetchrow("SELECT * FROM games WHERE id = $1", game_id)
        seats = await conn.fetch(
            "SELECT * FROM game_seats WHERE game_id = $1 ORDER BY seat", game_id
        )
        events = await conn.fetch(
            "SELECT * FROM game_events WHERE game_id = $1 ORDER BY seq", game_id
        )
        # JSON null and SQL NULL told apart: each JSON column's type as the database sees it
        kinds = await conn.fetchrow(
            "SELECT jsonb_typeof(result) AS result, jsonb_typeof(clock) AS clock, "
            "jsonb_typeof(deadlines) AS deadlines, jsonb_typeof(created_with) AS created_with, "
            "jsonb_typeof(options) AS options, jsonb_typeof(timeouts) AS timeouts, "
            "result IS NULL AS result_null, clock IS NULL AS clock_null, "
            "deadlines IS NULL AS deadlines_null, timeouts IS NULL AS timeouts_null "
            "FROM games WHERE id = $1",
            game_id,
        )
        visibility = await conn.fetch(
            "SELECT visibility IS NULL AS sql_null, jsonb_typeof(visibility) AS kind "
            "FROM game_events WHERE game_id = $1 ORDER BY seq",
            game_id,
        )
    finally:
        await conn.close()
    assert game is not None
    return {
        "game": dict(game),
        "seats": [dict(s) for s in seats],
        "events": [dict(e) for e in events],
        "kinds": dict(kinds),
        "visibility": [dict(v) for v in visibility],
    }


def _same(alone: dict[str, Any], locked: dict[str, Any], drawn: set[str]) -> None:
    assert alone.keys() == locked.keys()
    for column, value in alone.items():
        if column in drawn or column in TIMED:
            assert (value is None) == (locked[column] is None), column
        else:
            assert value == locked[column], column


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[dict[str, Any]]]:
    """The game rows each writing path was given, by path: one statement, a transaction."""
    seen: dict[str, list[dict[str, Any]]] = {"alone": [], "transaction": []}
    alone, transaction = PostgresGameRepository.add_game_alone, GameRepository.add_game

    async def add_game_alone(self: Any, engine: Any, game: Any, *rest: Any) -> None:
        seen["alone"].append(game)
        await alone(self, engine, game, *rest)

    async def add_game(self: Any, conn: Any, game: Any, *rest: Any) -> None:
        seen["transaction"].append(game)
        await transaction(self, conn, game, *rest)

    monkeypatch.setattr(PostgresGameRepository, "add_game_alone", add_game_alone)
    monkeypatch.setattr(GameRepository, "add_game", add_game)
    return seen


@pytest.fixture
def held(games_app: Any) -> Any:
    """The app's bots kept from playing (their move would change the rows compared)."""
    service = games_app.state.games
    before, service.hold = service.hold, True
    yield service
    service.hold = before


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"clock": {"turn_seconds": 600, "on_timeout": "auto"}},
        {"players": [{"name": "p0"}, {"name": "p1"}, {"name": "p2"}], "options": {"exchange": 0}},
        {"players": [{"name": "p0"}, {"name": "b1", "bot": "basic"}, {"name": "p2"}]},
        {"options": {"hints": False}},
    ],
    ids=["plain", "clocked", "three", "bot", "no-hints"],
)
def test_one_statement_writes_the_rows_of_a_transaction(
    games: Any, pg_head: str, extra: dict[str, Any], paths: Any, held: Any
) -> None:
    body = {**WARS, **extra}
    alone = games.post("/v1/games", json=body)
    assert alone.status_code == 201, alone.text
    assert len(paths["alone"]) == 1 and not paths["transaction"]  # the one statement
    # every column it is given is one the statement writes (`sweep_at` is `deadline`'s)
    given = paths["alone"][0]
    assert set(given) == {name for name, _ in _NEW_GAME_PG} | {"sweep_at"}
    assert given["sweep_at"] == given["deadline"]
    keyed = games.post("/v1/games", json=body, headers={"Idempotency-Key": uuid.uuid4().hex})
    assert keyed.status_code == 201, keyed.text
    assert len(paths["transaction"]) == 1 and len(paths["alone"]) == 1  # the transaction
    first, second = alone.json(), keyed.json()
    assert first["view"] == second["view"]  # the same deal, answered alike
    a = asyncio.run(_rows(pg_head, first["id"]))
    b = asyncio.run(_rows(pg_head, second["id"]))
    _same(a["game"], b["game"], DRAWN)
    assert a["kinds"] == b["kinds"]
    assert len(a["seats"]) == len(b["seats"]) == len(body["players"])
    for seat_a, seat_b in zip(a["seats"], b["seats"], strict=True):
        _same(seat_a, seat_b, DRAWN_SEAT)
    assert len(a["events"]) == len(b["events"]) > 0
    for event_a, event_b in zip(a["events"], b["events"], strict=True):
        _same(event_a, event_b, DRAWN)
    assert a["visibility"] == b["visibility"]
    if "clock" in extra:  # the same seats' turns, started at creation, the bound the deadline
        for rows in (a, b):
            game = rows["game"]
            entries = json.loads(game["deadlines"])
            assert [(e["seat"], e["since"]) for e in entries] == [
                (e["seat"], e["since"]) for e in json.loads(b["game"]["deadlines"])
            ]
            assert entries and {e["since"] for e in entries} == {0}
            assert game["deadline"] == game["sweep_at"]
            turn = game["deadline"] - game["created_at"]
            assert abs(turn - timedelta(seconds=600)) < timedelta(seconds=5), turn
    if any(p.get("bot") for p in body["players"]):  # its seat as the transaction's
        assert [s["bot"] for s in a["seats"]] == [None, "basic", None]
        assert a["game"]["bot_pending"] == b["game"]["bot_pending"]
    # the game is in play as any other: its seat reads and acts
    seat = first["view"]["actors"][0]
    token = first["seats"][seat]["token"]
    if token is None:  # a bot's turn (held here)
        return
    read = games.get(f"/v1/games/{first['id']}", headers={"Authorization": f"Bearer {token}"})
    assert read.status_code == 200
    action = read.json()["view"]["legal_actions"][0]
    acted = games.post(
        f"/v1/games/{first['id']}/actions",
        json=action,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert acted.status_code == 200, acted.text
    assert acted.json()["version"] == 1
