"""Deeply nested bodies on every operation that takes one (issue 21, item 2).

`POST /v1/games/{id}/actions` with `{"x": [[[…]]]}` 1,000 deep was a 500 (its decoding was
outside the guard the other bodies had). Each operation of the served spec that declares a
request body gets the same deep bodies, with valid credentials and ids of resources that
exist (authentication and existence come before the body: the body must be reached), and
answers 422 `validation-error` on field `body`; the database is the same afterwards.

The check of "the same" runs on a database and app of its own: on the run's shared one, a
clocked game another test left active times out in the sweep at any moment (a write that
is no request's).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import TestClient

from api.http.body import MAX_DEPTH, TOO_DEEP, too_deep
from tests.accounts.conftest import sign_up
from tests.pg import FAST_HASHES, own_database

PROBLEM = "application/problem+json"
JSON = {"content-type": "application/json"}
CAP = 64 * 1024


def _arrays(depth: int) -> bytes:
    return b'{"x":' + b"[" * depth + b"]" * depth + b"}"


def _objects(depth: int) -> bytes:
    return b'{"x":' + b'{"x":' * depth + b"1" + b"}" * depth + b"}"


DEEP = {
    "arrays-1000": _arrays(1000),
    "objects-1000": _objects(1000),
    "arrays-10000": _arrays(10_000),
    "objects-10000": _objects(10_000),
    "bare-arrays-30000": b"[" * 30_000 + b"]" * 30_000,
    "in-a-string-and-deep": b'{"name":"[[[[{{{{","x":' + b"[" * 2000 + b"]" * 2000 + b"}",
}


class World:
    """Resources the operations act on: an account (its session), a game (its seat tokens),
    a score sheet the account owns with one round."""

    def __init__(self, client: TestClient[Any]) -> None:
        self.account = sign_up(client, pseudo=f"d{secrets.token_hex(5)}")
        session = {"Authorization": f"Bearer {self.account['token']}"}
        game = client.post(
            "/v1/games",
            json={"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]},
        )
        assert game.status_code == 201, game.text
        self.game = game.json()
        sheet = client.post(
            "/v1/scoresheets",
            json={"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]},
            headers=session,
        )
        assert sheet.status_code == 201, sheet.text
        self.sheet = sheet.json()
        players = [{"captured": ["red-3"]}, {"captured": []}, {"captured": []}]
        added = client.post(
            f"/v1/scoresheets/{self.sheet['id']}/rounds", json={"players": players}, headers=session
        )
        assert added.status_code == 201, added.text
        self.values = {
            "game_id": self.game["id"],
            "seat": "0",
            "sheet_id": self.sheet["id"],
            "n": "1",
        }
        self.credentials = {
            "seatToken": self.game["seats"][0]["token"],
            "sessionToken": self.account["token"],
        }

    def url(self, path: str) -> str:
        def value(match: re.Match[str]) -> str:
            name = match.group(1)
            assert name in self.values, f"no value for path parameter {name!r} of {path}"
            return self.values[name]

        return re.sub(r"\{([^}]+)\}", value, path)

    def headers(self, operation: dict[str, Any]) -> dict[str, str]:
        """The strongest credential the operation takes (seat, else session), if any."""
        schemes = {name for option in operation.get("security", []) for name in option}
        for scheme in ("seatToken", "sessionToken"):
            if scheme in schemes:
                return {"Authorization": f"Bearer {self.credentials[scheme]}"}
        unknown = schemes - {"sheetToken", "apiKey"}  # a key only meters: never needed
        assert not unknown, f"no credential for {unknown}"
        return {}


async def _dump(url: str) -> dict[str, list[str]]:
    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        tables = await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        )
        return {
            t["tablename"]: [
                r[0]
                for r in await conn.fetch(f'SELECT t::text FROM "{t["tablename"]}" t ORDER BY 1')
            ]
            for t in tables
        }
    finally:
        await conn.close()


def _operations(client: TestClient[Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    spec = client.get("/openapi.json").json()
    for path, item in spec["paths"].items():
        for method in ("post", "put", "patch"):
            if method in item:
                yield method.upper(), path, item[method]


@pytest.fixture(scope="module")
def quiet() -> Iterator[tuple[TestClient[Any], str]]:
    """The app on a migrated database nobody else writes (module docstring)."""
    from api.app import create_app
    from api.db import migrations
    from api.ops.settings import Settings

    with own_database() as url:
        migrations.upgrade(url)
        app = create_app(Settings(database_url=url, check_db_on_start=True, **FAST_HASHES))
        with TestClient(app) as client:
            yield client, url


@pytest.mark.parametrize("name", list(DEEP))
def test_a_deep_body_is_a_422_on_every_operation(
    quiet: tuple[TestClient[Any], str], name: str
) -> None:
    games, pg_head = quiet
    content = DEEP[name]
    assert len(content) <= CAP
    world = World(games)
    wrong: list[str] = []
    read = 0
    for method, path, operation in _operations(games):
        if "requestBody" not in operation:
            continue
        read += 1
        before = asyncio.run(_dump(pg_head))
        url, headers = world.url(path), {**JSON, **world.headers(operation)}
        response = games.request(method, url, content=content, headers=headers)
        where = f"{method} {path} ({operation['operationId']})"
        if response.status_code != 422 or response.headers["content-type"] != PROBLEM:
            wrong.append(f"{where}: {response.status_code} {response.text[:200]}")
            continue
        problem = response.json()
        if problem["code"] != "validation-error" or [e["field"] for e in problem["errors"]] != [
            "body"
        ]:
            wrong.append(f"{where}: {problem}")
        if "recursion" in problem["detail"].lower():
            wrong.append(f"{where}: the decoder's words: {problem['detail']}")
        if asyncio.run(_dump(pg_head)) != before:
            wrong.append(f"{where}: the database changed")
    assert read >= 25, f"only {read} operations take a body: is the spec served?"
    assert not wrong, "\n".join(wrong)


def test_operations_without_a_body_never_read_one(games: TestClient[Any]) -> None:
    """Operations that declare no body (abandon, join, stream tickets …) ignore one: a deep
    body is never decoded there, so it is never a 500 either."""
    world = World(games)
    wrong: list[str] = []
    for method, path, operation in _operations(games):
        if "requestBody" in operation:
            continue
        url, headers = world.url(path), {**JSON, **world.headers(operation)}
        response = games.request(method, url, content=DEEP["objects-10000"], headers=headers)
        if response.status_code >= 500:
            wrong.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
        elif response.status_code >= 400 and response.headers["content-type"] != PROBLEM:
            wrong.append(f"{method} {path}: {response.status_code} is no problem")
    assert not wrong, "\n".join(wrong)


def _nest(depth: int) -> bytes:
    """`{"cards":3,"players":[{"bid":1,"tricks":1}],"zz": …}` with `zz` nesting `depth` levels
    in all (the top object counts)."""
    inner = depth - 1
    return b'{"cards":3,"players":[{"bid":1,"tricks":1}],"zz":' + b"[" * inner + b"]" * inner + b"}"


def test_the_depth_limit_is_exact(client: TestClient[Any]) -> None:
    """At MAX_DEPTH levels the body is decoded (here: its unknown field named); one more is
    refused on field `body` before decoding."""
    score = "/v1/rulesets/numking/score-round"
    at = client.post(score, content=_nest(MAX_DEPTH), headers=JSON).json()
    assert at["code"] == "unknown-field" and at["errors"][0]["field"] == "zz", at
    over = client.post(score, content=_nest(MAX_DEPTH + 1), headers=JSON)
    assert over.status_code == 422 and over.headers["content-type"] == PROBLEM
    assert over.json()["code"] == "validation-error"
    assert over.json()["errors"] == [{"field": "body", "message": TOO_DEEP, "code": "too-deep"}]


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        (b'{"a":"' + b"[" * 100 + b'"}', False),  # brackets in a string are text
        (b'{"a":"\\"' + b"[" * 100 + b'"}', False),  # after an escaped quote, still text
        (b'{"a":"\\\\","b":' + b"[" * 40 + b"]" * 40 + b"}", True),  # an escaped backslash
        (b"[" * 40, True),  # never closed: as deep as it opens
        (b"[]" * 5000, False),  # wide, not deep
        (b"{" * 33 + b"}" * 33, True),
        (b"[" * 32 + b"]" * 32, False),
        (b'{"a":"\\u005b' + b"[" * 40 + b'"}', False),
    ],
)
def test_too_deep_counts_the_brackets_outside_strings(text: bytes, deep: bool) -> None:
    assert too_deep(text) is deep


@pytest.mark.parametrize(
    ("content", "status", "code"),
    [
        (b"[" * 40, 422, "validation-error"),
        (b'{"cards":3,' + b"[" * 5, 400, "malformed-json"),
        (b"   ", 400, "malformed-json"),
    ],
)
def test_deep_unclosed_and_empty_bodies(
    client: TestClient[Any], content: bytes, status: int, code: str
) -> None:
    r = client.post("/v1/rulesets/numking/score-round", content=content, headers=JSON)
    assert r.status_code == status and r.json()["code"] == code, r.text


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def _examples(node: Any) -> Iterator[Any]:
    """Every example of a request body's spec: `example`, `examples` (a list, or a map of
    Example objects), at any level (media types, schemas)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "example":
                yield value
            elif key == "examples" and isinstance(value, list):
                yield from value
            elif key == "examples" and isinstance(value, dict):
                yield from (e["value"] for e in value.values() if "value" in e)
            else:
                yield from _examples(value)
    elif isinstance(node, list):
        for value in node:
            yield from _examples(value)


def test_every_request_example_is_well_within_the_limit(client: TestClient[Any]) -> None:
    spec = client.get("/openapi.json").json()
    examples = [
        example
        for item in spec["paths"].values()
        for operation in item.values()
        for example in _examples(operation.get("requestBody", {}))
    ]
    assert len(examples) >= 20
    deepest = max(map(_depth, examples))
    assert deepest <= MAX_DEPTH // 4, deepest
    assert not any(too_deep(json.dumps(e).encode()) for e in examples)
