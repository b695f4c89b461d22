"""What a French player on a phone found (ux24), in the app: the account's own player chosen by
« C’est moi » whatever its name (and the sheet then in its history); a finished sheet the
account plays no player of is neither « Gagnée » nor « Perdue »; the rules screen offers the
four rulesets by their catalogue names; French « de » elided before a vowel."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_claims_browser import log_in, new_account, read_sheet
from tests.api.test_app_journey_browser import ROUNDS
from tests.api.test_docs_browser import browser_path  # noqa: F401


def test_its_me_binds_the_account_whatever_the_name(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    account = new_account(served)
    pseudo, token = account["pseudo"], account["token"]
    auth = {"Authorization": f"Bearer {token}"}
    # a finished sheet the account owns but plays no player of
    made = httpx.post(
        f"{served}/v1/scoresheets",
        json={
            "ruleset": "numwars",
            "planned_rounds": 1,
            "players": [{"name": n} for n in ["Xa", "Xb", "Xc", "Xd"]],
        },
        headers=auth,
        timeout=10,
    )
    assert made.status_code == 201, made.text
    other = made.json()["id"]
    added = httpx.post(
        f"{served}/v1/scoresheets/{other}/rounds", json=ROUNDS[0]["body"], headers=auth, timeout=10
    )
    assert added.status_code == 201, added.text
    assert read_sheet(served, other, token)["finished"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    log_in(screen, account)
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    first = page.get_by_label("Joueur 1", exact=True)
    expect(first).to_have_value(pseudo)
    expect(page.get_by_role("radio", name=f"C’est moi : {pseudo}", exact=True)).to_be_checked()
    first.fill("Amélie")  # another name: still the account's player
    me = page.get_by_role("radio", name="C’est moi : Amélie", exact=True)
    expect(me).to_be_checked()
    page.get_by_label("Joueur 2", exact=True).fill("Bruno")
    page.get_by_label("Joueur 3", exact=True).fill("Émile")
    screen.axe("c'est moi")
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    sheet_id = page.url.rsplit("/", 1)[1]
    sheet = read_sheet(served, sheet_id, token)
    assert [p["name"] for p in sheet["players"]] == ["Amélie", "Bruno", "Émile"]
    assert [p.get("account") for p in sheet["players"]] == [pseudo, None, None]

    screen.goto("/historique")
    screen.heading("Historique")
    items = page.locator("ol.history > li")
    expect(items).to_have_count(2)
    mine = page.locator(f'ol.history > li[data-id="{sheet_id}"]')
    expect(mine).to_contain_text("En cours")
    unplayed = page.locator(f'ol.history > li[data-id="{other}"]')
    expect(unplayed).to_contain_text("Terminée")
    expect(unplayed).not_to_contain_text("Perdue")
    expect(unplayed).not_to_contain_text("Gagnée")
    screen.axe("historique sans joueur du compte")
    screen.close()


def test_the_rules_screen_offers_the_four_rulesets(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    catalogue = httpx.get(
        f"{served}/v1/rulesets", headers={"Accept-Language": "fr"}, timeout=10
    ).json()["rulesets"]
    assert len(catalogue) == 4
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/")
    page.get_by_role("navigation").get_by_role("link", name="Règles de Calcul", exact=True).click()
    screen.heading("Règles de Calcul")
    games = page.get_by_role("navigation", name="Les jeux", exact=True)
    expect(games.get_by_role("listitem")).to_have_count(4)
    numwars = next(r for r in catalogue if r["id"] == "numwars")
    expect(games.locator('[aria-current="page"]')).to_have_text(numwars["name"])
    for ruleset in catalogue:
        if ruleset["id"] == "numwars":
            continue
        games.get_by_role("link", name=ruleset["name"], exact=True).click()
        expect(page.get_by_role("heading", level=2)).to_have_text(ruleset["name"])
        expect(games.locator('[aria-current="page"]')).to_have_text(ruleset["name"])
        assert page.url.endswith(f"/regles/{ruleset['id']}")
    screen.axe("règles, les quatre jeux")
    screen.close()
