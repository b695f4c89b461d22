"""Idempotent creation of stored games (api-contract.md, "Edge cases settled", "Idempotent
creation"), against `numrules serve` on PostgreSQL with real concurrent HTTP requests: a
`POST /v1/games` retried with its `Idempotency-Key` answers the first game and its seat tokens
again (`Idempotent-Replayed: true`), another body with the key is 422, a key belongs to its
account or to anonymous creations, and the stored row holds no usable token.

Found by an attacker: two `POST /v1/games` with one key made two different games (the header
was ignored)."""

from __future__ import annotations

import asyncio
import json
import secrets
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import pytest

from api.games.creation import PURPOSE, SEAL_PURPOSE
from api.http.idempotency import ANONYMOUS, derive, unseal
from api.http.problems import TITLES
from tests.api.process import ServeProcess
from tests.languages import EN, FR

WARS = {"ruleset": "numwars", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}
BOTS = {
    "ruleset": "numwars",
    "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Bot", "bot": "random"}],
}


@pytest.fixture(scope="module")
def server(pg_head: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    served = ServeProcess(
        pg_head,
        tmp_path_factory.mktemp("creation") / "serve.log",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="0",
    ).start()
    try:
        yield served
    finally:
        assert served.terminate() == 0


@pytest.fixture
async def http(server: ServeProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
        yield client


@pytest.fixture
async def db(pg_head: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await asyncpg.connect(pg_head.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        yield conn
    finally:
        await conn.close()


def key() -> str:
    return str(uuid.uuid4())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def sign_up(http: httpx.AsyncClient) -> dict[str, str]:
    """A new account's session header."""
    body = {
        "pseudo": "k_" + secrets.token_hex(5),
        "password": "a long enough password",
        "age_range": "25-34",
        "accept_terms": True,
    }
    created = await http.post("/v1/accounts", json=body)
    assert created.status_code == 201, created.text
    return bearer(created.json()["token"])


async def create(
    http: httpx.AsyncClient, idem: str | None, body: dict[str, Any] = WARS, **headers: str
) -> httpx.Response:
    sent = dict(headers)
    if idem is not None:
        sent["Idempotency-Key"] = idem
    return await http.post("/v1/games", json=body, headers=sent)


async def games_count(db: asyncpg.Connection) -> int:
    count: int = await db.fetchval("SELECT count(*) FROM games")
    return count


def tokens(answer: httpx.Response) -> list[str | None]:
    return [seat.get("token") for seat in answer.json()["seats"]]


async def test_a_retry_answers_the_first_game_and_its_tokens_which_work(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    before = await games_count(db)
    idem = key()
    first = await create(http, idem)
    again = await create(http, idem)
    assert first.status_code == again.status_code == 201, (first.text, again.text)
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    assert again.headers["etag"] == first.headers["etag"] == '"0"'
    assert await games_count(db) == before + 1
    game = first.json()["id"]
    for seat, token in enumerate(tokens(again)):
        assert token is not None
        seen = await http.get(f"/v1/games/{game}", headers=bearer(token))
        assert seen.status_code == 200, seen.text
        assert seen.json()["seat"] == seat
    # without the key, the same body is another game
    other = await create(http, None)
    assert other.status_code == 201 and other.json()["id"] != game


async def test_a_game_with_a_bot_replays_its_seats_as_they_were(http: httpx.AsyncClient) -> None:
    idem = key()
    first = await create(http, idem, BOTS)
    again = await create(http, idem, BOTS)
    assert first.status_code == again.status_code == 201, (first.text, again.text)
    assert again.json() == first.json()
    assert tokens(again)[0] is not None and tokens(again)[2] is None


async def test_the_same_key_with_another_body_is_422_in_both_languages(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    idem = key()
    first = await create(http, idem)
    assert first.status_code == 201, first.text
    before = await games_count(db)
    other = {**WARS, "players": [{"name": "Eve"}, {"name": "Bo"}, {"name": "Cy"}]}
    english = await create(http, idem, other, **EN)
    french = await create(http, idem, other, **FR)
    for refused in (english, french):
        assert refused.status_code == 422, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["code"] == "idempotency-key-reused"
        assert "token" not in refused.text and first.json()["id"] not in refused.text
    assert english.headers["content-language"] == "en"
    assert french.headers["content-language"] == "fr"
    en, fr = english.json(), french.json()
    assert en["title"] == TITLES[422].en and fr["title"] == TITLES[422].fr
    assert "another game" in en["detail"] and "autre partie" in fr["detail"]
    assert await games_count(db) == before
    # the first body still replays
    again = await create(http, idem)
    assert again.status_code == 201 and again.json() == first.json()


@pytest.mark.parametrize(
    "bad", [b"with space", b"x" * 256, "caf\u00e9-5f0c3a4e-8d1b-4c57".encode()], ids=repr
)
async def test_a_malformed_key_is_refused_as_on_actions(
    http: httpx.AsyncClient, db: asyncpg.Connection, bad: bytes
) -> None:
    before = await games_count(db)
    refused = await http.post("/v1/games", json=WARS, headers={"Idempotency-Key": bad})
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["code"] == "validation-error"
    assert [e["field"] for e in problem["errors"]] == ["Idempotency-Key"]
    assert await games_count(db) == before


async def test_an_anonymous_key_is_no_shorter_than_16_a_session_key_may_be(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    before = await games_count(db)
    english = await create(http, "short-key", **EN)
    french = await create(http, "short-key", **FR)
    for refused in (english, french):
        assert refused.status_code == 422, refused.text
        assert refused.json()["code"] == "validation-error"
        assert [e["field"] for e in refused.json()["errors"]] == ["Idempotency-Key"]
    assert english.json()["errors"][0]["message"] != french.json()["errors"][0]["message"]
    assert "16" in english.json()["errors"][0]["message"]
    assert await games_count(db) == before
    session = await sign_up(http)
    short = "k-" + secrets.token_hex(3)
    made = await create(http, short, **session)
    again = await create(http, short, **session)
    assert made.status_code == again.status_code == 201, made.text
    assert again.json()["id"] == made.json()["id"]


async def test_anonymous_and_session_keys_never_cross(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    idem = key()
    anonymous = await create(http, idem)
    ada = await sign_up(http)
    bo = await sign_up(http)
    by_ada = await create(http, idem, **ada)
    by_bo = await create(http, idem, **bo)
    made = [anonymous, by_ada, by_bo]
    assert all(m.status_code == 201 for m in made), [m.text for m in made]
    assert all("idempotent-replayed" not in m.headers for m in made)
    assert len({m.json()["id"] for m in made}) == 3
    seat_tokens = [t for m in made for t in tokens(m)]
    assert len(set(seat_tokens)) == len(seat_tokens)
    # each sender's retry answers its own game
    for answer, headers in ((anonymous, {}), (by_ada, ada), (by_bo, bo)):
        again = await create(http, idem, **headers)
        assert again.headers.get("idempotent-replayed") == "true"
        assert again.json() == answer.json()
    # another body under Ada's key is Ada's reuse, not the anonymous one's
    other = {**WARS, "players": [{"name": "Eve"}, {"name": "Bo"}, {"name": "Cy"}]}
    assert (await create(http, idem, other, **ada)).status_code == 422
    rows = await db.fetchval(
        "SELECT count(*) FROM game_creation_keys WHERE game_id = ANY($1::text[])",
        [m.json()["id"] for m in made],
    )
    assert rows == 3


@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymous", "session"])
async def test_concurrent_retries_make_one_game(
    http: httpx.AsyncClient, db: asyncpg.Connection, signed_in: bool
) -> None:
    headers = await sign_up(http) if signed_in else {}
    before = await games_count(db)
    idem = key()
    answers = await asyncio.gather(*(create(http, idem, **headers) for _ in range(10)))
    assert [a.status_code for a in answers] == [201] * 10, [a.text for a in answers]
    assert len({a.text for a in answers}) == 1
    assert sum("idempotent-replayed" not in a.headers for a in answers) == 1
    assert await games_count(db) == before + 1
    game = answers[0].json()["id"]
    assert await db.fetchval("SELECT count(*) FROM game_seats WHERE game_id = $1", game) == 3
    assert (
        await db.fetchval("SELECT count(*) FROM game_creation_keys WHERE game_id = $1", game) == 1
    )


async def test_the_stored_row_holds_no_usable_token(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    idem = key()
    first = await create(http, idem)
    assert first.status_code == 201, first.text
    game = first.json()["id"]
    seat_tokens = [t for t in tokens(first) if t is not None]
    assert len(seat_tokens) == 3
    row = await db.fetchrow("SELECT * FROM game_creation_keys WHERE game_id = $1", game)
    assert row is not None
    stored = " ".join(str(value) for value in row.values())
    for secret in (*seat_tokens, idem):
        assert secret not in stored
    assert row["digest"] == derive(PURPOSE, ANONYMOUS, idem).hex()
    assert all("token" not in seat for seat in json.loads(row["response"])["seats"])
    # the seal opens with the key only: another key gives no token
    opened = unseal(row["sealed_tokens"], SEAL_PURPOSE, ANONYMOUS, idem)
    assert json.loads(opened) == tokens(first)
    try:
        wrong = unseal(row["sealed_tokens"], SEAL_PURPOSE, ANONYMOUS, key())
    except UnicodeDecodeError:
        wrong = ""
    assert not any(t in wrong for t in seat_tokens)
    # nor does a seat accept anything the row holds as its token
    for candidate in (row["digest"], row["sealed_tokens"], *row["sealed_tokens"].split(".")):
        seen = await http.get(f"/v1/games/{game}", headers=bearer(candidate))
        assert seen.status_code == 401, seen.text


async def test_a_key_past_its_24_hours_is_a_new_key(
    http: httpx.AsyncClient, db: asyncpg.Connection
) -> None:
    idem = key()
    first = await create(http, idem)
    aged = await db.execute(
        "UPDATE game_creation_keys SET created_at = now() - interval '25 hours' WHERE game_id = $1",
        first.json()["id"],
    )
    assert aged == "UPDATE 1"
    later = await create(http, idem)
    assert later.status_code == 201, later.text
    assert "idempotent-replayed" not in later.headers
    assert later.json()["id"] != first.json()["id"]
    again = await create(http, idem)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == later.json()


def test_sqlite_replays_a_keyed_creation_too(sqlite_url: str) -> None:
    """The service's other store (BEGIN IMMEDIATE transactions) keeps and replays the keys."""
    from litestar.testing import TestClient

    from api.app import create_app
    from api.db import migrations
    from api.ops.settings import Settings

    migrations.upgrade(sqlite_url)
    app = create_app(Settings(database_url=sqlite_url, rate_limit_per_minute=0))
    with TestClient(app) as client:
        idem = key()
        first = client.post("/v1/games", json=WARS, headers={"Idempotency-Key": idem})
        again = client.post("/v1/games", json=WARS, headers={"Idempotency-Key": idem})
        other = {**WARS, "players": [{"name": "Eve"}, {"name": "Bo"}, {"name": "Cy"}]}
        reused = client.post("/v1/games", json=other, headers={"Idempotency-Key": idem})
    assert first.status_code == again.status_code == 201, (first.text, again.text)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json() and all(tokens(again))
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency-key-reused"
