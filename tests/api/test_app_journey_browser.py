"""The whole seed-002 journey in the web app (issue 24), in a real headless Chromium on a
phone-sized viewport (390×844), served for real on PostgreSQL, in French:

sign up → four Num Wars rounds entered by card type (each live score checked against
`score-round`) → one round corrected while a second phone corrects another (its save answered
by 412, shown in French with the sheet reloaded, then retried: both corrections kept) → the
totals, the round winners and the match winner checked against the API's sheet → the history,
newest first, by pages → the stats, their pictures named and described by the API's numbers →
log out → log in by pseudo → the account: a wrong current password refused under its field,
the password changed, the language changed (the app turns English) → the new screens again in
English → log in with the new password. axe-core on each new screen in both languages.

Beside it: a round deleted (asked again, the later rounds renumbered), and a session revoked
elsewhere: the app forgets it and asks to log in again in French, then goes back.

The browser, the server and the axe check are tests/api/test_app_browser.py's.
"""

from __future__ import annotations

import json
import re
import secrets
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import httpx

from tests.api.test_app_browser import (  # noqa: F401
    PASSWORD,
    Screen,
    add_cards,
    browser,
    open_cards,
    pts,
    score_round,
    sentence,
    served,
)
from tests.api.test_docs_browser import browser_path  # noqa: F401

NEW_PASSWORD = "a brand new horse battery"
OTHERS = ["Bo", "Cy", "Dom"]
ROLES_FR = {
    "poseur": "Poseur (Bombe)",
    "complice": "Complice (Joker)",
    "demineur": "Démineur (Quantique)",
    "agent": "Agent double",
    "civil": "Civil",
}

#: Four rounds of four players (seat 0 is the account's own player, named as its pseudo): the
#: cards entered by type, the role chosen for seat 0 (the one holding it swaps), who had the
#: Bomb (and how the poseur kept it), and the same round as a `score-round` body.
ROUNDS: list[dict[str, Any]] = [
    {
        "role": None,
        "entries": {
            0: [("classic", 5, 3), ("pair", 7, None)],
            1: [("classic", 12, 1), ("rainbow", 4, None)],
            2: [("classic", 1, 2)],
            3: [("joker", None, None)],
        },
        "bomb": 1,
        "way": None,
        "body": {
            "bomb_outcome": "stolen",
            "players": [
                {
                    "captured": ["red-5", "blue-5", "green-5"],
                    "pairs": [["rainbow-7", "shadow-7"]],
                    "role": "poseur",
                },
                {"captured": ["red-12", "rainbow-4", "bomb"], "role": "demineur"},
                {"captured": ["red-1", "blue-1"], "role": "agent"},
                {"captured": ["joker"], "role": "complice"},
            ],
        },
    },
    {
        "role": "agent",
        "entries": {
            0: [("classic", 9, 1), ("shadow", 3, None), ("numx", None, None)],
            1: [("classic", 8, 4)],
            2: [("classic", 11, 1), ("classic", 2, 3)],
            3: [],
        },
        "bomb": 2,
        "way": None,
        "body": {
            "bomb_outcome": "kept",
            "players": [
                {"captured": ["red-9", "shadow-3", "numx"], "role": "agent"},
                {"captured": ["red-8", "blue-8", "green-8", "yellow-8"], "role": "demineur"},
                {"captured": ["red-11", "red-2", "blue-2", "green-2", "bomb"], "role": "poseur"},
                {"captured": [], "role": "complice"},
            ],
        },
    },
    {
        "role": "complice",
        "entries": {
            0: [("joker", None, None), ("classic", 10, 3)],
            1: [("classic", 6, 2)],
            2: [("quantum", None, None)],
            3: [("classic", 3, 1)],
        },
        "bomb": 3,
        "way": "protected",
        "body": {
            "bomb_outcome": "protected",
            "players": [
                {"captured": ["joker", "red-10", "blue-10", "green-10"], "role": "complice"},
                {"captured": ["red-6", "blue-6"], "role": "demineur"},
                {"captured": ["quantum"], "role": "agent"},
                {"captured": ["red-3", "bomb"], "role": "poseur"},
            ],
        },
    },
    {
        "role": None,
        "entries": {
            0: [("classic", 4, 4)],
            1: [("shadow", 9, None)],
            2: [("classic", 7, 1)],
            3: [("classic", 2, 2)],
        },
        "bomb": 2,
        "way": None,
        "body": {
            "bomb_outcome": "numx-capture",
            "players": [
                {"captured": ["red-4", "blue-4", "green-4", "yellow-4"], "role": "poseur"},
                {"captured": ["shadow-9"], "role": "demineur"},
                {"captured": ["red-7", "bomb"], "role": "agent"},
                {"captured": ["red-2", "blue-2"], "role": "complice"},
            ],
        },
    },
]


def session_of(screen: Screen) -> dict[str, str]:
    stored: dict[str, str] = json.loads(
        screen.page.evaluate("localStorage.getItem('numrules.session')")
    )
    return stored


def api_get(base: str, path: str, token: str, language: str = "fr") -> Any:
    answer = httpx.get(
        base + path,
        headers={"Authorization": f"Bearer {token}", "Accept-Language": language},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def french_number(value: float) -> str:
    """Intl.NumberFormat('fr-FR', {maximumFractionDigits: 1}) of a small number."""
    rounded = Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    text = f"{rounded:f}".rstrip("0").rstrip(".")
    return text.replace(".", ",")


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n < 2 else many}"


def menu(screen: Screen, name: str) -> None:
    screen.page.get_by_role("navigation").get_by_role("link", name=name, exact=True).click()
    screen.heading(name)


def log_in(screen: Screen, pseudo: str, password: str, button: str = "Connexion") -> None:
    page = screen.page
    labels = (
        ("Email ou pseudo", "Mot de passe")
        if button == "Connexion"
        else ("Email or pseudo", "Password")
    )
    page.get_by_label(labels[0], exact=True).fill(pseudo)
    page.get_by_label(labels[1], exact=True).fill(password)
    page.get_by_role("main").get_by_role("button", name=button, exact=True).click()


def enter_round(screen: Screen, n: int, round_: dict[str, Any], names: list[str]) -> list[int]:
    """Round `n` entered by card type; its live score checked against `score-round`."""
    from playwright.sync_api import expect

    page = screen.page
    screen.heading(f"Manche {n}", level=2)
    expect(page.get_by_text(f"Donneur : {names[(n - 1) % 4]}", exact=True)).to_be_visible()
    if round_["role"]:
        page.get_by_role("group", name=names[0], exact=True).get_by_label("Rôle").select_option(
            round_["role"]
        )
    for seat, entries in round_["entries"].items():
        for kind, value, count in entries:
            add_cards(page, names[seat], kind, value, count)
    page.get_by_label("Qui a eu la Bombe ?").select_option(label=names[round_["bomb"]])
    if round_["way"]:
        page.get_by_label("Comment le poseur l’a-t-il gardée ?").select_option(round_["way"])
    expected = score_round(screen.served, round_["body"], "fr")
    for line in expected["players"]:
        expect(page.locator(f'.scores li[data-seat="{line["seat"]}"] .score')).to_have_text(
            f"{names[line['seat']]} : {pts(line['score'])}"
        )
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    expect(page.get_by_role("status").filter(has_text=f"Manche {n} enregistrée.")).to_be_visible()
    return [line["score"] for line in expected["players"]]


def check_sheet(screen: Screen, sheet: dict[str, Any]) -> None:
    """The totals, each round's winners and the match's as the API's sheet says them."""
    from playwright.sync_api import expect

    page = screen.page
    names = [p["name"] for p in sheet["players"]]
    for seat, total in enumerate(sheet["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
        # the total right after the name, in sight on a phone however many rounds
        row = page.locator("section.totals tbody tr").nth(seat)
        expect(row.locator("td").first).to_have_attribute("data-seat", str(seat))
        box = row.locator("td").first.bounding_box()
        assert box and box["x"] + box["width"] <= page.viewport_size["width"], box
    expect(page.locator("section.totals thead th").nth(1)).to_have_text("Total")
    # only the table scrolls sideways, never the page
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width
    cells = page.locator("td.round-winner")
    expect(cells).to_have_count(len(sheet["rounds"]))
    for i, round_ in enumerate(sheet["rounds"]):
        expect(cells.nth(i)).to_have_text(", ".join(names[s] for s in round_["scores"]["winners"]))
    winners = ", ".join(names[s] for s in sheet["winners"])
    expect(page.locator("#totals-title")).to_have_text(f"Vainqueur : {winners}")
    chart = page.get_by_role("img", name="Score au fil des manches")
    expect(chart).to_be_visible()
    running = [[0] * len(names)]
    for round_ in sheet["rounds"]:
        row = list(running[-1])
        for line in round_["scores"]["players"]:
            row[line["seat"]] += line["score"]
        running.append(row)
    for seat, name in enumerate(names):  # the picture's description: each running total
        values = ", ".join(str(r[seat]) for r in running[1:])
        assert running[-1][seat] == sheet["totals"][seat]
        expect(chart).to_have_accessible_description(
            re.compile(re.escape(f"{name}\u00a0: {values}"))
        )


def test_the_whole_seed_002_journey(browser: Any, served: str) -> None:  # noqa: F811
    from playwright.sync_api import expect

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    pseudo = f"ada_{secrets.token_hex(3)}"

    # -- sign up --------------------------------------------------------------------------
    screen.goto("/inscription")
    screen.heading("Créer mon compte")
    page.get_by_label("Pseudo", exact=True).fill(pseudo)
    page.get_by_label("Mot de passe", exact=True).fill(PASSWORD)
    page.get_by_label("Ta tranche d'âge").select_option("25-34")
    page.get_by_role("checkbox", name="conditions d'utilisation").check()
    page.get_by_role("button", name="Créer mon compte", exact=True).click()
    screen.heading("Bienvenue !")
    token = session_of(screen)["token"]
    auth = {"Authorization": f"Bearer {token}", "Accept-Language": "fr"}
    # ten older sheets of the account, for the history's second page
    older = []
    for i in range(10):
        made = httpx.post(
            f"{served}/v1/scoresheets",
            json={"ruleset": "numwars", "players": [{"name": n} for n in ["Xa", "Xb", f"X{i}"]]},
            headers=auth,
            timeout=10,
        )
        assert made.status_code == 201, made.text
        older.append(made.json()["id"])

    # -- a sheet of four, its first player the account ------------------------------------
    page.get_by_role("button", name="Nouvelle feuille de score", exact=True).click()
    screen.heading("Nouvelle feuille de score")
    page.get_by_role("button", name="Ajouter un joueur", exact=True).click()
    expect(page.get_by_label("Joueur 1", exact=True)).to_have_value(pseudo)
    # the account's own player, chosen whatever its name: player 1 by default
    expect(page.get_by_role("radio", name=f"C’est moi : {pseudo}", exact=True)).to_be_checked()
    for i, name in enumerate(OTHERS, start=2):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    names = [pseudo, *OTHERS]
    totals = [0, 0, 0, 0]
    for n, round_ in enumerate(ROUNDS, start=1):
        for seat, score in enumerate(enter_round(screen, n, round_, names)):
            totals[seat] += score
    screen.heading("Totaux", level=2)  # four planned rounds (one per player): the match is over
    sheet_id = page.url.rsplit("/", 1)[1]
    sheet = api_get(served, f"/v1/scoresheets/{sheet_id}", token)
    assert sheet["finished"] and sheet["totals"] == totals
    assert sheet["players"][0]["account"] == pseudo  # the account's own player: in its stats
    check_sheet(screen, sheet)
    screen.axe("totaux et corrections")

    # -- round 2 corrected here while a second phone corrects round 1 ---------------------
    page.get_by_role("button", name="Corriger la manche 2", exact=True).click()
    screen.heading("Correction de la manche 2", level=2)
    expect(page.get_by_text("Donneur : Bo", exact=True)).to_be_visible()
    bo = page.get_by_role("group", name="Bo", exact=True)
    open_cards(bo)  # one player's cards open at a time
    expect(bo.locator(".cards li span")).to_have_text(["Classique 8 ×4"])  # the round as stored
    expect(page.get_by_role("group", name=pseudo, exact=True).get_by_label("Rôle")).to_have_value(
        "agent"
    )
    add_cards(page, "Dom", "classic", 12, 1)
    screen.axe("correction")

    other = Screen(browser, served, "fr-FR")
    stored = json.dumps({"token": token, "pseudo": pseudo})
    other.context.add_init_script(f"localStorage.setItem('numrules.session', {json.dumps(stored)})")
    other.goto(f"/feuilles/{sheet_id}")
    other.heading("Totaux", level=2)
    other.page.get_by_role("button", name="Corriger la manche 1", exact=True).click()
    other.heading("Correction de la manche 1", level=2)
    add_cards(other.page, "Cy", "classic", 3, 1)
    other.page.get_by_role("button", name="Enregistrer la correction", exact=True).click()
    other.heading("Totaux", level=2)
    expect(other.page.get_by_role("status").filter(has_text="Manche 1 corrigée.")).to_be_visible()
    other.close()
    moved = api_get(served, f"/v1/scoresheets/{sheet_id}", token)
    assert moved["version"] > sheet["version"]

    page.get_by_role("button", name="Enregistrer la correction", exact=True).click()
    expect(page.get_by_role("alert")).to_have_text(
        "Quelqu’un a modifié cette feuille entre-temps sur un autre appareil : elle vient "
        "d’être rechargée. Vérifie ta correction puis enregistre-la à nouveau."
    )
    # still correcting (the focus stays on the button), the correction typed still there
    expect(page.get_by_role("heading", level=2).first).to_have_text("Correction de la manche 2")
    expect(
        page.get_by_role("group", name="Dom", exact=True).locator(".cards li span")
    ).to_have_text(["Classique 12"])
    for seat, total in enumerate(moved["totals"]):  # the fresh sheet, the other's change in
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    screen.axe("correction refusée (412)")
    refused = "the server responded with a status of 412"
    assert any(refused in e for e in screen.errors)
    screen.errors = [e for e in screen.errors if refused not in e]
    page.get_by_role("button", name="Enregistrer la correction", exact=True).click()
    screen.heading("Totaux", level=2)
    news = page.get_by_role("status").filter(has_text="Manche 2 corrigée.")
    expect(news).to_be_visible()
    expect(news).to_be_in_viewport()  # under the heading the focus is on, not far below
    sheet = api_get(served, f"/v1/scoresheets/{sheet_id}", token)
    assert "red-3" in sheet["rounds"][0]["input"]["players"][2]["captured"]  # the other's
    assert "red-12" in sheet["rounds"][1]["input"]["players"][3]["captured"]  # this one's
    assert sheet["rounds"][1]["dealer"] == 1
    assert sheet["totals"] != totals
    check_sheet(screen, sheet)

    # -- history: newest first, by pages ---------------------------------------------------
    menu(screen, "Historique")
    first = api_get(served, "/v1/me/history?limit=10", token)
    assert first["items"][0]["id"] == sheet_id and first["next_cursor"]
    second = api_get(served, f"/v1/me/history?limit=10&cursor={first['next_cursor']}", token)
    expected_ids = [i["id"] for i in first["items"] + second["items"]]
    assert sorted(expected_ids) == sorted([sheet_id, *older])
    items = page.locator("ol.history > li")
    expect(items).to_have_count(10)
    mine = items.first
    expect(mine).to_have_attribute("data-id", sheet_id)
    top = first["items"][0]
    expect(mine).to_contain_text("Gagnée" if top["won"] else "Perdue")
    expect(mine).to_contain_text(f"Ton score : {pts(top['score'])}")
    expect(mine).to_contain_text(", ".join(names))
    screen.axe("historique")
    page.get_by_role("button", name="Voir les plus anciennes", exact=True).click()
    expect(items).to_have_count(11)
    expect(items.nth(10).get_by_role("link")).to_be_focused()
    assert [items.nth(i).get_attribute("data-id") for i in range(11)] == expected_ids
    expect(page.get_by_role("button", name="Voir les plus anciennes")).to_have_count(0)
    mine.get_by_role("link").click()
    screen.heading("Totaux", level=2)
    assert page.url.endswith(f"/feuilles/{sheet_id}")

    # -- stats: the pictures and their numbers ---------------------------------------------
    menu(screen, "Stats")
    stats = api_get(served, "/v1/me/stats", token)
    numwars = stats["rulesets"]["numwars"]
    assert numwars["played"] == 1 and numwars["won"] == int(top["won"])
    wins = page.get_by_role("img", name="Victoires par jeu", exact=True)
    expect(wins).to_be_visible()
    catalogue = httpx.get(
        f"{served}/v1/rulesets", headers={"Accept-Language": "fr"}, timeout=10
    ).json()
    (name,) = [r["name"] for r in catalogue["rulesets"] if r["id"] == "numwars"]
    expect(wins).to_have_accessible_description(
        f"{name} : {plural(numwars['won'], 'victoire', 'victoires')} sur "
        f"{plural(numwars['played'], 'partie', 'parties')}"
    )
    row = page.locator('tr[data-ruleset="numwars"]')
    expect(row.locator('[data-stat="played"]')).to_have_text(str(numwars["played"]))
    expect(row.locator('[data-stat="won"]')).to_have_text(str(numwars["won"]))
    expect(row.locator('[data-stat="best_round_score"]')).to_have_text(
        french_number(numwars["best_round_score"])
    )
    expect(row.locator('[data-stat="average_round_score"]')).to_have_text(
        french_number(numwars["average_round_score"])
    )
    roles = page.get_by_role("img", name="Num Wars : score moyen par rôle", exact=True)
    expect(roles).to_be_visible()
    by_role = numwars["by_role"]
    assert set(by_role) == {"poseur", "agent", "complice"}  # the account's roles of the 4 rounds
    assert sum(r["rounds"] for r in by_role.values()) == 4
    lines = []
    for role in ["poseur", "complice", "demineur", "agent", "civil"]:
        if role not in by_role:
            continue
        got = by_role[role]
        unit = "pt" if abs(got["average_score"]) < 2 else "pts"
        lines.append(
            f"{ROLES_FR[role]} : {french_number(got['average_score'])} {unit} en moyenne sur "
            f"{plural(got['rounds'], 'manche', 'manches')}"
        )
        cells = page.locator(f'tr[data-role="{role}"]')
        expect(cells.locator('[data-stat="rounds"]')).to_have_text(str(got["rounds"]))
    expect(roles).to_have_accessible_description(" ; ".join(lines))
    screen.axe("stats")

    # -- log out, log in by pseudo ---------------------------------------------------------
    page.get_by_role("button", name="Déconnexion", exact=True).click()
    screen.heading("Rejoins la communauté des joueurs !")
    expect(page.get_by_role("navigation").get_by_role("link", name="Historique")).to_have_count(0)
    page.get_by_role("main").get_by_role("button", name="Connexion", exact=True).click()
    screen.heading("Connexion")
    log_in(screen, pseudo, PASSWORD)
    screen.heading(f"Connecté : {pseudo}")

    # -- the account: password, language ---------------------------------------------------
    menu(screen, "Mon compte")
    token = session_of(screen)["token"]
    screen.axe("mon compte")
    wrong = httpx.post(
        f"{served}/v1/me/password",
        json={"current": "not the password", "new": NEW_PASSWORD},
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "fr"},
        timeout=10,
    )
    assert wrong.status_code == 403, wrong.text
    (message,) = [e["message"] for e in wrong.json()["errors"] if e["field"] == "current"]
    current = page.get_by_label("Mot de passe actuel", exact=True)
    current.fill("not the password")
    page.get_by_label("Nouveau mot de passe", exact=True).fill(NEW_PASSWORD)
    page.get_by_role("button", name="Changer le mot de passe", exact=True).click()
    expect(current).to_have_accessible_description(sentence(message))
    expect(current).to_have_attribute("aria-invalid", "true")
    expect(current).to_be_focused()  # the field refused takes the focus, its message read
    expect(page.get_by_role("alert")).to_have_count(0)  # not said again under a field name
    screen.axe("mot de passe refusé")
    screen.errors = [e for e in screen.errors if "status of 403" not in e]
    current.fill(PASSWORD)
    page.get_by_role("button", name="Changer le mot de passe", exact=True).click()
    expect(page.get_by_role("status")).to_have_text(
        "Mot de passe changé : tes autres sessions sont fermées."
    )
    page.get_by_label("Langue", exact=True).select_option("en")
    page.get_by_role("button", name="Enregistrer", exact=True).click()
    # the app speaks the account's new language at once (the focus stays on the button)
    expect(page.get_by_role("heading", level=1)).to_have_text("My account")
    expect(page.get_by_role("status").filter(has_text="Account updated.")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert api_get(served, "/v1/me", token)["locale"] == "en"
    screen.axe("my account")

    # -- the new screens in English ----------------------------------------------------------
    menu(screen, "History")
    expect(page.locator("ol.history > li").first).to_contain_text("Your score")
    screen.axe("history")
    menu(screen, "Stats")
    expect(page.get_by_role("img", name="Wins per game", exact=True)).to_be_visible()
    screen.axe("stats en")
    screen.goto(f"/sheets/{sheet_id}")
    screen.heading("Totals", level=2)
    expect(page.get_by_role("img", name="Score over the rounds")).to_be_visible()
    screen.axe("finished sheet")
    page.get_by_role("button", name="Correct round 3", exact=True).click()
    screen.heading("Correcting round 3", level=2)
    screen.axe("correction en")
    page.get_by_role("button", name="Cancel", exact=True).click()
    screen.heading("Totals", level=2)
    page.get_by_role("button", name="Delete round 3", exact=True).click()
    expect(page.get_by_text("Delete round 3? The later rounds will be renumbered.")).to_be_focused()
    screen.axe("delete asked")
    page.get_by_role("button", name="Cancel", exact=True).click()

    # -- log out, log in by pseudo with the new password ----------------------------------
    page.get_by_role("button", name="Log out", exact=True).click()
    page.get_by_role("main").get_by_role("button", name="Log in", exact=True).click()
    screen.heading("Log in")
    log_in(screen, pseudo, PASSWORD, "Log in")
    expect(page.get_by_role("alert")).to_be_visible()  # the old password no longer opens it
    screen.errors = [e for e in screen.errors if "status of 401" not in e]
    log_in(screen, pseudo, NEW_PASSWORD, "Log in")
    screen.heading(f"Logged in: {pseudo}")
    token = session_of(screen)["token"]
    assert len(api_get(served, f"/v1/scoresheets/{sheet_id}", token)["rounds"]) == 4
    screen.close()


def test_a_round_deleted_a_session_revoked_and_the_account_deleted(
    browser: Any,  # noqa: F811
    served: str,  # noqa: F811
) -> None:
    """A round deleted after asking again (the later ones renumbered, the totals the API's);
    a delete answered 412 after another change reloads the sheet; then the session revoked
    elsewhere: the next request's 401 makes the app forget it and ask to log in again in
    French, and the log-in goes back to the screen it was on; a revoked session found on
    opening the app is never shown as logged in. Last, an email refused under its field and
    the account deleted, asked again first."""
    from playwright.sync_api import expect

    pseudo = f"cy_{secrets.token_hex(3)}"
    made = httpx.post(
        f"{served}/v1/accounts",
        json={
            "pseudo": pseudo,
            "password": PASSWORD,
            "age_range": "18-24",
            "accept_terms": True,
            "locale": "fr",
        },
        timeout=10,
    )
    assert made.status_code == 201, made.text
    token = made.json()["token"]
    auth = {"Authorization": f"Bearer {token}", "Accept-Language": "fr"}
    names = [pseudo, *OTHERS]
    sheet = httpx.post(
        f"{served}/v1/scoresheets",
        json={"ruleset": "numwars", "players": [{"name": n} for n in names]},
        headers=auth,
        timeout=10,
    ).json()
    for round_ in ROUNDS[:3]:
        added = httpx.post(
            f"{served}/v1/scoresheets/{sheet['id']}/rounds",
            json=round_["body"],
            headers=auth,
            timeout=10,
        )
        assert added.status_code == 201, added.text

    screen = Screen(browser, served, "fr-FR")
    page = screen.page
    stored = json.dumps({"token": token, "pseudo": pseudo})
    screen.context.add_init_script(
        f"if (!sessionStorage.getItem('seeded')) {{ sessionStorage.setItem('seeded', '1');"
        f" localStorage.setItem('numrules.session', {json.dumps(stored)}); }}"
    )
    screen.goto(f"/feuilles/{sheet['id']}")
    screen.heading("Manche 4", level=2)
    page.get_by_role("button", name="Supprimer la manche 1", exact=True).click()
    expect(
        page.get_by_text("Supprimer la manche 1 ? Les manches suivantes seront renumérotées.")
    ).to_be_focused()
    screen.axe("suppression demandée")
    page.get_by_role("button", name="Oui, supprimer la manche 1", exact=True).click()
    removed = page.get_by_role("status").filter(has_text="Manche 1 supprimée")
    expect(removed).to_be_visible()
    expect(removed).to_be_in_viewport()  # under the heading the focus is on
    screen.heading("Manche 3", level=2)  # two rounds left, renumbered
    fresh = api_get(served, f"/v1/scoresheets/{sheet['id']}", token)
    assert len(fresh["rounds"]) == 2
    assert fresh["rounds"][0]["input"]["bomb_outcome"] == ROUNDS[1]["body"]["bomb_outcome"]
    for seat, total in enumerate(fresh["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))

    # another change first: the delete is answered 412, the sheet reloaded, nothing lost
    added = httpx.post(
        f"{served}/v1/scoresheets/{sheet['id']}/rounds",
        json=ROUNDS[3]["body"],
        headers=auth,
        timeout=10,
    )
    assert added.status_code == 201, added.text
    page.get_by_role("button", name="Supprimer la manche 2", exact=True).click()
    page.get_by_role("button", name="Oui, supprimer la manche 2", exact=True).click()
    expect(page.get_by_role("alert")).to_contain_text(
        "Quelqu’un a modifié cette feuille entre-temps sur un autre appareil"
    )
    expect(page.locator("td.round-winner")).to_have_count(3)  # the round added elsewhere shows
    assert len(api_get(served, f"/v1/scoresheets/{sheet['id']}", token)["rounds"]) == 3
    screen.errors = [e for e in screen.errors if "status of 412" not in e]

    # the session revoked elsewhere (another device logs it out)
    gone = httpx.delete(f"{served}/v1/sessions/current", headers=auth, timeout=10)
    assert gone.status_code == 204, gone.text
    page.get_by_role("navigation").get_by_role("link", name="Historique", exact=True).click()
    screen.heading("Connexion")  # the history's 401: the session is forgotten
    expect(page.get_by_role("alert")).to_have_text(
        "Ta session a pris fin (déconnexion, mot de passe changé ou délai dépassé) : "
        "connecte-toi à nouveau."
    )
    expect(page.get_by_role("navigation").get_by_role("link", name="Connexion")).to_be_visible()
    assert page.evaluate("localStorage.getItem('numrules.session')") is None
    screen.axe("session terminée")
    log_in(screen, pseudo, PASSWORD)
    screen.heading("Historique")  # back where the session was lost
    expect(page.locator("ol.history > li").first).to_have_attribute("data-id", sheet["id"])
    screen.errors = [e for e in screen.errors if "status of 401" not in e]

    # a revoked session found on opening the app: never shown as « Connecté »
    revoked = session_of(screen)["token"]
    assert (
        httpx.delete(
            f"{served}/v1/sessions/current",
            headers={"Authorization": f"Bearer {revoked}"},
            timeout=10,
        ).status_code
        == 204
    )
    screen.goto("/")
    screen.heading("Connexion")
    expect(page.get_by_role("alert")).to_contain_text("Ta session a pris fin")
    screen.errors = [e for e in screen.errors if "status of 401" not in e]

    # the account: an email refused under its field, then the account deleted (asked again)
    log_in(screen, pseudo, PASSWORD)
    screen.heading(f"Connecté : {pseudo}")
    token = session_of(screen)["token"]
    refused = httpx.patch(
        f"{served}/v1/me",
        json={"email": "pas-un-email"},
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "fr"},
        timeout=10,
    )
    assert refused.status_code == 422, refused.text
    (message,) = [e["message"] for e in refused.json()["errors"] if e["field"] == "email"]
    menu(screen, "Mon compte")
    email = page.get_by_label("Email", exact=True)
    email.fill("pas-un-email")
    page.get_by_role("button", name="Enregistrer", exact=True).click()
    expect(email).to_have_accessible_description(sentence(message))
    expect(email).to_be_focused()
    screen.errors = [e for e in screen.errors if "status of 422" not in e]
    page.get_by_role("button", name="Supprimer mon compte", exact=True).click()
    warning = page.get_by_text("Tes données personnelles et les feuilles que tu possèdes")
    expect(warning).to_be_focused()
    screen.axe("suppression du compte demandée")
    page.get_by_role("button", name="Oui, supprimer définitivement mon compte").click()
    screen.heading("Rejoins la communauté des joueurs !")
    expect(page.get_by_role("status")).to_have_text("Ton compte est supprimé. À bientôt !")
    assert page.evaluate("localStorage.getItem('numrules.session')") is None
    gone_me = httpx.get(f"{served}/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert gone_me.status_code == 401
    assert httpx.get(
        f"{served}/v1/scoresheets/{sheet['id']}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    ).status_code in (401, 404)
    screen.close()
