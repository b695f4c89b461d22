"""Operations that take no body (abandon, rematch, a seat's claim, a sheet's confirmation, a
key's revocation, a round's deletion …) refuse one they cannot take, once the caller and the
resource are checked (api-contract.md, "Order of checks": authentication, then existence,
then the body; api.http.body.unwanted_body).

An attack found every one of them ignoring its body (`{` abandoned a game as no body would).
A first fix refused the body before routing, answering it before 401 and 404, and was
reverted; here each operation refuses it after its own checks, and changes nothing then. No
body, an empty one and `{}` (a client's JSON helper) still go through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up
from tests.games.host import host, host_pseudo

TABLE = {"ruleset": "numwars-classic", "players": [{"name": "Ada"}, {"name": "Bo"}, {"name": "Cy"}]}
JSON = {"Content-Type": "application/json"}
#: A body each operation refuses, as (body, extra headers, status, code).
REFUSED = [
    (b"{", JSON, 400, "malformed-json"),
    (b'{"reason": "bored"}', JSON, 422, "unknown-field"),
    (b"[]", JSON, 422, "validation-error"),
    (b"{}", {"Content-Type": "text/plain"}, 415, "unsupported-media-type"),
]


@dataclass
class Case:
    """One operation: its method and path, the headers that may call it, a check that it
    did nothing (after a refusal) and the statuses of its success."""

    method: str
    path: str
    headers: dict[str, str]
    untouched: Callable[[], bool]
    done: tuple[int, ...]


def _send(
    client: TestClient[Any], method: str, path: str, body: bytes | None, headers: dict[str, str]
) -> Any:
    return client.request(method, path, content=body, headers=headers)


def _game(client: TestClient[Any], body: dict[str, Any] = TABLE, **headers: str) -> dict[str, Any]:
    created = client.post("/v1/games", json=body, headers=headers)
    assert created.status_code == 201, created.text
    game: dict[str, Any] = created.json()
    return game


def _status(client: TestClient[Any], game_id: str) -> str:
    status: str = client.get(f"/v1/games/{game_id}").json()["status"]
    return status


def _games_cases(games: TestClient[Any]) -> dict[str, Case]:
    cases: dict[str, Case] = {}
    game = _game(games)
    seat = auth(game["seats"][0]["token"])
    cases["AbandonGame"] = Case(
        "POST",
        f"/v1/games/{game['id']}/abandon",
        seat,
        lambda: _status(games, game["id"]) == "active",
        (200,),
    )
    cases["CreateStreamTicket"] = Case(
        "POST", f"/v1/games/{game['id']}/stream-tickets", seat, lambda: True, (201,)
    )
    cases["PostGameHint"] = Case(  # a hint changes nothing; without a body: 200 or 409
        "POST", f"/v1/games/{game['id']}/hint", seat, lambda: True, (200, 409)
    )
    over = _game(games)
    over_seat = auth(over["seats"][1]["token"])
    ended = games.post(f"/v1/games/{over['id']}/abandon", headers=over_seat)
    assert ended.status_code == 200, ended.text
    cases["RematchGame"] = Case(
        "POST",
        f"/v1/games/{over['id']}/rematch",
        over_seat,
        lambda: "rematch" not in games.get(f"/v1/games/{over['id']}").json(),
        (201,),
    )
    player = sign_up(games)
    bound = _game(
        games,
        {
            "ruleset": "numwars-classic",
            "players": [
                {"name": "Ada"},
                {"name": "Bo", "account": player["pseudo"]},
                {"name": "C"},
            ],
        },
    )
    cases["JoinSeat"] = Case(
        "POST",
        f"/v1/games/{bound['id']}/seats/1/join",
        auth(player["token"]),
        lambda: (
            games.get(f"/v1/games/{bound['id']}", headers=auth(player["token"])).status_code == 401
        ),  # its session acts for the seat once joined
        (200,),
    )
    open_table = {
        "ruleset": "numwars-classic",
        "players": [{"name": "Ada"}, {"open": True}, {"open": True}],
    }
    table = _game(games, open_table, **host(games))
    claimer = auth(sign_up(games)["token"])
    cases["ClaimSeat"] = Case(
        "POST",
        f"/v1/games/{table['id']}/seats/1/claim",
        claimer,
        lambda: games.get(f"/v1/games/{table['id']}").json()["open_seats"] == [1, 2],
        (201,),
    )
    left = _game(games, open_table, **host(games))
    leaver = auth(sign_up(games)["token"])
    claimed = games.post(f"/v1/games/{left['id']}/seats/2/claim", headers=leaver)
    assert claimed.status_code == 201, claimed.text
    cases["LeaveSeat"] = Case(
        "POST",
        f"/v1/games/{left['id']}/seats/2/leave",
        leaver,
        lambda: games.get(f"/v1/games/{left['id']}").json()["open_seats"] == [1],
        (200,),
    )
    return cases


def _accounts_cases(games: TestClient[Any]) -> dict[str, Case]:
    cases: dict[str, Case] = {}
    leaving = auth(sign_up(games)["token"])
    cases["LogOut"] = Case(
        "DELETE",
        "/v1/sessions/current",
        leaving,
        lambda: games.get("/v1/me", headers=leaving).status_code == 200,
        (204,),
    )
    gone = auth(sign_up(games)["token"])
    cases["DeleteMe"] = Case(
        "DELETE",
        "/v1/me",
        gone,
        lambda: games.get("/v1/me", headers=gone).status_code == 200,
        (204,),
    )
    owner = auth(sign_up(games)["token"])
    key = games.post("/v1/me/api-keys", json={"name": "ci"}, headers=owner)
    assert key.status_code == 201, key.text
    key_id = key.json()["id"]
    cases["DeleteApiKey"] = Case(
        "DELETE",
        f"/v1/me/api-keys/{key_id}",
        owner,
        lambda: (
            key_id in [k["id"] for k in games.get("/v1/me/api-keys", headers=owner).json()["items"]]
        ),
        (204,),
    )
    return cases


def _sheet(games: TestClient[Any]) -> dict[str, Any]:
    created = games.post(
        "/v1/scoresheets",
        json={"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"]},
    )
    assert created.status_code == 201, created.text
    sheet: dict[str, Any] = created.json()
    return sheet


def _sheets_cases(games: TestClient[Any]) -> dict[str, Case]:
    cases: dict[str, Case] = {}
    sheet = _sheet(games)
    editor = auth(sheet["token"])
    rounds = f"/v1/scoresheets/{sheet['id']}/rounds"
    for _ in range(2):
        scored = games.post(
            rounds,
            json={"players": [{"captured": ["red-5"]}, {"captured": []}, {"captured": []}]},
            headers=editor,
        )
        assert scored.status_code == 201, scored.text

    def read() -> dict[str, Any]:
        found: dict[str, Any] = games.get(f"/v1/scoresheets/{sheet['id']}", headers=editor).json()
        return found

    def matched() -> dict[str, str]:
        return {**editor, "If-Match": f'"{read()["version"]}"'}

    cases["DeleteScoresheetRound"] = Case(
        "DELETE", f"{rounds}/1", matched(), lambda: len(read()["rounds"]) == 2, (204,)
    )
    doomed = _sheet(games)
    cases["DeleteScoresheet"] = Case(
        "DELETE",
        f"/v1/scoresheets/{doomed['id']}",
        auth(doomed["token"]),
        lambda: (
            games.get(f"/v1/scoresheets/{doomed['id']}", headers=auth(doomed["token"])).status_code
            == 200
        ),
        (204,),
    )
    named = sign_up(games)
    shared = games.post(
        "/v1/scoresheets",
        json={
            "ruleset": "numwars-classic",
            "players": [
                {"name": "Host", "account": host_pseudo(games)},
                {"name": "Named", "account": named["pseudo"]},
                {"name": "C"},
            ],
        },
        headers=host(games),
    )
    assert shared.status_code == 201, shared.text
    sheet_id = shared.json()["id"]

    def unconfirmed() -> bool:
        read = games.get(f"/v1/scoresheets/{sheet_id}", headers=auth(named["token"])).json()
        return read["players"][1]["confirmed"] is False

    cases["ConfirmScoresheet"] = Case(
        "POST",
        f"/v1/scoresheets/{sheet_id}/confirm",
        auth(named["token"]),
        unconfirmed,
        (200,),
    )
    return cases


@pytest.fixture(scope="module")
def cases(games: TestClient[Any]) -> dict[str, Case]:
    return {**_games_cases(games), **_accounts_cases(games), **_sheets_cases(games)}


def test_every_operation_that_takes_no_body_is_held_here(
    games: TestClient[Any], cases: dict[str, Case]
) -> None:
    """A new operation without a request body joins this suite (the spec says which)."""
    spec = games.get("/openapi.json").json()
    bodyless = {
        operation["operationId"]
        for item in spec["paths"].values()
        for method, operation in item.items()
        if method in ("post", "put", "patch", "delete") and "requestBody" not in operation
    }
    assert bodyless == set(cases)
    for name in bodyless:  # each documents the refusals of a body it cannot take
        found = next(
            operation
            for item in spec["paths"].values()
            for operation in item.values()
            if isinstance(operation, dict) and operation.get("operationId") == name
        )
        for status in ("400", "413", "415", "422"):
            assert status in found["responses"], (name, status)


@pytest.mark.parametrize(
    "name",
    [
        "AbandonGame",
        "CreateStreamTicket",
        "PostGameHint",
        "RematchGame",
        "JoinSeat",
        "ClaimSeat",
        "LeaveSeat",
        "LogOut",
        "DeleteMe",
        "DeleteApiKey",
        "DeleteScoresheetRound",
        "DeleteScoresheet",
        "ConfirmScoresheet",
    ],
)
def test_a_body_is_refused_after_the_checks_and_changes_nothing(
    games: TestClient[Any], cases: dict[str, Case], name: str
) -> None:
    case = cases[name]
    for body, headers, status, code in REFUSED:
        refused = _send(games, case.method, case.path, body, {**case.headers, **headers})
        assert (refused.status_code, refused.json()["code"]) == (status, code), (name, refused.text)
        assert case.untouched(), (name, body)
    unknown = _send(games, case.method, case.path, b'{"reason": "bored"}', {**case.headers, **JSON})
    assert [e["field"] for e in unknown.json()["errors"]] == ["reason"]
    french = _send(
        games, case.method, case.path, b"{", {**case.headers, **JSON, "Accept-Language": "fr"}
    )
    assert "n’est pas du JSON valide" in french.json()["detail"], french.text
    large = _send(
        games, case.method, case.path, b"{" + b" " * 70_000 + b"}", {**case.headers, **JSON}
    )
    assert (large.status_code, large.json()["code"]) == (413, "body-too-large"), large.text
    assert case.untouched(), name
    # nothing sent, nothing sent with a type, `{}`: the operation goes on (the first one does)
    first = _send(games, case.method, case.path, None, case.headers)
    assert first.status_code in case.done, (name, first.text)
    for body, headers in ((b"", {"Content-Type": "text/plain"}), (b"{}", JSON)):
        again = _send(games, case.method, case.path, body, {**case.headers, **headers})
        assert again.json().get("code") not in {c for *_, c in REFUSED}, (name, again.text)


def test_authentication_and_existence_come_before_the_body(
    games: TestClient[Any], cases: dict[str, Case]
) -> None:
    """401 without a credential and 404 for what does not exist, whatever the body (the
    reverted fix answered the body first)."""
    bad = (b"{", JSON)
    missing = "0" * 32
    for name, case in cases.items():
        anonymous = _send(games, case.method, case.path, bad[0], bad[1])
        assert anonymous.status_code == 401, (name, anonymous.text)
    game = _game(games)
    seat = auth(game["seats"][0]["token"])
    session = host(games)
    for method, path, headers in (
        ("POST", f"/v1/games/{missing}/abandon", seat),
        ("POST", f"/v1/games/{missing}/rematch", seat),
        ("POST", f"/v1/games/{missing}/stream-tickets", seat),
        ("POST", f"/v1/games/{missing}/hint", seat),
        ("POST", f"/v1/games/{game['id']}/seats/5/join", session),
        ("POST", f"/v1/games/{game['id']}/seats/5/claim", session),
        ("POST", f"/v1/games/{game['id']}/seats/5/leave", session),
        ("DELETE", f"/v1/me/api-keys/{missing}", session),
        ("POST", f"/v1/scoresheets/{missing}/confirm", session),
        ("DELETE", f"/v1/scoresheets/{missing}", session),
    ):
        found = _send(games, method, path, bad[0], {**headers, **bad[1]})
        assert found.status_code == 404, (path, found.text)
    other = auth(_game(games)["seats"][0]["token"])  # a seat of another game: not this one's
    wrong = _send(games, "POST", f"/v1/games/{game['id']}/abandon", bad[0], {**other, **bad[1]})
    assert wrong.status_code == 401, wrong.text
    sheet = _sheet(games)
    editor = auth(sheet["token"])
    read = games.get(f"/v1/scoresheets/{sheet['id']}", headers=editor).json()
    no_round = _send(
        games,
        "DELETE",
        f"/v1/scoresheets/{sheet['id']}/rounds/3",
        bad[0],
        {**editor, **bad[1], "If-Match": f'"{read["version"]}"'},
    )
    assert no_round.status_code == 404, no_round.text
