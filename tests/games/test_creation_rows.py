"""A creation without a key, a session or an account writes its game in one statement
(`ADD_GAME_PG`, `GameRepository.add_game_alone`); any other goes through SQLAlchemy in a
transaction (`add_game`). Both must write the same rows: every column of the game, its seats
and its events, JSON nulls and SQL NULLs alike, for the same creation (the same seed), with
and without a turn clock; only what is drawn or timed per game differs (its id,
salt, token hashes, bot seed, timestamps; a clock's deadlines, compared by shape)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import asyncpg
import pytest

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


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"clock": {"turn_seconds": 600, "on_timeout": "auto"}},
        {"players": [{"name": "p0"}, {"name": "p1"}, {"name": "p2"}], "options": {"exchange": 0}},
    ],
    ids=["plain", "clocked", "three"],
)
def test_one_statement_writes_the_rows_of_a_transaction(
    games: Any, pg_head: str, extra: dict[str, Any]
) -> None:
    body = {**WARS, **extra}
    alone = games.post("/v1/games", json=body)
    keyed = games.post("/v1/games", json=body, headers={"Idempotency-Key": uuid.uuid4().hex})
    assert alone.status_code == keyed.status_code == 201, (alone.text, keyed.text)
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
    if "clock" in extra:
        deadlines = a["game"]["deadlines"]
        assert deadlines is not None and '"since": 0' in deadlines
        assert a["game"]["deadline"] == a["game"]["sweep_at"]
    # the game is in play as any other: its seat reads and acts
    seat = first["view"]["actors"][0]
    token = first["seats"][seat]["token"]
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
