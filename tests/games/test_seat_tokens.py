"""`Seat-Tokens` on an action (issue 27): a client playing several seats gets, in the answer's
`next`, the game as each of its seats that may act next sees it, and never reads before acting.

Both apps of the run's database (`clients`: with the fast path, and the pipeline alone) take
turns answering the actions of one game played by a client holding every seat; each answer's
`next` must be exactly what `GET /v1/games/{id}` answers those seats right after (through the
other app), and the fast path must answer its share itself. Refused headers are refused
before anything is applied (the version unchanged), in the same bytes through both apps, and
no answer ever holds a token it was sent.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Any

import pytest
from litestar.testing import TestClient

from api.games.service import SEAT_TOKENS_MAX, GameService
from tests.accounts.conftest import account_body, auth
from tests.api.test_fast_rules import same
from tests.games.host import host
from tests.games.test_fast_games import Spy, create, seat

RULESETS = [("numwars", 4), ("numking", 3), ("numwin", 3)]


def others(game: dict[str, Any], acting: int) -> dict[str, str]:
    """The `Seat-Tokens` header naming every seat of `game` but `acting`."""
    tokens = [s["token"] for s in game["seats"] if s["seat"] != acting]
    return {"Seat-Tokens": ", ".join(tokens)}


def version(client: TestClient[Any], game: dict[str, Any]) -> int:
    number: int = client.get(f"/v1/games/{game['id']}").json()["version"]
    return number


@pytest.mark.parametrize(("ruleset", "players"), RULESETS)
def test_a_game_played_from_the_answers_alone(
    clients: tuple[TestClient[Any], TestClient[Any]], ruleset: str, players: int
) -> None:
    """Up to 150 actions, each seat acting from the game the previous answer handed it: the
    answers alternate between the apps, `next` is every other actor's GET, in seat order."""
    fast, slow = clients
    seed = random.Random(f"next-{ruleset}").randrange(2**62)
    game = create(fast, ruleset, seed, players)
    path = f"/v1/games/{game['id']}"
    actor = min(game["view"]["actors"])
    shown = fast.get(path, headers=seat(game, actor)).json()  # the only read before acting
    rng = random.Random(seed)
    steps = fast_steps = 0
    with Spy(fast) as spy:
        while steps < 150:
            client, reader = (fast, slow) if steps % 2 == 0 else (slow, fast)
            action = rng.choice(shown["view"]["legal_actions"])
            headers = {**seat(game, actor), **others(game, actor)}
            answer = client.post(f"{path}/actions", json=action, headers=headers)
            assert answer.status_code == 200, answer.text
            body = answer.json()
            fast_steps += client is fast
            actors = body["view"]["actors"]
            expected = [
                reader.get(path, headers={**seat(game, s), "accept-language": "en"}).json()
                for s in sorted(actors)
                if s != actor
            ]
            assert body["next"] == expected
            assert all(g["version"] == body["version"] for g in body["next"])
            assert [g["seat"] for g in body["next"]] == sorted(set(actors) - {actor})
            steps += 1
            if not actors:
                assert body["next"] == []
                break
            if actor in actors:  # acts again: from its own view
                shown = {"view": body["view"]}
            else:
                actor = min(actors)
                shown = body["next"][0]
        assert spy.handed == [], spy.handed  # the fast path answered each of its turns
    assert steps > 20 and fast_steps >= steps // 2


def test_without_the_header_no_next(clients: tuple[TestClient[Any], TestClient[Any]]) -> None:
    fast, slow = clients
    for client in (fast, slow):
        game = create(client, "numwars", 31)
        actor = min(game["view"]["actors"])
        view = client.get(f"/v1/games/{game['id']}", headers=seat(game, actor)).json()["view"]
        answer = client.post(
            f"/v1/games/{game['id']}/actions",
            json=view["legal_actions"][0],
            headers=seat(game, actor),
        )
        assert answer.status_code == 200 and "next" not in answer.json()


def _refused(game: dict[str, Any], other: dict[str, Any], actor: int) -> list[Any]:
    """(Seat-Tokens value, status, code, words the detail must hold)."""
    mine = [s["token"] for s in game["seats"] if s["seat"] != actor]
    theirs = other["seats"][1]["token"]
    return [
        ("", 422, "validation-error", "token 1"),
        (f"{mine[0]},,{mine[1]}", 422, "validation-error", "token 2"),
        (f"{mine[0]}, Bearer {mine[1]}", 422, "validation-error", "token 2"),
        (f"{mine[0]}, nrs_abc", 422, "validation-error", "token 2"),
        (",".join([mine[0]] * (SEAT_TOKENS_MAX + 1)), 422, "validation-error", "1 … "),
        (f"{mine[0]}, {theirs}", 401, "unauthorized", "token 2"),
        (f"{mine[1]}, nrg_{'A' * 43}", 401, "unauthorized", "token 2"),
    ]


def test_a_refused_header_applies_nothing(
    clients: tuple[TestClient[Any], TestClient[Any]], caplog: pytest.LogCaptureFixture
) -> None:
    """Each refusal the same through both apps (the fast path hands it on), with the problem's
    field and the token's position, no token in it, nothing applied; then the same action
    with a good header is applied once."""
    fast, slow = clients
    game, other = create(fast, "numwars", 41), create(fast, "numwars", 42)
    actor = min(game["view"]["actors"])
    path = f"/v1/games/{game['id']}"
    legal = fast.get(path, headers=seat(game, actor)).json()["view"]["legal_actions"][0]
    secrets = [s["token"] for g in (game, other) for s in g["seats"]]
    caplog.set_level(logging.DEBUG)
    for value, status, code, words in _refused(game, other, actor):
        headers = {**seat(game, actor), "Seat-Tokens": value}
        answers = [c.post(f"{path}/actions", json=legal, headers=headers) for c in (fast, slow)]
        same(*answers)
        problem = answers[0].json()
        assert answers[0].status_code == status and problem["code"] == code, problem
        assert words in problem["detail"], problem
        if status == 422:
            assert [e["field"] for e in problem["errors"]] == ["Seat-Tokens"]
        assert not any(token in answers[0].text for token in secrets)
        french = fast.post(
            f"{path}/actions", json=legal, headers={**headers, "accept-language": "fr"}
        )
        assert french.status_code == status and "jeton" in french.json()["detail"]
        assert version(fast, game) == 0
    logged = caplog.text + json.dumps([r.__dict__ for r in caplog.records], default=str)
    assert not any(token in logged for token in secrets)
    answer = fast.post(
        f"{path}/actions", json=legal, headers={**seat(game, actor), **others(game, actor)}
    )
    assert answer.status_code == 200 and version(fast, game) == 1


def test_a_replayed_answer_carries_next_as_the_game_is(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    """With `Idempotency-Key` (the pipeline's): the first answer and its retry both carry
    `next`; the action is applied once."""
    fast, _ = clients
    game = create(fast, "numwars", 51)
    actor = min(game["view"]["actors"])
    path = f"/v1/games/{game['id']}"
    legal = fast.get(path, headers=seat(game, actor)).json()["view"]["legal_actions"][0]
    headers = {**seat(game, actor), **others(game, actor), "Idempotency-Key": "next-1"}
    first = fast.post(f"{path}/actions", json=legal, headers=headers)
    again = fast.post(f"{path}/actions", json=legal, headers=headers)
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert first.json()["next"] == again.json()["next"] != []
    assert first.json()["next"][0]["seat"] == first.json()["view"]["actors"][0]
    assert version(fast, game) == 1


def test_a_revoked_token_is_refused_though_this_process_saw_it(
    clients: tuple[TestClient[Any], TestClient[Any]],
) -> None:
    """A seat claimed again by its account's other session has a new token, and the old one,
    read with once, is refused in `Seat-Tokens` (nothing applied); the new one is taken. The
    caller's own token is checked first: a wrong one is the action's own 401."""
    for client in clients:
        players = [{"name": "Ada"}, {"open": True}, {"name": "Bo"}]
        created = client.post(
            "/v1/games", json={"ruleset": "numwars", "players": players}, headers=host(client)
        )
        assert created.status_code == 201, created.text
        game = created.json()
        path = f"/v1/games/{game['id']}"
        body = account_body()
        first = client.post("/v1/accounts", json=body).json()["token"]
        old = client.post(f"{path}/seats/1/claim", headers=auth(first)).json()["token"]
        assert client.get(path, headers=auth(old)).status_code == 200  # seen by this process
        login = {"login": body["pseudo"], "password": body["password"]}
        second = client.post("/v1/sessions", json=login).json()["token"]
        new = client.post(f"{path}/seats/1/claim", headers=auth(second)).json()["token"]
        assert new != old
        tokens = {0: game["seats"][0]["token"], 1: new, 2: game["seats"][2]["token"]}
        actor = min(client.get(path).json()["view"]["actors"])
        legal = client.get(path, headers=auth(tokens[actor])).json()["view"]["legal_actions"][0]
        idle = next(s for s in (0, 2) if s != actor)
        for header, words in ((old, "token 1"), (f"{tokens[idle]}, {old}, {new}", "token 2")):
            headers = {**auth(tokens[actor]), "Seat-Tokens": header}
            refused = client.post(f"{path}/actions", json=legal, headers=headers)
            assert refused.status_code == 401 and words in refused.json()["detail"], refused.text
        wrong = {"Authorization": f"Bearer nrg_{'B' * 43}", "Seat-Tokens": old}
        refused = client.post(f"{path}/actions", json=legal, headers=wrong)
        assert refused.status_code == 401 and "Seat-Tokens" not in refused.json()["detail"]
        assert client.get(path).json()["version"] == 0
        headers = {**auth(tokens[actor]), "Seat-Tokens": f"{new}, {tokens[idle]}"}
        answer = client.post(f"{path}/actions", json=legal, headers=headers)
        assert answer.status_code == 200, answer.text
        actors = answer.json()["view"]["actors"]
        assert [g["seat"] for g in answer.json()["next"]] == [
            s for s in (0, 1, 2) if s in actors and s != actor
        ]


@pytest.mark.parametrize("failure", [ConnectionResetError, RuntimeError])
def test_an_applied_action_is_answered_though_next_cannot_be_read(
    clients: tuple[TestClient[Any], TestClient[Any]],
    monkeypatch: pytest.MonkeyPatch,
    failure: type[Exception],
) -> None:
    """The action is committed before `next` is read: a read that fails then leaves the games
    out (200, applied once), never an error a client would retry."""
    for client in clients:
        game = create(client, "numwars", 61)
        actor = min(game["view"]["actors"])
        path = f"/v1/games/{game['id']}"
        legal = client.get(path, headers=seat(game, actor)).json()["view"]["legal_actions"][0]

        async def failing(*_: Any) -> Any:
            raise failure("the database went away")

        with monkeypatch.context() as patched:
            patched.setattr(GameService, "get", failing)
            headers = {**seat(game, actor), **others(game, actor)}
            answer = client.post(f"{path}/actions", json=legal, headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["next"] == [] and answer.json()["version"] == 1
        assert version(client, game) == 1
