"""Seats' reads answered without a statement while the process is its database's only client
(issue 27, api/db/sole.py), on a PostgreSQL database of the test's own (no other client
but the ones each test opens):

* every read so answered is the read the database gives (seeded play-outs, every seat, with
  and without a turn clock);
* a read that comes once a deadline has passed is the database's, which applies the timeout;
* another client connecting ends the lease within a beat and a lease: what it writes, even
  at once (migration 0016's trigger holds its write until the lease ended), is what the next
  read shows, and the lease comes back, in a new epoch, once it left;
* another numrules process's first connection waits out the lease, and its actions are what
  this one's reads show;
* a write here other than a hot action (an abandon) is what the next read shows (a game's
  creation, which writes no other game's rows, forgets nothing).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
import pytest

from api.db import migrations
from api.db.engine import create_engine
from api.db.sole import WAIT, SoleLease, application_name
from api.games.fanout import Fanout
from api.games.schemas import CreateGame
from api.games.service import Credential, GameService
from api.http.domain import NotFound
from tests.games.test_group_commit import _create
from tests.pg import asyncpg_dsn, own_database


async def _service(url: str) -> GameService:
    """A service whose connections carry its own name, with its lease started."""
    name = application_name()
    service = GameService(create_engine(url, application_name=name), Fanout(), group_commit_ms=5)
    service.lease = SoleLease(name)
    await service.lease.start(url)
    return service


async def _close(service: GameService) -> None:
    if service.lease is not None:
        await service.lease.close()
    await service.close()
    await service.engine.dispose()


async def _until(check: Callable[[], bool], seconds: float = 5.0) -> float:
    """Waits until `check()` (at most `seconds`); how long it took."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, "never came"
        await asyncio.sleep(0.01)
    return time.monotonic() - start


def _held(service: GameService) -> bool:
    return service.lease is not None and service.lease.current() is not None


async def _truth(service: GameService, game: str, seat: Credential) -> Any:
    """The read the database gives (the lease set aside for it)."""
    lease, service.lease = service.lease, None
    try:
        return msgspec.to_builtins(await service.get(game, seat))
    finally:
        service.lease = lease


async def _step(service: GameService, game: str, seats: list[Credential]) -> int:
    """One action of the first seat to act (its first legal action); the version answered."""
    actor = (await service.get(game, None)).view.actors[0]
    legal = (await service.get(game, seats[actor])).view.legal_actions
    assert legal
    answer, _ = await service.act(game, seats[actor], legal[0], None, None)
    return answer.version


HOUR = {"turn_seconds": 3600, "on_timeout": "auto"}


async def _in_play(
    service: GameService, seed: int, steps: int, **more: Any
) -> tuple[str, list[Credential]]:
    """A game `steps` actions in, each seat's read of it since kept."""
    game, seats = await _create(service, seed, **more)
    for _ in range(steps):
        await _step(service, game, seats)
    for seat in seats:
        await service.get(game, seat)
    return game, seats


def _on_own_database(scenario: Callable[[str], Awaitable[None]]) -> None:
    with own_database() as url:
        migrations.upgrade(url)
        asyncio.run(scenario(url))


def test_every_read_answered_without_a_statement_is_the_databases() -> None:
    async def scenario(url: str) -> None:
        service = await _service(url)
        try:
            await _until(lambda: _held(service))
            games = [await _create(service, 5100 + n) for n in range(3)]
            games.append(await _create(service, 5103, clock=HOUR))
            compared = 0
            for _ in range(40):
                for game, seats in games:
                    await _step(service, game, seats)
                    for seat in seats:
                        before = service.sole_reads
                        got = msgspec.to_builtins(await service.get(game, seat))
                        assert got == await _truth(service, game, seat)
                        compared += service.sole_reads - before
            assert compared > 0.8 * 40 * 4 * 4  # most of them so answered
        finally:
            await _close(service)

    _on_own_database(scenario)


def test_another_client_ends_the_lease_and_its_writes_are_read() -> None:
    async def scenario(url: str) -> None:
        service = await _service(url)
        try:
            lease = service.lease
            assert lease is not None
            await _until(lambda: _held(service))
            game, seats = await _in_play(service, 5200, 6)
            before = service.sole_reads
            await service.get(game, seats[0])
            assert service.sole_reads == before + 1  # answered from this process's row
            epoch = lease.epoch
            other = await asyncpg.connect(asyncpg_dsn(url))
            try:  # at once: its statement waits until the lease is over
                await other.execute("UPDATE games SET status = 'abandoned' WHERE id = $1", game)
                assert not _held(service)
                assert (await service.get(game, seats[0])).status == "abandoned"
            finally:
                await other.close()
            await _until(lambda: _held(service))
            assert lease.epoch > epoch
            for seat in seats:
                assert (await service.get(game, seat)).status == "abandoned"
        finally:
            await _close(service)

    _on_own_database(scenario)


def test_another_process_waits_out_the_lease_and_its_actions_are_read() -> None:
    async def scenario(url: str) -> None:
        first = await _service(url)
        second: GameService | None = None
        try:
            await _until(lambda: _held(first))
            game, seats = await _in_play(first, 5300, 5)
            second = await _service(url)
            # the first lets its claim go once it sees the second's lease connection: on a
            # loaded machine that can come before the second's first connection (no wait)
            claimed = first.lease is not None and first.lease._claimed
            started = time.monotonic()
            version = await _step(second, game, seats)  # its first connection waits
            assert time.monotonic() - started >= WAIT or not claimed
            assert not _held(first) and not _held(second)
            for seat in seats:
                assert (await first.get(game, seat)).version == version
            assert not _held(first)
        finally:
            if second is not None:
                await _close(second)
            await _close(first)

    _on_own_database(scenario)


def test_a_write_here_other_than_a_hot_action_is_read() -> None:
    async def scenario(url: str) -> None:
        service = await _service(url)
        try:
            await _until(lambda: _held(service))
            game, seats = await _in_play(service, 5400, 3)
            await _create(service, 5401)  # a new game's rows only: nothing forgotten
            # nor through the creation engine's transaction (an `expert` seat: its quota's
            # path; the bot kept from playing, which would be a write of its own)
            service.hold = True
            expert = [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "X", "bot": "expert"}]
            body = {"ruleset": "numwars", "players": expert, "seed": 5402}
            await service.create(msgspec.convert(body, CreateGame))
            service.hold = False
            before = service.sole_reads
            await service.get(game, seats[1])
            assert service.sole_reads == before + 1
            await service.abandon(game, seats[1])  # the same version, another status
            for seat in seats:
                assert (await service.get(game, seat)).status == "abandoned"
        finally:
            await _close(service)

    _on_own_database(scenario)


def test_a_read_once_a_deadline_passed_is_the_databases() -> None:
    async def scenario(url: str) -> None:
        service = await _service(url)
        try:
            await _until(lambda: _held(service))
            game, seats = await _create(service, 5500, clock={"turn_seconds": 2})
            version = await _step(service, game, seats)
            actor = (await service.get(game, None)).view.actors[0]
            await service.get(game, seats[actor])  # its seat's first read: kept
            before = service.sole_reads
            shown = await service.get(game, seats[actor])
            assert service.sole_reads == before + 1 and shown.version == version
            await asyncio.sleep(2.1)  # the actor's turn ran out
            late = await service.get(game, seats[actor])
            assert service.sole_reads == before + 1  # asked the database, which timed it out
            assert late.version > version
            assert msgspec.to_builtins(late) == await _truth(service, game, seats[actor])
        finally:
            await _close(service)

    _on_own_database(scenario)


def test_a_write_in_replica_mode_or_a_truncate_waits_for_the_lease_too() -> None:
    """Migration 0016's triggers fire whatever `session_replication_role` is (a superuser's
    session in `replica` mode skips ordinary triggers), and on TRUNCATE."""

    async def scenario(url: str) -> None:
        service = await _service(url)
        try:
            await _until(lambda: _held(service))
            game, seats = await _in_play(service, 5600, 4)
            other = await asyncpg.connect(asyncpg_dsn(url))
            try:
                await other.execute("SET session_replication_role = replica")
                await other.execute("UPDATE games SET status = 'abandoned' WHERE id = $1", game)
                assert (await service.get(game, seats[2])).status == "abandoned"
            finally:
                await other.close()
            await _until(lambda: _held(service))
            game, seats = await _in_play(service, 5601, 4)
            other = await asyncpg.connect(asyncpg_dsn(url))
            try:
                await other.execute("TRUNCATE games CASCADE")
                with pytest.raises(NotFound):
                    await service.get(game, seats[0])
            finally:
                await other.close()
        finally:
            await _close(service)

    _on_own_database(scenario)
