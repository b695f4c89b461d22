"""A game in play's fast path (api/games/fast.py, issue 27) answers exactly as the pipeline does.

Two apps on the run's PostgreSQL database, one with the fast path (`fast_games`, the default)
and one without it (the pipeline alone), get the same requests:

* whole games of every ruleset: each seat's view read through both apps in English and French
  (the same game: the same bytes), and each action applied to two games dealt from the same
  seed, one through each app (the same answer, byte for byte);
* refusals, which the fast path hands the pipeline with the service's exception (never running
  the action twice): not the seat's turn, an illegal move, another game's token, no such game,
  an abandoned game;
* requests it never takes (a body it does not decode, `If-Match`, `Idempotency-Key`, `Origin`,
  a query, a session's token, two `Authorization` headers, a path that is no game's).

Status, headers (but the request id and the limiter's clock) and bytes must be equal; the
fast path must have answered the common case itself (a spy on the pipeline), and with the rate
limiter on, a request is counted once, whichever path answers it.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from api.games.fast import FastGames
from tests.api.test_fast_rules import same
from tests.games.conftest import app_on
from tests.games.host import host

LANGUAGES = ({"accept-language": "en"}, {"accept-language": "fr-FR"}, {})


class Peer:
    """`app` as a client at 192.0.2.7 reaches it (the test client's own address is no IP
    address, which the rate limiter counts in no bucket)."""

    def __init__(self, app: Litestar) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope["client"] = ("192.0.2.7", 40000)
        await self.app(scope, receive, send)


def fast_layer(app: Litestar) -> FastGames:
    layer = app.asgi_handler
    while not isinstance(layer, FastGames):
        layer = layer.app  # type: ignore[attr-defined]
    return layer


class Spy:
    """What the fast path of `client` (or app) handed the pipeline (paths, and the exception
    if any)."""

    def __init__(self, client: TestClient[Any] | Litestar) -> None:
        app = client if isinstance(client, Litestar) else client.app
        self.layer = fast_layer(app)
        self.pipeline = self.layer.app
        self.handed: list[tuple[str, str | None]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        failed = scope.get("numrules.fast_failed")
        self.handed.append((scope["path"], None if failed is None else type(failed).__name__))
        await self.pipeline(scope, receive, send)

    def __enter__(self) -> Spy:
        self.layer.app = self
        return self

    def __exit__(self, *_: Any) -> None:
        self.layer.app = self.pipeline


def create(client: TestClient[Any], ruleset: str, seed: int, players: int = 4) -> dict[str, Any]:
    body = {
        "ruleset": ruleset,
        "players": [{"name": name} for name in ["Ada", "Bo", "Cy", "Dee", "Eve"][:players]],
        "seed": seed,
    }
    created = client.post("/v1/games", json=body, headers=host(client))
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def seat(game: dict[str, Any], number: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['seats'][number]['token']}"}


RULESETS = [("numwars", 4), ("numwars-classic", 4), ("numking", 3), ("numwin", 3)]


@pytest.mark.parametrize(("ruleset", "players"), RULESETS)
def test_a_game_played_through_both_the_same_bytes(
    clients: tuple[TestClient[Any], TestClient[Any]], ruleset: str, players: int
) -> None:
    """Up to 120 actions of one game per ruleset: views through both apps, actions on the
    twin games; every one of them answered by the fast path itself."""
    fast, slow = clients
    seed = random.Random(ruleset).randrange(2**62)
    mine, twin = create(fast, ruleset, seed, players), create(slow, ruleset, seed, players)
    rng = random.Random(seed)
    steps = 0
    with Spy(fast) as spy:
        while steps < 120:
            spectator = slow.get(f"/v1/games/{mine['id']}").json()
            if spectator["status"] != "active":
                break
            actor = min(spectator["view"]["actors"])
            for language in LANGUAGES:
                path = f"/v1/games/{mine['id']}"
                headers = {**seat(mine, actor), **language}
                same(fast.get(path, headers=headers), slow.get(path, headers=headers))
            view = fast.get(f"/v1/games/{mine['id']}", headers=seat(mine, actor)).json()["view"]
            action = rng.choice(view["legal_actions"])
            answer = fast.post(
                f"/v1/games/{mine['id']}/actions", json=action, headers=seat(mine, actor)
            )
            assert answer.status_code == 200, answer.text
            same(
                answer,
                slow.post(
                    f"/v1/games/{twin['id']}/actions", json=action, headers=seat(twin, actor)
                ),
            )
            steps += 1
        assert spy.handed == []  # every view and action of the game: the fast path's own
    assert steps > 20


def _refusals(game: dict[str, Any], other: dict[str, Any], view: dict[str, Any]) -> list[Any]:
    """(method, path, body, headers) the service refuses."""
    actions = f"/v1/games/{game['id']}/actions"
    actor = min(view["actors"])
    idle = (actor + 1) % len(game["seats"])
    legal = view["legal_actions"][0]
    illegal = {"type": "play", "card": "red-99"}
    return [
        ("POST", actions, legal, seat(game, idle)),  # not its turn
        ("POST", actions, illegal, seat(game, actor)),  # no such card
        ("POST", actions, {"type": "bid", "tricks": 1}, seat(game, actor)),  # numwars: no bids
        ("POST", actions, legal, seat(other, 0)),  # another game's token
        ("GET", f"/v1/games/{game['id']}", None, seat(other, 0)),
        ("POST", f"/v1/games/{'0' * 32}/actions", legal, seat(game, actor)),  # no such game
        ("GET", f"/v1/games/{'0' * 32}", None, seat(game, actor)),
    ]


def _send(client: TestClient[Any], method: str, path: str, body: Any, headers: Any) -> Any:
    if method == "GET":
        return client.get(path, headers=headers)
    return client.post(path, json=body, headers=headers)


@pytest.mark.parametrize("language", LANGUAGES, ids=["en", "fr", "none"])
def test_refusals_the_pipelines_own(
    clients: tuple[TestClient[Any], TestClient[Any]], language: dict[str, str]
) -> None:
    """The service's refusals reach the pipeline as its exception: the same problem, and the
    action never run a second time (the game's version unchanged)."""
    fast, slow = clients
    game, other = create(fast, "numwars", 7), create(fast, "numwars", 8)
    actor = min(fast.get(f"/v1/games/{game['id']}").json()["view"]["actors"])
    view = fast.get(f"/v1/games/{game['id']}", headers=seat(game, actor)).json()["view"]
    with Spy(fast) as spy:
        for method, path, body, headers in _refusals(game, other, view):
            headers = {**headers, **language}
            answer = _send(fast, method, path, body, headers)
            assert 400 <= answer.status_code < 500, answer.text
            same(answer, _send(slow, method, path, body, headers))
        assert len(spy.handed) == 7 and all(failed for _, failed in spy.handed), spy.handed
    assert fast.get(f"/v1/games/{game['id']}").json()["version"] == 0
    # an abandoned game: 409 game-over, through both
    assert fast.post(f"/v1/games/{game['id']}/abandon", headers=seat(game, 0)).status_code == 200
    path, legal = f"/v1/games/{game['id']}/actions", view["legal_actions"][0]
    headers = {**seat(game, min(view["actors"])), **language}
    answer = fast.post(path, json=legal, headers=headers)
    assert answer.status_code == 409 and answer.json()["code"] == "game-over"
    same(answer, slow.post(path, json=legal, headers=headers))


def test_what_it_never_takes_is_answered_the_same(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    fast, slow = clients
    game = create(fast, "numwars", 11)
    actor = min(fast.get(f"/v1/games/{game['id']}").json()["view"]["actors"])
    view = fast.get(f"/v1/games/{game['id']}", headers=seat(game, actor)).json()["view"]
    token = seat(game, actor)
    path = f"/v1/games/{game['id']}"
    actions = f"{path}/actions"
    legal = view["legal_actions"][0]
    raw: list[tuple[str, str, bytes | None, dict[str, str]]] = [
        ("POST", actions, b"", token),
        ("POST", actions, b"{", token),
        ("POST", actions, b"[" * 40 + b"]" * 40, token),
        ("POST", actions, b'{"type": "play", "card": 3}', {**token, "accept-language": "fr"}),
        ("POST", actions, b'{"type": "play"}', {**token, "content-type": "text/plain"}),
        ("POST", actions, b'{"a": "' + b"x" * 70_000 + b'"}', token),
        ("GET", path, None, {**token, "if-match": '"0"'}),
        ("GET", path, None, {**token, "origin": "https://example.org"}),
        ("GET", f"{path}?x=1", None, token),
        ("GET", path, None, host(fast)),  # a session's token: looked up by the pipeline
        ("GET", path, None, {"authorization": "Basic abc"}),
        ("GET", path, None, {"authorization": "Bearer"}),
        ("GET", "/v1/games/open", None, token),  # a path that is no game's
        ("GET", f"/v1/games/{game['id'].upper()}", None, token),
        # a Host no host name is (the router's refusal, which the fast path took): 400 bad-host
        ("GET", path, None, {**token, "host": "a b"}),
        ("POST", actions, json.dumps(legal).encode(), {**token, "host": "a/b"}),
    ]
    with Spy(fast) as spy:
        for method, where, body, headers in raw:
            sent = [
                c.request(method, where, content=body, headers={**_json(body), **headers})
                for c in (fast, slow)
            ]
            same(*sent)
            if "host" in headers:
                assert sent[0].json()["code"] == "bad-host", sent[0].text
        assert [p for p, failed in spy.handed if failed is None] == [
            where.split("?")[0] for _, where, _, _ in raw
        ]
        assert fast.get(path).json()["version"] == 0  # nothing was applied
    # If-Match and Idempotency-Key on an action: the pipeline's, applied once
    for extra in ({"if-match": '"0"'}, {"idempotency-key": "k-1"}):
        game = create(fast, "numwars", 11)
        actions = f"/v1/games/{game['id']}/actions"
        with Spy(fast) as spy:
            answer = fast.post(actions, json=legal, headers={**seat(game, actor), **extra})
            assert answer.status_code == 200, answer.text
            assert spy.handed == [(actions, None)]
        assert fast.get(f"/v1/games/{game['id']}").json()["version"] == 1


def _json(body: bytes | None) -> dict[str, str]:
    return {} if body is None else {"content-type": "application/json"}


#: Four requests a minute from a seat's token (and plenty from the network: the sign-up).
LIMITS = {"rate_limit_credential_per_minute": 4, "rate_limit_per_minute": 100}


def test_counted_once_with_the_limiter_on(pg_head: str) -> None:
    """Four a minute: the fast path's answers carry the pipeline's `RateLimit-*` headers, a
    refusal it handed on is counted once, and the request past the limit is the same 429:
    the same requests through each app (each counts in its own memory) get the same counts."""

    def counts(client: TestClient[Any]) -> tuple[list[tuple[int, str | None, str | None]], str]:
        game = create(client, "numwars", 21)
        path = f"/v1/games/{game['id']}"
        view = client.get(path, headers=seat(game, 0)).json()["view"]
        idle = (min(view["actors"]) + 1) % 4
        answers = [
            client.post(f"{path}/actions", json=view["legal_actions"][0], headers=seat(game, idle))
        ]
        while answers[-1].status_code != 429 and len(answers) < 10:
            answers.append(client.get(path, headers=seat(game, 0)))
        assert answers[0].json()["code"] == "not-your-turn"
        assert answers[-1].status_code == 429 and answers[-1].json()["code"] == "rate-limited"
        shown = [
            (a.status_code, a.headers.get("ratelimit-limit"), a.headers.get("ratelimit-remaining"))
            for a in answers
        ]
        return shown, path

    app = app_on(pg_head, **LIMITS)
    with (
        TestClient(Peer(app)) as fast,
        TestClient(Peer(app_on(pg_head, **LIMITS, fast_games=False))) as slow,
    ):
        with Spy(app) as spy:
            counted, path = counts(fast)
        assert counted == counts(slow)[0]
        assert [status for status, _, _ in counted].count(200) >= 1
        # the refusal (with its exception) and the 429 went down the pipeline, not the 200s
        handed = [failed for where, failed in spy.handed if where.startswith(path)]
        assert len(handed) == 2 and handed[0] is not None and handed[1] is None, handed
