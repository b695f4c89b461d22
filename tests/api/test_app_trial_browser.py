"""What a French player found on a phone (the trial), in headless Chromium on PostgreSQL.

A 3-player Num Wars sheet never offers the Joker (the deck answer's `out_of_play`: with 3
players the Joker is the set-aside card, which `score-round` refuses), a 4-player one does; a
card tapped out of turn is refused in the app's words, naming who is to play as the table
names them (« Ce n’est pas ton tour : c’est à Léo de jouer. », never the API's « la place 0 »),
and that refusal goes once the game moves on; an unknown game says so in the app's words,
without its id. The fixtures are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import act, at_version, game_as, new_game
from tests.api.test_app_sheets_browser import a_sheet_of_three, new_sheet
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"
#: « TYPE DE CARTE »'s options of a Num Wars sheet, in French.
TYPES = [
    "Classique (couleur)",
    "Rainbow",
    "Shadow",
    "Paire d’atouts (Rainbow + Shadow)",
    "Joker",
    "Num-X",
    "Quantique",
]


def test_a_three_player_num_wars_sheet_offers_no_joker(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    a_sheet_of_three(screen)
    kinds = page.get_by_label("TYPE DE CARTE", exact=True)
    # once the deck's answer came: its `out_of_play` (the Joker) is never offered
    expect(kinds.locator("option")).to_have_text([kind for kind in TYPES if kind != "Joker"])
    deck = httpx.get(f"{served}/v1/rulesets/numwars/deck", params={"players": 3}, timeout=10)
    assert deck.json()["out_of_play"] == ["joker"]
    screen.axe("feuille à trois, sans Joker")
    # four players: the Joker is a role card in play, offered
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num Wars", ["Ada", "Bo", "Cy", "Dee"], None)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    expect(kinds.locator("option")).to_have_text(TYPES)
    assert not screen.errors, screen.errors
    screen.close()


def test_a_card_played_out_of_turn_names_who_plays(browser: Any, served: str) -> None:  # noqa: F811
    """The refusal names who is to play, and goes once the game moves on (the turn comes)."""
    from playwright.sync_api import expect

    names = ["Ada", "Léo", "Cy", "Dee"]
    game_id, tokens = new_game(served, "numwars", names, seed=2026)
    state = game_as(served, game_id, None)
    (leader,) = state["view"]["actors"]
    seat = (leader + 1) % len(names)  # the next to play, clockwise
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[seat]}")
    screen.heading("Partie en ligne — manche 1")
    at_version(screen, state["version"])
    page.locator("ul.hand button").first.click()
    said = f"Ce n’est pas ton tour{NBSP}: c’est à {names[leader]} de jouer."
    refusal = page.get_by_role("alert").filter(has_text="pas ton tour")
    expect(refusal).to_have_text(said)
    expect(page.get_by_text("place 0", exact=False)).to_have_count(0)
    screen.axe("pas ton tour")
    # the leader plays (over HTTP): the page's seat is to play, the refusal is gone
    own = game_as(served, game_id, tokens[leader])["view"]
    answer = act(served, game_id, tokens[leader], own["legal_actions"][0])
    assert answer.status_code == 200, answer.text
    at_version(screen, answer.json()["version"])
    expect(page.get_by_role("status").filter(has_text="À toi de jouer")).to_be_visible()
    expect(refusal).to_have_count(0)
    screen.errors = [e for e in screen.errors if "status of 409" not in e]  # Chromium's log
    screen.close()


def test_an_unknown_game_is_said_in_the_apps_words(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    unknown = "0" * 32
    for locale, title, words in [
        ("fr-FR", "Partie introuvable", "Cette partie n’existe pas (ou plus)."),
        ("en-GB", "Game not found", "This game does not exist (or no longer does)."),
    ]:
        screen = Screen(browser, served, locale)
        page = screen.page
        screen.goto(f"/parties/{unknown}")
        screen.heading(title)
        expect(page.get_by_role("alert")).to_have_text(words)
        assert unknown not in page.evaluate("document.body.innerText")
        screen.axe("partie inconnue")
        screen.errors = [e for e in screen.errors if "status of 404" not in e]  # Chromium's log
        screen.close()
