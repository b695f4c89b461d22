"""Shared commits (issue 27, `NUMRULES_GROUP_COMMIT_MS`; api.games.repository.GroupCommit) on
the run's PostgreSQL database: many games played at once with shared commits store the very
logs and events that the same games played one action at a time store; a refused action and
an action the database fails inside a batch answer as alone and lose none of the others.
(The SIGKILL during a 16-game burst with shared commits: tests/games/test_served.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import TestClient

from api.db.engine import create_engine
from api.games.fanout import Fanout
from api.games.repository import GroupCommit, PostgresGameRepository
from api.games.schemas import CreateGame, GameCreated
from api.games.service import Credential, GameService, seat_credential
from api.http.domain import Conflict
from tests.pg import asyncpg_dsn

GAMES = 12
STEPS = 24  # actions per game: past the first trick of every game


#: Ends the backends that hold locks on `game_actions` in transactions older than 5 s.
_END_BLOCKERS = """
SELECT pg_terminate_backend(a.pid) FROM pg_stat_activity a
WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
  AND a.xact_start < now() - interval '5 seconds'
  AND EXISTS (SELECT 1 FROM pg_locks l
              WHERE l.pid = a.pid AND l.relation = 'game_actions'::regclass)
"""


def _run(
    pg_head: str, group_commit_ms: float, scenario: Callable[[GameService], Awaitable[Any]]
) -> Any:
    async def main() -> Any:
        # shared commits batch the locked path's transactions: every action takes it here
        service = GameService(
            create_engine(pg_head), Fanout(), group_commit_ms=group_commit_ms, hot_actions=False
        )
        try:
            return await scenario(service)
        finally:
            await service.close()
            await service.engine.dispose()

    return asyncio.run(main())


def _batches(service: GameService) -> GroupCommit:
    repository = service.repository
    assert isinstance(repository, PostgresGameRepository)
    assert repository.group_commit is not None
    return repository.group_commit


async def _create(service: GameService, seed: int) -> tuple[str, list[Credential]]:
    body = msgspec.convert(
        {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"], "seed": seed}, CreateGame
    )
    created: GameCreated = await service.create(body)
    return created.id, [seat_credential(s.token) for s in created.seats]


async def _play(service: GameService, game: str, seats: list[Credential], steps: int) -> list[int]:
    """`steps` actions, each the first legal action of the first seat to act; the versions
    answered."""
    versions = []
    for _ in range(steps):
        actor = (await service.get(game, None)).view.actors[0]
        legal = (await service.get(game, seats[actor])).view.legal_actions
        answer, replayed = await service.act(game, seats[actor], legal[0], None, None)
        assert not replayed
        versions.append(answer.version)
    return versions


async def _stored(url: str, game: str) -> tuple[list[Any], list[Any], int]:
    """The game's log, its events and its version, read apart from the service."""
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        log = await conn.fetch(
            "SELECT seq, seat, action::text FROM game_actions WHERE game_id = $1 ORDER BY seq",
            game,
        )
        events = await conn.fetch(
            "SELECT seq, kind, visibility::text, payload::text FROM game_events"
            " WHERE game_id = $1 ORDER BY seq",
            game,
        )
        version = await conn.fetchval("SELECT version FROM games WHERE id = $1", game)
    finally:
        await conn.close()
    return [tuple(r) for r in log], [tuple(r) for r in events], version


def test_games_played_at_once_with_shared_commits_store_the_logs_of_one_at_a_time(
    pg_head: str,
) -> None:
    async def alone(service: GameService) -> list[str]:
        ids = []
        for seed in range(GAMES):
            game, seats = await _create(service, 500 + seed)
            assert await _play(service, game, seats, STEPS) == list(range(1, STEPS + 1))
            ids.append(game)
        return ids

    async def shared(service: GameService) -> tuple[list[str], int, int]:
        games = [await _create(service, 500 + seed) for seed in range(GAMES)]
        played = await asyncio.gather(*(_play(service, g, s, STEPS) for g, s in games))
        assert played == [list(range(1, STEPS + 1))] * GAMES
        batches = _batches(service)
        return [g for g, _ in games], batches.batches, batches.shared

    one_at_a_time = _run(pg_head, 0, alone)
    at_once, batches, answered = _run(pg_head, 5, shared)
    assert 0 < batches < answered <= GAMES * STEPS  # commits were shared
    for first, second in zip(one_at_a_time, at_once, strict=True):
        log, events, version = asyncio.run(_stored(pg_head, first))
        assert len(log) == version == STEPS and events
        assert asyncio.run(_stored(pg_head, second)) == (log, events, version)


def test_a_refused_action_in_a_batch_writes_nothing_and_stops_nothing(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 600 + seed) for seed in range(8)]
        calls = []
        for i, (game, seats) in enumerate(games):
            view = (await service.get(game, None)).view
            actor = view.actors[0]
            legal = (await service.get(game, seats[actor])).view.legal_actions
            mover = seats[actor] if i != 3 else seats[(actor + 1) % 4]  # game 3: not its turn
            if i == 3:
                assert (actor + 1) % 4 not in view.actors
            calls.append(service.act(game, mover, legal[0], None, None))
        batches = _batches(service)
        before = (batches.batches, batches.shared)
        answers = await asyncio.gather(*calls, return_exceptions=True)
        # the first action found nothing under way and ran alone; the 7 others, one batch
        assert (batches.batches, batches.shared) == (before[0] + 1, before[1] + 7)
        refused = answers[3]
        assert isinstance(refused, Conflict) and refused.code == "not-your-turn"
        for i, (game, _) in enumerate(games):
            log, _, version = await _stored(pg_head, game)
            if i == 3:
                assert (len(log), version) == (0, 0)
                continue
            answer = answers[i]
            assert not isinstance(answer, BaseException), answer
            assert answer[0].version == version == len(log) == 1

    _run(pg_head, 5, scenario)


@pytest.fixture
def failing_game(pg_head: str) -> Any:
    """A trigger that makes the database refuse any action logged for one game (its id set
    by the test): a database error inside a batch, as a broken row or a full disk gives."""

    async def ddl(sql: str, *args: str) -> None:
        """`sql` once it gets its locks: a transaction an earlier test's event loop left open
        when it closed (its connection never read again) would hold them for good, so after
        5 s of waiting the backends that block it are ended and it is tried again."""
        conn = await asyncpg.connect(asyncpg_dsn(pg_head))
        try:
            await conn.execute("SET lock_timeout = '5s'")
            for _ in range(3):
                try:
                    await conn.execute(sql, *args)
                    return
                except asyncpg.LockNotAvailableError:
                    await conn.execute(_END_BLOCKERS)
            await conn.execute(sql, *args)
        finally:
            await conn.close()

    asyncio.run(
        ddl(
            """
            CREATE TABLE IF NOT EXISTS test_failing (game_id varchar PRIMARY KEY);
            CREATE OR REPLACE FUNCTION test_fail_action() RETURNS trigger AS $$
            BEGIN
                IF EXISTS (SELECT 1 FROM test_failing WHERE game_id = NEW.game_id) THEN
                    RAISE EXCEPTION 'refused by the test';
                END IF;
                RETURN NEW;
            END $$ LANGUAGE plpgsql;
            CREATE TRIGGER test_fail_action BEFORE INSERT ON game_actions
                FOR EACH ROW EXECUTE FUNCTION test_fail_action();
            """
        )
    )
    try:
        yield lambda game: asyncio.run(ddl("INSERT INTO test_failing VALUES ($1)", game))
    finally:
        asyncio.run(
            ddl(
                "DROP TRIGGER test_fail_action ON game_actions;"
                " DROP FUNCTION test_fail_action(); DROP TABLE test_failing"
            )
        )


def test_a_database_error_in_a_batch_loses_none_of_the_others(
    pg_head: str, failing_game: Callable[[str], None]
) -> None:
    async def prepare(service: GameService) -> list[tuple[str, list[Credential]]]:
        return [await _create(service, 700 + seed) for seed in range(8)]

    games = _run(pg_head, 0, prepare)
    failing_game(games[2][0])

    async def scenario(service: GameService) -> None:
        calls = []
        for game, seats in games:
            actor = (await service.get(game, None)).view.actors[0]
            legal = (await service.get(game, seats[actor])).view.legal_actions
            calls.append(service.act(game, seats[actor], legal[0], None, None))
        answers = await asyncio.gather(*calls, return_exceptions=True)
        failed = answers[2]
        assert isinstance(failed, asyncpg.RaiseError) and "refused by the test" in str(failed)
        for i, (game, _) in enumerate(games):
            log, _, version = await _stored(pg_head, game)
            if i == 2:
                assert (len(log), version) == (0, 0)
                continue
            answer = answers[i]
            assert not isinstance(answer, BaseException), answer
            assert answer[0].version == version == len(log) == 1  # applied once
        batches = _batches(service)
        assert (batches.rolled_back, batches.batches) == (1, 0)  # then each action alone

    _run(pg_head, 5, scenario)


def test_the_setting_turns_shared_commits_on(pg_head: str) -> None:
    """`NUMRULES_GROUP_COMMIT_MS` (milliseconds) reaches the stored games' storage; 0 leaves
    each action its own commit; the default is 1 ms (a full run of the suite with it on)."""
    from api.app import create_app
    from api.ops.settings import Settings

    for ms, window in ((2.5, 0.0025), (0, None)):
        app = create_app(Settings(database_url=pg_head, group_commit_ms=ms))
        with TestClient(app):
            repository = app.state.games.repository
            assert isinstance(repository, PostgresGameRepository)
            shared = repository.group_commit
            assert (None if shared is None else shared.window) == window
    assert Settings.model_fields["group_commit_ms"].default == 1
