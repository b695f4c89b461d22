"""Rate limits per bucket (issue 21, item 5; contract "Edge cases settled": Rate limits): a
request counts against one bucket, its API key, its account's sessions, its seat or sheet
token, else its network (IPv6 by /64, IPv4 by a configurable prefix). Served for real:
uvicorn on 127.0.0.1 and clients bound to other loopback addresses, on PostgreSQL.

The limits are set apart (network 30, credential 40, key 50) so that an answer's
`RateLimit-Limit` says which bucket paid for it."""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from sqlalchemy import event

from api.app import create_app
from api.http.credentials import MISS_WINDOW_SECONDS
from api.ops.settings import Settings
from tests.api.serving import serve
from tests.api.test_rate_limit import fresh_window
from tests.pg import FAST_HASHES

NETWORK, CREDENTIAL, KEY = 30, 40, 50


def settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url,
        "check_db_on_start": False,
        "rate_limit_per_minute": NETWORK,
        "rate_limit_credential_per_minute": CREDENTIAL,
        "api_key_rate_limit_per_minute": KEY,
        **FAST_HASHES,
        **overrides,
    }
    return Settings(**values)


@contextmanager
def served(database_url: str, **overrides: Any) -> Iterator[str]:
    with serve(create_app(settings(database_url, **overrides))) as (host, port):
        yield f"http://{host}:{port}"


#: One TLS context for every client (each new one costs about 40 ms of CPU; none is used).
TLS = ssl.create_default_context()


def client_from(base_url: str, address: str) -> httpx.AsyncClient:
    """An HTTP client whose connections leave from `address` (any of 127.0.0.0/8)."""
    transport = httpx.AsyncHTTPTransport(local_address=address, verify=TLS)
    return httpx.AsyncClient(transport=transport, base_url=base_url, timeout=30)


async def one_each(base_url: str, addresses: list[str], **headers: str) -> list[httpx.Response]:
    answers = []
    for address in addresses:
        async with client_from(base_url, address) as client:
            answers.append(await client.get("/v1/rulesets", headers=headers))
    return answers


LOOPBACKS = [f"127.0.0.{n}" for n in range(10, 50)]


@pytest.mark.parametrize("store", ["memory", "database"])
@pytest.mark.parametrize(("prefix", "passed"), [(24, NETWORK), (32, len(LOOPBACKS))])
def test_forty_addresses_count_as_their_networks(
    pg_head: str, store: str, prefix: int, passed: int
) -> None:
    """40 requests from 40 loopback addresses: one /24 network is throttled as one client
    (an attacker found that 40 addresses passed a limit of 30); per address, 40 clients."""
    with served(pg_head, rate_limit_ipv4_prefix=prefix, rate_limit_store=store) as url:
        fresh_window(10)  # once served: a start-up can take seconds on a loaded machine
        answers = asyncio.run(one_each(url, LOOPBACKS))
    statuses = [a.status_code for a in answers]
    assert statuses == [200] * passed + [429] * (len(LOOPBACKS) - passed)
    first = answers[0].headers
    assert first["ratelimit-limit"] == str(NETWORK)
    if prefix == 24:
        assert first["ratelimit-remaining"] == str(NETWORK - 1)
        assert answers[NETWORK - 1].headers["ratelimit-remaining"] == "0"
        refused = answers[-1]
        assert refused.json()["code"] == "rate-limited"
        assert "network" in refused.json()["detail"]
        assert refused.headers["ratelimit-remaining"] == "0"
        assert refused.headers["retry-after"] == refused.headers["ratelimit-reset"]
        assert 1 <= int(refused.headers["ratelimit-reset"]) <= 60
    else:
        assert {a.headers["ratelimit-remaining"] for a in answers} == {str(NETWORK - 1)}


def test_ipv6_clients_of_one_slash_64_are_one_network(pg_head: str) -> None:
    """Behind a trusted proxy, 40 IPv6 addresses of one /64 are one client; 40 addresses in
    40 different /64 networks are 40 clients."""
    one_host = [f"2001:db8:0:7::{n:x}" for n in range(1, 41)]
    many = [f"2001:db8:0:{n:x}::1" for n in range(100, 140)]

    async def run(url: str) -> tuple[list[int], list[int]]:
        async with client_from(url, "127.0.0.1") as proxy:
            same = [
                (await proxy.get("/v1/rulesets", headers={"X-Forwarded-For": a})).status_code
                for a in one_host
            ]
            apart = [
                (await proxy.get("/v1/rulesets", headers={"X-Forwarded-For": a})).status_code
                for a in many
            ]
        return same, apart

    with served(pg_head, trusted_proxies=["127.0.0.1"]) as url:
        fresh_window(10)
        same, apart = asyncio.run(run(url))
    assert same == [200] * NETWORK + [429] * (40 - NETWORK)
    assert apart == [200] * 40


def test_a_host_driving_a_match_with_seat_tokens_is_not_throttled_as_one_client(
    pg_head: str,
) -> None:
    """A game host's back end drives 400 actions of a 5-seat match from one address with the
    seat tokens, at the anonymous default of 600 a minute (which stopped a host after 199
    actions): never throttled, each seat its own bucket. An anonymous client on the same
    address is throttled at 600, and the host still acts while its network is throttled."""
    overrides = {"rate_limit_per_minute": 600, "rate_limit_credential_per_minute": 3000}

    async def run(url: str) -> tuple[list[httpx.Response], list[int], httpx.Response]:
        async with client_from(url, "127.0.0.1") as host:
            created = await host.post(
                "/v1/games",
                json={"ruleset": "numwars", "players": [{"name": f"p{i}"} for i in range(5)]},
            )
            assert created.status_code == 201, created.text
            game = created.json()["id"]
            tokens = [s["token"] for s in created.json()["seats"]]
            seen: list[httpx.Response] = []

            async def act(seat: int) -> list[int]:
                auth = {"Authorization": f"Bearer {tokens[seat]}"}
                view = await host.get(f"/v1/games/{game}", headers=auth)
                legal = view.json()["view"]["legal_actions"]
                answer = await host.post(f"/v1/games/{game}/actions", json=legal[0], headers=auth)
                seen.extend((view, answer))
                assert answer.status_code == 200, answer.text
                actors: list[int] = answer.json()["view"]["actors"]
                return actors

            first = await host.get(
                f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens[0]}"}
            )
            actors: list[int] = first.json()["view"]["actors"]
            for _ in range(399):
                actors = await act(actors[0])
            await asyncio.to_thread(fresh_window, 8)  # the 601 reads within one window
            anonymous = [(await host.get(f"/v1/games/{game}")).status_code for _ in range(601)]
            seat = actors[0]
            await act(seat)
            return seen, anonymous, seen[-1]

    with served(pg_head, **overrides) as url:
        seen, anonymous, last = asyncio.run(run(url))
    assert len(seen) == 800 and {a.status_code for a in seen} == {200}
    assert {a.headers["ratelimit-limit"] for a in seen} == {"3000"}
    assert min(int(a.headers["ratelimit-remaining"]) for a in seen) >= 3000 - 2 * 400
    # the network (the game's creation plus the spectator's reads) stops at 600
    assert 429 in anonymous and anonymous.index(429) <= 600
    assert anonymous[0] == 200
    assert last.status_code == 200, "the host acts on while its network is throttled"


# -- the order of the buckets and the cost per request ----------------------------------------


def test_no_credential_touches_no_database_and_lookups_are_cached(pg_head: str) -> None:
    """The stateless endpoints' hot path: with the memory store, a request without a
    credential runs no statement; a request with a bearer token runs one lookup, cached for
    the next ones (an unknown token too)."""
    app = create_app(settings(pg_head, rate_limit_per_minute=1000))
    statements: list[str] = []
    with TestClient(app) as client:
        event.listen(
            app.state.db.sync_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        for _ in range(20):
            answer = client.get("/v1/rulesets")
            assert answer.status_code == 200 and "ratelimit-limit" in answer.headers
        assert statements == []
        for _ in range(5):
            client.get("/v1/rulesets", headers={"Authorization": "Bearer nrs_not-a-session"})
            client.get("/v1/rulesets", headers={"X-API-Key": "nrk_not-a-key"})
        assert len(statements) == 2, statements
        # not shaped as a token, or a key where it cannot be one: no lookup either
        client.get("/v1/rulesets", headers={"Authorization": "Bearer a b"})
        client.get("/v1/rulesets", headers={"X-API-Key": "nrs_a-session-is-no-key"})
        client.get("/v1/rulesets", headers={"Authorization": "Basic dXNlcjpwYXNz"})
        assert len(statements) == 2, statements


def test_a_burst_of_one_new_token_makes_one_lookup(pg_head: str) -> None:
    """40 concurrent requests carrying one token the process has not seen: one lookup."""
    app = create_app(settings(pg_head, rate_limit_per_minute=1000))
    statements: list[str] = []

    async def burst(url: str) -> list[int]:
        event.listen(
            app.state.db.sync_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        headers = {"X-API-Key": "nrk_" + "b" * 43}
        async with client_from(url, "127.0.0.80") as client:
            answers = await asyncio.gather(
                *[client.get("/v1/rulesets", headers=headers) for _ in range(40)]
            )
        return [a.status_code for a in answers]

    with serve(app) as (host, port):
        fresh_window(10)  # once served: a start-up can take seconds on a loaded machine
        left = MISS_WINDOW_SECONDS - time.monotonic() % MISS_WINDOW_SECONDS
        if left < 10:
            time.sleep(left + 0.1)
            fresh_window(10)
        statuses = asyncio.run(burst(f"http://{host}:{port}"))
    assert statuses == [200] * 40
    assert len(statements) == 1, statements


def test_made_up_tokens_cost_a_network_at_most_its_limit_in_lookups(pg_head: str) -> None:
    """An attacker found that each request carrying made-up tokens (a fresh `nrk_` key and a
    fresh bearer without a prefix) ran its lookups, a write transaction and three selects,
    also once its network was refused with 429: 200 requests from one network with a limit
    of 30 ran 800 statements, the rate limit shielded nothing from the database. A lookup
    that finds nothing is charged to the network: past the network's limit of them in the
    window, a token the process has not cached is not looked up (the request pays as its
    network), while a key that checked out still counts as itself."""
    app = create_app(settings(pg_head))
    statements: list[str] = []
    with TestClient(app) as client:
        account = client.post(
            "/v1/accounts",
            json={
                "pseudo": "keyholder",
                "password": "correct horse battery",
                "age_range": "25-34",
                "accept_terms": True,
            },
        ).json()
        key = client.post(
            "/v1/me/api-keys",
            json={"name": "integration"},
            headers={"Authorization": f"Bearer {account['token']}"},
        ).json()["key"]
        assert _limit(client.get("/v1/rulesets", headers={"X-API-Key": key})) == KEY
        event.listen(
            app.state.db.sync_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        statuses = [
            client.get(
                "/v1/rulesets",
                headers={"X-API-Key": f"nrk_{n:043d}", "Authorization": f"Bearer t{n:042d}"},
            ).status_code
            for n in range(200)
        ]
        assert statuses.count(429) > 100
        # a miss is one statement for a key, three for a token without a prefix
        assert len(statements) <= 4 * NETWORK, len(statements)
        # the key already checked out: still its own bucket, however its network behaved
        assert _limit(client.get("/v1/rulesets", headers={"X-API-Key": key})) == KEY


def test_a_burst_of_made_up_keys_costs_at_most_the_networks_limit_in_lookups(
    pg_head: str,
) -> None:
    """150 concurrent requests from one address, each with its own made-up `nrk_` key: the
    misses are charged before the lookups run, so the burst gets no more lookups than the
    network's limit (in one window of each: the requests' counts restart at the wall clock's
    minute, the misses' at the monotonic clock's, so both edges about to come are waited out;
    a CI run whose burst straddled the misses' edge counted 60 lookups)."""
    app = create_app(settings(pg_head))
    statements: list[str] = []

    async def burst(url: str) -> list[int]:
        event.listen(
            app.state.db.sync_engine,
            "before_cursor_execute",
            lambda *args: statements.append(args[2]),
        )
        async with client_from(url, "127.0.0.81") as client:
            answers = await asyncio.gather(
                *[
                    client.get("/v1/rulesets", headers={"X-API-Key": f"nrk_{n:043d}"})
                    for n in range(150)
                ]
            )
        return [a.status_code for a in answers]

    with serve(app) as (host, port):
        fresh_window(10)  # once served: a start-up can take seconds on a loaded machine
        left = MISS_WINDOW_SECONDS - time.monotonic() % MISS_WINDOW_SECONDS
        if left < 10:
            time.sleep(left + 0.1)
            fresh_window(10)
        statuses = asyncio.run(burst(f"http://{host}:{port}"))
    assert statuses.count(200) == NETWORK and statuses.count(429) == 150 - NETWORK
    assert len(statements) <= NETWORK, len(statements)


def _limit(answer: httpx.Response) -> int:
    assert answer.status_code == 200, answer.text
    return int(answer.headers["ratelimit-limit"])


def test_the_first_credential_that_checks_out_is_the_bucket(pg_head: str) -> None:
    """API key, then session, then seat or sheet token, then network; one that does not
    check out is passed over (charged to the network when none does)."""
    fresh_window(10)

    async def run(url: str) -> dict[str, int]:
        async with client_from(url, "127.0.0.60") as client:
            signed = await client.post(
                "/v1/accounts",
                json={
                    "pseudo": "order_" + url.rsplit(":", 1)[1],
                    "password": "a long enough password",
                    "age_range": "25-34",
                    "accept_terms": True,
                },
            )
            session = signed.json()["token"]
            bearer = {"Authorization": f"Bearer {session}"}
            key = (await client.post("/v1/me/api-keys", json={"name": "k"}, headers=bearer)).json()[
                "key"
            ]
            game = await client.post(
                "/v1/games",
                json={
                    "ruleset": "numwars",
                    "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
                },
            )
            seat = game.json()["seats"][0]["token"]
            sheet = await client.post(
                "/v1/scoresheets",
                json={"ruleset": "numwars-classic", "players": [{"name": n} for n in "abc"]},
            )
            sheet_token = sheet.json()["token"]
            path = "/v1/rulesets"
            found = {}
            cases = {
                "nothing": {},
                "key": {"X-API-Key": key},
                "key as bearer": {"Authorization": f"Bearer {key}"},
                "key and session": {"X-API-Key": key, **bearer},
                "key and seat": {"X-API-Key": key, "Authorization": f"Bearer {seat}"},
                "wrong key and session": {"X-API-Key": "nrk_" + "x" * 43, **bearer},
                "session": bearer,
                "seat": {"Authorization": f"Bearer {seat}"},
                "sheet": {"Authorization": f"Bearer {sheet_token}"},
                "wrong key": {"X-API-Key": "nrk_" + "y" * 43},
                "wrong session": {"Authorization": "Bearer nrs_" + "z" * 43},
                "wrong seat": {"Authorization": "Bearer nrg_" + "z" * 43},
                "unprefixed": {"Authorization": "Bearer " + "z" * 43},
            }
            for name, headers in cases.items():
                found[name] = _limit(await client.get(path, headers=headers))
            # a seat or sheet token meters only its own game's or sheet's paths: anyone makes
            # one by creating a game or a sheet, so elsewhere it would be a free bucket
            own_game = f"/v1/games/{game.json()['id']}"
            found["seat on its game"] = _limit(
                await client.get(own_game, headers={"Authorization": f"Bearer {seat}"})
            )
            own_sheet = f"/v1/scoresheets/{sheet.json()['id']}"
            found["sheet on its sheet"] = _limit(
                await client.get(own_sheet, headers={"Authorization": f"Bearer {sheet_token}"})
            )
            return found

    with served(pg_head) as url:
        found = asyncio.run(run(url))
    assert found == {
        "nothing": NETWORK,
        "key": KEY,
        "key as bearer": KEY,
        "key and session": KEY,
        "key and seat": KEY,
        "wrong key and session": CREDENTIAL,
        "session": CREDENTIAL,
        "seat": NETWORK,
        "sheet": NETWORK,
        "seat on its game": CREDENTIAL,
        "sheet on its sheet": CREDENTIAL,
        "wrong key": NETWORK,
        "wrong session": NETWORK,
        "wrong seat": NETWORK,
        "unprefixed": NETWORK,
    }
