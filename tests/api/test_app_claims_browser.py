"""Sharing and claims in the web app (issue 24), in a real headless Chromium on PostgreSQL, at
390×844: an anonymous Num Wars sheet then claimed after sign-up, binding the player chosen
(a player another account holds refused in French under its field); a sheet shared with a
named account, who opens it by its link and confirms it; the forgotten password through a real
local SMTP server (aiosmtpd), its emailed link opened; axe-core on the new screens in both
languages. The round screen shows one player's cards at a time (a disclosure each).

The fixtures are tests/api/test_app_browser.py's (`served`, `browser`, `Screen`)."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api.web.routes import DIST
from tests.accounts.conftest import Inbox
from tests.api.serving import free_port, serve
from tests.api.test_app_browser import (
    PASSWORD,
    Screen,
    add_cards,
    browser,  # noqa: F401 (a fixture)
    browser_path,  # noqa: F401 (a fixture)
    served,  # noqa: F401 (a fixture)
)
from tests.pg import FAST_HASHES


def new_account(base: str, **fields: Any) -> dict[str, Any]:
    """An account signed up through the API (its answer: `pseudo`, `token` …)."""
    body = {
        "pseudo": f"p_{secrets.token_hex(4)}",
        "password": PASSWORD,
        "age_range": "25-34",
        "accept_terms": True,
        **fields,
    }
    answer = httpx.post(f"{base}/v1/accounts", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def log_in(screen: Screen, account: dict[str, Any]) -> None:
    """The browser context holds the account's session, as the app keeps it after a log-in."""
    screen.goto("/")
    session = json.dumps({"token": account["token"], "pseudo": account["pseudo"]})
    screen.page.evaluate("(s) => localStorage.setItem('numrules.session', s)", session)


def read_sheet(base: str, sheet_id: str, token: str) -> dict[str, Any]:
    answer = httpx.get(
        f"{base}/v1/scoresheets/{sheet_id}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    sheet: dict[str, Any] = answer.json()
    return sheet


def test_an_anonymous_sheet_is_claimed_after_sign_up_with_the_chosen_player(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    for i, name in enumerate(["Ana", "Ben", "Cid"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    sheet_id = page.url.rsplit("/", 1)[1]

    # the round shows one player's cards at a time: the others are one line each
    ana, ben = (page.get_by_role("group", name=n, exact=True) for n in ("Ana", "Ben"))
    expect(ana.get_by_role("button", name="Cartes prises par Ana (0 carte)")).to_have_attribute(
        "aria-expanded", "true"
    )
    expect(ben.get_by_label("TYPE DE CARTE")).to_have_count(0)
    add_cards(page, "Ana", "classic", 5, 3)
    expect(ana.get_by_role("list")).to_contain_text("Classique 5 ×3")  # not « 3 × 5 »
    add_cards(page, "Ben", "pair", 7)  # opening Ben's cards closes Ana's
    expect(ana.get_by_label("TYPE DE CARTE")).to_have_count(0)
    expect(ana).to_contain_text("Classique 5 ×3")  # Ana's collapsed line
    expect(ana.get_by_role("button", name="Cartes prises par Ana (3 cartes)")).to_have_attribute(
        "aria-expanded", "false"
    )
    page.get_by_label("Qui a eu la Bombe ?").select_option(label="Cid")
    expect(page.locator('.scores li[data-seat="2"]')).to_be_visible()
    heights = page.evaluate(
        """() => [...document.querySelectorAll("fieldset.player")].map(
            (f) => f.getBoundingClientRect().height)"""
    )
    assert heights[0] < 200 and heights[2] < 200, heights  # Ana's and Cid's: one line each
    round_height = page.locator("main > section").first.bounding_box()["height"]
    assert round_height < 1400, f"the round is {round_height} px tall on a phone"
    screen.axe("manche 1, joueurs repliés")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Manche 2", level=2)
    token = page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))")[sheet_id]

    # sign up: « Bienvenue ! » offers the device's sheet to the new account
    pseudo = f"ben_{secrets.token_hex(3)}"
    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    page.get_by_label("Pseudo", exact=True).fill(pseudo)
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_label("Ta tranche d'âge").select_option("25-34")
    page.get_by_role("checkbox", name="conditions d'utilisation").check()
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    screen.heading("Bienvenue !")
    offer = page.get_by_role("form", name="Feuille d’Ana, Ben, Cid")
    expect(offer).to_be_visible()
    screen.axe("bienvenue, feuille à enregistrer")

    # meanwhile Ben's player is named as another account (with the sheet's token): 409
    other = new_account(served)
    shared = httpx.post(
        f"{served}/v1/scoresheets/{sheet_id}/shares",
        json={"player": 1, "account": other["pseudo"]},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert shared.status_code == 200, shared.text
    offer.get_by_label("Quel joueur es-tu ?").select_option(label="Ben")
    offer.get_by_role("button", name="Enregistrer dans mon compte").click()
    refused = offer.get_by_label("Quel joueur es-tu ?")
    expect(refused).to_have_attribute("aria-invalid", "true")
    expect(offer.locator(".field-error")).to_have_text(
        "Ben est déjà lié à un autre compte : choisis ton joueur."
    )
    screen.axe("bienvenue, joueur déjà lié")
    refused.select_option(label="Ana")
    offer.get_by_role("button", name="Enregistrer dans mon compte").click()
    expect(page.get_by_role("status")).to_contain_text("Feuille enregistrée dans ton compte.")
    assert page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))") == {}
    page.get_by_role("button", name="Ouvrir la feuille").click()
    screen.heading("Manche 2", level=2)  # opened with the account's session now
    # a device still holding the claimed sheet's token (it edits no more) reads it by the session
    stale = json.dumps({sheet_id: token})
    page.evaluate("(s) => localStorage.setItem('numrules.sheets', s)", stale)
    page.reload()
    screen.heading("Manche 2", level=2)
    assert page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))") == {}

    session = page.evaluate("JSON.parse(localStorage.getItem('numrules.session'))")
    sheet = read_sheet(served, sheet_id, session["token"])
    assert sheet["owner"] == pseudo
    assert [(p["account"], p["confirmed"]) for p in sheet["players"]] == [
        (pseudo, True),
        (other["pseudo"], False),
        (None, False),
    ]
    history = httpx.get(
        f"{served}/v1/me/history",
        headers={"Authorization": f"Bearer {session['token']}"},
        timeout=10,
    ).json()["items"]
    assert [item["id"] for item in history] == [sheet_id]
    # the refused claim, and the stale token's read
    screen.errors = [e for e in screen.errors if not re.search("status of (409|401)", e)]
    screen.close()


def test_a_shared_sheet_is_confirmed_by_the_named_account(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    from playwright.sync_api import expect

    owner, pal = new_account(served), new_account(served)
    created = httpx.post(
        f"{served}/v1/scoresheets",
        json={"ruleset": "numwars", "players": [{"name": n} for n in ("Ada", "Bo", "Cy")]},
        headers={"Authorization": f"Bearer {owner['token']}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    sheet_id = created.json()["id"]

    mine = Screen(browser, served, "fr-FR")
    log_in(mine, owner)
    mine.goto(f"/feuilles/{sheet_id}")
    mine.heading("Manche 1", level=2)
    panel = mine.page.get_by_role("region", name="Partager la feuille")
    expect(panel).to_contain_text(f"/feuilles/{sheet_id}")  # the link to give
    panel.get_by_label("Joueur", exact=True).select_option(label="Bo")
    panel.get_by_label("Pseudo du compte").fill("nobody_here")
    panel.get_by_role("button", name="Partager", exact=True).click()
    account = panel.get_by_label("Pseudo du compte")
    expect(account).to_have_attribute("aria-invalid", "true")
    expect(panel.locator(".field-error")).to_contain_text("Aucun compte n’a le pseudo")
    mine.axe("partage, pseudo inconnu")
    account.fill(pal["pseudo"])
    panel.get_by_role("button", name="Partager", exact=True).click()
    expect(panel.get_by_role("status")).to_have_text(f"Bo : partagée avec {pal['pseudo']}.")
    expect(panel.get_by_role("listitem")).to_have_text(  # a sentence (app_polish)
        f"Bo est joué par le compte {pal['pseudo']}, qui n’a pas encore confirmé la feuille."
    )
    mine.axe("partage")
    mine.page.get_by_role("button", name="English").click()
    english = mine.page.get_by_role("region", name="Share the sheet")
    expect(english.get_by_role("listitem")).to_have_text(
        f"Bo is played by the account {pal['pseudo']}, who has not confirmed the sheet yet."
    )
    mine.axe("share")

    # the named account opens the sheet by its link and confirms it
    theirs = Screen(browser, served, "en-US")
    log_in(theirs, pal)
    theirs.goto(f"/sheets/{sheet_id}")
    theirs.heading("A sheet shared with you", level=2)
    expect(theirs.page.get_by_text(f"{owner['pseudo']} named you on this sheet.")).to_be_visible()
    expect(theirs.page.get_by_role("button", name="Save the round")).to_have_count(0)
    theirs.axe("shared sheet")
    theirs.page.get_by_role("button", name="Confirm the sheet", exact=True).click()
    expect(theirs.page.get_by_role("status")).to_have_text(
        "Sheet confirmed: it counts in your stats."
    )
    theirs.page.get_by_role("button", name="Français").click()
    expect(theirs.page.get_by_role("heading", level=2).first).to_have_text(
        "Feuille partagée avec toi"
    )
    expect(theirs.page.get_by_role("status")).to_have_text(
        "Feuille confirmée : elle compte dans tes stats."
    )
    theirs.axe("feuille partagée")
    sheet = read_sheet(served, sheet_id, pal["token"])
    assert [(p["account"], p["confirmed"]) for p in sheet["players"]] == [
        (None, False),
        (pal["pseudo"], True),
        (None, False),
    ]
    mine.page.reload()
    expect(
        mine.page.get_by_role("region", name="Share the sheet").get_by_role("listitem")
    ).to_have_text(f"Bo is played by the account {pal['pseudo']}, who confirmed the sheet.")
    theirs.close()
    mine.errors = [e for e in mine.errors if "status of 422" not in e]  # the unknown pseudo
    mine.close()


@pytest.fixture(scope="module")
def mail_served(pg_head: str) -> Iterator[tuple[str, Inbox]]:
    """The app sending its emails to a real SMTP server (aiosmtpd on 127.0.0.1), their links
    to the app's own address."""
    from aiosmtpd.controller import Controller

    from api.app import create_app
    from api.ops.settings import Settings

    if not (DIST / "index.html").is_file():
        pytest.fail("the web app is not built: run `bash deploy/ensure-app.sh`")
    inbox = Inbox()
    smtp_port, web_port = free_port(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    settings = Settings(
        database_url=pg_head,
        smtp_host="127.0.0.1",
        smtp_port=smtp_port,
        smtp_from="numrules <no-reply@numrules.test>",
        app_url=f"http://127.0.0.1:{web_port}",
        login_max_failures_per_address=100_000,
        **FAST_HASHES,
    )
    try:
        with serve(create_app(settings), port=web_port) as (host, port):
            yield f"http://{host}:{port}", inbox
    finally:
        controller.stop()


def emailed_link(inbox: Inbox, address: str, subject: str) -> str:
    """The link of the last email to `address` whose subject holds `subject`."""
    found = inbox.to(address, subject)
    assert found, f"no email {subject!r} to {address}: {[m['Subject'] for m in inbox.messages]}"
    body = found[-1].get_payload(decode=True)
    assert isinstance(body, bytes)
    match = re.search(r"https?://\S+\?token=[A-Za-z0-9_-]+", body.decode())
    assert match, body
    return match.group(0)


def test_a_forgotten_password_through_the_real_smtp_server(
    browser: Any,  # noqa: F811
    mail_served: tuple[str, Inbox],
) -> None:
    """« Mot de passe oublié ? » → the email sent by SMTP → its link opened → a new password
    → log in with it (the email verified first by its own emailed link: only a verified email
    receives a reset)."""
    from playwright.sync_api import expect

    base, inbox = mail_served
    address = f"{secrets.token_hex(4)}@numrules.test"
    account = new_account(base, email=address, locale="fr")
    screen = Screen(browser, base, "fr-FR")
    page = screen.page
    verify = emailed_link(inbox, address, "")
    assert verify.startswith(f"{base}/verify-email?token="), verify
    page.goto(verify)
    screen.heading("Vérification de l’email")
    expect(page.get_by_role("status")).to_have_text("Email vérifié : tu peux te connecter avec.")

    screen.goto("/connexion")
    screen.heading("Connexion")
    page.get_by_role("link", name="Mot de passe oublié ?").click()
    screen.heading("Mot de passe oublié")
    page.get_by_label("Email ou pseudo", exact=True).fill(address)
    page.get_by_role("button", name="Envoyer le lien", exact=True).click()
    expect(page.get_by_role("status")).not_to_be_empty()
    screen.axe("mot de passe oublié, lien envoyé")
    deadline = time.monotonic() + 10
    while len(inbox.to(address, "", timeout=0)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    reset = emailed_link(inbox, address, "")
    assert reset.startswith(f"{base}/reset-password?token="), reset
    assert reset != verify

    page.goto(reset)
    screen.heading("Nouveau mot de passe")
    new_password = "a brand new password"
    page.get_by_label("Nouveau mot de passe", exact=True).fill(new_password)
    page.get_by_role("button", name="Changer le mot de passe", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Mot de passe changé")
    screen.axe("nouveau mot de passe enregistré")
    page.get_by_role("status").get_by_role("link", name="Connexion").click()
    screen.heading("Connexion")
    page.get_by_label("Email ou pseudo", exact=True).fill(address)
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)  # the old one: refused
    page.get_by_role("main").get_by_role("button", name="Connexion", exact=True).click()
    expect(page.get_by_role("alert")).to_be_visible()
    page.get_by_label("Mot de passe", exact=True).fill(new_password)
    page.get_by_role("main").get_by_role("button", name="Connexion", exact=True).click()
    screen.heading(f"Connecté : {account['pseudo']}")
    screen.errors = [e for e in screen.errors if "status of 401" not in e]  # the old password
    screen.close()
