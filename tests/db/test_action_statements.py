"""What a stored game's hot paths send to PostgreSQL (issue 27): a seat's read of its game is
one statement; an action is BEGIN, the locked read, one statement that writes it all (the
game's row, the action, its events, the kept answer, the NOTIFY), COMMIT; and no connection
goes back to the pool inside a transaction (asyncpg runs those two paths directly, under
SQLAlchemy's pool)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import msgspec
from sqlalchemy import event
from sqlalchemy.engine import make_url

from api.db.engine import create_engine
from api.games.fanout import Fanout
from api.games.schemas import CreateGame
from api.games.service import GameService, seat_credential
from engine.core.actions import Action


class Sent:
    """The statements sent, as their first word (SQLAlchemy's cursor and asyncpg's own)."""

    def __init__(self) -> None:
        self.words: list[str] = []

    def add(self, statement: str) -> None:
        self.words.append(statement.split()[0].rstrip(";").upper())

    async def take(self) -> list[str]:
        await asyncio.sleep(0.05)  # asyncpg calls its query loggers soon after, not at once
        taken, self.words = self.words, []
        return taken


def _run(url: str, scenario: Callable[[GameService, Sent], Awaitable[None]]) -> None:
    async def main() -> None:
        engine = create_engine(url)
        sent = Sent()

        @event.listens_for(engine.sync_engine, "before_cursor_execute")
        def _cursor(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
            sent.add(statement)

        @event.listens_for(engine.sync_engine, "connect")
        def _connected(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.driver_connection.add_query_logger(
                lambda r: None if isinstance(r.args, list) else sent.add(r.query)
            )

        service = GameService(engine, Fanout())
        try:
            await scenario(service, sent)
        finally:
            await service.engine.dispose()

    asyncio.run(main())


async def _in_transaction(url: str) -> int:
    """Connections of the database idle inside a transaction (a leaked BEGIN)."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    try:
        found: int = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%'"
        )
        return found
    finally:
        await conn.close()


def test_a_read_is_one_statement_and_an_action_four(pg_head: str) -> None:
    async def scenario(service: GameService, sent: Sent) -> None:
        body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"], "seed": 27}
        created = await service.create(msgspec.convert(body, CreateGame))
        seats = [seat_credential(s.token) for s in created.seats]
        for _ in range(6):  # past the first reads (seat names, the match: then cached)
            seat = (await service.get(created.id, None)).view.actors[0]
            legal = (await service.get(created.id, seats[seat])).view.legal_actions
            assert legal
            play: Action = legal[0]
            await sent.take()
            view = await service.get(created.id, seats[seat])
            assert await sent.take() == ["SELECT"]
            assert view.view.legal_actions == legal
            answer, replayed = await service.act(created.id, seats[seat], play, None, None)
            assert not replayed and answer.version == view.version + 1
            assert await sent.take() == ["BEGIN", "SELECT", "WITH", "COMMIT"]
            assert await _in_transaction(pg_head) == 0

        # with an Idempotency-Key: its lookup under the lock; the answer kept in the write
        seat = (await service.get(created.id, None)).view.actors[0]
        play = (await service.get(created.id, seats[seat])).view.legal_actions[0]
        await sent.take()
        first, replayed = await service.act(created.id, seats[seat], play, None, "key-27")
        assert not replayed
        assert await sent.take() == ["BEGIN", "SELECT", "SELECT", "WITH", "COMMIT"]
        again, replayed = await service.act(created.id, seats[seat], play, None, "key-27")
        assert replayed and msgspec.to_builtins(again) == msgspec.to_builtins(first)
        assert await sent.take() == ["BEGIN", "SELECT", "SELECT", "COMMIT"]
        assert await _in_transaction(pg_head) == 0

    _run(pg_head, scenario)
