"""Attacks on the fast path of a game in play (api/games/fast.py): the same raw ASGI requests
to an app with it and one without it (`fast_games=False`) must get the same answer (status,
headers but the request id, date and the limiter's clock, body) and apply the same actions.

Found: a `POST` whose `Content-Length` is over the body cap. The pipeline answers 413 at
once, without reading the body; the fast path read up to the cap's worth of the body first
(a slow client got no answer; a body shorter than it declared was applied). Fixed in
:func:`api.http.fastpath.plain_language` (shared with the rules' fast path, which had it too).
The rest are regression checks that pass: odd headers and paths, bodies in pieces, at and
over the cap, a client gone mid-body, concurrent identical actions."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from litestar.testing import TestClient

from tests.games.test_fast_games import Spy, create, seat

IGNORED = {b"x-request-id", b"date", b"ratelimit-reset"}


async def _call(app: Any, scope: dict[str, Any], messages: list[dict[str, Any]]) -> Any:
    sent: list[dict[str, Any]] = []
    pending = list(messages)

    async def receive() -> Any:
        if pending:
            return pending.pop(0)
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    headers = sorted((k.lower(), v) for k, v in start["headers"] if k.lower() not in IGNORED)
    return start["status"], headers, body


def _scope(
    method: str, path: str, headers: list[tuple[bytes, bytes]], query: bytes = b""
) -> dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("192.0.2.9", 40000),
        "server": ("testserver", 80),
        "state": {},
    }


def _body(chunks: list[bytes]) -> list[dict[str, Any]]:
    return [
        {"type": "http.request", "body": c, "more_body": i < len(chunks) - 1}
        for i, c in enumerate(chunks)
    ]


def raw(
    client: TestClient[Any],
    method: str,
    path: str,
    headers: list[tuple[bytes, bytes]],
    chunks: list[bytes] | None = None,
    *,
    query: bytes = b"",
    tail: dict[str, Any] | None = None,
) -> Any:
    scope = _scope(method, path, headers, query)
    messages = _body(chunks if chunks is not None else [b""])
    if tail is not None:
        messages[-1]["more_body"] = True
        messages.append(tail)
    return client.blocking_portal.call(_call, client.app, scope, messages)


def both(clients: Any, *args: Any, **kwargs: Any) -> Any:
    fast, slow = clients
    a = raw(fast, *args, **kwargs)
    b = raw(slow, *args, **kwargs)
    assert a == b
    return a


J = (b"content-type", b"application/json")


def _seat_token(client: TestClient[Any], game: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The token of the seat to act, and its view."""
    path = f"/v1/games/{game['id']}"
    actor = min(client.get(path).json()["view"]["actors"])
    view = client.get(path, headers=seat(game, actor)).json()["view"]
    return game["seats"][actor]["token"].encode(), view


def _twins(clients: Any, seed: int) -> list[tuple[TestClient[Any], dict[str, Any], bytes, bytes]]:
    """A game dealt from `seed` on each app: (client, game, its actor's token, a legal action)."""
    twins = []
    for client in clients:
        game = create(client, "numwars", seed)
        token, view = _seat_token(client, game)
        twins.append((client, game, token, json.dumps(view["legal_actions"][0]).encode()))
    return twins


def _version(client: TestClient[Any], game: dict[str, Any]) -> int:
    version: int = client.get(f"/v1/games/{game['id']}").json()["version"]
    return version


# -- found: a body declared over the cap -------------------------------------------------


async def _slow_client(app: Any, scope: dict[str, Any], first: bytes) -> Any:
    """`app`'s answer to a client that sends `first` of its body, then nothing more (None when
    the app is still waiting for the rest after 3 seconds)."""
    stalled = asyncio.Event()
    sent: list[dict[str, Any]] = []
    given = False

    async def receive() -> Any:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": first, "more_body": True}
        await stalled.wait()  # the client sends nothing more (and does not go away)
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    task = asyncio.ensure_future(app(scope, receive, send))
    try:
        await asyncio.wait_for(asyncio.shield(task), 3)
    except TimeoutError:
        stalled.set()
        await task
        return None
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


def test_a_body_declared_over_the_cap_is_refused_at_once(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    """`Content-Length: 100000` (the cap is 64 KiB) from a client that sends its body slowly:
    the pipeline answers 413 at once, before reading any of it (Litestar reads the declared
    length first); the fast path waited for 64 KiB of the body before handing it over, so
    the client got no answer (a request held open, then 408 when it gave up)."""
    for client, game, token, _ in _twins(clients, 51):
        headers = [(b"authorization", b"Bearer " + token), J, (b"content-length", b"100000")]
        scope = _scope("POST", f"/v1/games/{game['id']}/actions", headers)
        status = client.blocking_portal.call(_slow_client, client.app, scope, b" " * 1000)
        assert status == 413, (client is clients[0], status)


def test_a_declared_length_over_the_cap_is_never_applied(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    """The same root: a `Content-Length` over the cap whose body (as the server hands it) is
    a valid action: the pipeline refuses it (413), the fast path applied it."""
    answers = []
    for client, game, token, action in _twins(clients, 52):
        headers = [(b"authorization", b"Bearer " + token), J, (b"content-length", b"99999")]
        answer = raw(client, "POST", f"/v1/games/{game['id']}/actions", headers, [action])
        answers.append((answer, _version(client, game)))
    assert answers[0] == answers[1]
    assert answers[0][0][0] == 413 and answers[0][1] == 0


# -- regression checks (pass) ------------------------------------------------------------


def _header_cases(token: bytes, other: bytes) -> list[list[tuple[bytes, bytes]]]:
    auth = (b"authorization", b"Bearer " + token)
    return [
        [(b"authorization", b"bearer " + token)],
        [(b"authorization", b"BEARER  " + token + b"  ")],
        [(b"authorization", b"Bearer\t" + token)],
        [(b"authorization", b"Bearer " + token + b"\xa0")],  # NBSP: str.strip() takes it off
        [(b"authorization", b"\x85Bearer " + token)],
        [(b"authorization", b"Bearer " + token + b"\x1f")],
        [(b"authorization", b"Bearer " + token + b"\xff")],
        [auth, (b"authorization", b"Bearer " + other)],
        [auth, (b"accept-language", b"*")],
        [auth, (b"accept-language", b"*;q=0.5, en;q=0")],
        [auth, (b"accept-language", b"\xff\xfe")],
        [auth, (b"accept-language", b"fr;q=1.0000")],
        [auth, (b"accept-language", b"")],
        [auth, (b"accept-language", b"fr"), (b"accept-language", b"en")],
        [auth, (b"content-length", b"0")],
        [auth, (b"content-length", b"00")],
        [auth, (b"content-type", b"application/json")],
        [auth, (b"x-api-key", b"nrk_zzz")],
        [auth, (b"host", b"a:99999")],
        [auth, (b"if-none-match", b'"0"')],
        [auth, (b"accept", b"text/html")],
        [auth, (b"accept-encoding", b"gzip")],
    ]


def test_odd_headers_and_paths_answered_the_same(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    fast, _ = clients
    game = create(fast, "numwars", 53)
    token, _ = _seat_token(fast, game)
    other = next(s["token"] for s in game["seats"] if s["token"].encode() != token).encode()
    path = f"/v1/games/{game['id']}"
    for headers in _header_cases(token, other):
        both(clients, "GET", path, headers)
    auth = [(b"authorization", b"Bearer " + token)]
    for where in [path + "/", "/v1/games//" + game["id"], path + "%00", path.upper()]:
        both(clients, "GET", where, auth)
    both(clients, "GET", path, auth, query=b"")
    both(clients, "HEAD", path, auth)
    assert _version(fast, game) == 0


BODIES = {
    "whole": lambda a: [a],
    "byte by byte": lambda a: [a[i : i + 1] for i in range(len(a))],
    "extra field": lambda a: [a[:-1] + b', "x": 1}'],
    "BOM": lambda a: [b"\xef\xbb\xbf" + a],
    "key twice": lambda a: [a.replace(b'"type"', b'"type": "bid", "type"', 1)],
    "at the cap": lambda a: [a + b" " * (65536 - len(a))],
    "at the cap, two chunks": lambda a: [a, b" " * (65536 - len(a))],
    "one over the cap": lambda a: [a + b" " * (65537 - len(a))],
    "one over, two chunks": lambda a: [a, b" " * (65537 - len(a))],
    "deep": lambda a: [b"[" * 40 + a + b"]" * 40],
}
#: The bodies the fast path answers itself.
FAST_BODIES = {"whole", "byte by byte", "at the cap", "at the cap, two chunks"}


def test_bodies_answered_and_applied_the_same(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    """Each body to twin games through each app: the same answer, the same version after;
    the fast path answered the valid ones at or under the cap itself."""
    for name, chunks in BODIES.items():
        answers, handed = [], []
        for client, game, token, action in _twins(clients, 54):
            headers = [(b"authorization", b"Bearer " + token), J]
            with Spy(clients[0]) as spy:
                status, sent, body = raw(
                    client, "POST", f"/v1/games/{game['id']}/actions", headers, chunks(action)
                )
            answers.append((status, sent, body, _version(client, game)))
            handed.append(spy.handed)
        assert answers[0] == answers[1], name
        assert (handed[0] == []) == (name in FAST_BODIES), (name, handed[0])
    # a client gone mid-body: the same, nothing applied
    answers = []
    for client, game, token, action in _twins(clients, 55):
        headers = [(b"authorization", b"Bearer " + token), J]
        where = f"/v1/games/{game['id']}/actions"
        answer = raw(client, "POST", where, headers, [action[:5]], tail={"type": "http.disconnect"})
        answers.append((answer, _version(client, game)))
    assert answers[0] == answers[1] and answers[0][1] == 0


def test_concurrent_identical_actions_applied_once(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    fast, _ = clients
    game = create(fast, "numwars", 56)
    token, view = _seat_token(fast, game)
    action = json.dumps(view["legal_actions"][0]).encode()
    headers = [(b"authorization", b"Bearer " + token), J]
    path = f"/v1/games/{game['id']}/actions"

    async def eight() -> list[Any]:
        return await asyncio.gather(
            *[_call(fast.app, _scope("POST", path, headers), _body([action])) for _ in range(8)]
        )

    statuses = sorted(status for status, _, _ in fast.blocking_portal.call(eight))
    assert statuses == [200] + [409] * 7
    assert _version(fast, game) == 1


def test_the_rules_fast_path_too_refuses_a_declared_oversize_body_at_once() -> None:
    """The same for the stateless rules' fast path (api/rules/fast.py), which shares
    :func:`api.http.fastpath.plain_language`."""
    from tests.api.test_fast_rules import apps

    for app in apps():
        headers = [J, (b"content-length", b"100000")]
        scope = _scope("POST", "/v1/rulesets/numwars/deal", headers)

        async def answer(app: Any = app, scope: Any = scope) -> Any:
            return await _slow_client(app, scope, b" " * 1000)

        with TestClient(app) as client:
            assert client.blocking_portal.call(answer) == 413
