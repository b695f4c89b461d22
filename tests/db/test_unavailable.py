"""A database the service cannot use answers 503 `database-unavailable` with `Retry-After`,
never a 500 or a hang (issue 21, item 1; the contract's "Operations").

Served processes on PostgreSQL through asyncpg: a socket that takes TCP and never answers
(start-up, and a database that goes silent under a running server), a database dropped
under a running server (every database-backed operation of the spec, iterated from the spec
itself), and a locked SQLite file.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from sqlalchemy.engine import make_url

from api.db import migrations
from tests.accounts.conftest import account_body
from tests.api.process import ServeProcess
from tests.pg import _admin

#: The timeouts the served processes get here (seconds), so that the tests are quick.
TIMEOUTS = {
    "NUMRULES_DB_CONNECT_TIMEOUT_SECONDS": "1",
    "NUMRULES_DB_STATEMENT_TIMEOUT_SECONDS": "1",
}
#: What a request may take at most against a database that does not answer: the connect
#: timeout and a statement's (plus the client's half second), and room for a loaded machine.
BOUND_SECONDS = 1 + 1.5 + 3
#: A password in DATABASE_URL (PostgreSQL's trust authentication ignores it): it must show up
#: in no line the service writes.
PASSWORD = "pw-" + secrets.token_hex(8)
PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


class Relay:
    """A TCP relay on 127.0.0.1 in front of PostgreSQL (`upstream`) that can go silent: after
    `silence()` it keeps every connection open, accepts new ones, and passes nothing on in
    either direction (a hung server, a link dropped without a reset). Without `upstream` it is
    silent from the start: a port that takes TCP and never answers."""

    def __init__(self, upstream: tuple[str, int] | None = None) -> None:
        self.upstream = upstream
        self.silent = upstream is None
        self.writers: list[asyncio.StreamWriter] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        started = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self.loop
        )
        self.server = started.result(10)
        self.port: int = self.server.sockets[0].getsockname()[1]

    def silence(self) -> None:
        self.silent = True

    def speak(self) -> None:
        """Pass new connections on again (those opened while silent stay silent)."""
        self.silent = False

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        with contextlib.suppress(OSError):
            if self.silent or self.upstream is None:
                while await reader.read(65536):
                    pass
                return
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            self.writers.append(up_writer)
            await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await source.read(65536):
                if not self.silent:
                    target.write(data)
                    await target.drain()
            if not self.silent:  # one side closed: so does the other, as PostgreSQL's would
                target.close()

    def close(self) -> None:
        if not self.thread.is_alive():
            return

        async def stop() -> None:
            self.server.close()
            for writer in self.writers:
                writer.close()
            pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in pending:  # ended here, not destroyed pending when the loop stops
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def __enter__(self) -> Relay:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Uvicorn(ServeProcess):
    """`python -m uvicorn api.app:app`: the app's own lifespan, as any ASGI server runs it."""

    def command(self) -> list[str]:
        return [sys.executable, "-m", "uvicorn", "api.app:app", "--port", str(self.port)]


def _database_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if "database" in line.lower()]


@pytest.mark.parametrize("server", [ServeProcess, Uvicorn], ids=["numrules-serve", "uvicorn"])
def test_start_up_on_a_silent_database_fails_in_one_line_within_the_bound(
    server: type[ServeProcess], tmp_path: Path
) -> None:
    """A database that takes TCP and never answers: `numrules serve` and the app's lifespan
    say so in one line, no traceback, and exit non-zero within the connect timeout (they
    waited asyncpg's 60 s, then printed a bare traceback)."""
    with Relay() as silent:
        url = f"postgresql://numrules:{PASSWORD}@127.0.0.1:{silent.port}/numrules"
        process = server(url, tmp_path / "serve.log", NUMRULES_LOG_FORMAT="text", **TIMEOUTS)
        started = time.monotonic()
        status = process.refused(timeout=30)
        elapsed = time.monotonic() - started
    output = process.output()
    assert status != 0, output
    assert elapsed < 15, elapsed  # 1 s, and the interpreter's start on a loaded machine
    assert "Traceback" not in output, output
    lines = _database_lines(output)
    assert len(lines) == 1, output
    assert f"127.0.0.1:{silent.port}/numrules" in lines[0], lines
    assert "no answer in time (connect timeout 1 s" in lines[0], lines
    assert PASSWORD not in output


def test_start_up_on_a_database_that_does_not_exist_fails_in_one_line(
    pg_url: str, tmp_path: Path
) -> None:
    """Refused, unknown database: one line naming the database and the cause."""
    missing = make_url(pg_url).set(database="numrules_missing_" + secrets.token_hex(4))
    url = missing.set(password=PASSWORD).render_as_string(hide_password=False)
    process = Uvicorn(url, tmp_path / "serve.log", NUMRULES_LOG_FORMAT="text", **TIMEOUTS)
    assert process.refused(timeout=30) != 0
    output = process.output()
    assert "Traceback" not in output, output
    lines = _database_lines(output)
    assert len(lines) == 1 and "does not exist" in lines[0], output
    assert PASSWORD not in output


def _problem_503(response: httpx.Response) -> None:
    assert response.status_code == 503, (response.request.url, response.text)
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "database-unavailable", response.text
    assert int(response.headers["retry-after"]) >= 1


def _warm_problem_check(client: httpx.Client) -> None:
    """A problem answer before anything is timed: the suite's check of problem answers
    (tests/problem_check.py) builds the served spec once per process, on the first it sees,
    which took seconds of a timed request on a loaded machine."""
    assert client.get("/v1/games/" + "0" * 32).status_code == 404


@contextlib.contextmanager
def served_through_a_relay(
    pg_head: str, tmp_path: Path
) -> Iterator[tuple[Relay, httpx.Client, dict[str, Any]]]:
    """A served process whose database connections pass through a `Relay`, its client, and
    a numwars-classic game it created (its JSON answer); after the block, the relay closes
    first (the server's connections then end at once) and the log holds no traceback."""
    with Relay(("127.0.0.1", make_url(pg_head).port or 5432)) as relay:
        url = make_url(pg_head).set(port=relay.port).render_as_string(hide_password=False)
        server = ServeProcess(url, tmp_path / "serve.log", **TIMEOUTS).start()
        try:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                created = client.post(
                    "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
                )
                assert created.status_code == 201, created.text
                yield relay, client, created.json()
        finally:
            relay.close()
            server.terminate(30)
    assert "Traceback" not in server.output()


def test_a_database_gone_silent_answers_503_within_the_bound(pg_head: str, tmp_path: Path) -> None:
    """A running server whose database stops answering (its pooled connections and every
    new one): each request is 503 `database-unavailable` within the timeouts (it hung 60 s,
    then 500)."""
    with served_through_a_relay(pg_head, tmp_path) as (relay, client, created):
        game = created["id"]
        assert client.get(f"/v1/games/{game}").status_code == 200
        _warm_problem_check(client)
        relay.silence()
        for method, path, body in [
            ("GET", f"/v1/games/{game}", None),  # a pooled connection, stuck
            ("GET", f"/v1/games/{game}/events", None),  # a new connection, stuck
            ("POST", "/v1/games", {"ruleset": "numwars-classic", "players": PLAYERS}),
            ("POST", "/v1/accounts", account_body()),
            ("GET", "/readyz", None),
        ]:
            started = time.monotonic()
            response = client.request(method, path, json=body)
            elapsed = time.monotonic() - started
            _problem_503(response)
            assert elapsed < BOUND_SECONDS, (path, elapsed)
        assert client.get("/healthz").status_code == 200


def test_a_database_gone_silent_answers_a_seat_503_within_the_bound(
    pg_head: str, tmp_path: Path
) -> None:
    """The hot paths that use asyncpg directly on PostgreSQL (a seat's read of its game, an
    action's transaction) keep issue 21's bounds: 503 `database-unavailable` within the
    timeouts on a stuck pooled connection and on a new one; once the database answers again,
    the same seat reads and acts (the stuck connections were dropped, not reused)."""
    with served_through_a_relay(pg_head, tmp_path) as (relay, client, created):
        game = created["id"]
        tokens = [s["token"] for s in created["seats"]]
        seat = created["view"]["actors"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        view = client.get(f"/v1/games/{game}", headers=auth).json()["view"]
        action = view["legal_actions"][0]
        read = f"/v1/games/{game}"
        _warm_problem_check(client)
        # a stuck pooled connection: the action's BEGIN, then the read's SELECT; each
        # time a new connection next (its connect times out)
        for first, path, body in [("POST", read + "/actions", action), ("GET", read, None)]:
            assert client.get(read, headers=auth).status_code == 200  # one pooled
            relay.silence()
            for method, target, json in [(first, path, body), ("GET", read, None)]:
                started = time.monotonic()
                response = client.request(method, target, json=json, headers=auth)
                elapsed = time.monotonic() - started
                _problem_503(response)
                assert elapsed < BOUND_SECONDS, (method, target, elapsed)
            relay.speak()
        acted = client.post(f"{read}/actions", json=action, headers=auth)
        assert acted.status_code == 200, acted.text
        assert acted.json()["version"] == 1


def _example(schema: dict[str, Any], spec: dict[str, Any]) -> Any:
    """A schema's first example, looked for through `$ref` and `allOf`."""
    if "examples" in schema:
        return schema["examples"][0]
    if "example" in schema:
        return schema["example"]
    if "$ref" in schema:
        return _example(spec["components"]["schemas"][schema["$ref"].split("/")[-1]], spec)
    for part in schema.get("allOf", []):
        if (found := _example(part, spec)) is not None:
            return found
    return None


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield method.upper(), path, operation


def _documents_database_unavailable(operation: dict[str, Any]) -> bool:
    found = operation["responses"].get("503", {})
    return "database-unavailable" in str(found)


def test_a_dropped_database_answers_503_on_every_database_operation(tmp_path: Path) -> None:
    """`DROP DATABASE … WITH (FORCE)` under a running server: every operation of the spec
    that uses the database answers 503 `database-unavailable` with Retry-After (they were 500
    `internal-error`, while /readyz said 503), the others answer as before, and the log names
    the cause without the URL's password."""
    name = f"numrules_test_{secrets.token_hex(6)}"
    user = asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    url = f"postgresql+asyncpg://{user}:{PASSWORD}@127.0.0.1:5432/{name}"
    server: ServeProcess | None = None
    try:
        migrations.upgrade(url)
        server = ServeProcess(url, tmp_path / "serve.log", NUMRULES_LOG_FORMAT="text", **TIMEOUTS)
        server.start()
        with httpx.Client(base_url=server.url, timeout=30) as client:
            signed = client.post("/v1/accounts", json=account_body())
            assert signed.status_code == 201, signed.text
            session = {"Authorization": f"Bearer {signed.json()['token']}"}
            game = client.post(
                "/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS}
            ).json()
            sheet = client.post(
                "/v1/scoresheets",
                json={"ruleset": "numwars-classic", "players": PLAYERS},
                headers=session,
            ).json()
            values = {"game_id": game["id"], "sheet_id": sheet["id"], "seat": 0, "n": 1}
            values["ruleset"] = "numking"
            spec = client.get("/openapi.json").json()

            asyncio.run(_admin(f'DROP DATABASE "{name}" WITH (FORCE)'))

            answers: dict[str, httpx.Response] = {}
            database_operations = set()
            for method, path, operation in _operations(spec):
                target = re.sub(r"\{([a-z_]+)\}", lambda m: str(values.get(m.group(1), "x")), path)
                query = {
                    p["name"]: _example(p["schema"], spec) or p["schema"].get("minimum", 3)
                    for p in operation.get("parameters", [])
                    if p["in"] == "query" and p.get("required")
                }
                body = None
                if "requestBody" in operation:
                    media = operation["requestBody"]["content"]["application/json"]
                    named = [e["value"] for e in (media.get("examples") or {}).values()]
                    body = media.get("example") or next(iter(named), None)
                    body = body or _example(media["schema"], spec)
                    assert body is not None, f"{method} {path}: the spec gives no example body"
                answers[f"{method} {path}"] = client.request(
                    method, target, params=query, json=body, headers=session
                )
                if _documents_database_unavailable(operation):
                    database_operations.add(f"{method} {path}")
    finally:
        if server is not None:
            server.terminate(30)
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    assert len(database_operations) >= 25, sorted(database_operations)
    for operation, response in answers.items():
        if operation in database_operations or operation == "GET /readyz":
            _problem_503(response)
        else:  # the stateless rules, the terms, the probes: answered without the database (an
            # operation that needs it and does not document it: 503, caught here)
            assert response.status_code < 500, (operation, response.text)
    # /readyz answers and logs as every operation does (a newcomer saw its own wording)
    details = {answers[o].json()["detail"] for o in database_operations | {"GET /readyz"}}
    assert len(details) == 1, details
    output = server.output()
    assert "Traceback" not in output, output
    assert PASSWORD not in output
    assert f'database "{name}" does not exist' in output
    assert "database unavailable on GET '/readyz'" in output


def test_a_locked_sqlite_database_answers_503_within_the_bound(tmp_path: Path) -> None:
    """SQLite: another writer holds the file's lock longer than the statement timeout; a
    request is 503 `database-unavailable` after that timeout (it was 500 after 5 s)."""
    from api.app import create_app
    from api.ops.settings import Settings

    path = tmp_path / "numrules.db"
    url = f"sqlite+aiosqlite:///{path}"
    migrations.upgrade(url)
    app = create_app(Settings(database_url=url, db_statement_timeout_seconds=0.5))
    with TestClient(app) as client:
        created = client.post("/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS})
        assert created.status_code == 201, created.text
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            for method, route in [
                ("POST", "/v1/games"),
                ("GET", f"/v1/games/{created.json()['id']}"),
            ]:
                started = time.monotonic()
                response = client.request(
                    method,
                    route,
                    json={"ruleset": "numwars-classic", "players": PLAYERS}
                    if method == "POST"
                    else None,
                )
                elapsed = time.monotonic() - started
                assert response.status_code == 503, response.text
                assert response.json()["code"] == "database-unavailable"
                assert response.headers["retry-after"]
                assert elapsed < 3, elapsed
        finally:
            other.rollback()
            other.close()
        again = client.post("/v1/games", json={"ruleset": "numwars-classic", "players": PLAYERS})
        assert again.status_code == 201, again.text


def test_connections_the_server_ended_are_never_handed_out_again(pg_head: str) -> None:
    """The backends of the connections a running service keeps between uses ended
    (`pg_terminate_backend`, as a failover or an operator does), its actions' views read
    through another replica: every later action is served, none on a connection the server
    ended, at most the first failing, and only with a 503's error (before, such a connection
    went back to the pool from the action's transaction and was handed out again and again:
    every action 503, for good)."""
    import asyncpg
    import msgspec

    from api.db.engine import create_engine, unavailable
    from api.games.fanout import Fanout
    from api.games.schemas import CreateGame
    from api.games.service import GameService, seat_credential
    from tests.pg import asyncpg_dsn

    async def main() -> None:
        admin = await asyncpg.connect(asyncpg_dsn(pg_head))
        service = GameService(create_engine(pg_head, 4), Fanout(), hot_actions=False)
        reads = GameService(create_engine(pg_head, 4), Fanout())  # another replica
        body = {"ruleset": "numwars", "players": [{"name": n} for n in "ABCD"], "seed": 5}
        try:
            created = await service.create(msgspec.convert(body, CreateGame))
            seats = [seat_credential(s.token) for s in created.seats]

            async def act() -> int:
                view = (await reads.get(created.id, None)).view
                seat = seats[view.actors[0]]
                legal = (await reads.get(created.id, seat)).view.legal_actions
                answer, _ = await service.act(created.id, seat, legal[0], None, None)
                return answer.version

            assert await act() == 1
            kept = service.repository.held._kept  # type: ignore[attr-defined]
            ours = [
                c.sync_connection.connection.driver_connection.get_server_pid() for c, _ in kept
            ]
            assert ours
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", ours
            )
            await asyncio.sleep(0.2)
            versions, failed = [], []
            for _ in range(6):
                try:
                    versions.append(await act())
                except Exception as exc:  # a dead connection's error: 503 material only
                    assert unavailable(exc) is not None, repr(exc)
                    failed.append(exc)
            assert len(failed) <= 1 and versions == list(range(2, 2 + len(versions)))
            assert len(versions) >= 5
        finally:
            for each in (service, reads):
                await each.close()
                await each.engine.dispose()
            await admin.close()

    asyncio.run(main())
