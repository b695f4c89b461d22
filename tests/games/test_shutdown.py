"""A graceful shutdown (issue 13): on SIGTERM `numrules serve` finishes the request under way,
ends every open event stream with its `end` message, and exits 0, well within
NUMRULES_GRACEFUL_SHUTDOWN_SECONDS (a stream does not hold the server until the timeout)."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import msgspec
import pytest
from litestar.testing import TestClient

from api.db import migrations
from api.db.engine import create_engine
from api.games.bots import Thinker
from api.games.fanout import Fanout
from api.games.schemas import CreateGame
from api.games.service import GameService
from tests.api.process import ServeProcess
from tests.games.conftest import app_on
from tests.pg import asyncpg_dsn, own_database

GRACE = 20  # seconds: the test passes only if the server is done long before
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


def _read_until(sock: socket.socket, marker: bytes, data: bytes = b"") -> bytes:
    while marker not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before {marker!r}: {data[-500:]!r}"
        data += chunk
    return data


def _read_to_end(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_sigterm_finishes_requests_ends_streams_and_exits_0(pg_head: str, tmp_path: Path) -> None:
    server = ServeProcess(
        pg_head, tmp_path / "serve.log", NUMRULES_GRACEFUL_SHUTDOWN_SECONDS=str(GRACE)
    ).start()
    try:
        game = httpx.post(
            f"{server.url}/v1/games", json={"ruleset": "numwars", "players": PLAYERS}, timeout=30
        ).json()
        token = game["seats"][0]["token"]
        with (
            socket.create_connection(server.address, timeout=GRACE) as stream,
            socket.create_connection(server.address, timeout=GRACE) as upload,
        ):
            stream.sendall(
                f"GET /v1/games/{game['id']}/stream HTTP/1.1\r\nHost: test\r\n"
                f"Authorization: Bearer {token}\r\n\r\n".encode()
            )
            opened = _read_until(stream, b"\r\n\r\n")  # the stream is open
            assert opened.startswith(b"HTTP/1.1 200"), opened[:200]
            body = json.dumps({"ruleset": "numwars-classic", "players": PLAYERS}).encode()
            upload.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:10]
            )
            time.sleep(0.3)  # the request is under way: headers read, the body still coming
            assert server.process is not None
            started = time.monotonic()
            server.process.terminate()
            time.sleep(0.5)
            upload.sendall(body[10:])
            answer = _read_to_end(upload)
            assert answer.startswith(b"HTTP/1.1 201"), answer[:300]
            rest = _read_to_end(stream)  # the stream ends: its `end` message, then the close
            assert b"event: end" in opened + rest
            status = server.process.wait(GRACE)
            elapsed = time.monotonic() - started
        assert status == 0, server.output()[-2000:]
        assert elapsed < GRACE / 2, f"{elapsed:.1f} s: the stream held the server"
    finally:
        server.terminate()
    assert "timeout graceful shutdown exceeded" not in server.output()


async def _sessions(url: str) -> list[tuple[str, str]]:
    """The (state, wait event) of every other session on `url`'s database."""
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        rows = await conn.fetch(
            "SELECT coalesce(state, ''), coalesce(wait_event, '') FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return [(r[0], r[1]) for r in rows]


@pytest.fixture(scope="module")
def own_head() -> Iterator[str]:
    """A migrated database of this module's own: every session on it is one of its tests'."""
    with own_database() as url:
        migrations.upgrade(url)
        yield url


BOTS = [{"name": f"Bot {i}", "bot": "expert"} for i in range(4)]


def test_a_service_closed_while_its_bots_play_leaves_no_transaction_to_the_disposed_engine(
    own_head: str,
) -> None:
    """`GameService.close` ends the bot move under way before the engine is disposed: once
    disposed, no session is left (without it, the move's transaction was still open then)."""

    async def main() -> list[tuple[str, str]]:
        thinker = Thinker(workers=0, samples=4, seconds=0.2)
        service = GameService(create_engine(own_head), Fanout(), thinker=thinker)
        await service.create(msgspec.convert({"ruleset": "numwars", "players": BOTS}, CreateGame))
        deadline = time.monotonic() + GRACE
        while not await _sessions(own_head):  # a bot move under way
            assert time.monotonic() < deadline
            await asyncio.sleep(0.01)
        await service.close()
        await thinker.close()
        await service.engine.dispose()
        return await _sessions(own_head)

    assert asyncio.run(main()) == []


def test_an_app_stopped_while_its_bots_play_closes_every_connection(own_head: str) -> None:
    """The app's shutdown waits for (or stops) its bot moves and shared commits before the
    engine goes: no connection of the stopped app stays open, none left in a transaction
    holding its locks (an earlier test's stopped app had hung a later one's DDL)."""
    app = app_on(own_head, bot_workers=0, bot_samples=4, bot_seconds=0.2)
    with TestClient(app) as client:
        created = client.post("/v1/games", json={"ruleset": "numwars", "players": BOTS})
        assert created.status_code == 201, created.text
        deadline = time.monotonic() + GRACE
        while not asyncio.run(_sessions(own_head)):  # a bot move under way
            assert time.monotonic() < deadline
            time.sleep(0.01)
    assert asyncio.run(_sessions(own_head)) == []


def test_a_closed_thinker_starts_no_process_again() -> None:
    """A move thought after `Thinker.close` (a shutdown's last) thinks in a thread: a pool
    started after the close had joined the others was joined by nobody, and its worker
    outlived the server, waiting on its queue forever."""

    others = set(multiprocessing.active_children())  # other tests' pools, if any

    async def main() -> tuple[int, int]:
        thinker = Thinker(workers=1)
        before = await thinker._run(os.getpid)
        await thinker.close()
        after = await thinker._run(os.getpid)
        await thinker.close()
        return before, after

    before, after = asyncio.run(main())
    assert before != os.getpid()  # the pool's process, while open
    assert after == os.getpid()
    assert set(multiprocessing.active_children()) - others == set()
