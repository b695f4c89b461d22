"""The clock sweep's bound (issue 27, `games.sweep_at`, migration 0015): a clocked action's
update stays HOT because the sweep's index keys a lower bound of the game's earliest deadline
that an action moves only when the deadline comes earlier, is set or cleared. Here, through
every statement that writes a deadline on PostgreSQL (the hot action alone and shared, the
locked path's) and SQLite's: the bound is never after the deadline, stays put while the
deadline moves on, follows it when it comes earlier, and goes with it; the sweep moves a
bound that passed before its deadline on to it (applying nothing), then applies the deadline
when it passes. In databases of their own: no other process's sweep moves their bounds."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from sqlalchemy import select, text, update

from api.db import migrations
from api.db.engine import aware, create_engine
from api.games.fanout import Fanout
from api.games.repository import GAMES, PostgresGameRepository
from api.games.schemas import CreateGame
from api.games.service import Credential, GameService, seat_credential
from tests.pg import own_database

PLAYED = 4
STEPS = 12
#: A deadline stored before migration 0015.
DEADLINE = datetime(2026, 12, 6, 12, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture
def pg_alone() -> Iterator[str]:
    with own_database() as url:
        migrations.upgrade(url)
        yield url


def _run(url: str, scenario: Callable[[GameService], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        service = GameService(create_engine(url), Fanout(), **options)
        try:
            await scenario(service)
        finally:
            await service.close()
            await service.engine.dispose()

    asyncio.run(main())


async def _create(service: GameService, seed: int, seconds: int) -> tuple[str, list[Credential]]:
    body = {
        "ruleset": "numwars",
        "players": [{"name": n} for n in "ABCD"],
        "seed": seed,
        "clock": {"turn_seconds": seconds},
    }
    created = await service.create(msgspec.convert(body, CreateGame))
    return created.id, [seat_credential(s.token) for s in created.seats]


async def _step(service: GameService, game: str, seats: list[Credential]) -> None:
    actor = (await service.get(game, None)).view.actors[0]
    legal = (await service.get(game, seats[actor])).view.legal_actions
    await service.act(game, seats[actor], legal[0], None, None)


async def _bound(service: GameService, game: str) -> tuple[datetime | None, datetime | None]:
    """The game's (sweep_at, deadline), read apart from the service's caches."""
    async with service.engine.connect() as conn:
        row = (
            await conn.execute(select(GAMES.c.sweep_at, GAMES.c.deadline).where(GAMES.c.id == game))
        ).one()
    return (
        None if row.sweep_at is None else aware(row.sweep_at),
        None if row.deadline is None else aware(row.deadline),
    )


async def _push_bound(service: GameService, game: str) -> None:
    """The bound an hour after the deadline (as no write leaves it): the next action's
    deadline comes earlier than it."""
    _, deadline = await _bound(service, game)
    assert deadline is not None
    async with service.engine.begin() as conn:
        await conn.execute(
            update(GAMES)
            .where(GAMES.c.id == game)
            .values(sweep_at=deadline + timedelta(hours=1), updated_at=GAMES.c.updated_at)
        )


async def _touched(service: GameService, game: str) -> Any:
    async with service.engine.connect() as conn:
        return (
            await conn.execute(select(GAMES.c.updated_at).where(GAMES.c.id == game))
        ).scalar_one()


async def _bounds_through_play(service: GameService, together: bool) -> None:
    games = [await _create(service, 40 + n, 600) for n in range(PLAYED)]
    first = {game: await _bound(service, game) for game, _ in games}
    for game, (bound, deadline) in first.items():
        assert bound is not None and bound == deadline, (game, bound, deadline)
    for step in range(STEPS):
        pushed = step == STEPS // 2
        if pushed:
            for game, _ in games:
                await _push_bound(service, game)
        if together:
            await asyncio.gather(*(_step(service, game, seats) for game, seats in games))
        else:
            for game, seats in games:
                await _step(service, game, seats)
        for game, _ in games:
            bound, deadline = await _bound(service, game)
            assert bound is not None and deadline is not None
            if pushed:  # the deadline came earlier than the bound: the bound follows it
                assert bound == deadline, (step, bound, deadline)
                first[game] = (bound, deadline)
            else:  # every new turn's deadline is later: the bound stays where it was
                assert bound == first[game][0] < deadline, (step, bound, deadline)
    for game, seats in games:  # an abandon clears both
        await service.abandon(game, seats[0])
        assert await _bound(service, game) == (None, None)


@pytest.mark.parametrize(
    ("path", "options", "together"),
    [
        ("hot", {}, False),
        ("hot-shared", {"group_commit_ms": 5}, True),
        ("locked", {"hot_actions": False}, False),
        ("locked-shared", {"hot_actions": False, "group_commit_ms": 5}, True),
    ],
)
def test_the_bound_stays_put_while_the_deadline_moves_on_postgres(
    pg_alone: str, path: str, options: dict[str, Any], together: bool
) -> None:
    async def scenario(service: GameService) -> None:
        await _bounds_through_play(service, together)
        repository = service.repository
        assert isinstance(repository, PostgresGameRepository)
        if path == "hot-shared":  # several games' hot actions went in one statement
            assert repository.hot_writes.shared > 0
        if path.startswith("locked"):
            assert repository.hot_writes.batches == 0

    _run(pg_alone, scenario, **options)


def test_the_bound_stays_put_while_the_deadline_moves_on_sqlite(sqlite_url: str) -> None:
    migrations.upgrade(sqlite_url)
    _run(sqlite_url, lambda service: _bounds_through_play(service, False))


@pytest.mark.parametrize("database", ["postgres", "sqlite"])
def test_the_sweep_moves_a_passed_bound_on_then_applies_the_deadline(
    database: str, request: pytest.FixtureRequest
) -> None:
    url: str = request.getfixturevalue("pg_alone" if database == "postgres" else "sqlite_url")
    if database == "sqlite":
        migrations.upgrade(url)

    async def scenario(service: GameService) -> None:
        timeouts: list[str] = []
        service.on_timeout = timeouts.append
        game, seats = await _create(service, 3, 3)
        created, _ = await _bound(service, game)
        assert created is not None
        await asyncio.sleep(2.0)
        await _step(service, game, seats)  # the next turn's deadline: two seconds later
        bound, deadline = await _bound(service, game)
        assert bound == created and deadline is not None
        assert deadline - created >= timedelta(seconds=1.9)
        touched = await _touched(service, game)
        await asyncio.sleep((created - datetime.now(created.tzinfo)).total_seconds() + 0.2)
        assert await service.sweep_clocks() == 0  # the bound passed, the deadline did not
        assert await _bound(service, game) == (deadline, deadline)
        assert timeouts == []
        assert await _touched(service, game) == touched  # not an action: the bot sweep's order
        await asyncio.sleep((deadline - datetime.now(deadline.tzinfo)).total_seconds() + 0.2)
        assert await service.sweep_clocks() == 1
        assert timeouts and set(timeouts) == {"auto"}
        bound, later = await _bound(service, game)
        assert later is not None and later > deadline and bound is not None and bound <= later
        # a game that ended with a bound left (as no write leaves it): the sweep clears it
        ended, seats = await _create(service, 4, 600)
        await service.abandon(ended, seats[0])
        async with service.engine.begin() as conn:
            await conn.execute(
                update(GAMES)
                .where(GAMES.c.id == ended)
                .values(sweep_at=created, updated_at=GAMES.c.updated_at)
            )
        assert await service.sweep_clocks() == 0
        assert await _bound(service, ended) == (None, None)

    _run(url, scenario)


@pytest.mark.parametrize("database", ["postgres", "sqlite"])
def test_the_bound_goes_with_the_deadline_through_bots_turns(
    database: str, request: pytest.FixtureRequest
) -> None:
    """Bots are not clocked: while they play, the game has no deadline, and the bound goes
    with it; the person's next turn sets both anew (the locked path's statement, bots' games
    not being hot; SQLite's)."""
    url: str = request.getfixturevalue("pg_alone" if database == "postgres" else "sqlite_url")
    if database == "sqlite":
        migrations.upgrade(url)

    async def scenario(service: GameService) -> None:
        body = {
            "ruleset": "numwars",
            "players": [{"name": "A"}, *({"name": n, "bot": "basic"} for n in "BCD")],
            "seed": 9,
            "clock": {"turn_seconds": 600},
        }
        created = await service.create(msgspec.convert(body, CreateGame))
        token = created.seats[0].token
        assert token is not None
        seat0 = seat_credential(token)
        bounds = []
        for _ in range(6):
            await service.idle()
            game = await service.get(created.id, seat0)
            if game.status != "active":
                break
            assert game.view.legal_actions, "the person's turn"
            bound, deadline = await _bound(service, created.id)
            assert bound is not None and bound == deadline
            bounds.append(bound)
            await service.act(created.id, seat0, game.view.legal_actions[0], None, None)
        assert len(bounds) >= 3 and bounds == sorted(set(bounds))  # each turn's own bound

    _run(url, scenario)


async def _stored_bounds(url: str) -> dict[str, tuple[Any, Any]]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(select(GAMES.c.id, GAMES.c.sweep_at, GAMES.c.deadline))
            return {
                r.id: (
                    None if r.sweep_at is None else aware(r.sweep_at),
                    None if r.deadline is None else aware(r.deadline),
                )
                for r in rows
            }
    finally:
        await engine.dispose()


async def _insert_at_0014(url: str) -> None:
    """Two games as revision 0014 stored them: one clocked, one not."""
    engine = create_engine(url)
    columns = (
        "id, ruleset, options, rules_version, seed, salt, seed_commitment, players, status, "
        "version, event_seq, deadline"
    )
    try:
        async with engine.begin() as conn:
            for game, deadline in (("clocked", DEADLINE), ("unclocked", None)):
                await conn.execute(
                    text(
                        f"INSERT INTO games ({columns}) VALUES (:id, 'numwars', '{{}}', 1, 1, "
                        "'s', 'c', 4, 'active', 0, 0, :deadline)"
                    ),
                    {"id": game, "deadline": deadline},
                )
    finally:
        await engine.dispose()


@pytest.mark.parametrize("database", ["postgres", "sqlite"])
def test_migration_0015_starts_each_bound_at_its_deadline(
    database: str, request: pytest.FixtureRequest
) -> None:
    def check(url: str) -> None:
        migrations.upgrade(url, "0014")
        asyncio.run(_insert_at_0014(url))
        migrations.upgrade(url)
        assert asyncio.run(_stored_bounds(url)) == {
            "clocked": (DEADLINE, DEADLINE),
            "unclocked": (None, None),
        }

    if database == "sqlite":
        check(request.getfixturevalue("sqlite_url"))
    else:
        with own_database() as url:
            check(url)


async def _as_0014_writes(url: str) -> None:
    """A game created and one started as a replica older than 0015 writes them: `deadline`
    alone."""
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("DELETE FROM games"))
        await _insert_at_0014(url)  # "clocked" created with a deadline, "unclocked" without
        async with engine.begin() as conn:
            await conn.execute(
                text("UPDATE games SET deadline = :deadline WHERE id = 'unclocked'"),
                {"deadline": DEADLINE + timedelta(seconds=1)},
            )
    finally:
        await engine.dispose()


def test_an_older_replicas_new_game_gets_its_bound_on_postgres(pg_alone: str) -> None:
    """During a rolling upgrade, the replicas older than 0015 write `deadline` alone: the
    trigger gives a bound to a game they create; not to one they start later (an UPDATE
    trigger would lock the row at every hot action: the migration's docstring)."""
    asyncio.run(_as_0014_writes(pg_alone))
    assert asyncio.run(_stored_bounds(pg_alone)) == {
        "clocked": (DEADLINE, DEADLINE),
        "unclocked": (None, DEADLINE + timedelta(seconds=1)),
    }
