"""What a stored game's hot paths send to PostgreSQL (issue 27): a seat's read of its game is
one statement; an action is BEGIN, the locked read, one statement that writes it all (the
game's row, the action, its events, the kept answer, the NOTIFY), COMMIT; once this process
holds the game's last version (it wrote its last action, or read the game), an action is
that one statement alone, in autocommit, which
writes only if the game is still active at the version this process holds and the token is
the seat's (else the locked path runs: another replica's move, an abandon, a refusal); and
no connection goes back to the pool inside a transaction (asyncpg runs those paths directly,
under SQLAlchemy's pool)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest
from sqlalchemy import event

from api.db import migrations
from api.db.engine import create_engine
from api.games.fanout import Fanout
from api.games.schemas import CreateGame
from api.games.service import GameService, GameStateConflict, TurnTimedOut, seat_credential
from api.http.domain import Conflict, Invalid
from engine.core.actions import Action
from tests.pg import asyncpg_dsn, own_database


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
            await service.close()
            await service.engine.dispose()

    asyncio.run(main())


@pytest.fixture
def alone() -> Iterator[str]:
    """A database of the test's own, migrated to head: the run's database is shared, and
    another test's app (its clock sweep between two statements) may be inside a transaction
    there at any instant."""
    with own_database() as url:
        migrations.upgrade(url)
        yield url


async def _in_transaction(url: str) -> int:
    """Connections of the database idle inside a transaction (a leaked BEGIN); the database
    is the test's own (`alone`)."""
    dsn = asyncpg_dsn(url)
    conn = await asyncpg.connect(dsn)
    try:
        found: int = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND state LIKE 'idle in transaction%'"
        )
        return found
    finally:
        await conn.close()


def test_a_read_is_one_statement_and_an_action_one_or_four(alone: str) -> None:
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
            # this process holds the game at its last version (it read it, or wrote its last
            # action): the action is its one statement
            assert await sent.take() == ["WITH"]
            assert await _in_transaction(alone) == 0
            assert answer.view == (await service.get(created.id, seats[seat])).view

        # a process that holds no match (a restart, another replica's game it never read):
        # the locked path, which loads the match from the checkpoint and the log
        seat = (await service.get(created.id, None)).view.actors[0]
        play = (await service.get(created.id, seats[seat])).view.legal_actions[0]
        service._cache.clear()
        await sent.take()
        await service.act(created.id, seats[seat], play, None, None)
        words = await sent.take()
        assert words[:2] == ["BEGIN", "SELECT"] and words[-2:] == ["WITH", "COMMIT"], words
        assert words.count("WITH") == 1

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
        assert await _in_transaction(alone) == 0

    _run(alone, scenario)


async def _step(service: GameService, game_id: str, seats: list[Any]) -> Any:
    """The first legal action of the seat to act, as `service` sees the game."""
    seat = (await service.get(game_id, None)).view.actors[0]
    play: Action = (await service.get(game_id, seats[seat])).view.legal_actions[0]
    answer, _ = await service.act(game_id, seats[seat], play, None, None)
    return answer


def test_the_one_statement_gives_way_to_the_locked_path(alone: str) -> None:
    """The one-statement action writes nothing when the game is not where this process left
    it: another replica moved it (the locked path then catches up and applies the action at
    the game's real version), or it was abandoned (409 `game-over`, nothing written); a move
    the engine refuses is answered by the locked path; every view stays the replay's."""

    async def scenario(service: GameService, sent: Sent) -> None:
        other = GameService(create_engine(alone), Fanout())  # a second replica
        try:
            body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"], "seed": 28}
            created = await service.create(msgspec.convert(body, CreateGame))
            gid, seats = created.id, [seat_credential(s.token) for s in created.seats]
            for _ in range(3):
                await _step(service, gid, seats)
            await sent.take()
            assert (await _step(service, gid, seats)).version == 4
            assert (await sent.take())[-1:] == ["WITH"]  # hot

            # the other replica plays the move this one is sent too: legal at version 4,
            # which this process holds, so it is applied here, but the statement finds the
            # game at 5 and writes nothing; the locked path, at 5, refuses it
            seat = (await other.get(gid, None)).view.actors[0]
            play = (await other.get(gid, seats[seat])).view.legal_actions[0]
            answer, _ = await other.act(gid, seats[seat], play, None, None)
            assert answer.version == 5
            await sent.take()
            try:
                await service.act(gid, seats[seat], play, None, None)
            except (Conflict, Invalid):
                pass
            else:
                raise AssertionError("a move played twice")
            words = await sent.take()
            assert words[:3] == ["WITH", "BEGIN", "SELECT"] and words.count("WITH") == 1
            assert (await _step(service, gid, seats)).version == 6
            for viewer in [None, *seats]:
                assert (await service.get(gid, viewer)) == (await other.get(gid, viewer))

            # a move the engine refuses (a seat not to act): the locked path's refusal
            seat = (await service.get(gid, None)).view.actors[0]
            idle = (seat + 1) % 3
            play = (await service.get(gid, seats[seat])).view.legal_actions[0]
            await _step(service, gid, seats)  # hot again
            await sent.take()
            try:
                await service.act(gid, seats[idle], play, None, None)
            except (Conflict, Invalid) as refused:
                assert refused.code in ("not-your-turn", "illegal-move")
            else:
                raise AssertionError("a seat not to act played")
            assert "WITH" not in await sent.take()

            # abandoned by the other replica: the one statement finds it no longer active
            await _step(service, gid, seats)
            await _step(service, gid, seats)
            seat = (await service.get(gid, None)).view.actors[0]
            play = (await service.get(gid, seats[seat])).view.legal_actions[0]
            version = (await service.get(gid, None)).version
            await other.abandon(gid, seats[0])
            await sent.take()
            try:
                await service.act(gid, seats[seat], play, None, None)
            except GameStateConflict as over:
                assert over.code == "game-over"
            else:
                raise AssertionError("an abandoned game moved")
            assert (await sent.take())[0] == "WITH"
            assert (await other.get(gid, None)).version == version
            assert await _in_transaction(alone) == 0
        finally:
            await other.close()
            await other.engine.dispose()

    _run(alone, scenario)


def test_a_clocked_hot_action_reads_the_database_clock_and_gives_way_to_a_timeout(
    pg_head: str,
) -> None:
    """A game with a turn clock: the hot action is the one statement, its new turns'
    deadlines from the database's clock as the last read of a game row gave it (plus the time
    since; within a millisecond of the database's own), or, that read older than
    `DB_CLOCK_FRESH`, a read of the clock first; it answers the deadlines a read shows; once
    a deadline has passed it gives way to the locked path, which applies the timeout first
    (the late move is 409 `turn-timed-out`)."""

    async def scenario(service: GameService, sent: Sent) -> None:
        body = {
            "ruleset": "numwars",
            "players": [{"name": n} for n in "ABC"],
            "seed": 29,
            "clock": {"turn_seconds": 2, "on_timeout": "auto"},
        }
        created = await service.create(msgspec.convert(body, CreateGame))
        gid, seats = created.id, [seat_credential(s.token) for s in created.seats]
        dsn = asyncpg_dsn(pg_head)
        clock = await asyncpg.connect(dsn)
        news = 0
        for turn in range(6):
            seat = (await service.get(gid, None)).view.actors[0]
            play = (await service.get(gid, seats[seat])).view.legal_actions[0]
            if turn == 5:
                service._db_clock = None  # no recent read: the clock is read first
            await sent.take()
            before = await clock.fetchval("SELECT clock_timestamp()")
            answer, _ = await service.act(gid, seats[seat], play, None, None)
            after = await clock.fetchval("SELECT clock_timestamp()")
            words = await sent.take()
            assert words == (["SELECT", "WITH"] if turn == 5 else ["WITH"])
            read = await service.get(gid, seats[seat])
            assert answer.deadlines == read.deadlines and answer.deadlines
            stored = json.loads(
                await clock.fetchval("SELECT deadlines FROM games WHERE id = $1", gid)
            )
            began = [d for d in stored if d["since"] == answer.version]  # turns it began
            for d in began:
                start = datetime.fromisoformat(d["at"]) - timedelta(seconds=2)
                # behind by the last read's way back: under a millisecond on an idle machine,
                # 11 ms seen on a loaded one (a wrong clock would be seconds off)
                assert before - timedelta(milliseconds=50) <= start <= after, (before, d, after)
            news += len(began)
        await clock.close()
        assert news >= 4  # turns began by hot actions were checked
        seat = (await service.get(gid, None)).view.actors[0]
        play = (await service.get(gid, seats[seat])).view.legal_actions[0]
        version = (await service.get(gid, None)).version
        await asyncio.sleep(2.2)  # the seat's turn runs out
        await sent.take()
        try:
            await service.act(gid, seats[seat], play, None, None)
        except TurnTimedOut:
            pass
        else:
            raise AssertionError("a late move was played")
        assert "BEGIN" in await sent.take()  # the locked path
        assert (await service.get(gid, None)).version == version + 1  # the timeout's move

    _run(pg_head, scenario)


@pytest.mark.parametrize("clocked", [False, True], ids=["unclocked", "clocked"])
def test_an_action_updates_its_game_in_place(clocked: bool) -> None:
    """An action's update of its game's row is HOT (heap-only: no index entry written, the
    old version pruned from its page): no index of `games` keys a column an action of a game
    without a bot changes, and the pages keep room for the new versions (`fillfactor` 80).
    Keyed on `updated_at`, the bot sweep's index made every one a new primary-key entry too
    (issue 27: 0 of 200 were HOT). A clocked game's deadline moves at almost every action;
    the clock sweep's index keys `sweep_at`, a lower bound of it that an action moves only
    when the deadline comes earlier (keyed on `deadline`, no clocked action was HOT). In a
    database of its own, so that the table's counters count this game's updates alone."""

    async def counters(dsn: str) -> tuple[int, int, list[str]]:
        conn = await asyncpg.connect(dsn)
        try:
            row = await conn.fetchrow(
                "SELECT n_tup_upd, n_tup_hot_upd, (SELECT reloptions FROM pg_class "
                "WHERE relname = 'games') AS options FROM pg_stat_user_tables "
                "WHERE relname = 'games'"
            )
            assert row is not None
            return int(row["n_tup_upd"]), int(row["n_tup_hot_upd"]), list(row["options"] or [])
        finally:
            await conn.close()

    actions = 60
    with own_database() as url:
        migrations.upgrade(url)

        async def scenario(service: GameService, _sent: Sent) -> None:
            body: dict[str, Any] = {
                "ruleset": "numwars",
                "players": [{"name": n} for n in "ABCD"],
                "seed": 5,
            }
            if clocked:
                body["clock"] = {"turn_seconds": 600}
            created = await service.create(msgspec.convert(body, CreateGame))
            seats = [seat_credential(s.token) for s in created.seats]
            for i in range(actions):
                if i % 20 == 0:
                    service._cache.clear()  # the locked path's update, too
                await _step(service, created.id, seats)

        _run(url, scenario)
        dsn = asyncpg_dsn(url)
        deadline = time.monotonic() + 20
        while True:  # a backend reports its counters within a second or so of going idle
            updated, hot, options = asyncio.run(counters(dsn))
            if updated >= actions or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    assert updated >= actions
    assert hot >= 0.9 * updated, (hot, updated)
    assert "fillfactor=80" in options
