"""Seats' shared reads of their games (issue 27, api.games.repository.SharedReads) on the
run's PostgreSQL database: reads made at once answer what each read alone answers, most of
them in shared statements; a read that waits sees every action committed before it was
asked (it never joins a statement already under way); a game that does not exist, a token
that is no seat's and a passed deadline answer as before (a waiting game is read as before:
tests/games/test_clocks_tables.py); a waiting read
whose request went takes nobody's answer with it; a failed statement is each waiting read's
error, and the reads after it go on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
import pytest

from api.db.engine import create_engine
from api.games.fanout import Fanout
from api.games.repository import PostgresGameRepository, SharedReads
from api.games.service import Credential, GameService, seat_credential
from api.http.domain import NotFound, Unauthenticated
from tests.games.test_group_commit import GAMES, _create, _play, _run_hot


def _reads(service: GameService) -> SharedReads:
    repository = service.repository
    assert isinstance(repository, PostgresGameRepository)
    return repository.seat_reads


def _plain(out: Any) -> Any:
    return msgspec.to_builtins(out)


async def _every_seat(service: GameService, games: list[tuple[str, list[Credential]]]) -> list[Any]:
    """Every seat's read of every game, all at once (errors returned)."""
    calls = [service.get(game, seat) for game, seats in games for seat in seats]
    return await asyncio.gather(*calls, return_exceptions=True)


def test_reads_made_at_once_answer_what_each_read_alone_answers(pg_head: str) -> None:
    """Against a second process that holds none of the games (each of its reads alone, its
    matches loaded from the log); this one reads them from the matches it holds."""

    async def scenario(service: GameService) -> None:
        games = [await _create(service, 2700 + n) for n in range(GAMES)]
        await asyncio.gather(*(_play(service, g, s, 5 + n) for n, (g, s) in enumerate(games)))
        reads = _reads(service)
        batches, shared = reads.batches, reads.shared
        loaded = 0
        replay = service._replay

        async def counted(conn: Any, game: Any) -> Any:
            nonlocal loaded
            loaded += 1
            return await replay(conn, game)

        service._replay = counted  # type: ignore[method-assign]
        together = await _every_seat(service, games)
        assert reads.batches > batches and reads.shared - shared > reads.batches - batches
        assert loaded == 0  # every read answered from the match held
        cold = GameService(create_engine(pg_head), Fanout(), group_commit_ms=0)
        try:
            alone = [await cold.get(game, seat) for game, seats in games for seat in seats]
        finally:
            await cold.close()
            await cold.engine.dispose()
        assert [_plain(t) for t in together] == [_plain(a) for a in alone]
        assert [t.seat for t in together] == [s for _ in games for s in range(4)]

    _run_hot(pg_head, scenario)


def test_a_read_that_waits_sees_what_was_committed_before_it_was_asked(pg_head: str) -> None:
    """The read under way (of the same game by the same token) began before another
    replica's action committed; the same read asked after that commit waits, and its
    statement starts after the first one ended: it sees the action."""

    async def scenario(service: GameService) -> None:
        other = GameService(create_engine(pg_head), Fanout())  # a second replica
        try:
            moved, seats = await _create(service, 2750)
            await _play(service, moved, seats, 3)
            actor = (await service.get(moved, None)).view.actors[0]
            before = await service.get(moved, seats[actor])
            repository = service.repository
            assert isinstance(repository, PostgresGameRepository)
            read_alone = repository.game_and_seat_held
            release = asyncio.Event()

            async def slow(game_id: str, digest: str) -> Any:
                row = await read_alone(game_id, digest)
                if not release.is_set():
                    await release.wait()  # its statement ran: the row is read, not answered
                return row

            repository.game_and_seat_held = slow  # type: ignore[method-assign]
            under_way = asyncio.create_task(service.get(moved, seats[actor]))
            await asyncio.sleep(0.05)
            # the other replica moves the game; then this replica's seat reads it again
            play = before.view.legal_actions[0]
            answer, _ = await other.act(moved, seats[actor], play, None, None)
            assert answer.version == before.version + 1
            waiting = asyncio.create_task(service.get(moved, seats[actor]))
            await asyncio.sleep(0.05)
            assert not waiting.done() and len(_reads(service)._waiting) == 1
            release.set()
            assert _plain(await under_way) == _plain(before)
            after = await waiting
            assert after.version == answer.version
            assert _plain(after) == _plain(await other.get(moved, seats[actor]))
        finally:
            await other.close()
            await other.engine.dispose()

    _run_hot(pg_head, scenario)


def test_a_missing_game_a_stranger_and_a_passed_deadline_answer_as_before(
    pg_head: str,
) -> None:
    clock = {"turn_seconds": 1, "on_timeout": "auto"}

    async def scenario(service: GameService) -> None:
        playing, seats = await _create(service, 2760)
        await _play(service, playing, seats, 2)
        clocked, clocked_seats = await _create(service, 2762, clock=clock)
        await _play(service, clocked, clocked_seats, 1)
        await asyncio.sleep(1.2)  # its turn's deadline passed
        stranger = seat_credential("numrules-not-a-seat-token")
        calls = [
            service.get("0" * 32, seats[0]),  # no such game
            service.get("not-an-id", seats[0]),
            service.get(playing, stranger),
            service.get(clocked, clocked_seats[0]),
            service.get(playing, seats[1]),
        ]
        missing, malformed, refused, timed_out, played = await asyncio.gather(
            *calls, return_exceptions=True
        )
        assert isinstance(missing, NotFound) and isinstance(malformed, NotFound)
        assert isinstance(refused, Unauthenticated)
        assert timed_out.version == 2  # its timeout applied before it was read
        assert played.version == 2 and played.seat == 1

    _run_hot(pg_head, scenario)


def _failing(
    service: GameService, fail: Callable[[], Awaitable[None]]
) -> Callable[[Any], Awaitable[Any]]:
    """The repository's shared statement made to run `fail` first."""
    repository = service.repository
    assert isinstance(repository, PostgresGameRepository)
    many = repository.games_and_seats

    async def failing(keys: Any) -> Any:
        await fail()
        return await many(keys)

    repository.games_and_seats = failing  # type: ignore[method-assign]
    return many


def test_a_waiting_read_whose_request_went_takes_no_answer_with_it(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 2770 + n) for n in range(3)]
        for game, seats in games:
            await _play(service, game, seats, 1)
        repository = service.repository
        assert isinstance(repository, PostgresGameRepository)
        read_alone = repository.game_and_seat_held
        gate = asyncio.Event()

        async def held(game_id: str, digest: str) -> Any:
            await gate.wait()
            return await read_alone(game_id, digest)

        repository.game_and_seat_held = held  # type: ignore[method-assign]
        (a, a_seats), (b, b_seats), (c, c_seats) = games
        first = asyncio.create_task(service.get(a, a_seats[0]))  # alone, held at the gate
        await asyncio.sleep(0)
        # two reads of one game by one token share one row; one of them goes while waiting
        gone = asyncio.create_task(service.get(b, b_seats[0]))
        kept = asyncio.create_task(service.get(b, b_seats[0]))
        other = asyncio.create_task(service.get(c, c_seats[1]))
        await asyncio.sleep(0.05)
        assert not first.done() and len(_reads(service)._waiting) == 2
        gone.cancel()
        await asyncio.sleep(0)
        gate.set()
        assert (await first).seat == 0
        assert (await kept).seat == 0 and (await other).seat == 1
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert _reads(service).batches == 1 and not _reads(service)._waiting

    _run_hot(pg_head, scenario)


def test_a_failed_shared_statement_is_each_waiting_reads_error_and_reads_go_on(
    pg_head: str,
) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 2780 + n) for n in range(4)]
        for game, seats in games:
            await _play(service, game, seats, 1)
        failed = asyncio.Event()

        async def fail() -> None:
            if not failed.is_set():
                failed.set()
                raise ConnectionResetError("the database went")

        _failing(service, fail)
        answers = await _every_seat(service, games)
        errors = [a for a in answers if isinstance(a, BaseException)]
        assert errors and all(isinstance(e, ConnectionResetError) for e in errors)
        assert len(errors) < len(answers)  # the first read, alone, was answered
        again = await _every_seat(service, games)
        assert not [a for a in again if isinstance(a, BaseException)]
        assert not _reads(service)._waiting and not _reads(service).tasks

    _run_hot(pg_head, scenario)


def test_shared_reads_off_without_shared_commits(pg_head: str) -> None:
    async def scenario(service: GameService) -> None:
        games = [await _create(service, 2790 + n) for n in range(4)]
        for game, seats in games:
            await _play(service, game, seats, 1)
        answers = await _every_seat(service, games)
        assert not [a for a in answers if isinstance(a, BaseException)]
        assert _reads(service).batches == 0 and not _reads(service).together

    _run_hot(pg_head, scenario, group_commit_ms=0)
