"""The other rulesets' score sheets in the app (issue 24), in headless Chromium on PostgreSQL.

A Num King sheet with an account (the first dealer chosen, bids then tricks for two rounds,
each round's live score checked against the stateless `score-round`, a round refused by the
API shown under its fields in French, the leader, totals and winners checked against the
API's own sheet); a Num Win round (the lowest total wins); a Num Wars classic round under
`alliance` (the teams' scores) on an anonymous sheet, whose new-sheet screen shows the
community games locked. axe-core on each new screen in French and English. The fixtures are
tests/api/test_app_browser.py's.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx

from tests.api.test_app_browser import (  # noqa: F401
    PASSWORD,
    Screen,
    browser,
    pts,
    sentence,
    served,
)
from tests.api.test_docs_browser import browser_path  # noqa: F401


def de(name: str) -> str:
    """The app's French « de » before a name: « d' » before a vowel (i18n.ts `de`)."""
    return f"d’{name}" if re.match(r"[aeiouàâäéèêëîïôöùûüæœ]", name, re.I) else f"de {name}"


def screen_in(browser: Any, served: str, locale: str) -> Screen:  # noqa: F811
    """A Screen whose requests carry the app's own `Accept-Language` (the browser's locale
    still chooses the first language): no header forced over the app's, so a language switch
    is seen in the API's words too."""
    screen = Screen(browser, served, locale)
    screen.context.set_extra_http_headers({})
    return screen


def points_en(points: int) -> str:
    return f"{points} pt" if abs(points) == 1 else f"{points} pts"


def api_call(
    base: str, method: str, path: str, language: str = "fr", token: str | None = None, **kw: Any
) -> httpx.Response:
    headers = {"Accept-Language": language}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.request(method, f"{base}{path}", headers=headers, timeout=10, **kw)


def scored(base: str, ruleset: str, body: dict[str, Any], language: str) -> dict[str, Any]:
    answer = api_call(base, "POST", f"/v1/rulesets/{ruleset}/score-round", language, json=body)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def logged_in(screen: Screen, prefix: str) -> str:
    """An account made through the API, its session kept on the device as the app keeps it."""
    pseudo = f"{prefix}_{secrets.token_hex(3)}"
    made = api_call(
        screen.served,
        "POST",
        "/v1/accounts",
        json={"pseudo": pseudo, "password": PASSWORD, "age_range": "25-34", "accept_terms": True},
    )
    assert made.status_code == 201, made.text
    token: str = made.json()["token"]
    screen.goto("/")
    screen.page.evaluate(
        "([token, pseudo]) => localStorage.setItem('numrules.session', "
        "JSON.stringify({ token, pseudo }))",
        [token, pseudo],
    )
    return token


def switch(screen: Screen, to: str) -> None:
    """The banner's language switch (the screenshots then named by the language shown)."""
    screen.page.get_by_role("button", name=to, exact=True).click()
    screen.locale = "en-US" if to == "English" else "fr-FR"


def shown(screen: Screen, name: str, level: int = 1) -> None:
    """The screen's heading, after a language switch (which keeps the focus on the switch)."""
    from playwright.sync_api import expect

    heading = screen.page.get_by_role("heading", level=level, name=name, exact=True)
    expect(heading).to_be_visible()


def expect_scores(
    screen: Screen, names: list[str], answer: dict[str, Any], unit: Any, sep: str = " : "
) -> None:
    """The live score shows each player's score and every breakdown line as the API says."""
    from playwright.sync_api import expect

    page = screen.page
    for line in answer["players"]:
        seat = line["seat"]
        item = page.locator(f'.scores li[data-seat="{seat}"]')
        expect(item.locator(".score")).to_have_text(f"{names[seat]}{sep}{unit(line['score'])}")
        for part in line["breakdown"]:
            expect(item.locator(".breakdown")).to_contain_text(
                f"{part['label']}{sep}{unit(part['points'])}"
            )


def new_sheet(screen: Screen, ruleset: str, names: list[str], planned: int | None) -> None:
    page = screen.page
    page.get_by_role("radio", name=ruleset, exact=True).check()
    add = page.get_by_role("button", name="Ajouter un joueur", exact=True)
    while page.get_by_role("textbox", name=re.compile(r"^Joueur \d+$")).count() < len(names):
        add.click()
    for i, name in enumerate(names, start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    if planned is not None:
        page.get_by_label("Manches prévues", exact=True).fill(str(planned))


def a_sheet_of_three(screen: Screen) -> None:
    """A new Num Wars sheet of Ada, Bo and Cy created in the app, open at « Manche 1 »."""
    page = screen.page
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    for i, name in enumerate(["Ada", "Bo", "Cy"], start=1):
        page.get_by_label(f"Joueur {i}", exact=True).fill(name)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)


def sheet_of(screen: Screen, token: str) -> dict[str, Any]:
    sheet_id = screen.page.url.rsplit("/", 1)[1]
    answer = api_call(screen.served, "GET", f"/v1/scoresheets/{sheet_id}", token=token)
    assert answer.status_code == 200, answer.text
    sheet: dict[str, Any] = answer.json()
    return sheet


def bid_and_take(screen: Screen, names: list[str], bids: list[int], tricks: list[int]) -> None:
    page = screen.page
    for name, bid in zip(names, bids, strict=True):
        page.get_by_label(f"Annonce {de(name)}", exact=True).select_option(str(bid))
    page.get_by_role("button", name="Valider les annonces", exact=True).click()
    for name, taken in zip(names, tricks, strict=True):
        page.get_by_label(f"Plis {de(name)}", exact=True).select_option(str(taken))


def test_a_num_king_sheet_bids_then_tricks(browser: Any, served: str) -> None:  # noqa: F811
    """Two rounds of Num King for three: round n deals n cards; the bids first, then the
    tricks; the streaks the sheet derives feed the live score; a round whose tricks are more
    than its cards is refused under each trick field, in French; the leader and the winner
    are the API's."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    token = logged_in(screen, "king")
    names = ["Ada", "Bo", "Cy"]
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num King", names, 2)
    expect(page.get_by_text("De 2 à 8 joueurs")).to_be_visible()
    deck = api_call(served, "GET", "/v1/rulesets/numking/deck?players=3").json()
    assert deck["hand_size"] == 12  # 36 cards for 3: the match's length, by default
    expect(page.get_by_label("Manches prévues", exact=True)).to_have_attribute("placeholder", "12")
    expect(page.get_by_role("radio", name="Num Win", exact=True)).to_be_enabled()  # an account
    page.get_by_label("Premier donneur", exact=True).select_option(label="Bo")
    screen.axe("nouvelle feuille num king")
    page.get_by_role("button", name="Créer la feuille", exact=True).click()

    # round 1: one card each
    screen.heading("Manche 1", level=2)
    expect(page.get_by_text("Donneur : Bo")).to_be_visible()
    expect(page.get_by_text("1 carte par joueur")).to_be_visible()
    expect(page.get_by_role("button", name="Enregistrer la manche")).to_be_disabled()
    screen.axe("num king annonces")
    bid_and_take(screen, names, [1, 0, 1], [1, 0, 0])
    first = scored(
        served,
        "numking",
        {
            "cards": 1,
            "players": [
                {"bid": 1, "tricks": 1, "streak": 0},
                {"bid": 0, "tricks": 0, "streak": 0},
                {"bid": 1, "tricks": 0, "streak": 0},
            ],
        },
        "fr",
    )
    expect_scores(screen, names, first, pts)
    screen.axe("num king plis")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    expect(page.get_by_role("status").filter(has_text="Manche 1 enregistrée.")).to_be_visible()

    screen.heading("Manche 2", level=2)
    sheet = sheet_of(screen, token)
    assert sheet["rounds"][0]["dealer"] == 1  # the first dealer chosen
    assert [p["score"] for p in sheet["rounds"][0]["scores"]["players"]] == [
        p["score"] for p in first["players"]
    ]
    for seat, total in enumerate(sheet["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    expect(page.locator(".leader")).to_have_text(f"En tête : {names[sheet['leader']]}")
    # the round's winners named once, in the row under the rounds, as the API names them
    # (app_polish: no star and key beside them any more)
    winners = ", ".join(names[s] for s in sheet["rounds"][0]["scores"]["winners"])
    expect(page.locator("td.round-winner").first).to_have_text(winners)
    expect(page.locator(".totals")).not_to_contain_text("★")
    expect(page.get_by_text("Donneur : Cy")).to_be_visible()  # rotated
    expect(page.get_by_text("2 cartes par joueur")).to_be_visible()

    # round 2: more tricks than cards, refused by the API under each trick field, in French
    bid_and_take(screen, names, [1, 1, 0], [2, 1, 0])
    expect(page.get_by_text("Plis pris : 3 sur 2")).to_be_visible()
    refused = api_call(
        served,
        "POST",
        f"/v1/scoresheets/{sheet['id']}/rounds",
        token=token,
        json={
            "players": [{"bid": 1, "tricks": 2}, {"bid": 1, "tricks": 1}, {"bid": 0, "tricks": 0}]
        },
    )
    assert refused.status_code == 422 and refused.json()["code"] == "too-many-tricks"
    message = {e["field"]: e["message"] for e in refused.json()["errors"]}["players[0].tricks"]
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    for name in ["Ada", "Bo"]:
        field = page.get_by_label(f"Plis {de(name)}", exact=True)
        expect(field).to_have_attribute("aria-invalid", "true")
        expect(field).to_have_accessible_description(sentence(message))
    # the detail says what each field's message says: said once, under the fields (ui.Problem)
    assert refused.json()["detail"] == message
    expect(page.get_by_role("alert")).to_have_count(0)
    screen.axe("num king manche refusée")
    screen.errors = [e for e in screen.errors if "status of 422" not in e]

    # the English screens of the round, then back to French
    switch(screen, "English")
    screen.page.get_by_role("heading", level=2, name="Round score").wait_for()
    expect(page.get_by_label("Tricks taken by Ada", exact=True)).to_be_visible()
    screen.axe("num king round")
    switch(screen, "Français")
    page.get_by_label("Plis d’Ada", exact=True).select_option("1")
    streaks = [p["streak"] for p in sheet["rounds"][0]["scores"]["players"]]
    second = scored(
        served,
        "numking",
        {
            "cards": 2,
            "players": [
                {"bid": 1, "tricks": 1, "streak": streaks[0]},
                {"bid": 1, "tricks": 1, "streak": streaks[1]},
                {"bid": 0, "tricks": 0, "streak": streaks[2]},
            ],
        },
        "fr",
    )
    assert any(
        part["kind"] == "precision-bonus"
        for line in second["players"]
        for part in line["breakdown"]
    )  # two bids met in a row: the streak came from round 1
    expect_scores(screen, names, second, pts)
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()

    screen.heading("Totaux", level=2)  # the two planned rounds: the match is over
    sheet = sheet_of(screen, token)
    assert sheet["finished"] is True
    assert sheet["rounds"][1]["dealer"] == 2
    winners = ", ".join(names[seat] for seat in sheet["winners"])
    expect(page.locator("#totals-title")).to_have_text(f"Vainqueur : {winners}")
    for seat, total in enumerate(sheet["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    assert sheet["totals"] == [
        a["score"] + b["score"] for a, b in zip(first["players"], second["players"], strict=True)
    ]
    expect(page.get_by_text("2 manches sur 2")).to_be_visible()
    screen.axe("num king totaux")
    screen.close()


def test_a_num_win_round_in_english_then_french(browser: Any, served: str) -> None:  # noqa: F811
    """A Num Win round: each combination by card type (action cards among them), a pair
    locked by a snap, who called; scored live as `score-round` scores it, in English then in
    French; the one planned round saved, the winner is the lowest total, as the API says."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "en-US")
    page = screen.page
    token = logged_in(screen, "win")
    names = ["Ann", "Bob", "Cat"]
    screen.goto("/sheets/new")
    screen.heading("New score sheet")
    page.get_by_role("radio", name="Num Win", exact=True).check()
    expect(page.get_by_text("The lowest total wins.")).to_be_visible()
    for i, name in enumerate(names, start=1):
        page.get_by_label(f"Player {i}", exact=True).fill(name)
    page.get_by_label("Planned rounds", exact=True).fill("1")
    screen.axe("new sheet num win")
    page.get_by_role("button", name="Create the sheet", exact=True).click()
    screen.heading("Round 1", level=2)
    expect(page.get_by_text("Each combination holds at least 5 cards")).to_be_visible()

    def add(
        player: str, part: str, kind: str, value: int | None = None, n: int | None = None
    ) -> None:
        group = page.get_by_role("group", name=player, exact=True).get_by_role(
            "group", name=part, exact=True
        )
        group.get_by_label("CARD TYPE").select_option(kind)
        if value is not None:
            group.get_by_label("Value", exact=True).select_option(str(value))
        if n is not None:
            group.get_by_label("Count", exact=True).select_option(str(n))
        group.get_by_role("button", name="Add", exact=True).click()

    add("Ann", "Combination", "classic", 3, 2)
    add("Ann", "Combination", "classic", 8, 1)
    add("Ann", "Combination", "rainbow", 4)
    add("Ann", "Combination", "swipe")
    add("Bob", "Locked pairs", "rainbow-shadow", 2)
    add("Bob", "Combination", "classic", 10, 3)
    add("Cat", "Combination", "classic", 0, 4)
    add("Cat", "Combination", "malus-1")
    page.get_by_label('Who called "Num Win"?').select_option(label="Ann")
    body = {
        "caller": 0,
        "players": [
            {"combination": ["red-3", "blue-3", "red-8", "rainbow-4", "swipe"]},
            {
                "combination": ["red-10", "blue-10", "green-10"],
                "locked": [["rainbow-2", "shadow-2"]],
            },
            {"combination": ["red-0", "blue-0", "green-0", "yellow-0", "malus-1"]},
        ],
    }
    expect_scores(screen, names, scored(served, "numwin", body, "en"), points_en, ": ")
    screen.axe("num win round")
    switch(screen, "Français")
    page.get_by_role("heading", level=2, name="Score de la manche").wait_for()
    french = scored(served, "numwin", body, "fr")
    expect_scores(screen, names, french, pts)
    screen.axe("manche num win")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Totaux", level=2)
    sheet = sheet_of(screen, token)
    assert sheet["totals"] == [line["score"] for line in french["players"]]
    lowest = min(sheet["totals"])
    assert [names[s] for s in sheet["winners"]] == [
        names[s] for s, total in enumerate(sheet["totals"]) if total == lowest
    ]
    winners = ", ".join(names[seat] for seat in sheet["winners"])
    expect(page.locator("#totals-title")).to_have_text(f"Vainqueur : {winners}")
    expect(page.get_by_text("Le plus petit total gagne.")).to_be_visible()
    screen.close()


def test_an_anonymous_classic_round_with_alliance(browser: Any, served: str) -> None:  # noqa: F811
    """Without an account, Num King and Num Win are locked (🔒, with the links to sign up and
    to log in) in both languages; a Num Wars classic sheet works at once: a round's captured
    cards under `alliance`, the teams' scores shown live and in the totals, as the API gives."""
    from playwright.sync_api import expect

    screen = screen_in(browser, served, "fr-FR")
    page = screen.page
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    for locked in ["Num King 🔒 (compte requis)", "Num Win 🔒 (compte requis)"]:
        expect(page.get_by_role("radio", name=locked, exact=True)).to_be_disabled()
    main = page.get_by_role("main")
    expect(
        main.get_by_text("🔒 Crée un compte pour accéder aux jeux de la communauté")
    ).to_be_visible()
    expect(main.get_by_role("link", name="Créer mon compte", exact=True)).to_have_attribute(
        "href", "/inscription"
    )
    expect(main.get_by_role("link", name="Connexion", exact=True)).to_be_visible()
    screen.axe("nouvelle feuille anonyme")
    switch(screen, "English")
    shown(screen, "New score sheet")
    expect(
        page.get_by_role("radio", name="Num King 🔒 (account required)", exact=True)
    ).to_be_disabled()
    expect(main.get_by_role("link", name="Create my account", exact=True)).to_be_visible()
    screen.axe("new sheet, anonymous")
    switch(screen, "Français")
    shown(screen, "Nouvelle feuille de score")

    names = ["Ana", "Ben", "Cid", "Dom"]
    new_sheet(screen, "Num Wars (édition classique)", names, 1)
    page.get_by_label("Alliance", exact=False).check()
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    token = page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))")[
        page.url.rsplit("/", 1)[1]
    ]

    def add(player: str, kind: str, value: int | None = None, n: int | None = None) -> None:
        group = page.get_by_role("group", name=player, exact=True)
        group.get_by_label("TYPE DE CARTE").select_option(kind)
        if value is not None:
            group.get_by_label("Valeur", exact=True).select_option(str(value))
        if n is not None:
            group.get_by_label("Nombre", exact=True).select_option(str(n))
        group.get_by_role("button", name="Ajouter", exact=True).click()

    add("Ana", "classic", 5, 3)
    add("Ana", "pair", 7)
    add("Ben", "joker")
    add("Cid", "rainbow", 9)
    add("Dom", "shadow", 9)
    add("Dom", "classic", 12, 1)
    body = {
        "players": [
            {"captured": ["red-5", "blue-5", "green-5", "rainbow-7", "shadow-7"]},
            {"captured": ["joker"]},
            {"captured": ["rainbow-9"]},
            {"captured": ["shadow-9", "red-12"]},
        ],
        "options": {"alliance": True},
    }
    answer = scored(served, "numwars-classic", body, "fr")
    expect_scores(screen, names, answer, pts)
    for team in answer["teams"]:
        who = " et ".join(names[s] for s in team["seats"])
        expect(page.locator(".scores.teams")).to_contain_text(
            f"Équipe {who} : {pts(team['score'])}"
        )
    screen.axe("manche classique")
    switch(screen, "English")
    shown(screen, "Round 1", level=2)
    expect(
        page.get_by_role("group", name="Ana", exact=True).get_by_label("CARD TYPE")
    ).to_be_visible()
    screen.axe("classic round")
    switch(screen, "Français")
    shown(screen, "Manche 1", level=2)
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Totaux", level=2)
    sheet = sheet_of(screen, token)
    assert sheet["finished"] is True and sheet["teams"]
    for seat, total in enumerate(sheet["totals"]):
        expect(page.locator(f'td.total[data-seat="{seat}"]')).to_have_text(str(total))
    for i, team in enumerate(sheet["teams"]):
        who = " et ".join(names[s] for s in team["seats"])
        expect(page.locator(f'.team-totals li[data-team="{i}"]')).to_have_text(
            f"Équipe {who} : {pts(team['score'])}"
        )
    winners = ", ".join(names[seat] for seat in sheet["winners"])
    expect(page.locator("#totals-title")).to_have_text(f"Vainqueur : {winners}")
    screen.axe("totaux classiques")

    # a tie on the totals calls for a tie-break round: shown, never added to the totals
    screen.goto("/feuilles/nouvelle")
    screen.heading("Nouvelle feuille de score")
    new_sheet(screen, "Num Wars (édition classique)", names[:3], 1)
    page.get_by_role("button", name="Créer la feuille", exact=True).click()
    screen.heading("Manche 1", level=2)
    expect(page.locator('.scores li[data-seat="0"] .score')).to_have_text("Ana : 0 pt")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Manche 2", level=2)  # all tied at 0
    expect(page.get_by_text("Manche de départage : elle seule départage")).to_be_visible()
    add("Cid", "classic", 4, 1)
    expect(page.locator('.scores li[data-seat="2"] .score')).to_have_text("Cid : 4 pts")
    page.get_by_role("button", name="Enregistrer la manche", exact=True).click()
    screen.heading("Totaux", level=2)
    sheet = sheet_of(
        screen,
        page.evaluate("JSON.parse(localStorage.getItem('numrules.sheets'))")[
            page.url.rsplit("/", 1)[1]
        ],
    )
    assert sheet["totals"] == [0, 0, 0] and sheet["winners"] == [2]
    expect(page.locator("#totals-title")).to_have_text("Vainqueur : Cid")
    expect(page.get_by_role("columnheader", name="Départage (manche 2)")).to_be_visible()
    expect(page.locator('td.total[data-seat="2"]')).to_have_text("0")
    screen.close()
