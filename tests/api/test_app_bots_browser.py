"""Bots and hints in the app (issues 24 and 25), in a real headless Chromium on PostgreSQL.

« Jouer en ligne »: the creator keeps the first seat and makes each other seat a person or a
bot of a level the ruleset lists (« Robot — facile / moyen / expert »); the bots' seats get no
link. The game then plays with the server's bots: the creator's page, never reloaded, sees
their moves through the event stream. On each of its turns the test asks « Conseil »: the
suggested card is ringed and described by the hint's words (« Conseil : joue Rouge 7. »), and
it is the action the API suggests; the test plays it. A few turns later, in English ("Hint"),
the same. axe-core on each screen in both languages.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import game_as, label, token_of
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"
LEVELS = {2: "expert", 3: "basic", 4: "random"}
#: Each suit's stripe (style.css): a legal card keeps it (its ring is a shadow, not a border).
STRIPES = {
    "red": "rgb(198, 40, 40)",
    "blue": "rgb(21, 101, 192)",
    "green": "rgb(46, 125, 50)",
    "yellow": "rgb(181, 137, 0)",
    "rainbow": "rgb(106, 27, 154)",
    "shadow": "rgb(33, 33, 33)",
}
WORDS = {
    "fr": {
        "turn": "À toi de jouer !",
        "hint": "Conseil",
        "play": f"Conseil{NBSP}: joue ",
        "pass": f"Conseil{NBSP}: passe ",
    },
    "en": {"turn": "Your turn!", "hint": "Hint", "play": "Hint: play ", "pass": "Hint: pass "},
}


def _one_turn_with_a_hint(screen: Screen, lang: str, base: str, game_id: str, token: str) -> None:
    """On the seat's turn: « Conseil » rings the card the API suggests (described by the
    hint's words), then that card is played and the page moves on."""
    from playwright.sync_api import expect

    page = screen.page
    words = WORDS[lang]
    expect(page.locator("p.turn")).to_have_text(words["turn"], timeout=30_000)
    version = page.locator("section.play").get_attribute("data-version")
    page.get_by_role("button", name=words["hint"], exact=True).click()
    hinted = page.locator("ul.hand button.hinted")
    expect(hinted.first).to_be_visible(timeout=30_000)
    said = page.locator("p.hint-box")
    text = said.text_content() or ""
    assert text.startswith((words["play"], words["pass"])), text
    first = hinted.first
    name = first.text_content() or ""
    assert name and name in text, (name, text)
    description = first.evaluate(
        """(b) => b.getAttribute("aria-describedby").split(" ")
              .map((id) => document.getElementById(id)?.textContent).join(" ")"""
    )
    assert text in description, description
    # the hint is one of the seat's legal actions, as its own view lists them
    view = game_as(base, game_id, token, lang)["view"]
    cards = {label(a["card"], lang) for a in view["legal_actions"] if "card" in a} | {
        label(c, lang) for a in view["legal_actions"] if a["type"] == "exchange" for c in a["cards"]
    }
    assert name in cards, (name, cards)
    stripes = page.evaluate(
        """() => [...document.querySelectorAll("ul.hand button.legal")].map(
              (b) => [b.classList[1], getComputedStyle(b).borderLeftColor])"""
    )
    assert stripes, "no legal card shown"
    for suit, colour in stripes:
        assert suit not in STRIPES or colour == STRIPES[suit], (suit, colour)
    screen.axe(f"conseil {lang}")
    first.click()
    page.wait_for_function(
        "(v) => document.querySelector('section.play')?.dataset.version !== v", arg=version
    )


def _settled(screen: Screen, base: str, game_id: str, token: str) -> dict[str, Any]:
    """The seat's view once it is the seat's turn again and the page shows that version (the
    bots wait for the seat: nothing moves meanwhile)."""
    from playwright.sync_api import expect

    expect(screen.page.locator("p.turn")).to_have_text(WORDS["fr"]["turn"], timeout=30_000)
    for _ in range(50):
        game = game_as(base, game_id, token)
        shown = screen.page.locator("section.play").get_attribute("data-version")
        if shown == str(game["version"]):
            view: dict[str, Any] = game["view"]
            return view
        screen.page.wait_for_timeout(100)
    raise AssertionError("the page never showed the game's version")


def test_a_game_against_bots_with_hints(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Ada")
    expect(page.get_by_label(f"Place 1{NBSP}: qui joue{NBSP}?", exact=True)).to_have_count(0)
    for seat, level in LEVELS.items():
        who = page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True)
        assert who.locator("option").all_inner_texts() == [
            "Humain",
            "Robot — facile",
            "Robot — moyen",
            "Robot — expert",
        ]
        who.select_option(level)
    page.get_by_label("Joueur 4", exact=True).fill("Zed")
    screen.axe("nouvelle partie avec robots")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    # no other person: no link to send, and no word of links
    screen.heading("Ta partie est prête")
    expect(page.locator("ul.links > li")).to_have_count(0)
    expect(
        page.get_by_text(f"Joués par le serveur, sans lien{NBSP}: Robot 2, Robot 3, Zed.")
    ).to_be_visible()
    play = page.get_by_role("main").get_by_role("link", name="Jouer en ligne", exact=True)
    link = served + play.get_attribute("href")
    game_id = link.split("/parties/", 1)[1].split("#", 1)[0]
    token = token_of(link)
    game = game_as(served, game_id, token)
    assert [(p["name"], p.get("bot")) for p in game["players"]] == [
        ("Ada", None),
        ("Robot 2", "expert"),
        ("Robot 3", "basic"),
        ("Zed", "random"),
    ]
    screen.axe("liens, robots")
    play.click()
    screen.heading("Partie en ligne — manche 1")
    expect(page.locator("table")).to_contain_text("robot expert")

    dealt = game_as(served, game_id, token)["view"]["hand_counts"]
    for _ in range(3):
        _one_turn_with_a_hint(screen, "fr", served, game_id, token)
    # the bots answered on their own: fewer cards in their hands, the page told by its stream
    for _ in range(2):
        _one_turn_with_a_hint(screen, "fr", served, game_id, token)
    view = _settled(screen, served, game_id, token)
    assert all(view["hand_counts"][seat] < dealt[seat] for seat in (1, 2, 3)), (
        dealt,
        view["hand_counts"],
    )
    rows = page.locator("table tbody tr")
    for seat in (1, 2, 3):
        expect(rows.nth(seat).locator("td").first).to_have_text(str(view["hand_counts"][seat]))

    page.get_by_role("button", name="English", exact=True).click()
    screen.locale = "en-US"
    expect(page.get_by_role("heading", level=1)).to_contain_text("Online game")
    for _ in range(2):
        _one_turn_with_a_hint(screen, "en", served, game_id, token)
    screen.close()


def test_a_refused_hint_is_said_in_french(browser: Any, served: str) -> None:  # noqa: F811
    """A game made with hints off: « Conseil » answers 409 `hints-off`, said in the app's
    words, never as a code."""
    from playwright.sync_api import expect

    made = httpx.post(
        f"{served}/v1/games",
        json={
            "ruleset": "numwars-classic",
            "players": [
                {"name": "Ada"},
                {"name": "Bot", "bot": "basic"},
                {"name": "Cy", "bot": "random"},
            ],
            "options": {"hints": False},
        },
        timeout=10,
    )
    assert made.status_code == 201, made.text
    game_id = made.json()["id"]
    seats = made.json()["seats"]
    ada = next(s["token"] for s in seats if s["name"] == "Ada")
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={ada}")
    screen.heading("Partie en ligne — manche 1")
    expect(page.locator("p.turn")).to_have_text(WORDS["fr"]["turn"], timeout=30_000)
    page.get_by_role("button", name="Conseil", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(
        "Les conseils sont désactivés pour cette partie."
    )
    expect(page.locator("ul.hand button.hinted")).to_have_count(0)
    screen.axe("conseil refusé")
    screen.errors = [e for e in screen.errors if "status of 409" not in e]
    screen.close()
