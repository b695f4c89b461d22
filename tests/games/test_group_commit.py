"""Shared commits (issue 27, `NUMRULES_GROUP_COMMIT_MS`; api.games.repository.GroupCommit) on
the run's PostgreSQL database: many games played at once with shared commits store the very
logs and events that the same games played one action at a time store; a refused action and
an action the database fails inside a batch answer as alone and lose none of the others.
(The SIGKILL during a 16-game burst with shared commits: tests/games/test_served.py.)

Hot actions' shared statements (api.games.repository.HotWrites) likewise: games played at once
store what one at a time stores; a statement PostgreSQL refuses sends each of its actions to
its own transaction; a game another replica moved falls back alone. The cache keeps the
matches of the last games to end only (`FINISHED_KEPT`), and a serving process collects its
young objects every `GC_YOUNG_THRESHOLD` allocations."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import TestClient

from api.db.engine import create_engine
from api.games import service as service_module
from api.games.fanout import Fanout
from api.games.repository import GroupCommit, HotWrites, PostgresGameRepository
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
    pg_head: str,
    group_commit_ms: float,
    scenario: Callable[[GameService], Awaitable[Any]],
    hot_actions: bool = False,
) -> Any:
    """`scenario` on a service with shared commits of `group_commit_ms`; without
    `hot_actions`, every action takes the locked path, where they batch transactions."""

    async def main() -> Any:
        service = GameService(
            create_engine(pg_head),
            Fanout(),
            group_commit_ms=group_commit_ms,
            hot_actions=hot_actions,
        )
        try:
            return await scenario(service)
        finally:
            await service.close()
            await service.engine.dispose()

    return asyncio.run(main())


def _run_hot(
    pg_head: str, scenario: Callable[[GameService], Awaitable[Any]], group_commit_ms: float = 5
) -> Any:
    """`scenario` on a service whose actions are hot where they may be (the default), with
    shared commits (hot actions share statements only then)."""
    return _run(pg_head, group_commit_ms, scenario, hot_actions=True)


def _hot(service: GameService) -> HotWrites:
    repository = service.repository
    assert isinstance(repository, PostgresGameRepository)
    return repository.hot_writes


def _batches(service: GameService) -> GroupCommit:
    repository = service.repository
    assert isinstance(repository, PostgresGameRepository)
    assert repository.group_commit is not None
    return repository.group_commit


async def _create(service: GameService, seed: int, **more: Any) -> tuple[str, list[Credential]]:
    body = msgspec.convert(
        {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"], "seed": seed, **more},
        CreateGame,
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


async def _stored(url: str, game: str) -> tuple[list[Any], list[Any], int, Any]:
    """The game's log, its events, its version and the rest of its row that an action writes
    (JSON columns as text, a JSON null told from SQL NULL), read apart from the service."""
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
        row = await conn.fetchrow(
            "SELECT event_seq, status, result::text, result IS NULL, bot_pending,"
            " deadlines::text, deadlines IS NULL, deadline IS NULL, sweep_at IS NULL,"
            " checkpoint, progress FROM games WHERE id = $1",
            game,
        )
    finally:
        await conn.close()
    return [tuple(r) for r in log], [tuple(r) for r in events], version, tuple(row)


async def _one_at_a_time(service: GameService, seed: int) -> list[str]:
    """`GAMES` games (seeds from `seed`) played one after the other: their ids."""
    ids = []
    for n in range(GAMES):
        game, seats = await _create(service, seed + n)
        assert await _play(service, game, seats, STEPS) == list(range(1, STEPS + 1))
        ids.append(game)
    return ids


async def _at_once(service: GameService, seed: int) -> list[str]:
    """The same games played all at once: their ids."""
    games = [await _create(service, seed + n) for n in range(GAMES)]
    played = await asyncio.gather(*(_play(service, g, s, STEPS) for g, s in games))
    assert played == [list(range(1, STEPS + 1))] * GAMES
    return [g for g, _ in games]


def _same_logs(pg_head: str, *plays: list[str]) -> None:
    """Each game of the first play stored the log, events, version and row of its twin in
    every other play."""
    for first, *others in zip(*plays, strict=True):
        log, events, version, row = asyncio.run(_stored(pg_head, first))
        assert len(log) == version == STEPS and events
        assert row[2:4] == ("null", False)  # the JSON null an action stores for no result
        for other in others:
            assert asyncio.run(_stored(pg_head, other)) == (log, events, version, row)


def test_games_played_at_once_with_shared_commits_store_the_logs_of_one_at_a_time(
    pg_head: str,
) -> None:
    async def shared(service: GameService) -> tuple[list[str], int, int]:
        ids = await _at_once(service, 500)
        batches = _batches(service)
        return ids, batches.batches, batches.shared

    one_at_a_time = _run(pg_head, 0, lambda service: _one_at_a_time(service, 500))
    at_once, batches, answered = _run(pg_head, 5, shared)
    assert 0 < batches < answered <= GAMES * STEPS  # commits were shared
    _same_logs(pg_head, one_at_a_time, at_once)


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
        refused = await _only_one_failed(pg_head, games, answers, 3)
        assert isinstance(refused, Conflict) and refused.code == "not-your-turn"

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
        await _only_the_failing_game_failed(pg_head, games, await _first_moves(service, games))
        batches = _batches(service)
        assert (batches.rolled_back, batches.batches) == (1, 0)  # then each action alone

    _run(pg_head, 5, scenario)


async def _only_one_failed(
    pg_head: str, games: list[tuple[str, list[Credential]]], answers: list[Any], failing: int
) -> Any:
    """Game `failing`'s first action wrote nothing; every other game's was answered and
    written once: the failing one's answer (its error)."""
    for i, (game, _) in enumerate(games):
        log, _, version, _ = await _stored(pg_head, game)
        if i == failing:
            assert (len(log), version) == (0, 0)
            continue
        answer = answers[i]
        assert not isinstance(answer, BaseException), answer
        assert answer[0].version == version == len(log) == 1  # applied once
    return answers[failing]


async def _only_the_failing_game_failed(
    pg_head: str, games: list[tuple[str, list[Credential]]], answers: list[Any]
) -> None:
    """Game 2's action failed (`failing_game`) and wrote nothing; every other game's was
    answered and written once."""
    failed = await _only_one_failed(pg_head, games, answers, 2)
    assert isinstance(failed, asyncpg.RaiseError) and "refused by the test" in str(failed)


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


# -- hot actions' shared statements -------------------------------------------------------


def test_hot_actions_of_games_played_at_once_share_statements_and_store_the_same_logs(
    pg_head: str,
) -> None:
    async def alone(service: GameService) -> list[str]:
        ids = await _one_at_a_time(service, 800)
        hot = _hot(service)
        assert (hot.batches, hot.refused) == (0, 0)  # one game at a time: each alone
        return ids

    async def at_once(service: GameService) -> tuple[list[str], tuple[int, int, int]]:
        ids = await _at_once(service, 800)
        hot = _hot(service)
        return ids, (hot.batches, hot.shared, hot.refused)

    one_at_a_time = _run_hot(pg_head, alone)
    ids, (batches, shared, refused) = _run_hot(pg_head, at_once)
    assert 0 < batches < shared <= GAMES * STEPS and refused == 0
    unshared, counts = _run_hot(pg_head, at_once, group_commit_ms=0)  # shared commits off
    assert counts == (0, 0, 0)
    _same_logs(pg_head, one_at_a_time, ids, unshared)


async def _first_calls(
    service: GameService, games: list[tuple[str, list[Credential]]]
) -> list[Coroutine[Any, Any, Any]]:
    """Each game's first action by its actor, not yet awaited, each game read first (so that
    its action is hot)."""
    calls = []
    for game, seats in games:
        actor = (await service.get(game, None)).view.actors[0]
        legal = (await service.get(game, seats[actor])).view.legal_actions
        calls.append(service.act(game, seats[actor], legal[0], None, None))
    return calls


async def _first_moves(
    service: GameService, games: list[tuple[str, list[Credential]]]
) -> list[Any]:
    """Each game's first action, all at once: the answers, or the errors."""
    return await asyncio.gather(*await _first_calls(service, games), return_exceptions=True)


def test_a_hot_statement_the_database_refuses_sends_each_action_to_its_own_transaction(
    pg_head: str, failing_game: Callable[[str], None]
) -> None:
    async def prepare(service: GameService) -> list[tuple[str, list[Credential]]]:
        return [await _create(service, 900 + seed) for seed in range(8)]

    games = _run_hot(pg_head, prepare)
    failing_game(games[2][0])

    async def scenario(service: GameService) -> None:
        await _only_the_failing_game_failed(pg_head, games, await _first_moves(service, games))
        hot = _hot(service)
        # the first action alone; the 7 others' statement refused (then each locked, alone)
        assert (hot.batches, hot.refused) == (0, 1)

    _run_hot(pg_head, scenario)


def test_a_game_another_replica_moved_falls_back_alone_from_a_hot_statement(
    pg_head: str,
) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 950 + seed) for seed in range(8)]
        for game, seats in games:  # read here: each game's next action here is hot
            await service.get(game, seats[0])
        other = GameService(service.engine, Fanout())  # another replica
        moved, seats = games[5]
        actor = (await other.get(moved, None)).view.actors[0]
        legal = (await other.get(moved, seats[actor])).view.legal_actions
        assert (await other.act(moved, seats[actor], legal[0], None, None))[0].version == 1
        await other.close()
        answers = await _first_moves_cached(service, games)
        refused = answers[5]
        assert isinstance(refused, Conflict) and refused.code == "not-your-turn"
        for i, (game, _) in enumerate(games):
            log, _, version, _ = await _stored(pg_head, game)
            assert version == len(log) == 1  # game 5: the other replica's action only
            if i != 5:
                answer = answers[i]
                assert not isinstance(answer, BaseException), answer
                assert answer[0].version == 1
        hot = _hot(service)
        assert (hot.batches, hot.shared, hot.refused) == (1, 7, 0)

    _run_hot(pg_head, scenario)


async def _first_moves_cached(
    service: GameService, games: list[tuple[str, list[Credential]]]
) -> list[Any]:
    """:func:`_first_moves` from the actions the games began with (a game another replica
    moved since is acted on as this process last saw it)."""
    calls = []
    for game, seats in games:
        start = service._cache[game].match  # the version this process holds
        actor = start.view(None).actors[0]
        legal = start.view(actor).legal_actions
        calls.append(service.act(game, seats[actor], legal[0], None, None))
    return await asyncio.gather(*calls, return_exceptions=True)


def test_clocked_games_share_hot_statements_and_keep_their_deadlines(pg_head: str) -> None:
    clock = {"turn_seconds": 3600, "on_timeout": "auto"}

    async def scenario(service: GameService) -> None:
        games = [await _create(service, 1000 + seed, clock=clock) for seed in range(GAMES)]
        played = await asyncio.gather(*(_play(service, g, s, STEPS) for g, s in games))
        assert played == [list(range(1, STEPS + 1))] * GAMES
        hot = _hot(service)
        assert 0 < hot.batches < hot.shared and hot.refused == 0
        conn = await asyncpg.connect(asyncpg_dsn(pg_head))
        try:
            for game, _ in games:
                row = await conn.fetchrow(
                    "SELECT version, deadline - now() AS left, deadlines::text AS deadlines"
                    " FROM games WHERE id = $1",
                    game,
                )
                assert row["version"] == STEPS
                assert 3590 < row["left"].total_seconds() <= 3600  # the turn just started
                out = await service.get(game, None)
                actor = out.view.actors[0]
                assert [d["seat"] for d in msgspec.json.decode(row["deadlines"])] == [actor]
        finally:
            await conn.close()

    _run_hot(pg_head, scenario)


async def _started(
    service: GameService, games: list[tuple[str, list[Credential]]]
) -> list[asyncio.Task[Any]]:
    """Each game's first action, at once, each game read first (its action hot): the first
    is being written alone, the others wait for it."""
    calls = [asyncio.create_task(call) for call in await _first_calls(service, games)]
    await asyncio.sleep(0)
    assert len(_hot(service)._waiting) == len(games) - 1
    return calls


def test_an_action_whose_request_went_while_it_waited_is_not_written(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 1100 + seed) for seed in range(3)]
        calls = await _started(service, games)
        calls[1].cancel()
        answers = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
        assert isinstance(answers[1], asyncio.CancelledError)
        versions = [(await _stored(pg_head, game))[2] for game, _ in games]
        assert versions == [1, 0, 1]
        game, seats = games[1]  # and the game goes on
        actor = (await service.get(game, None)).view.actors[0]
        legal = (await service.get(game, seats[actor])).view.legal_actions
        assert (await service.act(game, seats[actor], legal[0], None, None))[0].version == 1

    _run_hot(pg_head, scenario)


def test_a_shutdown_past_its_grace_leaves_no_action_waiting(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 1200 + seed) for seed in range(3)]
        calls = await _started(service, games)
        await service.close(grace=0)
        answers = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
        assert not isinstance(answers[0], BaseException) and answers[0][0].version == 1
        assert all(isinstance(a, asyncio.CancelledError) for a in answers[1:])  # never written
        assert [(await _stored(pg_head, g))[2] for g, _ in games] == [1, 0, 0]
        assert not _hot(service)._waiting and not _hot(service).tasks

    _run_hot(pg_head, scenario)


def test_a_hot_statement_locks_its_games_in_their_ids_order(pg_head: str) -> None:
    """As a batch of the locked path does: a transaction that holds the first game's row and
    then takes the second's does not deadlock with a hot statement of both."""

    async def scenario(service: GameService) -> None:
        games = [await _create(service, 1300 + seed) for seed in range(3)]
        first, second = sorted(g for g, _ in games[1:])
        other = await asyncpg.connect(asyncpg_dsn(pg_head))
        try:
            await other.execute("SET lock_timeout = '2s'")
            holding = other.transaction()
            await holding.start()
            await other.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", first)
            calls = await _started(service, games)  # games 1 and 2: one statement, blocked
            for _ in range(500):
                waiting = await _blocked(pg_head)
                if waiting:
                    break
                await asyncio.sleep(0.01)
            assert waiting
            # the statement waits for the first game: it must not hold the second
            await other.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", second)
            await holding.rollback()
        finally:
            await other.close()
        answers = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 10)
        assert [a[0].version for a in answers] == [1, 1, 1], answers
        assert _hot(service).batches == 1

    _run_hot(pg_head, scenario)


async def _blocked(url: str) -> bool:
    """Whether a backend of the database waits for a row lock."""
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return bool(
            await conn.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE 'WITH v AS%'"
            )
        )
    finally:
        await conn.close()


@pytest.mark.parametrize("hot", [True, False], ids=["hot-statement", "locked-batch"])
def test_a_shared_write_that_times_out_fails_its_actions_without_waiting_again(
    pg_head: str, hot: bool
) -> None:
    """The database stuck (a table locked past the statement timeout): the action written
    alone and the two waiting for it fail with the timeout, none written, and those two do
    not wait again apart (a hot statement's on the locked path, a batch's each in a
    transaction of its own)."""

    async def scenario(service: GameService) -> None:
        games = [await _create(service, 1400 + seed) for seed in range(3)]
        for game, seats in games:  # the seats' names and views cached: no read when stuck
            await service.get(game, seats[0])
        other = await asyncpg.connect(asyncpg_dsn(pg_head))
        try:
            locking = other.transaction()
            await locking.start()
            await other.execute("LOCK TABLE game_events IN ACCESS EXCLUSIVE MODE")
            calls = []
            for game, seats in games:
                match = service._cache[game].match
                actor = match.view(None).actors[0]
                legal = match.view(actor).legal_actions
                calls.append(
                    asyncio.create_task(service.act(game, seats[actor], legal[0], None, None))
                )
            answers = await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), 30)
            await locking.rollback()
        finally:
            await other.close()
        assert all(isinstance(a, asyncpg.QueryCanceledError) for a in answers), answers
        assert [(await _stored(pg_head, g))[2] for g, _ in games] == [0, 0, 0]
        writes = _hot(service)
        assert (writes.batches, writes.refused, _batches(service).rolled_back) == (0, 0, 0)

    async def main() -> None:
        engine = create_engine(pg_head, statement_timeout=0.3)
        service = GameService(engine, Fanout(), group_commit_ms=5, hot_actions=hot)
        try:
            await scenario(service)
        finally:
            await service.close()
            await engine.dispose()

    asyncio.run(main())


def test_the_cache_keeps_the_matches_of_the_last_games_to_end_only(
    pg_head: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_module, "FINISHED_KEPT", 1)

    async def finish(service: GameService, seed: int) -> tuple[str, Credential, Any]:
        game, seats = await _create(service, seed)
        while (view := (await service.get(game, None)).view).actors:
            actor = view.actors[0]
            legal = (await service.get(game, seats[actor])).view.legal_actions
            await service.act(game, seats[actor], legal[0], None, None)
        return game, seats[0], await service.get(game, seats[0])

    async def scenario(service: GameService) -> None:
        first, seat, ended = await finish(service, 990)
        assert ended.status == "over" and ended.result is not None and first in service._cache
        second, _, _ = await finish(service, 991)
        assert first not in service._cache and second in service._cache
        assert await service.get(first, seat) == ended  # replayed from its checkpoint and log
        assert first in service._cache  # read again: cached again, until the next one ends

    _run_hot(pg_head, scenario)


def test_a_serving_process_collects_young_objects_less_often(pg_head: str) -> None:
    from api.app import GC_YOUNG_THRESHOLD, create_app
    from api.ops.settings import Settings

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        app = create_app(Settings(database_url=pg_head))
        with TestClient(app):
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10)
        assert GC_YOUNG_THRESHOLD > 700
    finally:
        gc.set_threshold(*before)
