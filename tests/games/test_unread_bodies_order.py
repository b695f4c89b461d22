"""A second attack on the operations that take no body (tests/games/test_unread_bodies.py) and
on the order of their checks: a body of form feeds passed for no body, a keyed retry
replayed the first answer whatever its body, the body was refused before a 403 on some
operations and after it on others, and a seat out of 0 … 7 in a path was refused before the
caller was known. The rule now: a body an operation cannot take is refused once everything
else about the caller and the resource is checked (authentication, existence, the right to
do it, the preconditions), before anything changes; a keyed retry is refused as its body
would be."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import TestClient

from tests.accounts.conftest import auth, sign_up
from tests.games.host import host, host_pseudo
from tests.games.test_unread_bodies import JSON, _game, _sheet, _status

OPEN_TABLE = {
    "ruleset": "numwars-classic",
    "players": [{"name": "Ada"}, {"open": True}, {"open": True}],
}


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b"\x0c", {}, 415, "unsupported-media-type"),
        (b"\x0b\x0c", {"Content-Type": "text/html"}, 415, "unsupported-media-type"),
        (b" \x0c ", JSON, 400, "malformed-json"),
    ],
)
def test_a_body_of_what_json_does_not_call_blank_is_a_body(
    games: TestClient[Any], body: bytes, headers: dict[str, str], status: int, code: str
) -> None:
    """JSON's whitespace is space, tab, line feed and carriage return (RFC 8259 §2), not
    Python's: a form feed or a vertical tab abandoned a game as no body would."""
    game = _game(games)
    seat = auth(game["seats"][0]["token"])
    refused = games.post(
        f"/v1/games/{game['id']}/abandon", content=body, headers={**seat, **headers}
    )
    assert (refused.status_code, refused.json()["code"]) == (status, code), refused.text
    assert _status(games, game["id"]) == "active"


def test_a_body_of_form_feeds_is_not_called_empty(games: TestClient[Any]) -> None:
    """An operation that takes a body reads a form feed as what it is: no JSON, not none."""
    refused = games.post("/v1/games", content=b"\x0c", headers=JSON)
    assert refused.status_code == 400, refused.text
    assert "empty" not in refused.json()["detail"], refused.text
    blank = games.post("/v1/games", content=b" \r\n\t", headers=JSON)
    assert "empty" in blank.json()["detail"], blank.text


@pytest.mark.parametrize("path", ["rounds/1", "", "confirm"])
def test_a_keyed_retry_with_a_body_is_refused_not_replayed(
    games: TestClient[Any], path: str
) -> None:
    """The key names the operation, not a body: the retry of a sheet's bodyless write with a
    body it cannot take is refused as that body would be, never answered as the first."""
    sheet = _sheet(games)
    editor = auth(sheet["token"])
    method = "POST" if path == "confirm" else "DELETE"
    if path == "confirm":  # a named account confirms: a sheet of the host's
        created = games.post(
            "/v1/scoresheets",
            json={
                "ruleset": "numwars-classic",
                "players": [
                    {"name": "A", "account": host_pseudo(games)},
                    {"name": "B"},
                    {"name": "C"},
                ],
            },
            headers=host(games),
        )
        assert created.status_code == 201, created.text
        sheet, editor = created.json(), host(games)
    if path == "rounds/1":
        scored = games.post(
            f"/v1/scoresheets/{sheet['id']}/rounds",
            json={"players": [{"captured": ["red-5"]}, {"captured": []}, {"captured": []}]},
            headers=editor,
        )
        assert scored.status_code == 201, scored.text
    version = games.get(f"/v1/scoresheets/{sheet['id']}", headers=editor).json()["version"]
    headers = {**editor, "Idempotency-Key": "retry-1", "If-Match": f'"{version}"'}
    url = f"/v1/scoresheets/{sheet['id']}" + (f"/{path}" if path else "")
    first = games.request(method, url, content=b"{}", headers={**headers, **JSON})
    assert first.status_code in (200, 204), first.text
    for body, extra, status in (
        (b'{"a": 1}', JSON, 422),
        (b"[]", JSON, 422),
        (b"x", {}, 415),
    ):
        retried = games.request(method, url, content=body, headers={**headers, **extra})
        assert retried.status_code == status, (body, retried.text)
        assert "idempotent-replayed" not in retried.headers
    replayed = games.request(method, url, headers=headers)
    assert replayed.status_code == first.status_code, replayed.text
    assert replayed.headers.get("idempotent-replayed") == "true"


def test_the_right_to_do_it_comes_before_the_body(games: TestClient[Any]) -> None:
    """Join, leave and cancel: a caller without the right is told so (403) whatever the body,
    as a sheet's writes already did."""
    player, stranger = sign_up(games), sign_up(games)
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
    bad = {"content": b'{"a": 1}', "headers": {**auth(stranger["token"]), **JSON}}
    joined = games.post(f"/v1/games/{bound['id']}/seats/1/join", **bad)  # type: ignore[arg-type]
    assert (joined.status_code, joined.json()["code"]) == (403, "not-your-seat"), joined.text
    table = _game(games, OPEN_TABLE, **host(games))
    left = games.post(f"/v1/games/{table['id']}/seats/1/leave", **bad)  # type: ignore[arg-type]
    assert (left.status_code, left.json()["code"]) == (403, "not-your-seat"), left.text
    claimed = games.post(f"/v1/games/{table['id']}/seats/2/claim", headers=auth(player["token"]))
    assert claimed.status_code == 201, claimed.text
    seat = auth(claimed.json()["token"])
    cancel = games.post(f"/v1/games/{table['id']}/abandon", content=b"[]", headers={**seat, **JSON})
    assert (cancel.status_code, cancel.json()["code"]) == (403, "not-the-creator"), cancel.text
    assert _status(games, table["id"]) == "waiting"


@pytest.mark.parametrize("seat", ["9", "-1", "99999999999999999999999"])
@pytest.mark.parametrize("operation", ["join", "claim", "leave"])
def test_a_seat_no_game_has_is_found_missing_after_the_caller(
    games: TestClient[Any], seat: str, operation: str
) -> None:
    """The path takes any integer: without a session 401 (the order of checks), with one
    404, never 422 before the caller nor a parameter the database refuses."""
    table = _game(games, OPEN_TABLE, **host(games))
    path = f"/v1/games/{table['id']}/seats/{seat}/{operation}"
    anonymous = games.post(path)
    assert anonymous.status_code == 401, anonymous.text
    found = games.post(path, headers=auth(sign_up(games)["token"]))
    assert (found.status_code, found.json()["code"]) == (404, "not-found"), found.text
    assert games.get(f"/v1/games/{table['id']}").json()["open_seats"] == [1, 2]
