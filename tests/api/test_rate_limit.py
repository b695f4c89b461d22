"""Rate limiting per client address (issue 13): 429 `rate-limited` with Retry-After past the
limit, X-Forwarded-For believed only from trusted proxies, the database store shared by
several apps on one database."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from api.app import create_app, spec_dict
from api.db import migrations
from api.db.engine import create_engine
from api.ops.ratelimit import (
    WINDOW_SECONDS,
    DatabaseStore,
    client_address,
    network_of,
    trusted_networks,
)
from api.ops.settings import Settings


def fresh_window(margin: float = 5.0) -> None:
    """Wait out the end of a window that is about to close (counts restart at its edge)."""
    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    if left < margin:
        time.sleep(left + 0.1)


def app_with(**settings: Any) -> Litestar:
    return create_app(Settings(check_db_on_start=False, **settings))


async def get_as(app: Litestar, peer: str, path: str, **headers: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app, client=(peer, 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.get(path, headers=headers)


def test_the_defaults() -> None:
    fields = Settings.model_fields
    # the tests' environment turns it off (tests/conftest.py); deployments do not
    assert fields["rate_limit_per_minute"].default == 600
    assert fields["rate_limit_store"].default == "memory"
    # issue 21: credentials have their own, higher limits; a key's revocation within 60 s
    assert fields["rate_limit_credential_per_minute"].default == 3000
    assert fields["api_key_rate_limit_per_minute"].default == 12000
    assert fields["rate_limit_credential_cache_seconds"].default == 30
    with pytest.raises(ValueError, match="less than or equal to 60"):
        Settings(rate_limit_credential_cache_seconds=61)
    assert Settings(rate_limit_per_minute=600).trusted_proxies == []


def test_past_the_limit_a_429_problem_with_retry_after() -> None:
    fresh_window()
    with TestClient(app_with(rate_limit_per_minute=3)) as client:
        answers = [client.get("/v1/rulesets") for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        refused = answers[-1]
        assert refused.headers["content-type"] == "application/problem+json"
        problem = refused.json()
        assert problem["code"] == "rate-limited" and problem["status"] == 429
        assert problem["type"].endswith("/rate-limited")
        assert 1 <= int(refused.headers["retry-after"]) <= WINDOW_SECONDS
        assert refused.headers["x-content-type-options"] == "nosniff"
        # other endpoints share the client's budget; the probes, metrics and docs do not count
        assert client.post("/v1/rulesets/numking/deal", json={}).status_code == 429
        for path in ("/healthz", "/metrics", "/docs", "/docs/assets/swagger-ui.css"):
            assert client.get(path).status_code == 200, path


def test_a_cors_request_over_the_limit_still_reads_the_answer() -> None:
    fresh_window()
    with TestClient(app_with(rate_limit_per_minute=1)) as client:
        origin = {"Origin": "https://app.example"}
        client.get("/v1/rulesets", headers=origin)
        refused = client.get("/v1/rulesets", headers=origin)
        assert refused.status_code == 429
        assert refused.headers["access-control-allow-origin"] in ("*", "https://app.example")


def test_zero_turns_it_off() -> None:
    with TestClient(app_with(rate_limit_per_minute=0)) as client:
        assert {client.get("/v1/rulesets").status_code for _ in range(50)} == {200}


def test_the_spec_documents_the_429() -> None:
    paths = spec_dict()["paths"]
    refused = paths["/v1/rulesets"]["get"]["responses"]["429"]
    schema = refused["content"]["application/problem+json"]["schema"]
    assert schema["allOf"][0]["$ref"].endswith("/Problem")
    assert schema["allOf"][1]["properties"]["code"]["enum"] == ["rate-limited"]
    assert "Retry-After" in refused["headers"]
    assert "429" in paths["/v1/games"]["post"]["responses"]
    assert "429" not in paths["/healthz"]["get"]["responses"]
    assert "429" not in paths["/readyz"]["get"]["responses"]


def test_the_spec_documents_the_rate_limit_headers_and_api_keys() -> None:
    """Issue 21: the 429's `RateLimit-*` headers, the `X-API-Key` scheme (optional on the
    stateless endpoints) and the three API-key operations with their examples."""
    spec = spec_dict()
    paths = spec["paths"]
    refused = paths["/v1/rulesets/numking/deal"]["post"]["responses"]["429"]
    assert set(refused["headers"]) == {
        "Content-Language",  # every problem is worded in the request's language (issue 23)
        "Vary",
        "Retry-After",
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
    }
    scheme = spec["components"]["securitySchemes"]["apiKey"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "X-API-Key")
    assert paths["/v1/rulesets/numking/deal"]["post"]["security"] == [{}, {"apiKey": []}]
    assert paths["/v1/me"]["get"]["security"] == [{"sessionToken": []}]
    operations = {
        ("post", "/v1/me/api-keys"): ("CreateApiKey", {"201", "401", "409", "422", "429"}),
        ("get", "/v1/me/api-keys"): ("ListApiKeys", {"200", "401", "429"}),
        ("delete", "/v1/me/api-keys/{key_id}"): ("DeleteApiKey", {"204", "401", "404", "429"}),
    }
    for (method, path), (operation_id, statuses) in operations.items():
        operation = paths[path][method]
        assert operation["operationId"] == operation_id
        assert operation["summary"] and operation["description"]
        assert operation["security"] == [{"sessionToken": []}]
        assert statuses <= set(operation["responses"])
    created = paths["/v1/me/api-keys"]["post"]
    example = created["responses"]["201"]["content"]["application/json"]["examples"]
    assert next(iter(example.values()))["value"]["key"].startswith("nrk_")
    assert created["requestBody"]["content"]["application/json"]["schema"]["examples"]


# -- the client's address ----------------------------------------------------------------------


def scope(peer: str, forwarded: str | None = None) -> dict[str, Any]:
    headers = [] if forwarded is None else [(b"x-forwarded-for", forwarded.encode())]
    return {"client": (peer, 1234), "headers": headers}


def test_x_forwarded_for_is_read_only_from_trusted_proxies() -> None:
    trusted = trusted_networks(["10.0.0.0/8", "::1"])
    assert client_address(scope("203.0.113.9", "1.2.3.4"), trusted) == "203.0.113.9"
    assert client_address(scope("10.0.0.2", "1.2.3.4"), trusted) == "1.2.3.4"
    # the right-most untrusted address: what the client wrote on the left is not believed
    assert client_address(scope("10.0.0.2", "6.6.6.6, 1.2.3.4, 10.1.1.1"), trusted) == "1.2.3.4"
    assert client_address(scope("::1", "2001:db8::7"), trusted) == "2001:db8::7"
    # garbage stops the walk at the last address believed
    assert client_address(scope("10.0.0.2", "1.2.3.4, bogus"), trusted) == "10.0.0.2"
    # every hop trusted: the left-most
    assert client_address(scope("10.0.0.2", "10.0.0.3"), trusted) == "10.0.0.3"
    assert client_address(scope("10.0.0.2"), trusted) == "10.0.0.2"
    assert client_address(scope("10.0.0.2", "1.2.3.4"), ()) == "10.0.0.2"


async def test_behind_a_trusted_proxy_each_client_has_its_own_budget() -> None:
    fresh_window()
    app = app_with(rate_limit_per_minute=2, trusted_proxies=["10.0.0.0/8"])
    proxy = "10.0.0.1"
    first = [await get_as(app, proxy, "/v1/rulesets", **{"X-Forwarded-For": "1.1.1.1"})]
    first.append(await get_as(app, proxy, "/v1/rulesets", **{"X-Forwarded-For": "1.1.1.1"}))
    first.append(await get_as(app, proxy, "/v1/rulesets", **{"X-Forwarded-For": "1.1.1.1"}))
    assert [a.status_code for a in first] == [200, 200, 429]
    other = await get_as(app, proxy, "/v1/rulesets", **{"X-Forwarded-For": "2.2.2.2"})
    assert other.status_code == 200
    # an untrusted peer cannot buy a new budget by writing the header
    peer = "192.0.2.5"
    answers = [
        await get_as(app, peer, "/v1/rulesets", **{"X-Forwarded-For": f"3.3.3.{i}"})
        for i in range(3)
    ]
    assert [a.status_code for a in answers] == [200, 200, 429]


# -- the database store ------------------------------------------------------------------------


def test_the_database_store_is_shared_by_two_apps(pg_head: str) -> None:
    fresh_window()
    settings = Settings(database_url=pg_head, rate_limit_per_minute=3, rate_limit_store="database")
    one, two = create_app(settings), create_app(settings)
    with TestClient(one) as a, TestClient(two) as b:
        codes = [c.get("/v1/rulesets").status_code for c in (a, b, a)]
        assert codes == [200, 200, 200]
        refused = b.get("/v1/rulesets")
        assert refused.status_code == 429, "the count of app one reached app two"
        assert refused.json()["code"] == "rate-limited"


async def _hits(url: str) -> list[int]:
    engine = create_engine(url)
    try:
        store = DatabaseStore(engine)
        now = int(time.time()) // WINDOW_SECONDS * WINDOW_SECONDS
        counts = [await store.hit("198.51.100.1", now - WINDOW_SECONDS)]
        counts += [await store.hit("198.51.100.1", now) for _ in range(3)]
        counts.append(await store.hit("198.51.100.2", now))
        return counts
    finally:
        await engine.dispose()


def test_the_database_store_upserts_on_sqlite(sqlite_url: str) -> None:
    migrations.upgrade(sqlite_url)
    assert asyncio.run(_hits(sqlite_url)) == [1, 1, 2, 3, 1]


@pytest.mark.parametrize(
    ("address", "v4", "v6", "network"),
    [
        ("2001:db8::1", 32, 64, "2001:db8::/64"),
        ("2001:db8::ffff:1", 32, 64, "2001:db8::/64"),
        ("2001:db8:0:1::1", 32, 64, "2001:db8:0:1::/64"),
        ("2001:db8::1", 32, 128, "2001:db8::1"),
        ("1.2.3.4", 32, 64, "1.2.3.4"),
        ("1.2.3.4", 24, 64, "1.2.3.0/24"),
        ("::ffff:1.2.3.4", 32, 64, "1.2.3.4"),
        ("not-an-address", 32, 64, "not-an-address"),
    ],
)
def test_clients_are_counted_per_network(address: str, v4: int, v6: int, network: str) -> None:
    """Issue 21: one IPv6 host owns a /64, so its addresses are one client."""
    assert network_of(address, v4, v6) == network
