"""A service whose database connections the server ended while it was idle (a failover, an
operator's `pg_terminate_backend`, a restarted PostgreSQL): its next requests are served on
fresh connections, none answered 503. asyncpg learns of an ended connection without I/O (the
server says so, then closes the socket), so a connection checked out of the pool closed is
replaced there and then (api/db/engine.py `_replace_if_closed`); the hot paths' kept
connections were already checked so (`HeldConnections`). The database is the test's own: every
backend of it is ended."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import asyncpg
import httpx
import pytest

from api.app import create_app
from api.db import migrations
from api.ops.settings import Settings
from tests.accounts.conftest import account_body
from tests.api.serving import serve
from tests.pg import asyncpg_dsn, own_database

PLAYERS = [{"name": n} for n in ("Ada", "Bo", "Cy", "Dee")]


@pytest.fixture
def alone() -> Iterator[str]:
    with own_database() as url:
        migrations.upgrade(url)
        yield url


async def _end_every_backend(url: str) -> int:
    """End every other backend of `url`'s database, each waited for until it has exited
    (`pg_terminate_backend`'s timeout, PostgreSQL 14+); how many there were."""
    admin = await asyncpg.connect(asyncpg_dsn(url))
    try:
        ended: int = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()
    return ended


async def _play(client: httpx.AsyncClient, game: dict[str, object]) -> list[int]:
    """Each seat's view read and the first actor's first legal action taken: the statuses."""
    game_id = game["id"]
    tokens = [s["token"] for s in game["seats"]]  # type: ignore[attr-defined]
    statuses = []
    views = []
    for token in tokens:
        answer = await client.get(
            f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}
        )
        statuses.append(answer.status_code)
        views.append(answer.json())
    if all(s == 200 for s in statuses):
        actor = views[0]["view"]["actors"][0]
        action = views[actor]["view"]["legal_actions"][0]
        acted = await client.post(
            f"/v1/games/{game_id}/actions",
            json=action,
            headers={"Authorization": f"Bearer {tokens[actor]}"},
        )
        statuses.append(acted.status_code)
    return statuses


def test_an_idle_service_whose_connections_were_ended_answers_every_request(alone: str) -> None:
    """Eight games played at once fill the pool and the kept connections; every backend of the
    database is then ended while the service idles. The next round of requests (creations,
    seats' reads and actions, eight games at once, and a sign-up) is answered without one
    503: before, each dead pooled connection failed the request that checked it out."""
    app = create_app(Settings(database_url=alone, db_pool_size=6))
    with serve(app) as (host, port):

        async def main() -> None:
            async with httpx.AsyncClient(base_url=f"http://{host}:{port}", timeout=30) as client:

                async def one() -> list[int]:
                    created = await client.post(
                        "/v1/games", json={"ruleset": "numwars", "players": PLAYERS}
                    )
                    assert created.status_code == 201, created.text
                    return await _play(client, created.json())

                for statuses in await asyncio.gather(*(one() for _ in range(8))):
                    assert set(statuses) == {200}, statuses
                assert await _end_every_backend(alone) >= 4  # the pool's, the listener's …
                await asyncio.sleep(1.0)  # idle: asyncpg has read the servers' goodbyes

                async def again() -> list[int]:
                    created = await client.post(
                        "/v1/games", json={"ruleset": "numwars", "players": PLAYERS}
                    )
                    if created.status_code != 201:
                        return [created.status_code]
                    return [created.status_code, *await _play(client, created.json())]

                results = await asyncio.gather(*(again() for _ in range(8)))
                signed = await client.post("/v1/accounts", json=account_body())
                assert [set(r) for r in results] == [{200, 201}] * 8, results
                assert signed.status_code == 201, signed.text

        asyncio.run(main())
