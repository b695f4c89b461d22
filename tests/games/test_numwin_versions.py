"""numwin's rules version 2 on stored games (issue 21, the Rulings on action targets): a game
created now plays version 2 and is never offered the partner's cards for `swipe` or
`quantum`; a game stored before (version 1 in its row) keeps being played by version 1, the
old targets included, through the whole log and the cache alike."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import sqlalchemy as sa

from api.db.engine import create_engine
from engine import registry
from engine.core.actions import Action, Target
from engine.core.match import Match
from engine.core.rng import Rng
from engine.simulate import pick
from tests.games.driver import Table

TEAMS = {"teams": True}


def _to_the_first_difference(seed: int) -> tuple[list[tuple[int, Action]], int] | None:
    """Actions of a teams match (the seeded policy, version 2) up to the first state where
    versions 1 and 2 offer a seat different actions, and that seat; None if none comes."""
    rules = registry.make("numwin", TEAMS)
    new, old = Match(rules, 4, seed, 2), Match(rules, 4, seed, 1)
    rng = Rng(seed)
    path: list[tuple[int, Action]] = []
    while not new.is_over:
        for seat in range(4):
            if new.legal_actions(seat) != old.legal_actions(seat):
                return path, seat
        seat, action = pick(new, rng)
        new.apply(seat, action)
        old.apply(seat, action)
        path.append((seat, action))
    return None


def _set_version(pg_head: str, game_id: str, version: int) -> None:
    """What a game stored before the bump holds: its row's rules version."""

    async def run() -> None:
        engine = create_engine(pg_head)
        async with engine.begin() as conn:
            await conn.execute(
                sa.text("UPDATE games SET rules_version = :version WHERE id = :id"),
                {"version": version, "id": game_id},
            )
        await engine.dispose()

    asyncio.run(run())


def _play(table: Table, path: list[tuple[int, Action]]) -> None:
    for seat, action in path:
        table.shadow.apply(seat, action)
        response = table.post("/actions", seat, json=msgspec.to_builtins(action))
        assert response.status_code == 200, response.text
        table.version += 1


def test_a_new_game_plays_version_2_and_an_old_one_keeps_version_1(
    games: Any, games_app: Any, pg_head: str
) -> None:
    seed, found = 0, _to_the_first_difference(0)
    while found is None:
        seed += 1
        found = _to_the_first_difference(seed)
    path, seat = found

    new = Table(games, "numwin", 4, seed, TEAMS)
    assert new.created["rules_version"] == 2 and new.view(None)["rules_version"] == 2
    old = Table(games, "numwin", 4, seed, TEAMS)
    _set_version(pg_head, old.id, 1)
    games_app.state.games._cache.clear()  # a restart: the rows decide
    old.shadow = Match(registry.make("numwin", TEAMS), 4, seed, 1)
    assert old.view(None)["rules_version"] == 1

    _play(new, path)
    _play(old, path)
    offered_new = new.view(seat)["view"]["legal_actions"]  # held to the version-2 engine
    offered_old = old.view(seat)["view"]["legal_actions"]  # held to the version-1 engine
    partner = (seat + 2) % 4
    only_old = [msgspec.convert(a, Action) for a in offered_old if a not in offered_new]
    assert only_old and all(isinstance(a, Target) and a.seat == partner for a in only_old)
    assert all(a.get("seat") != partner for a in offered_new if a["type"] == "target")

    # the old game goes on by version 1: the partner's card, refused to the new game
    action = only_old[0]
    refused = new.post("/actions", seat, json=msgspec.to_builtins(action))
    assert refused.status_code == 422
    assert refused.json()["code"] == "illegal-move"
    assert refused.json()["reason"] == "not-your-decision"
    _play(old, [(seat, action)])
    games_app.state.games._cache.clear()
    old.check_viewers()
