"""API keys (issue 21, item 5; contract "API keys (integrators)"): `POST|GET /v1/me/api-keys`,
`DELETE /v1/me/api-keys/{id}` on PostgreSQL; each key counted against its own quota by a
served process; the key shown once, stored hashed, never in another answer or a log line,
and never acting as a session."""

from __future__ import annotations

import asyncio
import hashlib
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from litestar.testing import TestClient

from api.accounts.service import MAX_KEYS
from tests.accounts.conftest import auth, sign_up
from tests.api.process import ServeProcess
from tests.api.test_rate_limit import fresh_window
from tests.api.test_rate_limit_buckets import client_from, served


def _fetch(pg_url: str, sql: str, *args: Any) -> list[Any]:
    async def fetch() -> list[Any]:
        conn = await asyncpg.connect(pg_url.replace("+asyncpg", ""))
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    return asyncio.run(fetch())


def _problem(answer: Any, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = answer.json()
    assert problem["code"] == code and problem["status"] == status
    return problem


def test_create_list_revoke(games: TestClient[Any], pg_head: str) -> None:
    account = sign_up(games)
    session = auth(account["token"])
    created = games.post("/v1/me/api-keys", json={"name": "legality checker"}, headers=session)
    assert created.status_code == 201, created.text
    body = created.json()
    key = body["key"]
    assert set(body) >= {"id", "name", "key"} and body["name"] == "legality checker"
    assert key.startswith("nrk_") and len(key) >= 4 + 43  # 256 random bits, URL-safe
    assert created.headers["location"] == f"/v1/me/api-keys/{body['id']}"
    assert created.headers["cache-control"] == "no-store"
    # stored as its sha256, never as itself
    rows = _fetch(pg_head, "SELECT * FROM api_keys WHERE account_id = $1", account["id"])
    assert len(rows) == 1 and rows[0]["key_hash"] == hashlib.sha256(key.encode()).hexdigest()
    assert key not in repr(dict(rows[0]))

    second = games.post("/v1/me/api-keys", json={"name": "app back end"}, headers=session).json()
    assert second["key"] != key
    listed = games.get("/v1/me/api-keys", headers=session)
    assert listed.status_code == 200
    items = listed.json()["items"]
    assert [(i["id"], i["name"]) for i in items] == [
        (body["id"], "legality checker"),
        (second["id"], "app back end"),
    ]
    assert all(i["last_used_at"] is None and i["created_at"] for i in items)
    assert "key" not in items[0] and key not in listed.text and "nrk_" not in listed.text

    assert games.delete(f"/v1/me/api-keys/{body['id']}", headers=session).status_code == 204
    listed = games.get("/v1/me/api-keys", headers=session).json()["items"]
    assert [i["id"] for i in listed] == [second["id"]]
    _problem(games.delete(f"/v1/me/api-keys/{body['id']}", headers=session), 404, "not-found")


def test_another_accounts_key_or_an_unknown_id_is_404(games: TestClient[Any]) -> None:
    owner, other = sign_up(games), sign_up(games)
    key = games.post("/v1/me/api-keys", json={"name": "mine"}, headers=auth(owner["token"])).json()
    # an attacker found that an id holding a NUL (`%00`) was a 500: PostgreSQL refuses it as
    # text; an id that is not 32 hex digits names no key and never reaches the database
    for key_id in (key["id"], "0" * 32, "not-an-id", "a%00b", "%00", key["id"] + "%00", "x" * 5000):
        answer = games.delete(f"/v1/me/api-keys/{key_id}", headers=auth(other["token"]))
        _problem(answer, 404, "not-found")
    assert games.get("/v1/me/api-keys", headers=auth(other["token"])).json() == {"items": []}
    mine = games.get("/v1/me/api-keys", headers=auth(owner["token"])).json()["items"]
    assert [i["id"] for i in mine] == [key["id"]], "still there"


def test_every_operation_needs_a_session_and_a_key_is_none(games: TestClient[Any]) -> None:
    account = sign_up(games)
    key = games.post("/v1/me/api-keys", json={"name": "k"}, headers=auth(account["token"])).json()[
        "key"
    ]
    for headers in ({}, auth(key), auth("nrs_" + "x" * 43), {"X-API-Key": key}):
        for answer in (
            games.post("/v1/me/api-keys", json={"name": "k"}, headers=headers),
            games.get("/v1/me/api-keys", headers=headers),
            games.delete(f"/v1/me/api-keys/{'0' * 32}", headers=headers),
            games.get("/v1/me", headers=headers),
            games.post(
                "/v1/scoresheets",
                json={"ruleset": "numking", "players": [{"name": n} for n in "abc"]},
                headers=headers,
            ),
        ):
            assert answer.status_code == 401, (headers, answer.text)
            assert key not in answer.text
    # the session is checked before the body is read (contract: authentication first)
    _problem(games.post("/v1/me/api-keys", json={"nom": 1}), 401, "unauthorized")
    # a key sent as a seat's token acts for no seat
    game = games.post(
        "/v1/games", json={"ruleset": "numwars", "players": [{"name": n} for n in "abc"]}
    ).json()
    view = games.get(f"/v1/games/{game['id']}", headers=auth(key))
    _problem(view, 401, "unauthorized")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "missing-field"),
        ({"name": ""}, "validation-error"),
        ({"name": "x" * 101}, "validation-error"),
        ({"name": 7}, "validation-error"),
        ({"name": "k", "scope": "all"}, "unknown-field"),
        ({"name": "   "}, "bad-name"),
        ({"name": "a\u202eb"}, "bad-name"),
    ],
)
def test_a_bad_name_is_422(games: TestClient[Any], body: dict[str, Any], code: str) -> None:
    account = sign_up(games)
    answer = games.post("/v1/me/api-keys", json=body, headers=auth(account["token"]))
    problem = _problem(answer, 422, code)
    assert problem["errors"], problem
    if code != "unknown-field":
        assert problem["errors"][0]["field"] == "name", problem
    assert games.get("/v1/me/api-keys", headers=auth(account["token"])).json() == {"items": []}


def test_an_account_holds_a_bounded_number_of_keys(games: TestClient[Any]) -> None:
    account = sign_up(games)
    session = auth(account["token"])
    for i in range(MAX_KEYS):
        assert (
            games.post("/v1/me/api-keys", json={"name": f"k{i}"}, headers=session).status_code
            == 201
        )
    _problem(
        games.post("/v1/me/api-keys", json={"name": "one more"}, headers=session),
        409,
        "too-many-api-keys",
    )
    assert len(games.get("/v1/me/api-keys", headers=session).json()["items"]) == MAX_KEYS


def test_deleting_the_account_deletes_its_keys(games: TestClient[Any], pg_head: str) -> None:
    account = sign_up(games)
    session = auth(account["token"])
    games.post("/v1/me/api-keys", json={"name": "k"}, headers=session)
    assert len(_fetch(pg_head, "SELECT id FROM api_keys WHERE account_id = $1", account["id"])) == 1
    assert games.delete("/v1/me", headers=session).status_code == 204
    assert _fetch(pg_head, "SELECT id FROM api_keys WHERE account_id = $1", account["id"]) == []


# -- metering (a served process) ---------------------------------------------------------------

NETWORK, KEY = 3, 5


@pytest.mark.parametrize("store", ["memory", "database"])
def test_each_key_has_its_own_quota_apart_from_its_network(pg_head: str, store: str) -> None:
    """Two keys from one address: each gets its own 5 a minute, the address its own 3; `X-API-Key`
    and `Authorization: Bearer` count on the same key; a wrong key is charged to the network; a
    revoked key counts on its network again once the lookup cache (0.5 s here) expires."""
    fresh_window(15)

    async def run(url: str) -> None:
        async with client_from(url, "127.0.0.70") as setup, client_from(url, "127.0.0.71") as app:
            account = (
                await setup.post(
                    "/v1/accounts",
                    json={
                        "pseudo": f"quota_{store}_{url.rsplit(':', 1)[1]}",
                        "password": "a long enough password",
                        "age_range": "25-34",
                        "accept_terms": True,
                    },
                )
            ).json()
            session = auth(account["token"])
            one = (await setup.post("/v1/me/api-keys", json={"name": "1"}, headers=session)).json()
            two = (await setup.post("/v1/me/api-keys", json={"name": "2"}, headers=session)).json()
            path = "/v1/rulesets/numwars"

            async def get(**headers: str) -> httpx.Response:
                return await app.get(path, headers=headers)

            first = [await get(**{"X-API-Key": one["key"]}) for _ in range(3)]
            first += [await get(Authorization=f"Bearer {one['key']}") for _ in range(2)]
            assert [a.status_code for a in first] == [200] * 5
            assert [a.headers["ratelimit-limit"] for a in first] == [str(KEY)] * 5
            assert [a.headers["ratelimit-remaining"] for a in first] == ["4", "3", "2", "1", "0"]
            refused = await get(**{"X-API-Key": one["key"]})
            problem = refused.json()
            assert refused.status_code == 429 and problem["code"] == "rate-limited"
            assert "API key" in problem["detail"] and one["key"] not in refused.text
            assert refused.headers["retry-after"] and refused.headers["ratelimit-remaining"] == "0"
            # the second key and the address itself are untouched
            assert [(await get(**{"X-API-Key": two["key"]})).status_code for _ in range(5)] == [
                200
            ] * 5
            anonymous = await get()
            assert anonymous.status_code == 200 and anonymous.headers["ratelimit-limit"] == str(
                NETWORK
            )
            assert anonymous.headers["ratelimit-remaining"] == str(NETWORK - 1)
            # a wrong key is the network's: its two requests left, then 429
            wrong = [await get(**{"X-API-Key": "nrk_" + "w" * 43}) for _ in range(3)]
            assert [w.status_code for w in wrong] == [200, 200, 429]
            assert wrong[0].headers["ratelimit-limit"] == str(NETWORK)
            assert "network" in wrong[2].json()["detail"]
            # revoked: counted on the (exhausted) network once the cache has expired
            revoked = await setup.delete(f"/v1/me/api-keys/{two['id']}", headers=session)
            assert revoked.status_code == 204
            await asyncio.sleep(0.6)
            after = await get(**{"X-API-Key": two["key"]})
            assert after.status_code == 429 and after.headers["ratelimit-limit"] == str(NETWORK)
            # the key that is left was used: its owner sees when
            listed = (await setup.get("/v1/me/api-keys", headers=session)).json()["items"]
            assert [i["id"] for i in listed] == [one["id"]] and listed[0]["last_used_at"]

    overrides = {
        "rate_limit_per_minute": NETWORK,
        "api_key_rate_limit_per_minute": KEY,
        "rate_limit_credential_per_minute": 1000,
        "rate_limit_credential_cache_seconds": 0.5,
        "rate_limit_store": store,
    }
    with served(pg_head, **overrides) as url:
        asyncio.run(run(url))


def test_the_key_is_in_no_answer_but_the_201_and_in_no_log_line(
    pg_head: str, tmp_path: Path
) -> None:
    """A served process at DEBUG: the key is shown once, then never again, in any answer (the
    list, problems about it, the 429 of its quota) or any log line."""
    server = ServeProcess(
        pg_head,
        tmp_path / "serve.log",
        NUMRULES_LOG_LEVEL="DEBUG",
        NUMRULES_PASSWORD_HASH_TIME_COST="1",
        NUMRULES_PASSWORD_HASH_MEMORY_KIB="8192",
        NUMRULES_RATE_LIMIT_PER_MINUTE="100",
        NUMRULES_API_KEY_RATE_LIMIT_PER_MINUTE="3",
    ).start()
    texts: list[str] = []
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            account = client.post(
                "/v1/accounts",
                json={
                    "pseudo": f"logs_{int(time.time() * 1000) % 10**9}",
                    "password": "a long enough password",
                    "age_range": "25-34",
                    "accept_terms": True,
                },
            ).json()
            session = auth(account["token"])
            created = client.post("/v1/me/api-keys", json={"name": "k"}, headers=session)
            key = created.json()["key"]
            assert key in created.text
            answers = [
                client.get("/v1/me/api-keys", headers=session),
                client.get("/v1/me", headers=auth(key)),
                client.get("/v1/me/api-keys", headers=auth(key)),
                client.get("/v1/me/api-keys", headers={"X-API-Key": key}),
                *[client.get("/v1/rulesets", headers={"X-API-Key": key}) for _ in range(4)],
                client.post(
                    "/v1/rulesets/numking/deal", json={"x": key}, headers={"X-API-Key": key}
                ),
            ]
            assert answers[-2].status_code == 429
            texts = [a.text + repr(dict(a.headers)) for a in answers]
            client.delete(f"/v1/me/api-keys/{created.json()['id']}", headers=session)
    finally:
        assert server.terminate() == 0
    for text in texts:
        assert key not in text
    log = server.output()
    assert "/v1/me/api-keys" in log  # the access lines are there
    assert key not in log and key[4:] not in log and key[4:24] not in log


def test_another_kind_of_token_sent_as_a_session_is_told_what_it_is(
    games: TestClient[Any],
) -> None:
    """A seat's, a sheet's or a creator's token where a session belongs is named for what it
    is (as an API key is), in the caller's language; an unknown session token is still
    "unknown, expired or ended"."""
    game = games.post(
        "/v1/games", json={"ruleset": "numwars", "players": [{"name": n} for n in "abc"]}
    ).json()
    seat = game["seats"][0]["token"]
    sheet = games.post(
        "/v1/scoresheets", json={"ruleset": "numwars", "players": [{"name": n} for n in "abc"]}
    ).json()["token"]
    kinds = {seat: ("seat token", "jeton de place"), sheet: ("sheet token", "jeton de feuille")}
    kinds["nrh_" + "x" * 43] = ("creator token", "jeton de créateur")
    for token, (english, french) in kinds.items():
        said = _problem(games.get("/v1/me", headers=auth(token)), 401, "unauthorized")
        assert said["detail"].startswith(f"a {english} is not a session token"), said
        assert token not in str(said)
        worded = games.get("/v1/me", headers={**auth(token), "Accept-Language": "fr"})
        said = _problem(worded, 401, "unauthorized")
        assert said["detail"].startswith(f"un {french} n’est pas un jeton de session"), said
    unknown = _problem(games.get("/v1/me", headers=auth("nrs_" + "x" * 43)), 401, "unauthorized")
    assert "unknown, expired or ended" in unknown["detail"]


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/v1/me", "GET, HEAD, PATCH, DELETE, OPTIONS"),
        ("/v1/me/api-keys", "GET, HEAD, POST, OPTIONS"),
        (f"/v1/me/api-keys/{'0' * 32}", "DELETE, OPTIONS"),
    ],
)
def test_a_plain_options_needs_no_session_and_names_the_methods(
    games: TestClient[Any], path: str, allow: str
) -> None:
    """As every other resource's OPTIONS (was 401 here, 204 on /v1/me/history): the methods,
    nothing of an account; the methods themselves still need the session."""
    answer = games.options(path)
    assert answer.status_code == 204, answer.text
    assert answer.headers["allow"] == allow
    _problem(games.get("/v1/me"), 401, "unauthorized")
