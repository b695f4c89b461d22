"""Score sheets' refusals in English and French (issue 23), each problem code from a request
of its own (tests/languages.py checks both answers), on the run's PostgreSQL database."""

from __future__ import annotations

from typing import Any

import pytest

from tests.languages import Case, check_both
from tests.sheets.conftest import Accounts, versioned
from tests.sheets.test_sheets import ROUND_A, ROUND_B, bearer, create, king


def _classic(client: Any, **fields: Any) -> tuple[str, dict[str, str]]:
    body = {"ruleset": "numwars-classic", "players": [{"name": n} for n in "ABC"], **fields}
    sheet = create(client, body)
    return f"/v1/scoresheets/{sheet['id']}", bearer(sheet["token"])


def _numking(client: Any, accounts: Accounts) -> tuple[str, dict[str, str]]:
    owner = accounts.new()
    body = {"ruleset": "numking", "players": [{"name": n} for n in "ABC"]}
    sheet = create(client, body, owner)
    return f"/v1/scoresheets/{sheet['id']}", owner.auth


def cases(accounts: Accounts) -> dict[str, Case]:
    def sheet_finished(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _classic(client, planned_rounds=1, options={"tiebreak": False})
        assert client.post(f"{url}/rounds", json=ROUND_A, headers=auth).status_code == 201
        return client.post(f"{url}/rounds", json=ROUND_B, headers={**auth, **headers})

    def cards_mismatch(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _numking(client, accounts)
        body = king((0, 0), (0, 0), (0, 0), cards=3)
        return client.post(f"{url}/rounds", json=body, headers={**auth, **headers})

    def streak_mismatch(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _numking(client, accounts)
        body = king((0, 0), (0, 0), (0, 0))
        body["players"][0]["streak"] = 1
        return client.post(f"{url}/rounds", json=body, headers={**auth, **headers})

    def options_mismatch(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _classic(client, options={"tiebreak": False})
        body = {**ROUND_A, "options": {"tiebreak": True}}
        return client.post(f"{url}/rounds", json=body, headers={**auth, **headers})

    def if_match_required(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _classic(client)
        assert client.post(f"{url}/rounds", json=ROUND_A, headers=auth).status_code == 201
        return client.put(f"{url}/rounds/1", json=ROUND_B, headers={**auth, **headers})

    def version_mismatch(client: Any, headers: dict[str, str]) -> Any:
        url, auth = _classic(client)
        assert client.post(f"{url}/rounds", json=ROUND_A, headers=auth).status_code == 201
        moved = {**auth, "If-Match": '"99"', **headers}
        return client.put(f"{url}/rounds/1", json=ROUND_B, headers=moved)

    def unknown_account(client: Any, headers: dict[str, str]) -> Any:
        players = [{"name": "A", "account": "nobody_has_this"}, {"name": "B"}, {"name": "C"}]
        body = {"ruleset": "numwars-classic", "players": players}
        return client.post("/v1/scoresheets", json=body, headers=headers)

    def duplicate_account(client: Any, headers: dict[str, str]) -> Any:
        pseudo = accounts.new().pseudo
        players = [{"name": "A", "account": pseudo}, {"name": "B", "account": pseudo}]
        body = {"ruleset": "numwars-classic", "players": [*players, {"name": "C"}]}
        return client.post("/v1/scoresheets", json=body, headers=headers)

    def not_owner(client: Any, headers: dict[str, str]) -> Any:
        named = accounts.new()
        players = [{"name": "A", "account": named.pseudo}, {"name": "B"}, {"name": "C"}]
        sheet = create(client, {"ruleset": "numwars-classic", "players": players}, accounts.new())
        url = f"/v1/scoresheets/{sheet['id']}"
        return client.post(f"{url}/rounds", json=ROUND_A, headers={**named.auth, **headers})

    def not_found(client: Any, headers: dict[str, str]) -> Any:
        return client.get("/v1/scoresheets/" + "0" * 32, headers=headers)

    def player_bound(client: Any, headers: dict[str, str]) -> Any:
        """A sheet made without an account, its player 0 named for one account, claimed as
        player 0 by another."""
        named = accounts.new()
        players = [{"name": "A", "account": named.pseudo}, {"name": "B"}, {"name": "C"}]
        url, auth = _classic(client, players=players)
        claimer = accounts.new()
        body = {"token": auth["Authorization"].removeprefix("Bearer "), "player": 0}
        return client.post(f"{url}/claim", json=body, headers={**claimer.auth, **headers})

    def round_no_longer_scores(client: Any, headers: dict[str, str]) -> Any:
        """Round 2 of a numking sheet (2 cards, 2 tricks taken) renumbered round 1 (1 card) by
        the deletion of round 1: it no longer scores."""
        url, auth = _numking(client, accounts)
        for body in (king((1, 1), (0, 0), (0, 0)), king((1, 1), (1, 1), (0, 0))):
            added = client.post(f"{url}/rounds", json=body, headers=auth)
            assert added.status_code == 201, added.text
        return client.delete(f"{url}/rounds/1", headers={**versioned(client, url, auth), **headers})

    return {
        "sheet-finished": sheet_finished,
        "cards-mismatch": cards_mismatch,
        "streak-mismatch": streak_mismatch,
        "options-mismatch": options_mismatch,
        "if-match-required": if_match_required,
        "version-mismatch": version_mismatch,
        "unknown-account": unknown_account,
        "duplicate-account": duplicate_account,
        "not-owner": not_owner,
        "not-found": not_found,
        "player-bound": player_bound,
        "round-no-longer-scores": round_no_longer_scores,
    }


#: The codes tested here (tests/api/test_languages.py reads them).
CODES = sorted(cases(Accounts(None, "")))


@pytest.mark.parametrize("code", CODES)
def test_a_sheet_refusal_in_english_and_in_french(
    client: Any, accounts: Accounts, code: str
) -> None:
    check_both(client, code, cases(accounts)[code])
