"""Issue 24's finishing polish, in a real headless Chromium on a phone-sized viewport: the
seats' links screen offers the creator « Jouer en ligne » / "Play online" (the menu's words),
which opens the game at their own seat (the first: its link's token); « Historique » lists
the sheets by their last change, newest first, each « modifiée le … » that change's date.
axe-core on each screen (no serious or critical violation)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_claims_browser import log_in, new_account, read_sheet
from tests.api.test_app_journey_browser import ROUNDS
from tests.api.test_docs_browser import browser_path  # noqa: F401

WORDS = {
    "fr-FR": {
        "menu": "Jouer en ligne",
        "new": "Nouvelle partie en ligne",
        "player": "Joueur",
        "create": "Créer la partie",
        "links": "Les liens des places",
        "link": "Lien d’Ada",
        "own": "Tu joues la place d’Ada.",
        "game": "Partie en ligne — manche 1",
    },
    "en-GB": {
        "menu": "Play online",
        "new": "New online game",
        "player": "Player",
        "create": "Create the game",
        "links": "The seats' links",
        "link": "Ada's link",
        "own": "You play Ada's seat.",
        "game": "Online game — round 1",
    },
}


def test_play_online_opens_the_creators_own_seat(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    for locale, words in WORDS.items():
        screen = Screen(browser, served, locale)
        page = screen.page
        screen.goto("/")
        page.get_by_role("navigation").get_by_role("link", name=words["menu"], exact=True).click()
        screen.heading(words["new"])
        for i, name in enumerate(["Ada", "Bo", "Cy", "Dee"]):
            page.get_by_label(f"{words['player']} {i + 1}", exact=True).fill(name)
        page.get_by_role("button", name=words["create"], exact=True).click()
        screen.heading(words["links"])
        own_link = page.get_by_label(words["link"], exact=True).input_value()
        play = page.get_by_role("main").get_by_role("link", name=words["menu"], exact=True)
        expect(play).to_have_accessible_description(words["own"])
        # the screen's first action, above the seats' links
        assert play.bounding_box()["y"] < page.get_by_label(words["link"]).bounding_box()["y"]
        screen.axe("liens des places, jouer en ligne")
        play.click()
        screen.heading(words["game"])
        expect(page.get_by_text(words["own"], exact=True)).to_be_visible()
        # the own seat's link, token in the fragment only (never sent)
        opened = urlsplit(page.url)
        assert opened.path == urlsplit(own_link).path and opened.query == ""
        assert unquote(opened.fragment) == unquote(urlsplit(own_link).fragment), page.url
        screen.close()


def _sheet(base: str, token: str) -> str:
    made = httpx.post(
        f"{base}/v1/scoresheets",
        json={
            "ruleset": "numwars",
            "planned_rounds": 3,
            "players": [{"name": n} for n in ["Xa", "Xb", "Xc", "Xd"]],
        },
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    sheet_id: str = made.json()["id"]
    return sheet_id


def test_history_lists_sheets_by_their_last_change(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    account = new_account(served)
    token = account["token"]
    older, newer = _sheet(served, token), _sheet(served, token)
    # the older sheet changes last: it comes first
    added = httpx.post(
        f"{served}/v1/scoresheets/{older}/rounds",
        json=ROUNDS[0]["body"],
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert added.status_code == 201, added.text
    listed = httpx.get(
        f"{served}/v1/me/history", headers={"Authorization": f"Bearer {token}"}, timeout=10
    ).json()["items"]
    assert [i["id"] for i in listed] == [older, newer]
    for item in listed:  # `at`: the sheet's last change
        changed = read_sheet(served, item["id"], token)["updated_at"]
        assert datetime.fromisoformat(item["at"]) == datetime.fromisoformat(changed)
    assert listed[0]["at"] > listed[1]["at"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    log_in(screen, account)
    screen.goto("/historique")
    screen.heading("Historique")
    items = page.locator("ol.history > li")
    expect(items).to_have_count(2)
    assert [items.nth(i).get_attribute("data-id") for i in range(2)] == [older, newer]
    first = items.first.get_by_role("link")
    expect(first).to_have_text(
        re.compile(r"^Num Wars, modifiée le \d{1,2} \S+ \d{4} à \d{2}:\d{2}$")
    )
    # the date shown is the last change's, in the page's time zone
    shown = page.evaluate(
        """(at) => new Intl.DateTimeFormat("fr-FR", { dateStyle: "long", timeStyle: "short" })
              .format(new Date(at))""",
        listed[0]["at"],
    )
    expect(first).to_have_text(f"Num Wars, modifiée le {shown}")
    screen.axe("historique, modifiée le")
    screen.close()
