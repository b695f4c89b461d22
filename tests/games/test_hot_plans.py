"""The plans of the statements that several games share (issue 27): the seats' shared read
(`_GAMES_AND_SEATS_PG`) and the hot actions' shared write (`APPEND_HOT_MANY_PG`).

On a new database, whose tables were never analysed (every deployment's first minutes; this
machine's PostgreSQL runs without autovacuum, so its benchmark's database never is), the
planner counts a table of games as at least ten pages. Written as joins, both statements were then
planned as hash joins over a scan of every game (and of every seat), and each connection kept
that plan while the table grew. Here, on a database of their own with a few games: each
statement's generic plan looks every game and seat up by its key, whatever the table holds,
and PostgreSQL keeps that generic plan instead of planning the statement afresh at each run
(which it did while the read's rows were counted from its keys). And where the tables were
analysed while they held one game, then grew without being analysed again, the shared
write checks each game's seat once, not once per row of a table it scans (which made a
batch of 16 games take seconds on 3,000 games)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import asyncpg
import msgspec
import pytest

from api.db import migrations
from api.games.repository import _GAMES_AND_SEATS_PG, APPEND_HOT_MANY_PG
from tests.games.test_group_commit import _create, _play, _run_hot
from tests.pg import asyncpg_dsn, own_database

#: The tables looked up by key, and the scans that look a row up by its key.
TABLES = {"games", "game_seats"}
BY_KEY = {"Index Scan", "Index Only Scan"}


@pytest.fixture(scope="module")
def new_head() -> Iterator[str]:
    """A migrated database of this module's own, never analysed, with six games."""
    with own_database() as url:
        migrations.upgrade(url)
        asyncio.run(_no_autovacuum(url))

        async def games(service: Any) -> None:
            for n in range(6):
                game, seats = await _create(service, 4100 + n)
                await _play(service, game, seats, 3)

        _run_hot(url, games)
        yield url


async def _no_autovacuum(url: str) -> None:
    """Where autovacuum runs, not on these tables: they stay never analysed."""
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        for table in TABLES:
            await conn.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
    finally:
        await conn.close()


def _element(game: str, read: int, seat: int, digest: str) -> dict[str, Any]:
    """One game's element of the shared write's argument."""
    return {
        "id": game, "read": read, "event_seq": 0, "status": "active", "result": None,
        "bot_pending": False, "deadlines": None, "deadline": None, "checkpoint": None,
        "seat": seat, "action": {}, "events": [], "progress": None, "digest": digest,
    }  # fmt: skip


def _reads(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every node of a plan that reads a table (not the one that writes it)."""
    if "Relation Name" in plan and plan["Node Type"] != "ModifyTable":
        yield plan
    for child in plan.get("Plans", []):
        yield from _reads(child)


async def _keys(conn: asyncpg.Connection) -> tuple[str, str]:
    """The shared read's and the shared write's argument for every seat of the games: the
    write's versions are past (nothing is written)."""
    seats = await conn.fetch(
        "SELECT g.id, s.seat, s.token_hash FROM games g JOIN game_seats s ON s.game_id = g.id"
    )
    read = [{"game": r["id"], "digest": r["token_hash"]} for r in seats]
    write = [_element(r["id"], -1, r["seat"], r["token_hash"]) for r in seats if r["seat"] == 0]
    return msgspec.json.encode(read).decode(), msgspec.json.encode(write).decode()


@pytest.mark.parametrize("which", ["read", "write"])
def test_a_shared_statement_looks_each_game_up_by_its_key(new_head: str, which: str) -> None:
    async def main() -> None:
        conn = await asyncpg.connect(asyncpg_dsn(new_head))
        try:
            assert (
                await conn.fetchval(  # the premise: no statistics yet
                    "SELECT reltuples FROM pg_class WHERE relname = 'games'"
                )
                == -1
            )
            docs = dict(zip(("read", "write"), await _keys(conn), strict=True))
            sql = {"read": _GAMES_AND_SEATS_PG[0], "write": APPEND_HOT_MANY_PG}[which]
            await conn.execute("SET plan_cache_mode = force_generic_plan")
            await conn.execute(f"PREPARE shared(text) AS {sql}")
            literal = await conn.fetchval("SELECT quote_literal($1::text)", docs[which])
            plan = await conn.fetchval(f"EXPLAIN (FORMAT JSON) EXECUTE shared({literal})")
            reads = _reads(msgspec.json.decode(plan)[0]["Plan"])
            scans = [(node["Node Type"], node["Relation Name"]) for node in reads]
            assert {table for _, table in scans} == TABLES, scans
            assert [s for s in scans if s[1] in TABLES and s[0] not in BY_KEY] == [], scans

            await conn.execute("RESET plan_cache_mode")
            statement = await conn.prepare(sql)
            for _ in range(10):
                rows = await statement.fetch(docs[which])
                assert len(rows) == (24 if which == "read" else 0)  # every seat; no write
            custom, generic = await conn.fetchrow(
                "SELECT custom_plans, generic_plans FROM pg_prepared_statements"
                " WHERE statement = $1",
                sql,
            )
            assert (custom, generic) == (5, 5)  # the generic plan, once tried, kept
        finally:
            await conn.close()

    asyncio.run(main())


#: `{copies}` copies of the game `{game}` and of its seats, under new ids and token hashes.
_GROW = """
INSERT INTO games SELECT (jsonb_populate_record(NULL::games,
    to_jsonb(g) || jsonb_build_object('id', md5(g.id || i)))).*
FROM games g, generate_series(1, {copies}) i WHERE g.id = '{game}';
INSERT INTO game_seats SELECT (jsonb_populate_record(NULL::game_seats,
    to_jsonb(s) || jsonb_build_object('game_id', md5(s.game_id || i),
        'token_hash', md5(s.token_hash || i) || md5(s.token_hash || i)))).*
FROM game_seats s, generate_series(1, {copies}) i WHERE s.game_id = '{game}';
"""


def test_the_shared_write_checks_each_seat_once_on_a_table_grown_since_analysed() -> None:
    async def main(url: str) -> None:
        conn = await asyncpg.connect(asyncpg_dsn(url))
        try:
            await conn.execute("ANALYZE games, game_seats")  # while it holds one game
            await conn.execute("SET plan_cache_mode = force_generic_plan")
            await conn.execute(f"PREPARE shared(text) AS {APPEND_HOT_MANY_PG}")
            await conn.execute("EXPLAIN EXECUTE shared(NULL)")  # planned now, and kept
            game = await conn.fetchval("SELECT id FROM games")
            await conn.execute(_GROW.format(game=game, copies=3000))
            seats = await conn.fetch(
                "SELECT game_id, seat, token_hash FROM game_seats WHERE seat = 0"
                " ORDER BY game_id LIMIT 16"
            )
            doc = [_element(r["game_id"], -1, r["seat"], r["token_hash"]) for r in seats]
            literal = await conn.fetchval(
                "SELECT quote_literal($1::text)", msgspec.json.encode(doc).decode()
            )
            # run (ANALYZE), writing nothing: every version is past
            plan = await conn.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE shared({literal})")
            reads = _reads(msgspec.json.decode(plan)[0]["Plan"])
            loops = sum(n["Actual Loops"] for n in reads if n["Relation Name"] == "game_seats")
            assert 0 < loops <= len(doc), loops
        finally:
            await conn.close()

    with own_database() as url:
        migrations.upgrade(url)
        asyncio.run(_no_autovacuum(url))

        async def one(service: Any) -> None:
            await _create(service, 4200)

        _run_hot(url, one)
        asyncio.run(main(url))
