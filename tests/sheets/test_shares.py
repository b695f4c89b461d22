"""`POST /v1/scoresheets/{id}/shares` (issue 24's app: share a sheet with named accounts after
it was made): the editor names an account as one of its players; that account reads the sheet,
finds it in its history and confirms it."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.sheets.conftest import Accounts
from tests.sheets.test_sheets import bearer, create

Client = TestClient[Any]


def test_an_owner_shares_a_sheet_and_the_account_confirms_it(
    client: Client, accounts: Accounts
) -> None:
    owner, pal, other, stranger = accounts.new(), accounts.new(), accounts.new(), accounts.new()
    sheet = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}"
    assert client.get(url, headers=pal.auth).status_code == 404  # not named yet
    etag = client.get(url, headers=owner.auth).headers["etag"]
    shared = client.post(
        f"{url}/shares",
        json={"player": 1, "account": pal.pseudo.upper()},
        headers={**owner.auth, "If-Match": etag},
    )
    assert shared.status_code == 200, shared.text
    assert shared.headers["etag"] != etag  # a share moves the version
    players = shared.json()["players"]
    assert [(p["account"], p["confirmed"]) for p in players] == [
        (None, False),
        (pal.pseudo, False),
        (None, False),
    ]
    # the named account reads it, finds it in its history, may not change it, confirms it
    assert client.get(url, headers=pal.auth).status_code == 200
    history = client.get("/v1/me/history", headers=pal.auth).json()["items"]
    assert [item["id"] for item in history] == [sheet["id"]]
    refused = client.post(
        f"{url}/shares", json={"player": 2, "account": other.pseudo}, headers=pal.auth
    )
    assert refused.status_code == 403 and refused.json()["code"] == "not-owner"
    confirmed = client.post(f"{url}/confirm", headers=pal.auth)
    assert confirmed.status_code == 200
    assert [p["confirmed"] for p in confirmed.json()["players"]] == [False, True, False]
    # the same share again changes nothing
    again = client.post(
        f"{url}/shares", json={"player": 1, "account": pal.pseudo}, headers=owner.auth
    )
    assert again.status_code == 200 and again.headers["etag"] == confirmed.headers["etag"]
    assert [p["confirmed"] for p in again.json()["players"]] == [False, True, False]
    # refusals: another account on a bound player, the account on a second player, unknown
    # pseudo, a player past the sheet's, a stranger, no token
    cases: list[tuple[dict[str, Any], dict[str, str], int, str]] = [
        ({"player": 1, "account": other.pseudo}, owner.auth, 409, "player-bound"),
        ({"player": 2, "account": pal.pseudo}, owner.auth, 409, "player-bound"),
        ({"player": 2, "account": "nobody_here"}, owner.auth, 422, "unknown-account"),
        ({"player": 5, "account": other.pseudo}, owner.auth, 422, "bad-request"),
        ({"player": 2, "account": other.pseudo}, stranger.auth, 404, "not-found"),
        ({"player": 2, "account": other.pseudo}, {}, 401, "unauthorized"),
    ]
    for body, headers, status, code in cases:
        answer = client.post(f"{url}/shares", json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), (body, answer.text)
    unknown = client.post(
        f"{url}/shares",
        json={"player": 2, "account": "nobody_here"},
        headers={**owner.auth, "Accept-Language": "fr"},
    ).json()
    assert unknown["errors"][0]["field"] == "account"
    assert "aucun compte" in unknown["errors"][0]["message"]
    # the owner naming itself is confirmed at once
    mine = client.post(
        f"{url}/shares", json={"player": 0, "account": owner.pseudo}, headers=owner.auth
    )
    assert [p["confirmed"] for p in mine.json()["players"]] == [True, True, False]


def test_an_anonymous_sheet_is_shared_with_its_token(client: Client, accounts: Accounts) -> None:
    pal = accounts.new()
    sheet = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"]})
    url = f"/v1/scoresheets/{sheet['id']}"
    shared = client.post(
        f"{url}/shares", json={"player": 0, "account": pal.pseudo}, headers=bearer(sheet["token"])
    )
    assert shared.status_code == 200, shared.text
    assert client.get(url, headers=pal.auth).json()["players"][0]["account"] == pal.pseudo
