"""What an attack on the sharing and claiming endpoints found (issue 24): a keyed retry is
answered only to a caller who may still write the sheet, and the body is checked after the
caller and the sheet (api-contract.md, order of checks)."""

from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.sheets.conftest import Accounts
from tests.sheets.test_sheets import bearer, create

Client = TestClient[Any]
KEY = "attack24-key-0123456789"


def _anonymous(client: Client) -> dict[str, Any]:
    return create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"]})


def test_a_claimed_sheets_old_token_is_refused_even_with_a_stored_key(
    client: Client, accounts: Accounts
) -> None:
    """Contract: after a claim 'the token edits no more'; order of checks: authentication
    first. A retry keyed as before with the dead token must be 401, not the stored 200."""
    pal, claimer = accounts.new(), accounts.new()
    sheet = _anonymous(client)
    url = f"/v1/scoresheets/{sheet['id']}"
    token = bearer(sheet["token"])
    body = {"player": 1, "account": pal.pseudo}
    first = client.post(f"{url}/shares", json=body, headers={**token, "Idempotency-Key": KEY})
    assert first.status_code == 200, first.text
    claimed = client.post(f"{url}/claim", json={"token": sheet["token"]}, headers=claimer.auth)
    assert claimed.status_code == 200, claimed.text
    assert client.post(f"{url}/shares", json=body, headers=token).status_code == 401
    retry = client.post(f"{url}/shares", json=body, headers={**token, "Idempotency-Key": KEY})
    assert retry.status_code == 401, (retry.status_code, retry.headers, retry.text[:200])


def test_a_deleted_sheet_is_404_even_to_a_keyed_retry(client: Client, accounts: Accounts) -> None:
    """Contract: a deleted sheet is gone (404); a keyed retry of an earlier share must not
    answer 200 with the deleted sheet's players, names and pseudos."""
    pal = accounts.new()
    sheet = _anonymous(client)
    url = f"/v1/scoresheets/{sheet['id']}"
    token = bearer(sheet["token"])
    body = {"player": 1, "account": pal.pseudo}
    first = client.post(f"{url}/shares", json=body, headers={**token, "Idempotency-Key": KEY})
    assert first.status_code == 200, first.text
    assert client.delete(url, headers=token).status_code == 204
    assert client.get(url, headers=token).status_code in (401, 404)
    retry = client.post(f"{url}/shares", json=body, headers={**token, "Idempotency-Key": KEY})
    assert retry.status_code in (401, 404), (retry.status_code, retry.text[:200])


def test_an_owner_deleted_sheet_is_404_to_the_owners_keyed_retry(
    client: Client, accounts: Accounts
) -> None:
    owner, pal = accounts.new(), accounts.new()
    sheet = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}"
    body = {"player": 1, "account": pal.pseudo}
    headers = {**owner.auth, "Idempotency-Key": KEY + "-owner"}
    assert client.post(f"{url}/shares", json=body, headers=headers).status_code == 200
    assert client.delete(url, headers=owner.auth).status_code == 204
    retry = client.post(f"{url}/shares", json=body, headers=headers)
    assert retry.status_code == 404, (retry.status_code, retry.text[:200])


def test_shares_and_claim_check_authentication_then_existence_before_the_body(
    client: Client, accounts: Accounts
) -> None:
    """Contract, 'Order of checks': authentication, then existence, then the body (as
    POST .../rounds already does). shares and claim answer 422 to anyone first."""
    owner, stranger = accounts.new(), accounts.new()
    sheet = create(client, {"ruleset": "numwars", "players": [{"name": n} for n in "ABC"]}, owner)
    url = f"/v1/scoresheets/{sheet['id']}"
    bad = {"x": 1}
    assert client.post(f"{url}/rounds", json=bad).status_code == 401  # holds here
    assert client.post(f"{url}/rounds", json=bad, headers=stranger.auth).status_code == 404
    got = {
        "shares, no credential": client.post(f"{url}/shares", json=bad).status_code,
        "shares, stranger": client.post(
            f"{url}/shares", json=bad, headers=stranger.auth
        ).status_code,
        "claim, no credential": client.post(f"{url}/claim", json=bad).status_code,
    }
    assert got == {
        "shares, no credential": 401,
        "shares, stranger": 404,
        "claim, no credential": 401,
    }
