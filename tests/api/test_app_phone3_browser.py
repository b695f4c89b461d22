"""A French player's third phone test (issue 24), in a real headless Chromium (390×844,
French) on PostgreSQL:

- « Mot de passe oublié ? » answers in the app's own words (never the API's English detail),
  in a live region that takes the focus, in French and in English; the API's own answer is
  in the caller's language (the message catalog);
- « Créer mon compte » checks the pseudo's characters itself, naming the refused ones, and
  the server's pattern text ends cleanly (no « - » followed by a stray full stop);

axe-core on each screen changed (and, with NUMRULES_APP_SCREENSHOTS=<folder>, its screenshot).
The fixtures are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

import random
import re
from typing import Any

import httpx

from tests.api.test_app_browser import PASSWORD, PSEUDO_RULE, Screen, browser, served  # noqa: F401
from tests.api.test_app_play_browser import (
    NAMES,
    act,
    at_version,
    card_in_hand,
    game_as,
    new_game,
    play_out,
)
from tests.api.test_app_sheets_browser import a_sheet_of_three
from tests.api.test_app_tables_browser import logged_in, sign_up
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"
NNBSP = "\u202f"

FORGOT_SENT_FR = (
    "Si ce compte a un email vérifié, un lien pour changer ton mot de passe vient de partir.",
    f"Pas d’email sur ton compte{NNBSP}? Tu ne peux pas réinitialiser ton mot de passe{NBSP}: "
    f"ajoute un email dans «{NBSP}Mon compte{NBSP}» une fois connecté.",
)
FORGOT_SENT_EN = (
    "If this account has a verified email, a link to change your password is on its way.",
    "No email on your account? Then you cannot reset your password: add an email in "
    "“My account” once logged in.",
)


def test_the_api_says_a_reset_is_accepted_in_the_callers_language(served: str) -> None:  # noqa: F811
    said = {}
    for language in ("fr", "en"):
        answer = httpx.post(
            f"{served}/v1/password-resets",
            json={"login": "personne"},
            headers={"Accept-Language": language},
            timeout=10,
        )
        assert answer.status_code == 202, answer.text
        assert answer.headers["content-language"] == language
        said[language] = answer.json()["detail"]
    assert said["en"] == "if this login has a verified email, a reset token is on its way"
    assert said["fr"].startswith("si cet identifiant a un e-mail vérifié")


def test_the_forgotten_password_answers_in_the_apps_words(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    for locale, title, login, send, sent in (
        ("fr-FR", "Mot de passe oublié", "Email ou pseudo", "Envoyer le lien", FORGOT_SENT_FR),
        ("en-GB", "Forgotten password", "Email or pseudo", "Send the link", FORGOT_SENT_EN),
    ):
        screen = Screen(browser, served, locale)
        page = screen.page
        screen.goto("/mot-de-passe")
        screen.heading(title)
        page.get_by_label(login, exact=True).fill("personne")
        page.get_by_role("button", name=send, exact=True).click()
        status = page.get_by_role("status").filter(has_text=sent[0])
        expect(status.locator("p")).to_have_text(list(sent))
        expect(status).to_be_focused()
        expect(page.locator("main")).not_to_contain_text("reset token")
        screen.axe(f"mot de passe oublié, envoyé ({locale})")
        screen.close()


def test_the_sign_up_names_the_refused_characters(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/v1/accounts") else None)
    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    pseudo = page.get_by_label("Pseudo", exact=True)
    pseudo.fill("va é!é ok")
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_label("Ta tranche d'âge").select_option("18-24")
    page.get_by_role("checkbox", name="conditions d'utilisation").check()
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    expect(pseudo).to_have_attribute("aria-invalid", "true")
    expect(pseudo).to_have_accessible_description(
        f"{PSEUDO_RULE} Caractères refusés{NBSP}: l’espace, é et !."
    )
    expect(pseudo).to_be_focused()
    assert sent == []  # caught before any request
    screen.axe("inscription, caractères refusés")
    screen.close()


def test_the_pseudo_rule_ends_cleanly(served: str) -> None:  # noqa: F811
    for language in ("fr", "en"):
        answer = httpx.post(
            f"{served}/v1/accounts",
            json={
                "pseudo": "Zoé",
                "password": PASSWORD,
                "age_range": "18-24",
                "accept_terms": True,
            },
            headers={"Accept-Language": language},
            timeout=10,
        )
        assert answer.status_code == 422, answer.text
        (message,) = [e["message"] for e in answer.json()["errors"] if e["field"] == "pseudo"]
        # the app makes a sentence of it with a final full stop: never « - ».
        assert not message.endswith(("-", "."))
        assert message.endswith("(-)")


FOCUS_IN_HAND = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return "body";
  if (el.closest("ul.hand")) return "card";
  if (el.closest(".round-summary")) return "summary";
  if (el.matches("h2.hand-title")) return "hand-heading";
  return el.outerHTML.slice(0, 80);
}"""


def test_a_card_played_with_enter_keeps_the_focus_in_the_hand(browser: Any, served: str) -> None:  # noqa: F811
    """Round 1 of a Speed Wars game played from the keyboard (Enter on a card): after each
    card the focus is in the hand; « Fin de la manche 1 » opens below the hand, takes the
    focus, says who won, and « Continuer » gives the focus back to the hand."""
    from playwright.sync_api import expect

    speed = {"speed": True, "tiebreak": False}
    game_id, tokens = new_game(served, "numwars-classic", NAMES, options=speed)
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading(f"Partie en ligne — manche{NBSP}1")
    rng = random.Random(7)
    keyboard_moves = 0
    state = game_as(served, game_id, None)
    while state["view"]["round"] == 1 and state["status"] == "active":
        actors = state["view"]["actors"]
        others = [s for s in actors if s != 0]
        seat = others[0] if others else 0
        own = game_as(served, game_id, tokens[seat])["view"]
        action = rng.choice(own["legal_actions"])
        if seat != 0:
            assert act(served, game_id, tokens[seat], action).status_code == 200
        else:
            card = card_in_hand(page, action["card"], "fr")
            expect(card).to_have_class(re.compile(r"\blegal\b"))
            card.focus()
            page.keyboard.press("Enter")
            at_version(screen, state["version"] + 1)
            keyboard_moves += 1
            last = state["view"]["hand_counts"][0] == 1 and action["type"] == "play"
            if not last:
                page.wait_for_function(f"() => ({FOCUS_IN_HAND})() === 'card'")
        state = game_as(served, game_id, None)
    assert keyboard_moves == 2 + 10  # two cards passed, one card a trick

    summary = page.locator("section.round-summary")
    title = summary.get_by_role("heading", name=f"Fin de la manche{NBSP}1", exact=True)
    expect(title).to_be_focused()
    # the round-over event names the winners: « Manche gagnée par Ada et Bo. »
    said = summary.locator(".round-winner")
    expect(said).to_have_text(re.compile(r"^Manche gagnée par .+\.$"))
    named = said.inner_text().removeprefix("Manche gagnée par ").removesuffix(".")
    assert set(re.split(r", | et ", named)) <= set(NAMES), named
    # below the hand: it never pushed the cards down
    hand_box = page.locator("ul.hand").bounding_box()
    summary_box = summary.bounding_box()
    assert hand_box and summary_box and summary_box["y"] >= hand_box["y"] + hand_box["height"]
    screen.axe("fin de la manche 1 au clavier")
    page.keyboard.press("Tab")
    expect(summary.get_by_role("button", name="Continuer", exact=True)).to_be_focused()
    page.keyboard.press("Enter")
    expect(summary).to_have_count(0)
    assert page.evaluate(FOCUS_IN_HAND) == "hand-heading"
    screen.close()


CUES = """() => {
  const menu = document.querySelector("nav.menu");
  const cue = (where) => getComputedStyle(menu, where).content;
  return { classes: menu.className, after: cue("::after"), before: cue("::before") };
}"""


def test_the_account_link_and_the_language_are_in_reach(browser: Any, served: str) -> None:  # noqa: F811
    """On a 390 px screen the account link (Connexion, or Déconnexion once logged in) and the
    language switch are in the top row, in sight without scrolling, 44 px targets; the menu
    under them scrolls sideways with a « › » cue while links hide at its end."""
    from playwright.sync_api import expect

    pseudo, session = sign_up(served, "portee", "fr")
    for screen, account in (
        (Screen(browser, served, "fr-FR"), ("link", "Connexion")),
        (logged_in(browser, served, "fr-FR", pseudo, session), ("button", "Déconnexion")),
    ):
        page = screen.page
        screen.goto("/")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        end = page.get_by_role("navigation", name="Compte et langue")
        for role, name in (account, ("button", "English")):
            target = end.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]
            expect(target).to_be_in_viewport(ratio=1)
            box = target.bounding_box()
            assert box and box["x"] + box["width"] <= 390 and box["y"] < 60, (name, box)
            assert box["width"] >= 44 and box["height"] >= 44, (name, box)
        menu = page.get_by_role("navigation", name="Menu principal")
        expect(menu.locator("xpath=..")).to_have_class("bar")
        # the menu's row under the top row; it scrolls, and says so
        menu_box = menu.bounding_box()
        assert menu_box and menu_box["y"] >= 44, menu_box
        cues = page.evaluate(CUES)
        assert "more-right" in cues["classes"] and "›" in cues["after"], cues
        assert "more-left" not in cues["classes"], cues
        page.locator("nav.menu ul").evaluate("(ul) => ul.scrollTo({ left: ul.scrollWidth })")
        expect(menu).to_have_class(re.compile(r"\bmore-left\b"))
        expect(menu).not_to_have_class(re.compile(r"\bmore-right\b"))
        assert "‹" in page.evaluate(CUES)["before"]
        targets = page.locator(".bar a, .bar button")
        for i in range(targets.count()):
            box = targets.nth(i).bounding_box()
            assert box and box["width"] >= 44 and box["height"] >= 44, (i, box)
        screen.axe("bandeau sur téléphone")
        screen.close()


def test_the_game_over_table_scrolls_and_the_rematch_shows_up(browser: Any, served: str) -> None:  # noqa: F811
    """A Num Wars match over (long names: its totals wider than 390 px): the totals table
    scrolls sideways with « Fais défiler le tableau de côté »; when the first seat asks for
    the rematch, the second seat's page says « Rejoindre la revanche » without a reload."""
    from playwright.sync_api import expect

    names = ["Alexandrine_Dupont", "Barthelemy_Martin", "Clementine_Leroy"]
    game_id, tokens = new_game(served, "numwars", names, 5)
    play_out(served, game_id, tokens)

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[1]}")
    screen.heading("Partie terminée")
    table = page.get_by_role("heading", name="Totaux de la partie").locator(
        "xpath=following-sibling::div[1]"
    )
    expect(table).to_have_class("scroll")
    assert table.evaluate("(box) => box.scrollWidth > box.clientWidth")  # wider than the screen
    expect(page.locator(".scroll-cue")).to_have_text(
        "Fais défiler le tableau de côté pour tout voir →"
    )
    expect(page.locator(".scroll-cue")).to_be_visible()
    screen.axe("partie terminée, tableau")
    expect(page.get_by_role("button", name="Revanche", exact=True)).to_be_visible()

    asked = httpx.post(
        f"{served}/v1/games/{game_id}/rematch",
        headers={"Authorization": f"Bearer {tokens[0]}"},
        timeout=10,
    )
    assert asked.status_code == 201, asked.text
    joined = page.get_by_role("button", name="Rejoindre la revanche", exact=True)
    expect(joined).to_be_visible(timeout=10_000)  # read again, no reload
    joined.click()
    page.wait_for_url(re.compile(r"/parties/" + asked.json()["id"] + "$"))
    screen.close()


def test_a_clock_never_shows_more_than_its_turn(browser: Any, served: str) -> None:  # noqa: F811
    """A deadline further than the clock's turn (a device a second behind the server) is
    shown as the turn's length at most: « 0:30 » for a 30 s turn, never « 0:31 »."""
    import json

    from playwright.sync_api import expect

    created = httpx.post(
        f"{served}/v1/games",
        json={
            "ruleset": "numwars",
            "players": [{"name": n} for n in NAMES],
            "clock": {"turn_seconds": 30, "on_timeout": "auto"},
        },
        timeout=10,
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["id"]
    token = created.json()["seats"][0]["token"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page

    def later(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        if body.get("deadlines"):
            # every deadline far beyond the turn's 30 s
            for deadline in body["deadlines"]:
                deadline["at"] = "2999-01-01T00:00:00Z"
        route.fulfill(response=answer, body=json.dumps(body))

    page.route(re.compile(r".*/v1/games/" + game_id + r"$"), later)
    screen.goto(f"/parties/{game_id}#jeton={token}")
    screen.heading(f"Partie en ligne — manche{NBSP}1")
    timers = page.get_by_role("timer")
    expect(timers.first).to_be_visible()
    for text in timers.all_inner_texts():
        assert "0:30" in text and "0:31" not in text, text
    screen.close()


def test_each_screen_names_the_page_in_the_apps_language(browser: Any, served: str) -> None:  # noqa: F811
    """The document's title follows the screen: the home's own, then « Manche 1 — Num
    Project » on a sheet's round, « Partie en ligne — manche 1 — Num Project » on a game, in
    English once switched."""
    from playwright.sync_api import expect

    game_id, tokens = new_game(served, "numwars", NAMES, 11)
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/")
    screen.heading("Rejoins la communauté des joueurs !")
    expect(page).to_have_title("Num Project — feuilles de score")
    screen.goto("/connexion")
    screen.heading("Connexion")
    expect(page).to_have_title("Connexion — Num Project")
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    expect(page).to_have_title("Nouvelle feuille de score — Num Project")
    for i, name in enumerate(["Ada", "Bo", "Cy"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    expect(page).to_have_title("Manche 1 — Num Project")
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading(f"Partie en ligne — manche{NBSP}1")
    expect(page).to_have_title("Partie en ligne — manche 1 — Num Project")
    page.get_by_role("button", name="English", exact=True).click()
    expect(page).to_have_title("Online game — round 1 — Num Project")
    # the roles in English words (issue 24), never the French ones
    expect(page.get_by_text(re.compile(r"^Your role: "))).to_have_text(
        re.compile(
            r"^Your role: (Bomber \(Bomb\)|Accomplice \(Joker\)|Defuser \(Quantum\)|Double agent|Civilian)$"
        )
    )
    screen.close()


def test_the_captured_cards_arrow_is_hidden_from_screen_readers(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    a_sheet_of_three(screen)
    toggle = page.get_by_role("button", name="Cartes prises par Ada (0 carte)", exact=True)
    # the first player's cards open at first: « ▾ », then closed « ▸ » (seen, not said: the
    # button's exact name has no arrow)
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(toggle.locator('[aria-hidden="true"]')).to_have_text("▾")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle.locator('[aria-hidden="true"]')).to_have_text("▸")
    screen.axe("cartes prises, flèche")
    screen.close()


def test_the_stats_pictures_join_their_lines_the_french_way(browser: Any, served: str) -> None:  # noqa: F811
    """The pictures' descriptions: « ; » after a narrow no-break space in French, "; " in
    English (the account's stats as the API gives them, here two games and two roles)."""
    import json

    from playwright.sync_api import expect

    pseudo, session = sign_up(served, "stats", "fr")
    stats = {
        "rulesets": {
            "numwars": {
                "played": 3,
                "won": 1,
                "win_rate": 1 / 3,
                "average_round_score": 41.5,
                "best_round_score": 90,
                "by_role": {
                    "poseur": {"rounds": 2, "average_score": 50.0},
                    "complice": {"rounds": 1, "average_score": 20.0},
                },
            },
            "numking": {
                "played": 2,
                "won": 2,
                "win_rate": 1.0,
                "average_round_score": 12.0,
                "best_round_score": 30,
            },
        },
        "vs_bots": {},
    }
    for locale, sep in (("fr-FR", f"{NNBSP}; "), ("en-GB", "; ")):
        screen = logged_in(browser, served, locale, pseudo, session)
        page = screen.page
        page.route(
            re.compile(r".*/v1/me/stats$"),
            lambda route: route.fulfill(
                status=200, content_type="application/json", body=json.dumps(stats)
            ),
        )
        screen.goto("/stats")
        descs = page.locator("svg[role=img] desc")
        expect(descs).to_have_count(2)
        for text in descs.all_text_contents():
            assert text.count(sep) == 1, (locale, text)
            if locale == "fr-FR":
                assert " ; " not in text, text
        screen.close()
