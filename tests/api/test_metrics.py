"""Prometheus metrics at GET /metrics (issue 13): request counters and latencies by route
template, stored-game counters, open streams and the database pool."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from litestar.testing import TestClient

from api.app import create_app, spec_dict
from api.ops.settings import Settings

PLAYERS = [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]


@pytest.fixture(scope="module")
def client(pg_head: str) -> Iterator[TestClient[Any]]:
    app = create_app(Settings(database_url=pg_head, rate_limit_per_minute=0))
    with TestClient(app) as c:
        yield c


def scrape(client: TestClient[Any]) -> dict[str, float]:
    """Every sample of the exposition: `name{labels}` → value."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    assert answer.headers["content-type"].count("charset") == 1
    samples = {}
    for line in answer.text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def requests_of(samples: dict[str, float], method: str, route: str, status: int) -> float:
    key = f'numrules_http_requests_total{{method="{method}",route="{route}",status="{status}"}}'
    return samples.get(key, 0.0)


def test_requests_are_counted_by_route_template(client: TestClient[Any]) -> None:
    before = scrape(client)
    for ruleset in ("numking", "numwin"):
        assert client.get(f"/v1/rulesets/{ruleset}").status_code == 200
    assert client.get("/v1/rulesets/nope").status_code == 404
    assert client.get("/no/such/path").status_code == 404
    after = scrape(client)
    route = "/v1/rulesets/{ruleset}"
    assert requests_of(after, "GET", route, 200) - requests_of(before, "GET", route, 200) == 2
    assert requests_of(after, "GET", route, 404) - requests_of(before, "GET", route, 404) == 1
    assert requests_of(after, "GET", "unmatched", 404) > requests_of(
        before, "GET", "unmatched", 404
    )
    assert not [k for k in after if "numking" in k or "/no/such" in k]  # never a raw path
    count = (
        f'numrules_http_request_duration_seconds_count{{method="GET",route="{route}",status="200"}}'
    )
    assert after[count] >= 2
    bucket = re.compile(r'numrules_http_request_duration_seconds_bucket\{le="[^"]+",method="GET"')
    assert any(bucket.match(k) for k in after)
    assert "process_resident_memory_bytes" in after or "python_gc_collections_total" in "".join(
        after
    )


def test_games_and_actions_are_counted(client: TestClient[Any]) -> None:
    before = scrape(client)
    created = client.post("/v1/games", json={"ruleset": "numwars", "players": PLAYERS})
    assert created.status_code == 201
    game = created.json()
    tokens = [s["token"] for s in game["seats"]]
    actor = game["view"]["actors"][0]
    auth = {"Authorization": f"Bearer {tokens[actor]}"}
    view = client.get(f"/v1/games/{game['id']}", headers=auth).json()["view"]
    action = view["legal_actions"][0]
    headers = {**auth, "Idempotency-Key": "metrics-1"}
    acted = client.post(f"/v1/games/{game['id']}/actions", json=action, headers=headers)
    assert acted.status_code == 200, acted.text
    replay = client.post(f"/v1/games/{game['id']}/actions", json=action, headers=headers)
    assert replay.headers.get("idempotent-replayed") == "true"  # not a second action applied
    after = scrape(client)
    assert after["numrules_games_created_total"] - before["numrules_games_created_total"] == 1
    assert after["numrules_game_actions_total"] - before["numrules_game_actions_total"] == 1


def test_gauges_read_at_scrape_time(client: TestClient[Any]) -> None:
    samples = scrape(client)
    assert samples["numrules_sse_streams"] == 0
    assert samples["numrules_db_pool_checked_out"] >= 0  # PostgreSQL's queue pool counts


def test_metrics_is_out_of_the_spec_and_not_rate_limited() -> None:
    assert "/metrics" not in spec_dict()["paths"]
    app = create_app(Settings(check_db_on_start=False, rate_limit_per_minute=1))
    with TestClient(app) as c:
        assert all(c.get("/metrics").status_code == 200 for _ in range(3))


def test_requests_are_exposed_as_prometheus_client_s_own_would_be() -> None:
    """The requests' counter and histogram, counted as plain numbers (api.ops.metrics), give
    the very text prometheus-client's `Counter` and `Histogram` give for the same requests,
    durations on the buckets' bounds, past the last and zero included (`_created` aside:
    each series' creation time)."""
    import random

    from prometheus_client import (
        CollectorRegistry,
        Counter,
        Histogram,
        disable_created_metrics,
        enable_created_metrics,
        generate_latest,
    )

    from api.ops.metrics import BUCKETS, _Requests

    labels = ("method", "route", "status")
    ours, theirs = CollectorRegistry(), CollectorRegistry()
    counted = _Requests()
    ours.register(counted)
    requests = Counter(
        "numrules_http_requests",
        "HTTP requests answered, by route template, method and status",
        labels,
        registry=theirs,
    )
    duration = Histogram(
        "numrules_http_request_duration_seconds",
        "HTTP request duration (seconds), by route template, method and status",
        labels,
        buckets=BUCKETS,
        registry=theirs,
    )
    rng = random.Random(13)
    routes = ["/v1/games/{game_id}", "/v1/games/{game_id}/actions", "unmatched"]
    durations = [*BUCKETS, 0.0, 12.5, *(rng.expovariate(200) for _ in range(300))]
    for seconds in durations:
        method, route, status = rng.choice("GP"), rng.choice(routes), rng.choice([200, 409])
        counted.observe(method, route, status, seconds)
        requests.labels(method, route, str(status)).inc()
        duration.labels(method, route, str(status)).observe(seconds)
    created = re.compile(rb"^(\w+_created\{.*\}) \S+$", re.MULTILINE)
    text = created.sub(rb"\1 T", generate_latest(ours))
    assert text == created.sub(rb"\1 T", generate_latest(theirs))
    assert text.count(b"_created{") == 2 * len(counted.series) == 24
    disable_created_metrics()  # prometheus-client's switch: no `_created` series then
    try:
        text = generate_latest(ours)
        assert text == generate_latest(theirs) and b"_created" not in text
    finally:
        enable_created_metrics()


def test_a_game_s_fast_path_observes_each_request_once(
    client: TestClient[Any], caplog: pytest.LogCaptureFixture
) -> None:
    """The games' fast path sits outside the observing layer (issue 27): a request it answers,
    one it hands on after starting it (the service refused it) and one it never takes each
    carry their one request id and are counted and logged once, under their route."""
    created = client.post("/v1/games", json={"ruleset": "numwars", "players": PLAYERS})
    game = created.json()
    tokens = [s["token"] for s in game["seats"]]
    actor = game["view"]["actors"][0]
    idle = next(s for s in range(len(tokens)) if s not in game["view"]["actors"])
    path = f"/v1/games/{game['id']}"
    view = client.get(path, headers={"Authorization": f"Bearer {tokens[actor]}"}).json()["view"]
    before = scrape(client)
    caplog.set_level(logging.INFO, logger="numrules.access")
    answered = client.get(
        path, headers={"Authorization": f"Bearer {tokens[idle]}", "X-Request-ID": "fast-1"}
    )
    refused = client.post(
        f"{path}/actions",
        json=view["legal_actions"][0],
        headers={"Authorization": f"Bearer {tokens[idle]}", "X-Request-ID": "handed-2"},
    )
    untaken = client.get(path, headers={"Authorization": "Bearer x", "X-Request-ID": "slow-3"})
    after = scrape(client)
    assert (answered.status_code, refused.status_code, untaken.status_code) == (200, 409, 401)
    for answer, rid in ((answered, "fast-1"), (refused, "handed-2"), (untaken, "slow-3")):
        assert answer.headers.get_list("x-request-id") == [rid]
    counted = {
        (method, route, status): requests_of(after, method, route, status)
        - requests_of(before, method, route, status)
        for method, route, status in (
            ("GET", "/v1/games/{game_id}", 200),
            ("POST", "/v1/games/{game_id}/actions", 409),
            ("GET", "/v1/games/{game_id}", 401),
        )
    }
    assert set(counted.values()) == {1.0}, counted
    fields = [vars(r) for r in caplog.records if r.name == "numrules.access"]
    lines = [
        (f["request_id"], f["route"], f["status"])
        for f in fields
        if f["request_id"] in ("fast-1", "handed-2", "slow-3")
    ]
    assert sorted(lines) == [
        ("fast-1", "/v1/games/{game_id}", 200),
        ("handed-2", "/v1/games/{game_id}/actions", 409),
        ("slow-3", "/v1/games/{game_id}", 401),
    ]
