"""A seat's page whose token is revoked while it is open (the account that claimed the seat
set a new password: api/accounts `revoke_seat_tokens`), in a real headless Chromium.

The page showed the seat's hand through the token of its link. Once the token is revoked, the
seat's event stream ends (its check of the token that holds the seat, api/games/routes.py),
the page's next read is refused (401), and the page forgets the token (the device's memory of
it and the address bar's fragment) without asking stream tickets with it again, and says why. Without a
session on the page it goes on as a spectator, also once reloaded; with the account's session
(the one that set the new password) it goes on as the seat, through the session.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from api.games import routes
from tests.accounts.conftest import account_body, auth
from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import card_in_hand
from tests.api.test_docs_browser import browser_path  # noqa: F401

STORED = "localStorage.getItem('numrules.games') || ''"


def _signed_up(client: httpx.Client) -> tuple[dict[str, str], dict[str, Any]]:
    body = account_body()
    answer = client.post("/v1/accounts", json=body)
    assert answer.status_code == 201, answer.text
    return auth(answer.json()["token"]), body


@pytest.mark.parametrize("with_session", [False, True], ids=["spectator", "session"])
def test_a_seat_page_whose_token_is_revoked_goes_on_without_it(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    with_session: bool,
) -> None:
    from playwright.sync_api import expect

    monkeypatch.setattr(routes, "KEEP_ALIVE_SECONDS", 0.5)  # the served app runs in this process
    monkeypatch.setattr(routes, "HOLDER_CHECK_SECONDS", 0.5)
    with httpx.Client(base_url=served, timeout=10) as client:
        creator, _ = _signed_up(client)
        players = [{"name": "Ada"}, {"open": True}, {"open": True}]
        body = {"ruleset": "numwars-classic", "players": players}
        created = client.post("/v1/games", json=body, headers=creator)
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        pat, pats = _signed_up(client)
        claimed = client.post(f"/v1/games/{game_id}/seats/1/claim", headers=pat)
        assert claimed.status_code == 201, claimed.text
        token = claimed.json()["token"]
        other, _ = _signed_up(client)
        started = client.post(f"/v1/games/{game_id}/seats/2/claim", headers=other)
        assert started.json()["status"] == "active", started.text
        hand = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()["view"]["hand"]
        login = {"login": pats["pseudo"], "password": pats["password"]}
        second = client.post("/v1/sessions", json=login)
        assert second.status_code == 201, second.text
        session = second.json()["token"]  # the page's, when it has one: it sets the password

        screen = Screen(browser, served, "fr-FR")
        page = screen.page
        if with_session:
            remembered = json.dumps({"token": session, "pseudo": pats["pseudo"]})
            page.add_init_script(f"localStorage.setItem('numrules.session', {remembered!r})")
        try:
            page.goto(f"{served}/parties/{game_id}#jeton={token}")
            expect(card_in_hand(page, hand[0], "fr")).to_be_visible(timeout=20_000)
            assert token in page.evaluate(STORED)
            refused: list[str] = []  # tickets asked with the dead token
            page.on(
                "response",
                lambda r: (
                    refused.append(r.url) if "stream-tickets" in r.url and r.status == 401 else None
                ),
            )
            new = {"current": pats["password"], "new": "another long password"}
            changed = client.post("/v1/me/password", json=new, headers=auth(session))
            assert changed.status_code == 204, changed.text
            assert client.get(f"/v1/games/{game_id}", headers=auth(token)).status_code == 401

            page.wait_for_function(f"!({STORED}).includes({json.dumps(token)})", timeout=20_000)
            assert "jeton" not in page.url
            notice = page.locator("p.notice.revoked")  # why the link stopped working
            expect(notice).to_contain_text("Le lien de cette place ne marche plus")
            if with_session:  # the seat still, through the session
                expect(card_in_hand(page, hand[0], "fr")).to_be_visible(timeout=20_000)
                expect(notice).to_contain_text("La page continue avec ton compte.")
            else:
                expect(page.locator("ul.hand")).to_have_count(0, timeout=20_000)
                expect(page.get_by_text("Ada", exact=False).first).to_be_visible()
                expect(notice).to_contain_text("connecte-toi pour la reprendre")
            page.wait_for_timeout(3_000)  # no loop asking tickets with the dead token
            assert len(refused) <= 1, refused
            page.reload()
            if with_session:
                expect(card_in_hand(page, hand[0], "fr")).to_be_visible(timeout=20_000)
            else:
                expect(page.get_by_text("Ada", exact=False).first).to_be_visible(timeout=20_000)
                expect(page.locator("ul.hand")).to_have_count(0)
            assert all("401" in e for e in screen.errors), screen.errors
        finally:
            screen.context.close()
