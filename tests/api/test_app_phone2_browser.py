"""A French player's second phone test of « Jouer en ligne » and « Tables ouvertes », in a real
headless Chromium (390×844, French), served on PostgreSQL:

- logged in, the online game form names the first player by the account's pseudo (as the score
  sheet's form does), and « Mon compte » says « Pseudo : … » from the message table;
- a game created with an open seat takes its creator straight to their seat's waiting room
  (« En attente de joueurs »), which turns into the play screen when someone joins;
- an unnamed open seat reads « Place 2 » and its button « Rejoindre la place 2 »;
- « Tables ouvertes » with no table links to « Créer une table »;
- a game against bots only says so on its links screen and offers only « Jouer en ligne ».
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_tables_browser import logged_in, sign_up
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"


def test_an_open_seat_game_goes_to_the_waiting_room(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    ada_pseudo, ada_session = sign_up(served, "ada", "fr")
    bo_pseudo, bo_session = sign_up(served, "bo", "fr")
    ada = logged_in(browser, served, "fr-FR", ada_pseudo, ada_session)
    page = ada.page

    ada.goto("/compte")
    ada.heading("Mon compte")
    expect(page.get_by_text(f"Pseudo{NBSP}: {ada_pseudo}", exact=True)).to_be_visible()

    ada.goto("/parties/nouvelle")
    ada.heading("Nouvelle partie en ligne")
    expect(page.get_by_label("Joueur 1", exact=True)).to_have_value(ada_pseudo)
    page.get_by_label(f"Place 2{NBSP}: qui joue{NBSP}?", exact=True).select_option("open")
    for seat in (3, 4):
        page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True).select_option("basic")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    ada.heading("En attente de joueurs")  # no seat links screen on the way
    assert urlsplit(page.url).fragment.startswith("jeton=")
    expect(page.get_by_text(f"Places libres{NBSP}: Place 2", exact=True)).to_be_visible()
    ada.axe("salle d’attente à la création")

    bo = logged_in(browser, served, "fr-FR", bo_pseudo, bo_session)
    bo.goto("/tables")
    bo.heading("Tables ouvertes")
    table = bo.page.locator("ul.links > li").filter(
        has=bo.page.get_by_text(f"Joueurs{NBSP}: {ada_pseudo}, Robot 3, Robot 4", exact=True)
    )
    expect(table).to_have_count(1)
    expect(table.get_by_text(f"Places libres{NBSP}: Place 2", exact=True)).to_be_visible()
    join = table.get_by_role("button", name="Rejoindre la place 2", exact=True)
    expect(join).to_be_visible()
    join.click()
    bo.heading("Partie en ligne — manche 1")
    # the creator's waiting room followed the start: their seat, their clock
    ada.heading("Partie en ligne — manche 1")
    own = re.compile(rf"^Tu joues la place (de |d’){re.escape(ada_pseudo)}\.$")
    expect(page.get_by_text(own)).to_be_visible()
    ada.close()
    bo.close()


def test_no_open_table_links_to_the_new_game(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    # the run's database holds other tables: the list is answered empty here
    page.route(
        re.compile(r"/v1/games\?status=open"),
        lambda route: route.fulfill(json={"items": [], "next_cursor": None}),
    )
    screen.goto("/tables")
    screen.heading("Tables ouvertes")
    expect(page.get_by_text("Aucune table ouverte pour l’instant.", exact=True)).to_be_visible()
    page.get_by_role("main").get_by_role("link", name="Créer une table", exact=True).click()
    screen.heading("Nouvelle partie en ligne")
    screen.close()


def test_a_game_against_bots_only_offers_to_play(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Ada")
    for seat in (2, 3, 4):
        page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True).select_option(
            "random"
        )
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    # no link to send: no word of links at all (« Les liens des places », « aucun lien »)
    screen.heading("Ta partie est prête")
    expect(
        page.get_by_text(f"Tu joues contre des robots{NBSP}: la partie t’attend.", exact=True)
    ).to_be_visible()
    expect(page.get_by_text("Les liens des places", exact=False)).to_have_count(0)
    expect(page.get_by_text("aucun lien", exact=False)).to_have_count(0)
    expect(page.get_by_text("Envoie à chaque joueur", exact=False)).to_have_count(0)
    expect(page.locator("ul.links")).to_have_count(0)
    screen.axe("partie contre des robots")
    page.get_by_role("main").get_by_role("link", name="Jouer en ligne", exact=True).click()
    screen.heading("Partie en ligne — manche 1")
    screen.close()
