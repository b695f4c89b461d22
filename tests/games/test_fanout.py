"""The streams' wake-ups across processes (issue 27): a process LISTENs on the channels of the
games its streams watch, and only those, on PostgreSQL through asyncpg, never a mock. An
action on a game nobody streams reaches no process (one channel for every game made each
process receive every action's notification, and PostgreSQL wake each listener at every
commit). A stream's first wake-up comes once its game's LISTEN is in place: it reads the log
again then, so an action committed between its first read and the LISTEN is not missed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncpg

from api.games.fanout import Fanout, channel_of
from api.http.tokens import new_id


class Counting(Fanout):
    """A fanout that also records the channel of every notification it receives."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[str] = []

    def _on_notify(self, connection: object, pid: int, channel: str, payload: str) -> None:
        self.received.append(channel)
        super()._on_notify(connection, pid, channel, payload)


async def until(check: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached in time")


async def listened(fanout: Fanout) -> set[str]:
    """The channels the fanout's own connection LISTENs on, as PostgreSQL says (once its
    LISTENs and UNLISTENs under way are done: `listening` drops a game before its UNLISTEN
    is sent, and the connection takes one statement at a time)."""
    await until(lambda: fanout._syncing is None or fanout._syncing.done())
    rows = await fanout._connection.fetch("SELECT pg_listening_channels() AS c")
    return {r["c"] for r in rows}


def test_a_process_listens_only_on_the_games_it_streams(pg_head: str) -> None:
    dsn = pg_head.replace("postgresql+asyncpg://", "postgresql://")

    async def scenario() -> None:
        fanout = Counting()
        await fanout.listen(pg_head)
        sender = await asyncpg.connect(dsn)
        watched, other = new_id(), new_id()
        try:
            assert await listened(fanout) == set()  # no stream: no channel
            await sender.execute("SELECT pg_notify($1, $2)", channel_of(watched), watched)
            await asyncio.sleep(0.2)
            assert fanout.received == []

            wake = fanout.subscribe(watched)
            await asyncio.wait_for(wake.wait(), 5)  # set once the LISTEN is in place
            assert fanout.listening == {watched}
            assert await listened(fanout) == {channel_of(watched)}
            assert len(channel_of(watched)) <= 63  # a PostgreSQL identifier

            wake.clear()
            await sender.execute("SELECT pg_notify($1, $2)", channel_of(other), other)
            await sender.execute("SELECT pg_notify($1, $2)", channel_of(watched), watched)
            await asyncio.wait_for(wake.wait(), 5)
            await asyncio.sleep(0.1)
            assert fanout.received == [channel_of(watched)]  # never the other game's

            second = fanout.subscribe(watched)  # a second stream of the game: no new LISTEN
            fanout.unsubscribe(watched, wake)
            await asyncio.sleep(0.1)
            assert fanout.listening == {watched}
            fanout.unsubscribe(watched, second)  # the last one: UNLISTEN
            await until(lambda: not fanout.listening)
            assert await listened(fanout) == set()
            await sender.execute("SELECT pg_notify($1, $2)", channel_of(watched), watched)
            await asyncio.sleep(0.2)
            assert fanout.received == [channel_of(watched)]
        finally:
            await sender.close()
            await fanout.close()

    asyncio.run(scenario())


def test_streams_opened_while_a_listen_is_under_way_are_all_listened(pg_head: str) -> None:
    """Subscriptions and their ends coming faster than the LISTENs: the connection ends up
    listening on exactly the games still watched."""

    async def scenario() -> None:
        fanout = Fanout()
        await fanout.listen(pg_head)
        games = [new_id() for _ in range(12)]
        try:
            wakes = {g: fanout.subscribe(g) for g in games}
            for g in games[::3]:
                fanout.unsubscribe(g, wakes.pop(g))
            await until(lambda: fanout.listening == set(wakes))
            assert await listened(fanout) == {channel_of(g) for g in wakes}
            for g, wake in wakes.items():
                assert wake.is_set(), g  # each read the log again once listened
        finally:
            await fanout.close()

    asyncio.run(scenario())


def test_a_lost_listen_connection_listens_again_on_the_watched_games(pg_head: str) -> None:
    """PostgreSQL ends the fanout's session: a new connection LISTENs on the watched games
    again, wakes their streams once it does (what was committed meanwhile is read), and
    their notifications arrive again."""
    dsn = pg_head.replace("postgresql+asyncpg://", "postgresql://")

    async def scenario() -> None:
        fanout = Fanout()
        await fanout.listen(pg_head)
        sender = await asyncpg.connect(dsn)
        watched = new_id()
        try:
            wake = fanout.subscribe(watched)
            await asyncio.wait_for(wake.wait(), 5)
            old = fanout._connection
            wake.clear()
            await sender.execute("SELECT pg_terminate_backend($1)", old.get_server_pid())
            await until(lambda: fanout._connection is not None and fanout._connection is not old)
            await asyncio.wait_for(wake.wait(), 10)  # woken once listened again
            assert fanout.listening == {watched}
            assert await listened(fanout) == {channel_of(watched)}
            wake.clear()
            await sender.execute("SELECT pg_notify($1, $2)", channel_of(watched), watched)
            await asyncio.wait_for(wake.wait(), 5)
        finally:
            await sender.close()
            await fanout.close()

    asyncio.run(scenario())


def test_without_postgresql_a_subscription_needs_no_connection() -> None:
    async def scenario() -> None:
        fanout = Fanout()
        await fanout.listen("sqlite+aiosqlite:///:memory:")
        game = new_id()
        wake = fanout.subscribe(game)
        fanout.publish(game)
        assert wake.is_set() and fanout.listening == frozenset()
        fanout.unsubscribe(game, wake)
        await fanout.close()

    asyncio.run(scenario())
