"""The last points of a French player's phone test (issue 24), in a real headless Chromium
(390×844, French) on PostgreSQL:

- « Créer mon compte » shows every failing client-side check at once, each under its field
  (its description, `aria-invalid`), and the first invalid field takes the focus; a refusal
  of the API still shows under its field;
- every visible interactive element of the main screens (a link, a button, a summary, a
  field, a checkbox or radio button and its label) is 24 × 24 CSS px at least (WCAG 2.5.8; an
  inline link inside a sentence is exempt, as WCAG says);
- « Fin de la manche » of an online Num Wars game says each player's role, as the round's
  `round-over` event reveals them, and « Partie terminée » the last round's roles;
- a breakdown line worth 0 by a rule says why, from the line's `kind` and `params`: a value
  held twice (« 2 × valeur 10 ») cancels out; in the classic edition a lone trump scores
  only in a pair and a Joker is worth nothing;
- the signed-in home offers « Jouer en ligne ».

axe-core on each screen changed (and, with NUMRULES_APP_SCREENSHOTS=<folder>, its screenshot).
The fixtures are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.test_app_browser import PASSWORD, PSEUDO_RULE, Screen, browser, pts, served  # noqa: F401
from tests.api.test_app_play_browser import at_version, game_as, new_game, play_out
from tests.api.test_app_sheets_browser import a_sheet_of_three
from tests.api.test_app_tables_browser import logged_in, sign_up
from tests.api.test_docs_browser import browser_path  # noqa: F401

NBSP = "\u00a0"

#: The roles as the Num Wars round entry names them (app/src/i18n.ts `roles`).
ROLES_FR = {
    "poseur": "Poseur (Bombe)",
    "complice": "Complice (Joker)",
    "demineur": "Démineur (Quantique)",
    "agent": "Agent double",
    "civil": "Civil",
}

#: How many visible interactive elements the screen has, and each one smaller than 24 × 24 CSS
#: px but the inline links of a sentence (WCAG 2.5.8's "Inline" exception: an `a` laid out
#: inline in a block holding other text), as "tag «name» w×h".
SMALL_TARGETS = """() => {
  const small = [];
  let checked = 0;
  const selector = "a[href], button, summary, input:not([type=hidden]), select, textarea, label";
  for (const el of document.querySelectorAll(selector)) {
    // a label is a target of the checkbox or radio button it names (a click on it checks)
    const checkable = (input) => input && (input.type === "checkbox" || input.type === "radio");
    if (el.tagName === "LABEL" && !checkable(el.control)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;  // not rendered (a closed <details>)
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || el.closest("[hidden]")) continue;
    if (el.tagName === "A" && style.display === "inline") {
      const block = el.parentElement.closest("p, li, td, th, dd");
      if (block && block.textContent.trim() !== el.textContent.trim()) continue;
    }
    checked += 1;
    if (box.width < 24 || box.height < 24) {
      const name = (el.textContent || el.getAttribute("aria-label") || el.name || el.id || "").trim();
      small.push(`${el.tagName.toLowerCase()} «${name.slice(0, 40)}» ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
  }
  return { checked, small };
}"""


def no_small_target(screen: Screen, where: str) -> None:
    found = screen.page.evaluate(SMALL_TARGETS)
    assert found["checked"] >= 5, f"{where}: {found}"  # the banner's links at least
    assert found["small"] == [], f"{where}: {found['small']}"


def test_the_sign_up_shows_every_check_at_once(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    taken = httpx.post(
        f"{served}/v1/accounts",
        json={
            "pseudo": "zoe_deja",
            "password": PASSWORD,
            "age_range": "18-24",
            "accept_terms": True,
        },
        timeout=10,
    )
    assert taken.status_code == 201, taken.text
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    pseudo = page.get_by_label("Pseudo", exact=True)
    password = page.get_by_label("Mot de passe", exact=True)
    age = page.get_by_label("Ta tranche d'âge")
    terms = page.get_by_role("checkbox", name="conditions d'utilisation")
    pseudo.fill("ab")
    password.fill("court")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/v1/accounts") else None)
    page.get_by_role("button", name="Créer mon compte", exact=True).click()

    # every failing field at once, each message under its field and read with it
    expect(pseudo).to_have_attribute("aria-invalid", "true")
    expect(pseudo).to_have_accessible_description(
        f"{PSEUDO_RULE} Choisis un pseudo de 3 à 24 caractères."
    )
    expect(password).to_have_attribute("aria-invalid", "true")
    expect(password).to_have_accessible_description(
        "10 caractères au moins. Choisis un mot de passe de 10 caractères au moins."
    )
    expect(age).to_have_attribute("aria-invalid", "true")
    expect(age).to_have_accessible_description("Choisis ta tranche d’âge.")
    expect(terms).to_have_attribute("aria-invalid", "true")
    expect(terms).to_have_accessible_description(
        "Accepte les conditions d’utilisation pour créer ton compte."
    )
    expect(page.locator(".field-error")).to_have_count(4)
    expect(page.get_by_role("alert")).to_have_count(0)  # said under the fields only
    expect(pseudo).to_be_focused()  # the first invalid field
    assert sent == []  # nothing sent while the client's checks fail
    screen.axe("inscription, toutes les erreurs")
    no_small_target(screen, "inscription, toutes les erreurs")

    # the pseudo fixed: the others stay, the first of them takes the focus
    pseudo.fill("Zoe_Deja")
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    expect(pseudo).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator(".field-error")).to_have_count(3)
    expect(password).to_be_focused()

    # every check passed, the API's refusal (« Zoe_Deja »: taken) still under its field
    password.fill(PASSWORD)
    age.select_option("18-24")
    terms.check()
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    expect(pseudo).to_have_attribute("aria-invalid", "true")
    expect(pseudo).to_be_focused()
    expect(page.locator(".field-error")).to_have_count(1)
    assert len(sent) == 1
    refused = "the server responded with a status of 409"
    assert any(refused in e for e in screen.errors)
    screen.errors = [e for e in screen.errors if refused not in e]
    screen.close()


def test_every_target_is_24_px_at_least(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/")
    screen.heading("Rejoins la communauté des joueurs !")
    no_small_target(screen, "accueil")
    screen.axe("accueil, cibles")

    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    page.get_by_text("Lire les conditions d'utilisation", exact=True).click()
    expect(page.locator(".terms-text")).not_to_be_empty()
    no_small_target(screen, "inscription")
    screen.axe("inscription, cibles")

    screen.goto("/connexion")
    screen.heading("Connexion")
    forgot = page.get_by_role("link", name="Mot de passe oublié ?", exact=True)
    assert forgot.bounding_box()["height"] >= 44  # alone on its line: a primary-size target
    no_small_target(screen, "connexion")
    screen.axe("connexion, cibles")

    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    no_small_target(screen, "nouvelle feuille")
    screen.axe("nouvelle feuille, cibles")
    for i, name in enumerate(["Ada", "Bo", "Cy"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    no_small_target(screen, "saisie d’une manche")
    screen.axe("saisie d’une manche, cibles")

    screen.goto("/parties/nouvelle")
    screen.heading("Nouvelle partie en ligne")
    no_small_target(screen, "nouvelle partie")
    screen.axe("nouvelle partie, cibles")
    page.get_by_label("Joueur 1", exact=True).fill("Zoé")
    page.get_by_label("Joueur 2", exact=True).fill("Léo")
    for seat in (3, 4):
        page.get_by_label(f"Place {seat}{NBSP}: qui joue{NBSP}?", exact=True).select_option(
            "random"
        )
    page.get_by_role("button", name="Créer la partie", exact=True).click()
    screen.heading("Les liens des places")
    seat_link = page.get_by_role("link", name="Jouer la place de Léo", exact=True)
    assert seat_link.bounding_box()["height"] >= 44
    no_small_target(screen, "liens des places")
    screen.axe("liens des places, cibles")
    screen.close()

    pseudo, session = sign_up(served, "cible", "fr")
    account = logged_in(browser, served, "fr-FR", pseudo, session)
    account.goto("/compte")
    account.heading("Mon compte")
    no_small_target(account, "mon compte")
    account.axe("mon compte, cibles")
    account.goto("/")
    account.heading(f"Connecté{NBSP}: {pseudo}")
    no_small_target(account, "accueil connecté")
    account.close()


def test_the_end_of_a_num_wars_round_says_the_roles(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    names = ["Ada", "Bo", "Cy", "Dan"]
    game_id, tokens = new_game(served, "numwars", names, 11)
    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie en ligne — manche 1")

    # the whole round played over HTTP (one connection), each seat's first legal action
    state = game_as(served, game_id, None)
    before = state["view"]["scores"]
    path = f"/v1/games/{game_id}"
    with httpx.Client(base_url=served, timeout=10) as client:
        view = state["view"]
        while view["round"] == 1:
            auth = {"Authorization": f"Bearer {tokens[view['actors'][0]]}"}
            own = client.get(path, headers=auth).json()["view"]
            answer = client.post(f"{path}/actions", json=own["legal_actions"][0], headers=auth)
            assert answer.status_code == 200, answer.text
            view = answer.json()["view"]
    state = game_as(served, game_id, None)
    assert state["view"]["round"] == 2
    at_version(screen, state["version"])

    # the roles as the round's end revealed them (the API's `round-over` event)
    events = httpx.get(
        f"{served}/v1/games/{game_id}/events",
        params={"after": 0},
        headers={"Authorization": f"Bearer {tokens[0]}"},
        timeout=10,
    )
    assert events.status_code == 200, events.text
    (over,) = [e for e in events.json()["events"] if e["kind"] == "round-over"]
    roles = over["data"]["roles"]
    assert sorted(roles) == ["agent", "complice", "demineur", "poseur"]

    summary = page.get_by_role("region", name=f"Fin de la manche{NBSP}1")
    expect(summary).to_be_visible()
    for i, name in enumerate(names):
        points = state["view"]["scores"][i] - before[i]
        expect(summary.locator("li").nth(i)).to_have_text(
            f"{name}{NBSP}: {pts(points)} — {ROLES_FR[roles[i]]}"
        )
    screen.axe("fin de manche, rôles")
    no_small_target(screen, "fin de manche")
    summary.get_by_role("button", name="Continuer", exact=True).click()
    expect(summary).to_have_count(0)
    screen.close()


def test_the_end_of_a_num_wars_match_says_the_last_roles(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    names = ["Ada", "Bo", "Cy"]
    game_id, tokens = new_game(served, "numwars", names, 5)
    # the whole match played over HTTP (a round each dealer: three), each seat's first action
    state = play_out(served, game_id, tokens)
    assert state["status"] == "over"
    events = httpx.get(
        f"{served}/v1/games/{game_id}/events",
        params={"after": 0},
        headers={"Authorization": f"Bearer {tokens[0]}"},
        timeout=10,
    )
    assert events.status_code == 200, events.text
    overs = [e for e in events.json()["events"] if e["kind"] == "round-over"]
    assert len(overs) == state["view"]["round"] == 3
    roles = overs[-1]["data"]["roles"]

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    screen.goto(f"/parties/{game_id}#jeton={tokens[0]}")
    screen.heading("Partie terminée")
    title = page.get_by_role("heading", name=f"Les rôles de la manche{NBSP}3", exact=True)
    expect(title).to_be_visible()
    expect(page.locator("h2 + ul").filter(has_text=ROLES_FR[roles[0]]).locator("li")).to_have_text(
        [f"{name}{NBSP}: {ROLES_FR[role]}" for name, role in zip(names, roles, strict=True)]
    )
    screen.axe("partie terminée, rôles")
    screen.close()


def test_a_pair_of_tens_says_why_it_scores_nothing(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    a_sheet_of_three(screen)
    ada = page.get_by_role("group", name="Ada", exact=True)
    ada.get_by_label("TYPE DE CARTE", exact=True).select_option("classic")
    ada.get_by_label("Valeur", exact=True).select_option("10")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    ada.get_by_label("Valeur", exact=True).select_option("7")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    page.get_by_label("Qui a eu la Bombe ?", exact=True).select_option("1")

    line = page.locator('.live li[data-seat="0"] .breakdown li')
    # the API's line (`value-group`, count 2): 0 points, and why
    expect(line.filter(has_text="valeur 10")).to_have_text(
        f"2 × valeur 10{NBSP}: 0{NBSP}pt (2 cartes de même valeur s’annulent)"
    )
    # a line that scores says no reason
    expect(line.filter(has_text="valeur 7")).to_have_text(f"1 × valeur 7{NBSP}: 7{NBSP}pts")
    screen.axe("manche, paire de 10")

    # the classic edition: a lone trump and the Jokers score 0, and say why
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    page.get_by_label("Num Wars (édition classique)", exact=True).check()
    for i, name in enumerate(["Ada", "Bo", "Cy"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    ada = page.get_by_role("group", name="Ada", exact=True)
    ada.get_by_label("TYPE DE CARTE", exact=True).select_option("rainbow")
    ada.get_by_label("Valeur", exact=True).select_option("3")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    ada.get_by_label("TYPE DE CARTE", exact=True).select_option("joker")
    ada.get_by_role("button", name="Ajouter", exact=True).click()
    expect(line.filter(has_text="atouts seuls")).to_have_text(
        f"atouts seuls{NBSP}: 0{NBSP}pt (un atout ne marque qu’en paire)"
    )
    expect(line.filter(has_text="Jokers")).to_have_text(
        f"Jokers capturés{NBSP}: 0{NBSP}pt (carte spéciale, sans valeur)"
    )
    screen.axe("manche classique, atout seul")
    screen.close()


def test_the_signed_in_home_offers_to_play_online(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    pseudo, session = sign_up(served, "home", "fr")
    screen = logged_in(browser, served, "fr-FR", pseudo, session)
    page = screen.page
    screen.goto("/")
    screen.heading(f"Connecté{NBSP}: {pseudo}")
    play = page.get_by_role("main").get_by_role("button", name="Jouer en ligne", exact=True)
    expect(play).to_be_visible()
    assert play.bounding_box()["height"] >= 44
    screen.axe("accueil connecté")
    play.click()
    screen.heading("Nouvelle partie en ligne")
    expect(page.get_by_label("Joueur 1", exact=True)).to_have_value(pseudo)
    screen.close()
