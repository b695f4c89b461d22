"""Storage foundation of issue 11: migrations up and down on PostgreSQL and SQLite, the
startup refusal, the models' JSON round trip and the log's unique `(game_id, seq)`."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from litestar.testing import TestClient
from sqlalchemy import event, func, inspect, select, text
from sqlalchemy.exc import IntegrityError

from api.app import create_app
from api.db import migrations
from api.db.engine import HeldConnections, create_engine, held_size, sessionmaker
from api.db.models import Game, GameAction, GameEvent, GameSeat
from api.ops.settings import Settings
from tests.pg import own_database

TABLES = {
    "games",
    "game_seats",
    "game_actions",
    "game_events",
    "idempotency_keys",
    "stream_tickets",
    "accounts",
    "account_sessions",
    "account_tokens",
    "login_throttle",
    "scoresheets",
    "scoresheet_players",
    "scoresheet_rounds",
    "rate_limits",
    "scoresheet_idempotency_keys",
    "bot_cpu",
    "game_creation_keys",
}


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


def _up_down_up(url: str) -> None:
    migrations.upgrade(url)
    assert migrations.current(url) == migrations.head()
    assert asyncio.run(_tables(url)) >= TABLES
    migrations.downgrade(url, "base")
    assert migrations.current(url) is None
    assert not TABLES & asyncio.run(_tables(url))
    migrations.upgrade(url)
    assert migrations.current(url) == migrations.head()


def test_upgrade_downgrade_upgrade_sqlite(sqlite_url: str) -> None:
    _up_down_up(sqlite_url)


def test_upgrade_downgrade_upgrade_postgres() -> None:
    """On a database of its own: the run's shared one may hold another test's connection
    (a read left half-done), whose lock a downgrade's DROP TABLE would wait on for ever."""
    with own_database() as url:
        _up_down_up(url)
        # Migration 0018's triggers, here on a database of its own. `TRUNCATE games CASCADE`
        # truncates the log too, in replica mode as well, as it did while the log had foreign
        # keys; a delete by a caller whose search path misses the schema deletes the log too.
        replica = "SET LOCAL session_replication_role = replica"
        _assert_round_trip(url, "g-truncated")
        truncated = _log_rows(url, "g-truncated", replica, "TRUNCATE games CASCADE")
        assert asyncio.run(truncated) == (0, 0)
        _assert_round_trip(url, "g-path")
        path = "SET LOCAL search_path = pg_catalog"
        deleted = _log_rows(url, "g-path", path, "DELETE FROM public.games WHERE id = :g")
        assert asyncio.run(deleted) == (0, 0)
        # a game deleted in replica mode leaves its log (as the keys' cascade did): the
        # downgrade deletes it before the keys come back
        _assert_round_trip(url, "g-orphan")
        orphaned = _log_rows(url, "g-orphan", replica, "DELETE FROM games WHERE id = :g")
        assert asyncio.run(orphaned) == (1, 2)
        migrations.downgrade(url, "0017")
        assert asyncio.run(_log_rows(url, "g-orphan")) == (0, 0)


def test_check_at_head_false_on_empty_database(sqlite_url: str) -> None:
    assert asyncio.run(migrations.check_at_head(sqlite_url)) is False
    migrations.upgrade(sqlite_url)
    assert asyncio.run(migrations.check_at_head(sqlite_url)) is True


def test_app_refuses_to_start_behind_head(sqlite_url: str) -> None:
    app = create_app(Settings(DATABASE_URL=sqlite_url, check_db_on_start=True))
    with pytest.raises(ExceptionGroup) as refused, TestClient(app):
        pass
    assert refused.group_contains(
        migrations.NotAtHead,
        match='^database at revision none, not at head .*: run "numrules db upgrade"$',
    )
    migrations.upgrade(sqlite_url)
    with TestClient(
        create_app(Settings(DATABASE_URL=sqlite_url, check_db_on_start=True))
    ) as client:
        assert client.get("/healthz").status_code == 200


def test_postgres_urls_use_asyncpg() -> None:
    for url in ("postgres://u@h/db", "postgresql://u@h/db"):
        assert Settings(DATABASE_URL=url).database_url == "postgresql+asyncpg://u@h/db"
    assert Settings.model_fields["database_url"].default == "sqlite+aiosqlite:///numrules.db"


async def _store_game(url: str, game_id: str) -> tuple[Game, list[GameEvent]]:
    engine = create_engine(url)
    session_factory = sessionmaker(engine)
    try:
        async with session_factory() as session, session.begin():
            session.add(
                Game(
                    id=game_id,
                    ruleset="numwin",
                    options={"zeros": True, "schema": 1},
                    rules_version=1,
                    seed=2**63 - 1,
                    salt="ab" * 16,
                    seed_commitment="0" * 64,
                    players=2,
                )
            )
            await session.flush()
            session.add_all(
                [
                    GameSeat(
                        game_id=game_id,
                        seat=0,
                        name="Ada",
                        token_hash=hashlib.sha256(game_id.encode()).hexdigest(),
                    ),
                    GameAction(game_id=game_id, seq=1, seat=0, action={"type": "draw"}),
                    GameEvent(
                        game_id=game_id,
                        seq=1,
                        kind="deal",
                        visibility=[0],
                        payload={"cards": ["red-7"]},
                    ),
                    GameEvent(game_id=game_id, seq=2, kind="draw", visibility=None, payload={}),
                ]
            )
        async with session_factory() as session:
            game = await session.get_one(Game, game_id)
            events = list(
                await session.scalars(
                    select(GameEvent)
                    .where(GameEvent.game_id == game_id, GameEvent.seq > 0)
                    .order_by(GameEvent.seq)
                )
            )
            return game, events
    finally:
        await engine.dispose()


def _assert_round_trip(url: str, game_id: str) -> None:
    game, events = asyncio.run(_store_game(url, game_id))
    assert game.options == {"zeros": True, "schema": 1}
    assert game.seed == 2**63 - 1
    assert (game.status, game.version) == ("active", 0)
    assert game.created_at.tzinfo is not None or url.startswith("sqlite")
    assert [(e.seq, e.visibility, e.payload) for e in events] == [
        (1, [0], {"cards": ["red-7"]}),
        (2, None, {}),
    ]


def test_round_trip_postgres(pg_head: str) -> None:
    _assert_round_trip(pg_head, "g-trip")


async def _duplicate_seq(url: str, game_id: str) -> None:
    engine = create_engine(url)
    try:
        async with sessionmaker(engine)() as session, session.begin():
            session.add(GameAction(game_id=game_id, seq=1, seat=0, action={"type": "pass"}))
    finally:
        await engine.dispose()


def test_duplicate_seq_refused_postgres(pg_head: str) -> None:
    _assert_round_trip(pg_head, "g-dup")
    with pytest.raises(IntegrityError):
        asyncio.run(_duplicate_seq(pg_head, "g-dup"))


def test_sqlite_smoke(sqlite_url: str) -> None:
    migrations.upgrade(sqlite_url)
    _assert_round_trip(sqlite_url, "g-lite")
    with pytest.raises(IntegrityError):
        asyncio.run(_duplicate_seq(sqlite_url, "g-lite"))


async def _log_rows(url: str, game_id: str, *statements: str) -> tuple[int, int]:
    """`statements` run in one transaction (`:g`: `game_id`), then the rows left in the log
    of `game_id` (actions, events)."""
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            for statement in statements:
                await conn.execute(text(statement), {"g": game_id})
        async with engine.connect() as conn:
            return (
                await conn.scalar(select(func.count()).where(GameAction.game_id == game_id)),
                await conn.scalar(select(func.count()).where(GameEvent.game_id == game_id)),
            )
    finally:
        await engine.dispose()


@pytest.mark.parametrize("dialect", ["postgresql", "sqlite"])
def test_a_deleted_game_takes_its_log_with_it(dialect: str, pg_head: str, sqlite_url: str) -> None:
    """The log has no foreign keys (migration 0018: no check by row on the hot path); a
    trigger deletes it with its game, as `ON DELETE CASCADE` did, and leaves the others'."""
    url = pg_head if dialect == "postgresql" else sqlite_url
    if dialect == "sqlite":
        migrations.upgrade(url)
    for game_id in ("g-gone", "g-kept"):
        _assert_round_trip(url, game_id)
    assert asyncio.run(_log_rows(url, "g-gone")) == (1, 2)
    gone = asyncio.run(_log_rows(url, "g-gone", "DELETE FROM games WHERE id = :g"))
    assert gone == (0, 0)
    assert asyncio.run(_log_rows(url, "g-kept")) == (1, 2)


def test_migration_0018_keeps_the_log_both_ways_on_sqlite(sqlite_url: str) -> None:
    """SQLite rebuilds the log's tables to drop their foreign keys (migration 0018) and again
    to put them back: the rows stay, and once back the keys refuse an orphan row again."""
    migrations.upgrade(sqlite_url, "0017")
    _assert_round_trip(sqlite_url, "g-0017")
    migrations.upgrade(sqlite_url)
    assert asyncio.run(_log_rows(sqlite_url, "g-0017")) == (1, 2)
    orphan = "INSERT INTO game_events (game_id, seq, kind, payload) VALUES ('nobody', 1, 'x', '{}')"
    assert asyncio.run(_log_rows(sqlite_url, "nobody", orphan)) == (0, 1)
    asyncio.run(_log_rows(sqlite_url, "nobody", "DELETE FROM game_events WHERE game_id = :g"))
    migrations.downgrade(sqlite_url, "0017")
    assert asyncio.run(_log_rows(sqlite_url, "g-0017")) == (1, 2)
    with pytest.raises(IntegrityError):
        asyncio.run(_log_rows(sqlite_url, "nobody", orphan))


def test_the_round_state_is_compressed_with_lz4_where_postgres_has_it(pg_head: str) -> None:
    """Migration 0018: `checkpoint` and `progress` use lz4 on a PostgreSQL built with it."""

    async def methods() -> tuple[list[str], dict[str, str]]:
        engine = create_engine(pg_head)
        try:
            async with engine.connect() as conn:
                accepted = await conn.scalar(
                    text(
                        "SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'"
                    )
                )
                rows = await conn.execute(
                    text(
                        "SELECT attname, attcompression::text FROM pg_attribute "
                        "WHERE attrelid = 'games'::regclass "
                        "AND attname IN ('checkpoint', 'progress', 'result')"
                    )
                )
                return accepted, {r[0]: r[1] for r in rows}
        finally:
            await engine.dispose()

    accepted, columns = asyncio.run(methods())
    lz4 = "l" if "lz4" in accepted else ""
    assert columns == {"checkpoint": lz4, "progress": lz4, "result": ""}


def _cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url}
    return subprocess.run(
        [sys.executable, "-m", "api.cli", "db", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_cli_commands(sqlite_url: str) -> None:
    head = migrations.head()
    assert _cli(sqlite_url, "current").stdout.startswith("none")
    upgraded = _cli(sqlite_url, "upgrade")
    assert upgraded.returncode == 0
    assert upgraded.stdout.strip() == f"numrules db upgrade: revision none → {head}"
    again = _cli(sqlite_url, "upgrade").stdout.strip()
    assert again == f"numrules db upgrade: the database is at revision {head} (no change)"
    assert _cli(sqlite_url, "current").stdout.strip() == f"{head} (head)"
    downgraded = _cli(sqlite_url, "downgrade", "base")
    assert downgraded.returncode == 0
    assert downgraded.stdout.strip() == f"numrules db downgrade: revision {head} → none"
    assert migrations.current(sqlite_url) is None
    failed = _cli(sqlite_url, "downgrade", "nosuchrev")
    assert failed.returncode == 2
    assert len(failed.stderr.strip().splitlines()) == 1


def test_serve_refuses_behind_head_in_one_line(sqlite_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": sqlite_url, "NUMRULES_CHECK_DB_ON_START": "true"}
    refused = subprocess.run(
        [sys.executable, "-m", "api.cli", "serve", "--port", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().endswith('run "numrules db upgrade"')
    assert len(refused.stderr.strip().splitlines()) == 1


async def _schema_drift(url: str) -> list[object]:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from api.db.models import Base

    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda c: list(
                    compare_metadata(
                        MigrationContext.configure(c, opts={"compare_type": True}), Base.metadata
                    )
                )
            )
    finally:
        await engine.dispose()


def test_migrations_match_the_models_postgres(pg_head: str) -> None:
    """The hand-written migration creates exactly what the models declare (autogenerate
    finds nothing to do), so the models never drift from the schema they query."""
    assert asyncio.run(_schema_drift(pg_head)) == []


def test_migrations_match_the_models_sqlite(sqlite_url: str) -> None:
    migrations.upgrade(sqlite_url)
    assert asyncio.run(_schema_drift(sqlite_url)) == []


def test_foreign_keys_are_named_by_the_convention(pg_head: str) -> None:
    """Every foreign key is `fk_<table>_<column>_<referred table>`, as the models' naming
    convention names it (a later migration drops constraints by these names); the first migration once
    wrote the convention's template itself (found by a newcomer)."""

    async def names() -> set[str]:
        engine = create_engine(pg_head)
        try:
            async with engine.connect() as conn:
                rows = await conn.exec_driver_sql(
                    "SELECT conname FROM pg_constraint WHERE contype = 'f'"
                )
                return {r[0] for r in rows}
        finally:
            await engine.dispose()

    from api.db.models import Base

    expected = {
        f"fk_{table.name}_{fk.parent.name}_{fk.column.table.name}"
        for table in Base.metadata.tables.values()
        for fk in table.foreign_keys
    }
    assert "fk_game_seats_game_id_games" in expected
    assert asyncio.run(names()) == expected


async def _burst(url: str) -> tuple[int, int, int, int]:
    """30 tasks at once on the hot paths' held connections and 30 through the pool, then
    (connections kept by the hot paths, idle in the pool's queue, checked out, opened in
    all); the engine of `create_engine(pool_size=10)`."""
    engine = create_engine(url, pool_size=10)
    held = HeldConnections(engine, held_size(engine))
    opened = 0

    def _opened(*_: object) -> None:
        nonlocal opened
        opened += 1

    event.listen(engine.sync_engine, "connect", _opened)

    async def hot() -> None:
        async with held.connect() as conn:
            await conn.execute(text("SELECT pg_sleep(0.05)"))

    async def pooled() -> None:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT pg_sleep(0.05)"))

    try:
        await asyncio.gather(*[hot() for _ in range(30)], *[pooled() for _ in range(30)])
        pool = engine.pool
        return len(held._kept), pool.checkedin(), pool.checkedout(), opened  # type: ignore[attr-defined]
    finally:
        await engine.dispose()


def test_a_burst_leaves_at_most_the_pool_size_open(pg_head: str) -> None:
    """The hot paths keep half the pool between uses (api.db.engine.HeldConnections) out of
    the pool's own queue, not on top of it: after a burst that opened every connection a
    process may (pool size + the overflow of 10), at most the pool size stays open idle:
    20 open at the burst's height, 10 kept (5 by the hot paths, 5 in the queue)."""
    kept, queued, out, opened = asyncio.run(_burst(pg_head))
    assert opened == 20  # the pool size (10) and the overflow (10): no more
    assert kept == 5
    assert out == kept  # only the hot paths' connections stay checked out
    assert kept + queued == 10
