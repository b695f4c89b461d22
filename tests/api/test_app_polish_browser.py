"""What a French player's phone test found (issue 24, app24), in a real headless Chromium on
PostgreSQL: two players of one sheet or game never share a name (refused in the form, under the
later player's field, before any request); the card picker's count says what is left of the
type and value picked; the cards that score nothing get their breakdown line; the sign-up's
rules are read with their fields before any refusal; the sheet has its h1 (ruleset, players,
date) while « Manche N » takes the focus; the banner's targets are 44 × 44 px at least; the
trick just finished stays in sight (« Dernier pli », who took it) until the next card. axe-core
on each screen changed, in French and in English."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_app_browser import Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import act, game_as, label, new_game
from tests.api.test_app_sheets_browser import a_sheet_of_three
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"


def test_two_players_never_share_a_name(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    for i, name in enumerate(["Ada", "Bo", " ada "], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    third = page.get_by_label("Joueur 3", exact=True)
    # the earlier player's name as written (issue 24): « Ada », not the later « ada »
    taken = f"Le joueur 1 s’appelle déjà «{NBSP}Ada{NBSP}»{NBSP}: donne à chacun son propre nom."
    expect(third).to_have_accessible_description(taken)
    expect(third).to_have_attribute("aria-invalid", "true")
    expect(third).to_be_focused()
    expect(page.get_by_role("alert")).to_have_count(0)  # said under its field only
    assert page.url.endswith("/feuilles/nouvelle")  # nothing sent, nothing made
    screen.axe("noms en double, feuille")
    third.fill("Cy")
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)

    # a new game: the same refusal; a blank name counts as the « Joueur N » it is sent as
    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    page.get_by_label("Joueur 1", exact=True).fill("Joueur 2")
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    second = page.get_by_label("Joueur 2", exact=True)
    expect(second).to_have_accessible_description(
        f"Le joueur 1 s’appelle déjà «{NBSP}Joueur 2{NBSP}»{NBSP}: donne à chacun son propre nom."
    )
    screen.axe("noms en double, partie")
    screen.close()

    english = Screen(browser, served, "en-US")
    english.goto("/parties/nouvelle")
    english.heading("New online game")
    for i, name in enumerate(["Ada", "Bo", "Cy", "ADA"], start=1):
        english.page.get_by_label(f"Player {i}", exact=True).fill(name)
    english.page.get_by_role("button", name="Create the game", exact=True).click()
    expect(english.page.get_by_label("Player 4", exact=True)).to_have_accessible_description(
        "Player 1 is already named “Ada”: give each player their own name."
    )
    english.axe("duplicate names")
    english.close()


def test_the_picker_counts_what_is_left_and_every_card_gets_its_line(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    a_sheet_of_three(screen)
    ada = page.get_by_role("group", name="Ada", exact=True)
    kind = ada.get_by_label("TYPE DE CARTE", exact=True)
    value = ada.get_by_label("Valeur", exact=True)
    left = ada.locator(".picker [role=status]")

    kind.select_option("classic")
    value.select_option("5")
    expect(left).to_have_text(f"Classique (couleur) 5{NBSP}: encore 4 dans le paquet.")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    expect(left).to_have_text(f"Classique (couleur) 5{NBSP}: encore 3 dans le paquet.")

    kind.select_option("rainbow")
    value.select_option("1")
    expect(left).to_have_text(f"Rainbow 1{NBSP}: encore 1 dans le paquet.")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    # the last Rainbow 1 taken: the other Rainbows are still there (not « plus aucune »)
    expect(left).to_have_text(f"Plus de Rainbow 1 dans le paquet{NBSP}: choisis une autre valeur.")
    expect(ada.get_by_role("button", name="Ajouter", exact=True)).to_have_count(0)
    value.select_option("2")
    expect(left).to_have_text(f"Rainbow 2{NBSP}: encore 1 dans le paquet.")
    kind.select_option("numx")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    expect(left).to_have_text("Plus aucune carte de ce type dans le paquet.")

    page.get_by_label("Qui a eu la Bombe ?", exact=True).select_option("1")
    line = page.locator('.live li[data-seat="0"] .breakdown')
    expect(line).to_contain_text(f"Rainbow 1{NBSP}: 0{NBSP}pt (un atout ne marque qu’en paire)")
    expect(line).to_contain_text(f"Num-X{NBSP}: 0{NBSP}pt (carte spéciale, sans valeur)")
    screen.axe("manche, cartes sans valeur")
    screen.close()


def test_the_sign_up_says_its_rules_first(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    for locale, title, pseudo, password, pseudo_rule, password_rule in (
        (
            "fr-FR",
            "Créer mon compte",
            "Pseudo",
            "Mot de passe",
            f"3 à 24 caractères{NBSP}: lettres sans accent, chiffres, tiret bas (_), point (.) ou trait d’union (-)",
            "10 caractères au moins.",
        ),
        (
            "en-US",
            "Create my account",
            "Pseudo",
            "Password",
            "3 to 24 characters: letters without accents, digits, underscore (_), dot (.) or hyphen (-)",
            "At least 10 characters.",
        ),
    ):
        screen = Screen(browser, served, locale)
        screen.goto("/inscription")
        screen.heading(title)
        field = screen.page.get_by_label(pseudo, exact=True)
        expect(field).to_have_accessible_description(pseudo_rule)  # before any refusal
        expect(field).not_to_have_attribute("aria-invalid", "true")
        expect(screen.page.get_by_label(password, exact=True)).to_have_accessible_description(
            password_rule
        )
        screen.axe("inscription, règles")
        screen.close()


def test_the_sheet_has_its_title_and_the_banner_big_targets(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    made = httpx.post(
        f"{served}/v1/scoresheets",
        json={"ruleset": "numwars", "players": [{"name": n} for n in ["Ada", "Bo", "Cy"]]},
        timeout=10,
    )
    assert made.status_code == 201, made.text
    sheet = made.json()
    for locale, title, day, round_one in (
        ("fr-FR", f"Num Wars{NBSP}: Ada, Bo, Cy", "Feuille du ", "Manche 1"),
        ("en-US", "Num Wars: Ada, Bo, Cy", "Sheet of ", "Round 1"),
    ):
        screen = Screen(browser, served, locale)
        page = screen.page
        screen.goto("/")
        # the device's sheet token: the screen opens as on the device that made it
        page.evaluate(
            "([id, token]) => localStorage.setItem('numrules.sheets', JSON.stringify({[id]: token}))",
            [sheet["id"], sheet["token"]],
        )
        screen.goto(f"/feuilles/{sheet['id']}")
        screen.heading(round_one, level=2)  # what is to be done now takes the focus
        expect(page.get_by_role("heading", level=1)).to_have_text(title)
        expect(page.locator(".sheet-title p")).to_contain_text(day)
        screen.axe("titre de la feuille")
        targets = page.locator(".bar a, .bar button")
        for i in range(targets.count()):
            box = targets.nth(i).bounding_box()
            assert box and box["width"] >= 44 and box["height"] >= 44, (i, box)
        screen.close()


def _until_a_trick_is_done(base: str, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """Plays every seat from its own view's first legal action until a trick is finished and
    the next one has no card yet; answers seat 0's view then."""
    for _ in range(200):
        view = game_as(base, game_id, tokens[0])["view"]
        if view["phase"] == "play" and view["tricks"] and not view["trick"]:
            return view
        for seat in view["actors"]:
            own = game_as(base, game_id, tokens[seat])["view"]
            answer = act(base, game_id, tokens[seat], own["legal_actions"][0])
            assert answer.status_code in (200, 201), answer.text
    raise AssertionError("no trick finished")


def test_the_last_trick_stays_until_the_next_card(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    names = ["Ada", "Bo", "Cy"]
    game_id, tokens = new_game(served, "numwars-classic", names, 7)
    view = _until_a_trick_is_done(served, game_id, tokens)
    last = view["tricks"][-1]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie en ligne — manche 1")
    shown = page.locator(".last-trick")
    expect(page.get_by_role("heading", name="Dernier pli", exact=True)).to_be_visible()
    for card in last["cards"]:
        expect(shown).to_contain_text(f"{names[card['seat']]} : {label(card['card'], 'fr')}")
    expect(shown).to_contain_text(f"Remporté par {names[last['winner']]}")
    screen.axe("dernier pli")

    leader = view["actors"][0]
    own = game_as(served, game_id, tokens[leader])["view"]
    answer = act(served, game_id, tokens[leader], own["legal_actions"][0])
    assert answer.status_code in (200, 201), answer.text
    # the stream brings the next card: the trick in play replaces the last one
    expect(page.get_by_role("heading", name="Pli en cours", exact=True)).to_be_visible()
    expect(shown).to_have_count(0)
    screen.close()
