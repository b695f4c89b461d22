"""The rules' fast path (api.rules.fast, issue 27) answers exactly as the pipeline does.

Two apps on the same settings, one with the fast path and one with it unwrapped (the pipeline
alone), get the same requests: every operation's examples of every registered ruleset, in
English and French, and requests the fast path hands on (refusals, bodies it does not take,
odd headers). Status, headers (but the request id) and bytes must be equal. With the rate
limiter on, a request is counted once, whichever path answers it.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest
from litestar import Litestar

from api.app import create_app
from api.http.fastpath import unwrap
from api.ops.settings import Settings
from api.rules.fast import FastRules
from engine.registry import SPECS


def apps(**settings: Any) -> tuple[Litestar, Litestar]:
    """(with the fast path, without it), each on `settings`."""
    fast = create_app(Settings(check_db_on_start=False, **settings))
    slow = create_app(Settings(check_db_on_start=False, **settings))
    unwrap(slow, FastRules)  # the pipeline, as before the fast path
    return fast, slow


def send(
    app: Litestar, path: str, body: bytes, headers: dict[str, str] | None = None
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(
                path, content=body, headers={"content-type": "application/json", **(headers or {})}
            )

    return asyncio.run(go())


#: Seconds to the window's end: the two calls may fall on either side of a second.
CLOCKED = ("ratelimit-reset", "retry-after")


#: The same seconds in a 429's words ("retry in 41 s", "réessayez dans 41 s").
WORDED_SECONDS = re.compile(rb"(retry in |dans )(\d+)( s)")


def same(fast: httpx.Response, slow: httpx.Response) -> None:
    def shown(r: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
        headers = sorted(
            (k, v) for k, v in r.headers.items() if k != "x-request-id" and k not in CLOCKED
        )
        return r.status_code, headers, WORDED_SECONDS.sub(rb"\1-\3", r.content)

    assert shown(fast) == shown(slow)
    for name in CLOCKED:
        assert (name in fast.headers) == (name in slow.headers)
        if name in fast.headers:
            assert abs(int(fast.headers[name]) - int(slow.headers[name])) <= 1
    worded = [[int(m[2]) for m in WORDED_SECONDS.finditer(r.content)] for r in (fast, slow)]
    assert len(worded[0]) == len(worded[1])
    assert all(abs(a - b) <= 1 for a, b in zip(*worded, strict=True)), worded


EXAMPLES = [
    pytest.param(f"/v1/rulesets/{spec.id}/{op.path}", payload, id=f"{spec.id}-{op.path}-{name}")
    for spec in SPECS.values()
    for op in spec.operations
    for name, _, payload in op.examples
]


@pytest.fixture(scope="module")
def pair() -> tuple[Litestar, Litestar]:
    return apps()


@pytest.mark.parametrize(("path", "payload"), EXAMPLES)
@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_example_the_same_bytes(
    pair: tuple[Litestar, Litestar], path: str, payload: Any, language: str
) -> None:
    fast, slow = pair
    body = json.dumps(payload).encode()
    headers = {"accept-language": language}
    answer = send(fast, path, body, headers)
    same(answer, send(slow, path, body, headers))
    assert answer.status_code in (200, 422)


def test_the_fast_path_answers_the_common_case(pair: tuple[Litestar, Litestar]) -> None:
    """Not only equal: answered by the fast path (the pipeline's route template is a path
    parameter-free string too, so the metric tells them apart by the calls only)."""
    fast, _ = pair
    path, _, payload = next(
        (f"/v1/rulesets/{s.id}/{o.path}", n, p)
        for s in SPECS.values()
        for o in s.operations
        for n, _, p in o.examples
        if o.path == "validate-move"
    )
    fast_rules = fast.asgi_handler
    while not isinstance(fast_rules, FastRules):
        fast_rules = fast_rules.app  # type: ignore[attr-defined]
    handed_on: list[str] = []
    pipeline = fast_rules.app

    async def spy(scope: Any, receive: Any, send_: Any) -> None:
        handed_on.append(scope["path"])
        await pipeline(scope, receive, send_)

    fast_rules.app = spy
    try:
        assert send(fast, path, json.dumps(payload).encode()).status_code == 200
        assert handed_on == []
        assert send(fast, path, b'{"players": "x"}').status_code == 422
        assert handed_on == [path]
    finally:
        fast_rules.app = pipeline


VALIDATE = "/v1/rulesets/numwars/validate-move"
GOOD = {"players": 4, "hand": ["red-3", "blue-2"], "trick": [], "card": "red-3"}


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        pytest.param(b"", {}, id="empty"),
        pytest.param(b"{", {}, id="malformed"),
        pytest.param(b'{"players": 4}', {}, id="missing-fields"),
        pytest.param(
            b'{"players": "4", "hand": [1], "card": 3}',
            {"accept-language": "fr"},
            id="many-bad-fields-fr",
        ),
        pytest.param(json.dumps({**GOOD, "card": "green-9"}).encode(), {}, id="engine-refusal"),
        pytest.param(b"[" * 40 + b"]" * 40, {}, id="too-deep"),
        pytest.param(b'{"a": "' + b"x" * 70_000 + b'"}', {}, id="too-large"),
        pytest.param(json.dumps(GOOD).encode(), {"content-type": "text/plain"}, id="not-json"),
        pytest.param(
            json.dumps(GOOD).encode(),
            {"content-type": "application/json; charset=utf-8"},
            id="charset",
        ),
        pytest.param(json.dumps(GOOD).encode(), {"origin": "https://example.org"}, id="origin"),
        pytest.param(json.dumps(GOOD).encode(), {"host": "test:99999"}, id="bad-host"),
        pytest.param(
            json.dumps(GOOD).encode(), {"accept-language": "fr-CA;q=0.9, en;q=0.8"}, id="ranked"
        ),
    ],
)
def test_what_the_fast_path_hands_on_is_answered_the_same(
    pair: tuple[Litestar, Litestar], body: bytes, headers: dict[str, str]
) -> None:
    fast, slow = pair
    same(send(fast, VALIDATE, body, headers), send(slow, VALIDATE, body, headers))


def test_with_cors_origins_the_same_vary() -> None:
    fast, slow = apps(cors_origins=["https://app.example"])
    body = json.dumps(GOOD).encode()
    answer = send(fast, VALIDATE, body)
    same(answer, send(slow, VALIDATE, body))
    assert answer.headers["vary"] == "Accept-Language, Origin"


def test_counted_once_with_the_limiter_on() -> None:
    """Three a minute: the fast path's answers carry the same `RateLimit-*` headers as the
    pipeline's, the fourth request is the same 429, and a refused body (handed on after it
    was counted) is counted once, not twice."""
    fast, slow = apps(rate_limit_per_minute=3)
    good = json.dumps(GOOD).encode()
    for body in (good, b"{", good, good):  # the refusal counts as one request
        answer = send(fast, VALIDATE, body)
        same(answer, send(slow, VALIDATE, body))
        assert "ratelimit-remaining" in answer.headers
    refused = send(fast, VALIDATE, good)
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate-limited"
